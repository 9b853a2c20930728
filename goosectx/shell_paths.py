"""The words of a shell command that name a path outside the project.

docs/architecture.md §4 (clause "permission rules"). A prefix rule such as ``shell(cat*)``
names a program, not the files it reads: read scoping asks about a ``text_editor view`` of
``/etc/hosts``, so an allow rule must not run ``cat /etc/hosts`` unasked either.
:func:`outside_words` reads the line as :func:`goosectx.sensitive.sensitive_words` does, with
the one walk of :func:`goosectx.shell_dirs.command_dirs` (bash's words, and the dirs each part
may run in after a ``cd``; no second reading of the line), and judges each word as read
scoping judges a path: resolved against the dir it is read in, symlinks followed. A path
through ``/proc/*/cwd``, ``/proc/*/fd`` or ``/dev/fd`` (as written or by a link) names the
shell's own dir or file, not goosectx's: it may be outside; a project file with other hard
links counts as possibly outside, as for a ``text_editor view``
(:func:`goosectx.sensitive.hard_linked`).

Core module: no printing, no ``cli`` imports.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from goosectx.find_words import find_exec_printed, find_patterns, walks_links
from goosectx.glob_words import MAX_NAMES, pattern_paths
from goosectx.link_view import link_itself, link_view
from goosectx.option_values import make_directories, venv_interpreter
from goosectx.piped_names import Listing, piped_listing, substituted_listing
from goosectx.program_operands import not_paths, volume_host
from goosectx.recursive_reads import (
    RUNS_ON_FOUND,
    follows_links,
    links_out_below,
    recursive_operands,
)
from goosectx.sed_script import SED
from goosectx.sensitive import (
    cached_resolve,
    expand_user,
    hard_linked,
    hard_links_why,
    inside,
    resolve,
    shown,
)
from goosectx.sensitive_shell import named_values
from goosectx.shell_dirs import (
    DECLARATIONS,
    NO_FILE_ARGUMENTS,
    Dir,
    Unknown,
    Walked,
    argument_value,
    cd_operand,
    cluster_words,
    command_dirs,
    command_words,
    expanded,
    stdin_arguments,
    toplevel_cd,
)
from goosectx.shell_program import SYSTEM_PROGRAM
from goosectx.shell_remote import local_count
from goosectx.shell_sed import backup_dir
from goosectx.shell_unwrap import WRAPPERS, unwrap
from goosectx.shell_words import Word
from goosectx.tree_walkers import tree_links_out
from goosectx.uv_python import uv_interpreter, version_request

__all__ = ["FAR", "NO_FILE_ARGUMENTS", "STREAM_FILES", "outside_words"]

STREAM_FILES = frozenset({"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr"})
"""Paths outside every project that name no file's contents (``diff /dev/null a.txt``)."""

FAR = "outside the project"

_SHELLS_OWN = re.compile(r"/proc/[^/]+/(?:task/[^/]+/)?(?:cwd|root|fd|fdinfo|map_files|exe)"
                         r"(?:/|$)|/dev/fd(?:/|$)")
"""A path naming the reading process's own dir or open file (``/proc/self/cwd/../x``,
``/dev/fd/3``): resolved here it names goosectx's, not the shell's; it may be anywhere."""

_TILDE_VALUE = re.compile(r"~(?:[+-]\d*|\d+)(?=/|$)")
"""A value's ``~+`` (``$PWD``), ``~-`` (``$OLDPWD``) or directory-stack ``~N``: bash expands
them after ``=`` too (``dd if=~+/../x``)."""


def outside_words(command: str, working_dir: Path,
                  walked: Walked | None = None) -> Iterator[tuple[str, str]]:
    """Each argument word of ``command`` naming a path outside ``working_dir``: ``(word, why)``.

    Every word of every part after its program (an option's ``--name=VALUE`` by its value,
    ``if=F`` and ``@F`` by ``F`` too: :func:`~goosectx.sensitive_shell.named_values`; a
    redirection's target), but for :data:`NO_FILE_ARGUMENTS`, and of
    :data:`~goosectx.shell_dirs.DECLARATIONS` only the ``NAME=VALUE`` values (``export
    BASH_ENV=/etc/x``): absolute, ``~`` and ``..`` paths, and links leading out, resolved as
    :func:`goosectx.sensitive.outside` does (``/etc/hosts is outside the project``, ``a.txt
    (→ /etc/hosts) is …``); a glob by every name it matches (``*.txt (matching b.txt →
    /etc/hosts) is …``). A relative word is taken in each dir its part may run in
    (:func:`goosectx.shell_dirs.command_dirs`: ``cd sub && cat ../a`` reads ``a``); after a
    ``cd`` to a dir not known here it ``may be outside the project``. A word bash computes is
    judged with the environment's variables put in (``$HOME/x``); one holding what cannot be
    known here (``$(…)``, a variable the environment lacks, ``~-``) ``may be outside the
    project``; so may every file ``xargs CMD`` is given. ``walked``: the line's walk, when the
    caller has it.
    """
    real_dir = resolve(working_dir)
    cache: dict[str, Path] = {}
    judged: dict[tuple[Word, tuple[Dir, ...], str | None], str | None] = {}
    walked = list(command_dirs(command, working_dir)) if walked is None else walked
    parts = [part for part, _dirs in walked]
    for k, (part, dirs) in enumerate(walked):
        args = command_words(part.words)
        if not args or args[0].value.rsplit("/", 1)[-1] in NO_FILE_ARGUMENTS:
            continue
        args = args[:local_count([w.value for w in args])]  # ssh dev tail /var/log/x: remote
        if (moved := _cd_elsewhere(args, working_dir, real_dir, command)) is not None:
            yield moved
        if (tops := toplevel_cd(args, dirs, command)) is not None:  # cd "$(git rev-parse …)"
            yield from _tops_outside(args, tops, real_dir)
            continue
        if (fed := stdin_arguments(args)) is not None:
            if (listed := piped_listing(parts, k)) is None:
                yield fed, f"{fed} (it takes the files it reads from its input) may be {FAR}"
            else:  # find . | xargs cat
                yield from _links_out(listed.dirs, dirs, working_dir, real_dir, listed)
        walked_through = recursive_operands(args) if args[0].value.rsplit("/", 1)[
            -1] in RUNS_ON_FOUND or follows_links(args) else None
        if walked_through is None:  # find -L docs, ls -LR docs: lists what a link leads to
            walked_through = walks_links(args)
        filtered = Listing(walked_through or [], find_exec_printed(
            [w.value for w in args[1:]])) if args[0].value.rsplit("/", 1)[-1] == "find" else None
        yield from _links_out(walked_through, dirs, working_dir, real_dir, filtered)
        yield from tree_links_out(args, dirs, working_dir, real_dir)  # ruff check ., tree_walkers
        declares = args[0].value in DECLARATIONS
        patterns = find_patterns(args)  # find . -path '../*': a name to match, no path
        patterns += [args[i] for i in not_paths([w.value for w in args])]  # grep's, awk's
        looks = link_view(args)  # ls -l link: the link itself, not where it leads
        made = make_directories([w.value for w in args[1:]]) if args[0].value in (
            "make", "gmake") else None  # make -C src PYTHON=../.venv/bin/python test
        interpreter = uv_interpreter(args) if args[0].value in ("uv", "uvx") else None
        substituted = substituted_listing(parts, k)  # wc -l $(find . -name '*.py')
        values = [w.value for w in args]
        for n, word in enumerate(args[1:], 1):  # not the program (nor a redirection's `<`)
            if any(word is pattern for pattern in patterns) or _runs_system(args, n):
                continue
            if substituted is not None and word is substituted[0]:
                listed = substituted[1]
                yield from _links_out(listed.dirs, dirs, working_dir, real_dir, listed)
                continue
            if declares and (word.value.startswith("-") or "=" not in word.value):
                continue  # export NAME, declare -x: no path
            if declares and word.expands and expanded(word.value, working_dir, command) is None:
                continue  # local x=$(…): what a part already judged printed
            if made is not None and _venv_python(word, dirs, real_dir, command, made):
                continue  # the interpreter the project runs anyway
            if word is interpreter:  # uv pip list -p ./x runs ./x; -p .venv/bin/python runs
                value = word.value.partition("=")[2] if word.value[:2] == "--" else (
                    word.value[2:].removeprefix("=") if word.value[:2] == "-p" else word.value)
                if any(_venv_python(replace(word, value="PYTHON=" + one), dirs, real_dir, command)
                       for one in (value, value.rstrip("/") + "/bin/python")):
                    continue  # -p .venv: uv runs the venv dir's bin/python
                if "/" in value or word.expands:
                    yield word.value, (f"{value} is the program uv runs as its interpreter, not "
                                       "the project venv's")
                    continue
                if not version_request(value):  # uv run -p bash: a program found on PATH
                    yield word.value, (f"{value} is no Python version: uv runs the program of "
                                       "that name (on PATH, or a file here) as its interpreter, "
                                       "not the project venv's")
                    continue
            if _loop_value(word, command) and all(isinstance(d, Path) for d in dirs):
                continue  # for f in src/*.py; do wc -l "$f": the header's words are judged
            if args[0].value in SED and (backup := backup_dir(word.value)) is not None:
                word = replace(word, value=backup)  # sed -i'bak/*': where it writes backups
            elif (host := volume_host(values, n)) is not None:  # docker run -v $PWD:/w
                word = replace(word, value=host)
            key = (word, dirs, looks)  # cat src/*.py src/*.py …: each word judged once
            if key not in judged:
                judged[key] = _outside_word(word, dirs, working_dir, real_dir, cache, command,
                                            looks)
            if (found := judged[key]) is not None:
                yield word.value, found


_EXEC_OPTIONS = {"find": ("-exec", "-execdir", "-ok", "-okdir"),
                 "fd": ("-x", "-X", "--exec", "--exec-batch")}


def _runs_system(args: list[Word], at: int) -> bool:
    """True when ``args[at]`` is a program in a system dir the command runs, which it not reads.

    After ``find -exec``, ``fd -x`` (``/bin/rm``), or a wrapper's options (``sudo /bin/rm``):
    :data:`goosectx.shell_program.SYSTEM_PROGRAM`, as the allow rules read it.
    """
    word = args[at]
    if word.expands or SYSTEM_PROGRAM.fullmatch(word.value) is None:
        return False
    name = args[0].value.rsplit("/", 1)[-1]
    if args[at - 1].value in _EXEC_OPTIONS.get(name.replace("fdfind", "fd"), ()):
        return True
    return name in WRAPPERS and any(bool(r) and r[0] is word
                                    for r in unwrap(name, args[1:]))


_QUOTED_VARIABLE = re.compile(r'"\$\{?([A-Za-z_]\w*)\}?"')
_LOOP = r"(?<![\w${{]){name}(?!\w)"
"""NAME written other than as ``$NAME`` / ``${NAME}``: where the line may set it."""


def _loop_value(word: Word, line: str) -> bool:
    """True for ``"$NAME"`` whose every value is a word of a ``for NAME in WORDS`` header.

    The line sets NAME nowhere else (``f=…``, ``read f``); the header is a part of its own
    whose words are judged as paths, each glob by its matches. Quoted: bash splits no value.
    """
    found = _QUOTED_VARIABLE.fullmatch(word.raw)
    if found is None:
        return False
    name = found[1]
    headers = len(re.findall(rf"(?<![\w$-])for\s+{name}\s+in\s", line))
    return headers > 0 and len(re.findall(_LOOP.format(name=name), line)) == headers


def _venv_python(word: Word, dirs: tuple[Dir, ...], real_dir: Path, line: str,
                 chdirs: list[str] | None = None) -> bool:
    """True when make's ``NAME=VALUE`` operand names a venv's interpreter in the project.

    :func:`goosectx.option_values.venv_interpreter`, from every dir the part may run in, the
    venv itself inside the project (``PYTHON=.venv/bin/python``); ``$PWD`` and the
    environment's variables put in as bash does (``PYTHON=$PWD/.venv/bin/python``); a relative
    value taken in the dir make's ``-C`` options move to (``chdirs``: ``make -C src
    PYTHON=../.venv/bin/python``).
    """
    name, equals, value = word.value.partition("=")
    if not equals or not name or name.startswith("-") or word.pattern:
        return False
    for base in dirs:
        text = expanded(value, base, line) if word.expands else value
        if not isinstance(base, Path) or text is None or "/" not in text or text.endswith("/"):
            return False  # python/: not as Path reads it (the checks resolve as the kernel does)
        path = base.joinpath(*(expand_user(d) for d in chdirs or ()), text)
        if not (venv_interpreter(path) and inside(resolve(path.parent.parent), real_dir)):
            return False
    return True


def _outside_word(word: Word, dirs: tuple[Dir, ...], working_dir: Path, real_dir: Path,
                  cache: dict[str, Path], line: str, looks: str | None = None,
                  clustered: bool = True) -> str | None:
    """Why ``word`` names a path outside the project from one of ``dirs`` (``None``: none).

    ``looks``: how the program looks at a symlink it is given (:func:`link_view`).
    """
    raw = word.value
    for other in cluster_words(raw) if clustered else ():  # grep -cf/etc/x: -f's value
        if found := _outside_word(replace(word, value=other), dirs, working_dir, real_dir,
                                  cache, line, looks, False):
            return raw + found.removeprefix(other)
    if raw.startswith("/") or raw.startswith("~") and not raw.startswith(("~+", "~-")):
        dirs = (working_dir,)  # the same path wherever the command runs
    for base in dirs:
        if isinstance(base, Unknown):
            if raw and not raw.startswith("-"):
                return f"{raw} (after {base.after}) may be {FAR}"
            continue
        value: str | None = expanded(raw, base, line) if word.expands else raw
        if value is not None:  # ~- is $OLDPWD, ~1 the dir stack: None
            value = argument_value(value, base)
        if value is None:
            return f"{raw} may be {FAR}"
        if not value or value.startswith("-") or "\0" in value or value in STREAM_FILES:
            return None
        if word.pattern:
            named: list[Path] | str = pattern_paths(value, base, line)
        else:
            values = [_tilde_value(one, base) for one in named_values(value)]
            if None in values:  # dd if=~-/x
                return f"{raw} (~- or ~N: the previous dir or the directory stack) may be {FAR}"
            named = [base / expand_user(one) for one in values if one is not None]
        if isinstance(named, str):
            return f"{raw} ({named}) may be {FAR}"
        follows = looks is None or _FOLLOWED.search(value) is not None  # ls -l link/
        for path in named:
            real = cached_resolve(path, cache)
            if _shells_own(path, real):
                return f"{raw} (the shell's own dir or file, not known here) may be {FAR}"
            if not follows and link_itself(path, looks) and inside(
                    cached_resolve(path.parent, cache), real_dir):
                continue  # ls -l .venv/bin/python: the link in the project, its target unread
            if inside(real, real_dir):
                if hard_linked(real):
                    return hard_links_why(raw)
                continue
            led = "" if real == Path(os.path.abspath(path)) else f" → {real}"
            what = (f"{raw} (matching {shown(path, working_dir)}{led})"
                    if word.pattern and not glob.has_magic(str(path)) else
                    f"{raw} ({led[1:]})" if led else raw)
            return f"{what} is {FAR}"
    return None


_FOLLOWED = re.compile(r"/\.{0,2}(?:$|[,}])")
"""A path ending in ``/``, ``/.`` or ``/..`` (a brace's alternative too): a link is followed."""
def _shells_own(path: Path, real: Path) -> bool:
    """True when ``path`` goes through :data:`_SHELLS_OWN`, as written or by a symlink on the way.

    ``real``: ``path`` resolved here; the links are walked only when it differs from ``path``
    (a project's ``here`` → ``/proc/self/cwd`` makes ``here/../x`` the shell's ``../x``).
    """
    text = str(path)
    if _SHELLS_OWN.match(text) or _SHELLS_OWN.match(os.path.abspath(text)):
        return True
    if real == Path(os.path.abspath(text)) and "/.." not in text:
        return False  # no link on the way (`..` after a link is read through it)
    whole = path if path.is_absolute() else Path.cwd() / path
    todo, current, hops = list(whole.parts[1:]), "/", 0
    while todo and hops < 40:  # bash's own limit on links followed is about as many
        name = todo.pop(0)
        if name == "..":
            current = os.path.dirname(current)
            continue
        current = os.path.join(current, name)
        if _SHELLS_OWN.match(current):
            return True
        try:
            target = os.readlink(current)
        except (OSError, ValueError):
            continue  # no link (or missing): a plain step
        hops += 1
        current = "/" if target.startswith("/") else os.path.dirname(current)
        todo[:0] = [one for one in target.split("/") if one not in ("", ".")]
    return hops >= 40


def _tilde_value(value: str, base: Path) -> str | None:
    """``value`` (``if=``'s ``F`` too) with a leading ``~+`` put as ``base``, as bash does.

    ``None`` for ``~-``, ``~N``, ``~+N``, ``~-N``: the previous dir, the directory stack.
    """
    if (tilde := _TILDE_VALUE.match(value)) is None:
        return value
    return str(base) + value[tilde.end():] if tilde.group() in ("~+", "~+0", "~0") else None


def _links_out(operands: list[str] | None, dirs: tuple[Dir, ...], working_dir: Path,
               real_dir: Path, listed: Listing | None = None) -> Iterator[tuple[str, str]]:
    """The dir a ``find … -exec`` (``find … | xargs``) walks that holds a link leading outside.

    ``listed``: what a lister hands on (:class:`goosectx.piped_names.Listing`: the names it
    prints, whether it goes through links to dirs).
    """
    printed = None if listed is None else listed.printed
    follows = listed is None or listed.follows
    for value in operands or ():
        for base in dirs:
            directory = base / expand_user(value) if isinstance(base, Path) else None
            if directory is None or "\0" in value or not directory.is_dir():
                continue
            kept = None if printed is None or any(printed(name, True) for name in (
                directory.name, os.path.basename(value.rstrip("/")) or value)) else printed
            for found in links_out_below(directory, real_dir, kept, follows):
                why = (f"{value} (over {MAX_NAMES:,} names below it, too many to check) may be "
                       f"{FAR}" if found is None else
                       f"{value} (holding {shown(found, working_dir)} → {resolve(found)}) is {FAR}")
                yield value, why
                return


def _tops_outside(args: list[Word], tops: tuple[Dir, ...],
                  real_dir: Path) -> Iterator[tuple[str, str]]:
    """Why ``cd "$(git rev-parse --show-toplevel)"`` leaves the project: its top is above it."""
    said = " ".join(w.value for w in args)
    for top in tops:
        if isinstance(top, Unknown):
            yield said, f"{said} (not in a git work tree) may be {FAR}"
        elif not inside(resolve(top), real_dir):
            yield said, f"{said} (to {top}) is {FAR}"


def _cd_elsewhere(args: list[Word], working_dir: Path, real_dir: Path,
                  line: str) -> tuple[str, str] | None:
    """Why a ``cd`` / ``pushd`` naming no dir goes outside (``None``: it does not).

    ``cd`` alone is ``cd $HOME``, ``cd -`` ``cd $OLDPWD``: the commands after it read there.
    """
    named = cd_operand(args)
    if named not in ("", "-"):
        return None  # another command, or a dir named: judged as every word is
    variable = "$OLDPWD" if named else "$HOME"
    where = expanded(variable, working_dir, line)
    said = " ".join(w.value for w in args)
    if where is None:
        return said, f"{said} (to {variable}) may be {FAR}"
    if inside(resolve(working_dir / expand_user(where)), real_dir):
        return None
    return said, f"{said} (to {where}) is {FAR}"
