"""What a command creates under a name its words give: archives, repositories, downloads.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.git_config_writes` finds what a command writes. ``git init DIR``, ``git clone
URL [DIR]`` (``DIR`` made from the URL when not given), ``git bundle create FILE``, ``zip
ARCHIVE …``, ``tar -cf ARCHIVE`` (``-czf``, ``cf`` too), ``7z a ARCHIVE`` (:func:`created`);
``curl -O URL`` and ``wget URL`` save under the URL's last path part, in the dir they run in or
the one ``--output-dir`` / ``-P`` names, ``wget -r``/``-x`` under the host's dir and the URL's
path (:func:`url_names`). Each is judged as a write target: in the git directory, a virtualenv or
``node_modules`` (:func:`goosectx.protected_paths.protected_write`), and here a sensitive file or
a path outside the project (:func:`sensitive_or_outside`). What the command text shows, not a
sandbox.

Core module: no printing.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from urllib.parse import unquote, urlsplit

from goosectx.option_table import TAR_VALUED, Does, Hit
from goosectx.protected_paths import Where
from goosectx.sensitive import cached_resolve, expand_user, inside, resolve, sensitive_why
from goosectx.shell_dirs import Unknown
from goosectx.shell_git import git_subcommand
from goosectx.shell_options import long_option, short_value, value_at

_GIT_VALUED = {
    "init": ("--template", "--separate-git-dir", "-b", "--initial-branch", "--object-format",
             "--ref-format"),
    "clone": ("-o", "--origin", "-b", "--branch", "-u", "--upload-pack", "--reference",
              "--reference-if-able", "--separate-git-dir", "-c", "--config", "--depth",
              "--shallow-since", "--shallow-exclude", "--template", "-j", "--jobs", "--filter",
              "--server-option", "--bundle-uri", "--ref-format", "--revision"),
    "bundle": (),
}
"""Options of ``git init|clone`` that take the next word as their value."""
_ZIP_VALUED = frozenset({"-b", "-n", "-t", "-tt", "-P", "-Z", "-s", "-O", "-TT", "-sp",
                         "--temp-path", "--unzip-command", "--password", "--split-size"})
_SEVEN_ZIP = frozenset({"7z", "7za", "7zz", "7zr"})
_SEVEN_WRITES = frozenset({"a", "u", "d", "rn"})
"""7z's commands that write the archive named after them."""
_STREAMS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty",
                      "/dev/zero", "/dev/urandom", "/dev/random", "-"})
"""Paths outside the project that are no file a program writes."""
SENSITIVE = "is a sensitive file"
OUTSIDE = "is outside the project"


def created(name: str, args: list[str]) -> list[str]:
    """The files or dirs ``name ARGS`` creates under a name its words give, or ``[]``."""
    if name == "git":
        return _git_created(args)
    if name == "zip":
        operands = [a for k, a in enumerate(args) if a[:1] != "-" and (
            k == 0 or args[k - 1] not in _ZIP_VALUED)]
        return operands[:1]
    if name in ("tar", "gtar", "bsdtar"):
        return _tar_archive(args)
    if name in _SEVEN_ZIP:
        operands = [a for a in args if a[:1] != "-"]
        return operands[1:2] if operands[:1] and operands[0] in _SEVEN_WRITES else []
    return []


def _git_created(args: list[str]) -> list[str]:
    """``git init [DIR]``, ``git clone URL [DIR]``, ``git bundle create FILE``: what they make.

    ``--separate-git-dir=D`` too: the repository's own dir.
    """
    at = git_subcommand(args)
    sub = args[at] if at < len(args) else ""
    if sub not in _GIT_VALUED:
        return []
    rest, operands, found = args[at + 1:], [], []
    i = 0
    while i < len(rest):
        word = rest[i]
        option = next((o for o in _GIT_VALUED[sub] if word == o or word[:2] == "--" and (
            long_option(word, o))), None)
        if word == "--":
            operands += rest[i + 1:]
            break
        if option == "--separate-git-dir":
            found.append(word.partition("=")[2] if "=" in word else value_at(rest, i + 1) or "")
        if option is not None:
            i += 1 if "=" in word or option[:2] != "--" and word != option else 2
            continue
        if word[:1] != "-":
            operands.append(word)
        i += 1
    if sub == "bundle":
        return operands[1:2] if operands[:1] == ["create"] else []
    if sub == "init":
        return [*operands[:1], *found]
    if len(operands) > 1:
        return [operands[1], *found]
    return [*_clone_dir(operands[0], "--bare" in rest), *found] if operands else found


def _clone_dir(url: str, bare: bool) -> list[str]:
    """The dir ``git clone URL`` makes: the URL's last part, ``/.git`` and ``.git`` cut off."""
    path = urlsplit(url).path if "://" in url else url.rpartition(":")[2]
    path = path.rstrip("/").removesuffix("/.git").removesuffix(".git").rstrip("/")
    base = path.rpartition("/")[2]
    return [base + ".git" if bare else base] if base else []


def _tar_archive(args: list[str]) -> list[str]:
    """The archive ``tar ARGS`` writes when it creates, appends or updates one (``-f``)."""
    writes, archive = False, None
    for k, word in enumerate(args):
        if word == "--":
            break
        if word[:2] == "--":
            writes = writes or any(long_option(word, o) for o in (
                "--create", "--append", "--update", "--catenate", "--concatenate"))
            if long_option(word, "--file"):
                archive = word.partition("=")[2] if "=" in word else value_at(args, k + 1)
        elif k == 0 and word[:1] != "-" and word.isalpha():  # tar czf A x: old style
            writes = writes or any(c in word for c in "cruA")
            valued = [c for c in word if c in TAR_VALUED]
            if "f" in valued:
                archive = value_at(args, 1 + valued.index("f"))
        elif word[:1] == "-" and len(word) > 1:
            short = short_value(args, k, TAR_VALUED)
            writes = writes or any(c in short.flags + short.letter for c in "cruA")
            archive = short.value if short.letter == "f" else archive
    return [archive] if writes and archive and archive != "-" else []


def url_names(name: str, args: list[str], hits: list[Hit], here: bool) -> list[str]:
    """What ``curl -O``/``-J`` or ``wget`` (no ``-O``) saves: the dir, each URL's name in it.

    ``here``: it saves in the dir it runs in (else in ``--output-dir``/``-P``'s, or, for curl
    without ``-O``, nowhere but ``-o``'s files). ``wget -r``/``-x``/``-m`` keep the URL's path
    below a dir named by the host (``-nH``: none): both are judged.
    """
    into = next((hit.value for hit in hits if hit.does is Does.INTO and hit.value), None)
    if name == "curl" and not any(hit.does is Does.HERE for hit in hits):
        return []
    if name == "wget" and not here and into is None:
        return []  # wget -O F: F is judged as -O's
    base = "." if into is None else into
    deep = name == "wget" and any(
        a in ("-r", "-x", "-m") or long_option(a, "--recursive") or long_option(
            a, "--force-directories") or long_option(a, "--mirror") or (
            a[:1] == "-" and a[:2] != "--" and any(c in a[1:] for c in "rxm")) for a in args)
    found = ["."] if here else [base]  # the dir first: curl -O --output-dir .git/hooks URL
    for url in (a for a in args if "://" in a and a[:1] != "-"):
        parts = urlsplit(url)
        for path in {parts.path, unquote(parts.path)}:
            leaf = path.rpartition("/")[2] or ("index.html" if name == "wget" else "")
            found += [posixpath.normpath(posixpath.join(base, leaf))] if leaf else []
            if deep:
                found += [posixpath.normpath(posixpath.join(base, parts.netloc, path.lstrip("/"))),
                          posixpath.normpath(posixpath.join(base, path.lstrip("/")))]
    return found


def sensitive_or_outside(path: str, where: Where | None,
                         cache: dict[str, Path] | None = None) -> str | None:
    """``"is a sensitive file"`` / ``"is outside the project"`` for ``path``, or ``None``.

    Taken in each dir of ``where`` known here (a relative path after ``cd "$X"``: none), the
    read check's names (:func:`goosectx.sensitive.sensitive_why`), as written and where its
    links lead (``etclink/cron.d/x``, ``etclink`` a link to ``/etc``; ``cache``: one
    :func:`goosectx.sensitive.cached_resolve` cache for a command's many paths); streams are no
    file.
    """
    written = expand_user(path)
    if where is None or not path or str(written) in _STREAMS or path in _STREAMS:
        return None
    bases = [where.root] if written.is_absolute() else [
        d for d in where.dirs if not isinstance(d, Unknown)]
    for base in bases:
        target = Path(os.path.normpath(base / written))
        if sensitive_why(target) is not None:
            return SENSITIVE
        if not inside(target, where.root):
            return OUTSIDE
        real = resolve(target) if cache is None else cached_resolve(target, cache)
        if real == target:  # etclink/cron.d/x, etclink a link to /etc: where it leads
            continue
        if sensitive_why(real) is not None:
            return SENSITIVE
        top = resolve(where.root) if cache is None else cached_resolve(where.root, cache)
        if not inside(real, top):
            return OUTSIDE
    return None
