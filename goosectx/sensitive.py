"""Sensitive files, the paths a read-only tool call reads, the paths a rule matches.

docs/architecture.md §4 (clause "read scoping"). :func:`rule_paths` gives the paths a
``text_editor`` permission rule is matched against. In ``smart_approve`` a ``text_editor view``
or ``tree`` call runs without asking only when every path it reads lies inside the session's
working dir (resolved, symlinks followed; a file with other hard links may be outside) and
none is sensitive. This module is the ONE place that says what "sensitive" means; the
approval clauses (read scoping, permission rules: "an allow rule never overrides the
sensitive-file list unless it names the path") import it from here.

Core module: no printing, no ``cli`` imports.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goosectx.lazy_pattern import LazyPattern

if TYPE_CHECKING:
    from goosectx.shell_dirs import Walked

SENSITIVE_NAMES: tuple[str, ...] = (
    ".ssh", ".aws", ".gnupg", ".azure", ".kube", ".docker", ".password-store",
    ".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".vault-token", ".s3cfg",
    ".boto", ".bash_history", ".zsh_history", ".histfile", ".sh_history", "fish_history",
    ".psql_history", ".mysql_history", ".python_history", ".node_repl_history",
    ".terraformrc", "credentials.tfrc.json", "terraform.tfstate", "terraform.tfstate.backup",
    ".my.cnf", ".mylogin.cnf", ".htpasswd", ".dockercfg",
)
"""File or directory names that are sensitive wherever they appear in a path (shell and REPL
histories among them: secrets get typed there)."""

SENSITIVE_GLOBS: tuple[str, ...] = (".env*", "*.pem", "*.key", "*.p12", "*.pfx", "id_*")
"""Shell patterns matched against each component of a path."""

SENSITIVE_PAIRS: tuple[tuple[str, str], ...] = (
    (".git", "config"), (".config", "gh"), (".config", "gcloud"),
    (".cargo", "credentials"), (".cargo", "credentials.toml"), (".config", "hub"),
    (".gem", "credentials"), (".composer", "auth.json"), ("composer", "auth.json"),
    ("rclone", "rclone.conf"),
)
"""A directory and a name in it that are sensitive together, wherever they appear in a path:
a repository's ``.git/config`` (remote URLs with tokens), the GitHub CLI's and gcloud's
credential directories, cargo's and RubyGems' registry tokens, Composer's and rclone's
credentials. ``.git`` or ``.config`` alone is not."""

GIT_CONFIG_NAMES: tuple[str, ...] = ("config", "config.worktree")
"""Git config files: sensitive as the last name of a path anywhere below a ``.git``
directory — a submodule's ``.git/modules/NAME/config``, a worktree's
``.git/worktrees/NAME/config.worktree`` — as ``.git/config`` is (remote URLs with tokens)."""

SYSTEM_FILES: tuple[str, ...] = (
    "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers",
    "/etc/sudoers.d", "/etc/security/opasswd", "/etc/master.passwd", "/etc/spwd.db",
    "/private/etc/master.passwd", "/private/etc/sudoers", "/private/etc/sudoers.d",
)
"""System credential files (password hashes, sudo rules; ``shadow-`` a backup; macOS's
``/etc`` is ``/private/etc``), and what lies below them (``/etc/sudoers.d/*``): sensitive at
these absolute paths only."""

_SYSTEM_PARTS = tuple(Path(system).parts for system in SYSTEM_FILES)

ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})
READ_TOOLS: Mapping[str, str] = {"text_editor": "view", "tree": ""}
"""Tool name → the command that reads (``""``: every call of the tool reads)."""


@functools.lru_cache(maxsize=4096)
def _component_sensitive(name: str) -> bool:
    # Lower-cased (``.ENV`` opens ``.env`` on macOS; ``Prod.PEM`` is as secret anywhere); the
    # templates of ``.env`` a project commits (ENV_TEMPLATES) hold placeholders: no secret.
    name = name.lower()
    return name in SENSITIVE_NAMES or name not in ENV_TEMPLATES and any(
        fnmatch.fnmatchcase(name, g) for g in SENSITIVE_GLOBS)


PACKAGE_DIRS: tuple[str, ...] = ("site-packages", "dist-packages", "node_modules")
"""Dirs of installed packages: a ``*.pem`` below one is a public CA bundle a package ships
(pip's and certifi's ``cacert.pem``), not a user's key; every other name stays sensitive there."""


def _parts_sensitive(parts: tuple[str, ...]) -> bool:
    if any(_component_sensitive(part) and not _package_pem(parts, i)
           for i, part in enumerate(parts)):
        return True
    lowered = [part.lower() for part in parts]
    if lowered and lowered[-1] in GIT_CONFIG_NAMES and ".git" in lowered[:-1]:
        return True
    return any(pair in SENSITIVE_PAIRS for pair in zip(lowered, lowered[1:], strict=False))


def _package_pem(parts: tuple[str, ...], i: int) -> bool:
    """True when ``parts[i]``, the last name, is sensitive only as a ``*.pem`` in a package dir."""
    name = parts[i].lower()
    return i == len(parts) - 1 and name.endswith(".pem") and any(
        part.lower() in PACKAGE_DIRS for part in parts[:i]) and not (
        name in SENSITIVE_NAMES or any(fnmatch.fnmatchcase(name, glob)
                                       for glob in SENSITIVE_GLOBS if glob != "*.pem"))


def inside(path: Path, directory: Path) -> bool:
    """True when ``path`` is ``directory`` or below it, as written (no resolving)."""
    top = directory.parts  # compared as tuples: `in path.parents` builds a Path per parent
    if top and path.is_absolute() == directory.is_absolute():
        return path.parts[:len(top)] == top
    return path == directory or directory in path.parents


def expand_user(path: Path | str) -> Path:
    """``path`` with a leading ``~`` or ``~name`` expanded, as bash does.

    ``~name`` for a user that does not exist stays as written (bash leaves it so), a
    relative path: :meth:`Path.expanduser` raises ``RuntimeError`` there instead.
    """
    if not (path if isinstance(path, str) else str(path)).startswith("~"):
        return path if isinstance(path, Path) else Path(path)  # most paths: nothing to expand
    try:
        return Path(path).expanduser()
    except RuntimeError:  # ~nosuchuser
        return Path(path)


def resolve(path: Path) -> Path:
    """``path`` absolute, ``~`` expanded, ``..`` and symlinks resolved (missing parts kept)."""
    expanded = expand_user(path)
    try:
        return expanded.resolve(strict=False)
    except (OSError, RuntimeError, ValueError):  # a loop, a lone surrogate: as written
        return Path(os.path.abspath(expanded))


def cached_resolve(path: Path, cache: dict[str, Path]) -> Path:
    """:func:`resolve` for many paths in the same dirs: each dir's real path looked up once.

    ``realpath(dir/name)`` is ``realpath(dir)/name`` when ``name`` is no symlink (one
    ``lstat``); a path with ``~``, ``.`` or ``..`` in it, or not absolute, is resolved whole.
    ``cache`` lives for one decision: a link changed later is looked up again.
    """
    text = str(path)
    if (found := cache.get(text)) is not None:
        return found
    head, _, name = text.rpartition("/")
    if not head or not text.startswith("/") or _DOTS.search(text):
        real = resolve(path)
    else:
        try:
            link = stat.S_ISLNK(os.lstat(text).st_mode)
        except (OSError, ValueError):
            link = False  # missing: kept as written below its real dir, as realpath does
        if link:
            real = resolve(path)
        else:
            if (parent := cache.get(head)) is None:
                parent = cache[head] = resolve(Path(head))
            real = parent / name
    cache[text] = real
    return real


_DOTS = LazyPattern(r"/\.\.?(?:/|$)")


def is_sensitive(path: Path, *, data_dir: Path | None = None,
                 config_file: Path | None = None) -> bool:
    """True when ``path`` names a file on the sensitive list or anything in the data dir.

    :func:`sensitive_why` without the why.
    """
    return sensitive_why(path, data_dir=data_dir, config_file=config_file) is not None


def sensitive_why(path: Path, *, data_dir: Path | None = None,
                  config_file: Path | None = None) -> str | None:
    """Why ``path`` is sensitive, or ``None`` when it is not.

    ``"is a sensitive file"`` (a name on the list), ``"is goosectx's config file"`` or ``"is in
    goosectx's data dir"``: said after the path. Names are matched case-insensitively
    (``.ENV``, ``ID_RSA``, ``server.KEY``). Both the path as given (made absolute) and the
    resolved path are checked, so neither a symlink named ``notes.txt`` pointing into
    ``~/.ssh`` nor a link named ``.env`` escapes.

    Args:
        path: An absolute path (a relative one is taken relative to the current dir).
        data_dir: goosectx's data dir (sessions, logs, tool output); everything under it
            is sensitive.
        config_file: goosectx's config file (extension headers and envs hold tokens).
    """
    return sensitive_judge(data_dir, config_file)(path)


def sensitive_judge(data_dir: Path | None = None,
                    config_file: Path | None = None) -> Callable[[Path], str | None]:
    """:func:`sensitive_why` for many paths: the data dir and config file resolved once."""
    config = None if config_file is None else resolve(config_file)
    cache: dict[str, Path] = {}
    data = None if data_dir is None else (resolve(data_dir), Path(os.path.abspath(data_dir)))

    def why(path: Path) -> str | None:
        path = expand_user(path)
        text = str(path)
        written = path if text.startswith("/") and not _DOTS.search(text) and "//" not in text \
            else Path(os.path.abspath(path))
        resolved = cached_resolve(path, cache)
        for candidate in (written,) if resolved == written else (written, resolved):
            parts = candidate.parts
            if _parts_sensitive(parts) or any(parts[:len(system)] == system
                                              for system in _SYSTEM_PARTS):
                return "is a sensitive file"
        if config is not None and resolved == config:
            return "is goosectx's config file"
        if data is not None and (inside(resolved, data[0]) or inside(written, data[1])):
            return "is in goosectx's data dir"
        return None

    return why


def read_paths(tool_name: str, arguments: Mapping[str, Any],
               working_dir: Path) -> list[Path] | None:
    """The paths a read-only built-in tool call reads, absolute; ``None`` if it is no read.

    ``text_editor`` with ``command: view`` reads ``path``; ``tree`` reads ``path``
    (the working dir when missing). A path that is not a string reads as the working dir
    (the tool refuses it anyway).
    """
    command = READ_TOOLS.get(tool_name)
    if command is None or (command and arguments.get("command") != command):
        return None
    raw = arguments.get("path")
    if not isinstance(raw, str) or not raw.strip():
        raw = "."
    return [Path(os.path.abspath(working_dir / expand_user(raw)))]


def rule_paths(path: str, working_dir: Path) -> list[tuple[str, ...]]:
    """What a ``text_editor`` permission rule's PATH is matched against, for ``path``.

    One entry per file: the path as written (``..`` folded) and, when it differs, the file it
    reaches, symlinks followed (``p2/a.txt`` with ``p2 -> protected``, ``/proc/self/cwd/…``): a
    deny rule naming the file holds whatever the way to it. Each entry holds the names of its
    file, in POSIX form: first relative to the working dir when inside it (the resolved one to
    the resolved working dir; or to the logical dir, :func:`relative_name`), else absolute;
    then the absolute path, when that differs. A deny or ask rule matching any name holds (one
    written with the path ``pwd`` shows, ``/…/link/secrets/*``); an allow rule reads the first.
    """
    written = Path(os.path.abspath(working_dir / expand_user(path)))
    real_dir = resolve(working_dir)
    real = resolve(real_dir / expand_user(path))
    try:
        real_name = real.relative_to(real_dir)
    except ValueError:
        real_name = real
    entries = [(relative_name(written, working_dir), written), (real_name, real)]
    return list(dict.fromkeys(tuple(dict.fromkeys((name.as_posix(), full.as_posix())))
                              for name, full in entries))


def logical_dir(working_dir: Path) -> Path | None:
    """The shell's logical current dir (``$PWD``) when it is another path to ``working_dir``.

    A project opened through a symlinked path (``cd ~/work`` with ``~/work -> /data/work``):
    the session's working dir is the physical ``/data/work``, while ``pwd`` in the shell tool
    (and so the model) says ``~/work``. ``None`` when ``$PWD`` is unset, relative, the same
    path, or another directory.
    """
    pwd = os.environ.get("PWD", "")
    if not pwd.startswith("/"):
        return None
    logical = Path(os.path.abspath(pwd))
    if logical == Path(os.path.abspath(working_dir)):
        return None
    try:
        return logical if os.path.samefile(logical, working_dir) else None
    except (OSError, ValueError):
        return None


def relative_name(path: Path, working_dir: Path) -> Path:
    """Absolute ``path`` relative to the working dir when inside it, else as given.

    Inside means below ``working_dir`` as written, or below the logical current dir that is
    another path to it (:func:`logical_dir`): ``$PWD/pkgs/a.py`` is ``pkgs/a.py``.
    """
    for base in (Path(os.path.abspath(working_dir)), logical_dir(working_dir)):
        if base is not None and (path == base or base in path.parents):
            return path.relative_to(base)
    return path


def sensitive_below(path: Path, directory: Path) -> bool:
    """True when the part of ``path`` below ``directory`` names a sensitive file.

    For a file a project ships, whose own name the project chose (a project under
    ``~/.config/gh`` is not itself a secret): ``proj/.env`` is sensitive below ``proj``. A
    ``path`` not below ``directory`` is judged whole (:func:`is_sensitive` without a data dir).
    """
    try:
        return _parts_sensitive(path.relative_to(directory).parts)
    except ValueError:
        return is_sensitive(path)


def outside(path: Path, working_dir: Path) -> bool:
    """True when ``path`` (resolved, symlinks followed) is not inside ``working_dir``."""
    return not inside(resolve(path), resolve(working_dir))


def hard_linked(path: Path) -> bool:
    """True when ``path`` is a regular file with more than one name (``st_nlink > 1``).

    Its other names may be outside the working dir (``ln ~/secret notes.txt``): no path
    resolves to them, so such a file counts as possibly outside. Symlinks are followed; a
    missing or unreadable path is ``False`` (the tool reports it).
    """
    try:
        info = path.stat()
    except (OSError, RuntimeError):
        return False
    return stat.S_ISREG(info.st_mode) and info.st_nlink > 1


def hard_links_why(name: str, example: str = "~/secret notes.txt") -> str:
    """Why a file with other names (:func:`hard_linked`) is not read as in the project.

    ``NAME has other hard links, which may be outside the project (`ln EXAMPLE`)``: the one
    wording of the approval question, an ``@`` mention's notice and a skipped project file's
    warning (``example``: how such a link is made, ``ln ~/.ssh/id_rsa AGENTS.md``).
    """
    return f"{name} has other hard links, which may be outside the project (`ln {example}`)"


def hidden_target(tool_name: str, arguments: Mapping[str, Any],
                  working_dir: Path) -> Path | None:
    """Where a ``text_editor`` edit really writes, when a symlink leads it outside the project.

    ``None`` unless the call changes a file (not ``view``) and its path, followed through
    every symlink on the way, lands outside ``working_dir`` somewhere else than the path as
    written names: a ``notes.txt`` a repo ships as a link to ``~/.bashrc``. A path written
    outside the working dir with no symlink on the way names its file plainly: ``None``.
    """
    raw = arguments.get("path")
    if tool_name != "text_editor" or arguments.get("command") == "view":
        return None
    if not isinstance(raw, str) or not raw.strip():
        return None
    return symlinked_outside(Path(os.path.abspath(working_dir / expand_user(raw))),
                             working_dir)


def symlinked_outside(path: Path, working_dir: Path) -> Path | None:
    """The real file behind absolute ``path`` when a symlink on the way leads outside.

    ``None``: no symlink on the way, or the real file is inside ``working_dir`` too.
    """
    real = resolve(path)
    if real == path or not outside(path, working_dir):
        return None
    return real


def sensitive_in_command(command: str, working_dir: Path, *, data_dir: Path | None = None,
                         config_file: Path | None = None) -> str | None:
    """The first word of a shell command line that names a sensitive file, or ``None``.

    Every word of every part, as bash reads it (:func:`goosectx.shell_lexer.lex`; an
    option's ``--name=VALUE`` by its value, a path relative to ``working_dir``): ``cat .env``,
    ``grep x ~/.aws/credentials``, ``< id_rsa``. A glob or brace word counts by every name it
    can expand to (:func:`goosectx.glob_words.pattern_paths`): ``cat .en?`` names ``.env``, and
    is returned as ``.en? (matching .env)``. For a ``!command`` the user runs, whose output
    would otherwise go to the model as an ``@.env`` mention would not.
    """
    found = next(sensitive_words(command, working_dir, data_dir=data_dir,
                                 config_file=config_file), None)
    return None if found is None else found[1]


def sensitive_words(command: str, working_dir: Path, *, data_dir: Path | None = None,
                    config_file: Path | None = None,
                    walked: Walked | None = None) -> Iterator[tuple[str, str]]:
    """Each word of ``command`` that names a sensitive file: ``(word, how it is shown)``.

    :func:`sensitive_in_command`'s reading, every such word
    (:func:`goosectx.sensitive_shell.sensitive_words`): the approval of a shell call an allow
    rule covers asks unless a rule names each (README: "an allow rule never overrides the
    sensitive-file list unless it names the path").
    """
    from goosectx.sensitive_shell import sensitive_words as words  # it reads shell lines

    yield from words(command, working_dir, data_dir=data_dir, config_file=config_file,
                     walked=walked)


def shown(path: Path, working_dir: Path) -> str:
    """``path`` relative to ``working_dir`` when inside it, else as it is."""
    try:
        return str(path.relative_to(os.path.abspath(working_dir)))
    except ValueError:
        return str(path)
