"""Where each simple command of a shell line may run: the one walk both path checks share.

docs/architecture.md §4 (clause "permission rules"). Under an allow rule the approval judges
the paths a shell command names (:func:`goosectx.shell_paths.outside_words`,
:func:`goosectx.sensitive.sensitive_words`); a relative path names a file in the dir the
command runs in, and a ``cd`` before it moves that dir. :func:`command_dirs` walks the line
once, as bash would run it, and gives each part the dirs it may run in:

* ``cd sub && cat x``: ``cat`` runs in ``sub`` (it runs only when the ``cd`` worked);
* ``cd sub; cat x``, ``cd sub || cat x`` …: in ``sub`` or where the line started (the ``cd``
  may fail); after a ``||`` or at the end of an and-or list (``;``, newline, ``&``), any dir
  the list went through — but a ``cd`` alone in its and-or list (``cd build;``) to a dir
  that exists now, with nothing before it in the line that may remove it (only plain ``cd``
  and programs that change no file, no compound command), is taken to work: ``cd build; cd
  ..; make`` runs ``make`` where the line started (after ``&&`` or ``||`` it may still fail);
* a ``cd`` in a subshell, a substitution, a pipeline or in the background moves nothing
  outside it (``(cd /tmp && cat x); cat y``: ``y`` is read where the line started);
* a ``cd`` to a dir not known here (``cd "$X"`` with ``X`` unset here, ``cd -``, ``pushd``
  alone, ``popd``, a glob, ``~-``, a relative dir while ``CDPATH`` is set or named in the
  line, any ``cd`` once a loop started, an ``eval`` that may ``cd``): an :class:`Unknown`
  dir, where every relative word may name any file.

The command line a part runs as a string (``bash -c '…'``, ``sh -c``, ``su -c``, ``eval``,
``env -S``: :attr:`goosectx.shell_forms.CommandForms.inner`) is walked too, from the
part's dirs, its parts yielded with theirs, at most :data:`MAX_DEPTH` deep.

Core module: no printing, no ``cli`` imports.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from goosectx.sensitive import expand_user, resolve
from goosectx.shell_lexer import RESERVED_WORDS, Part, Word, lex
from goosectx.shell_unwrap import WRAPPERS, unwrap
from goosectx.shell_words import ASSIGNMENT_WORD

MAX_DEPTH = 4
"""Command strings in command strings (``bash -c "sh -c '…'"``) walked at most."""


@dataclass(frozen=True, slots=True)
class Unknown:
    """A dir not known here, and the command that went there (``cd -``)."""

    after: str


Dir = Path | Unknown
Walked = list[tuple[Part, tuple[Dir, ...]]]
"""A line walked once (``list(command_dirs(…))``), for both checks of one decision."""
_TOKEN = re.compile(r"&&|\|\||[();&|]")
_LOOPS = frozenset({"for", "while", "until", "select"})
_LINE_CHARS = re.compile(r"[\s;&|<>(){}$`'\"\\*?\[\]~=]")
"""A word holding one of these may be a command line (``sh -c 'cat x'``): worth reading."""
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_USED = re.compile(r"\$\{?\w+")  # $NAME, ${NAME: where a line uses a variable, not sets it

NO_FILE_ARGUMENTS = frozenset({
    "echo", "printf", "true", "false", ":", "read", "unset", "set", "shift", "return", "exit",
    "test", "[", "[["})
"""Programs and builtins that read no file their arguments name (``echo $HOME``; ``test -f``
looks at a name, not at what the file holds): their words are not judged as paths."""

DECLARATIONS = frozenset({"export", "declare", "typeset", "local", "readonly"})
"""Builtins whose ``NAME=VALUE`` words set a variable a later program may read a file by
(``export BASH_ENV=/etc/x``, ``LD_PRELOAD``, ``GIT_CONFIG_GLOBAL``): only those values are
judged as paths (a bare ``NAME`` or option is none)."""


@dataclass(slots=True)
class _List:
    """One subshell level: where its next command may run, and its and-or list so far."""

    dirs: tuple[Dir, ...]
    seen: tuple[Dir, ...]  # every dir the and-or list went through
    either: bool = False  # a `||` came: a later command may follow a skipped `cd`
    first: bool = True  # no `&&` or `||` yet in the and-or list: its next command runs
    moved: tuple[tuple[Dir, ...], bool, bool] | None = None
    """A cd's dirs, whether it is no pipe's, and whether it cannot fail (:func:`_sure`)."""


def _union(a: tuple[Dir, ...], b: tuple[Dir, ...]) -> tuple[Dir, ...]:
    return tuple(dict.fromkeys((*a, *b)))


def _follow(stack: list[_List], token: str) -> None:
    """Apply one operator of :attr:`Part.joint` to the walk's subshell levels."""
    top = stack[-1]
    if token == "(":
        stack.append(_List(top.dirs, top.dirs))
        return
    if token == ")":
        if len(stack) > 1:
            stack.pop()
        return
    moved, top.moved = top.moved, None
    if moved is not None and token not in ("|", "&"):  # a pipe's or background cd: a subshell
        targets, whole, sure = moved
        alone = sure and top.first and token == ";"  # cd build; …: the dir is there
        if (token == "&&" or alone) and whole and not top.either:
            top.seen = targets if alone else top.seen
            top.dirs = targets
        else:
            top.dirs = _union(top.dirs, targets)
    top.seen = _union(top.seen, top.dirs)
    top.first = token in (";", "&") or top.first and token == "|"
    if token == "||":
        top.either, top.dirs = True, top.seen
    elif token in (";", "&"):  # a new and-or list: from wherever the last one ended
        top.either, top.dirs, top.seen = False, top.seen, top.seen


def command_words(words: list[Word]) -> list[Word]:
    """``words`` from the program on: no reserved words, assignments, ``builtin``, ``time``."""
    k = 0
    while k < len(words) and (words[k].value in RESERVED_WORDS
                              or ASSIGNMENT_WORD.match(words[k].raw)):
        k += 1
    words = words[k:]
    while words and words[0].value in ("builtin", "command", "time"):
        words = words[1:]
        while words and words[0].value.startswith("-") and words[0].value != "-":
            words = words[1:]  # command -p --, time -p
    return words


def command_dirs(command: str, working_dir: Path, start: tuple[Dir, ...] | None = None,
                 depth: int = 0, line: str = "") -> Iterator[tuple[Part, tuple[Dir, ...]]]:
    """Each part of ``command`` and the dirs it may run in (``start``: the working dir).

    Inner parts first, as :func:`~goosectx.shell_lexer.lex` gives them; the parts of a line a
    part runs as a string (``bash -c``) right after it. ``line``: the whole line ``command``
    is part of, whose assignments :func:`expanded` looks for.
    """
    line = line or command
    stack = [_List(start or (working_dir,), start or (working_dir,))]
    parts = lex(command)
    loop = _loop_moving(parts)
    looping, settled = False, depth == 0  # no part yet that may remove a dir (_STILL)
    for k, part in enumerate(parts):
        for token in _TOKEN.findall(part.joint):
            _follow(stack, token)
        top = stack[-1]
        if k == loop:  # a later round starts where the last one's cd left: anywhere
            top.dirs = top.seen = _union(top.dirs, (Unknown("a cd in a loop"),))
        part.depth = depth
        yield part, top.dirs
        looping = looping or _starts_loop(part)
        words = command_words(part.words)
        settled = settled and bool(part.words) and part.words[0].value not in RESERVED_WORDS
        if words and (targets := _moved(words, top.dirs, line, looping)) is not None:
            top.moved = (targets, not part.piped, settled and _sure(targets))  # x | cd a; …
        settled = settled and words[:1] != [] and words[0].value in _STILL  # { cd x; }: not
        if depth < MAX_DEPTH and any(_LINE_CHARS.search(w.value) for w in part.words[1:]):
            for inner in _inner_lines(part, command):
                yield from command_dirs(inner, working_dir, top.dirs, depth + 1, line)
        elif any(_LINE_CHARS.search(w.value) for w in part.words[1:]):
            text = part.text  # judged as one relative word: every check says "may be"
            yield Part([Word("…", "…"), Word(text, text)]), (Unknown("commands nested too deeply"),)


_STILL = frozenset({"cd", "pushd", "popd", "pwd", "ls", *NO_FILE_ARGUMENTS})
"""Parts before a ``cd`` that remove or change no dir, so one existing now is there for it."""


def _sure(targets: tuple[Dir, ...]) -> bool:
    """True when a ``cd`` to ``targets`` cannot fail: each is a dir here that it may enter."""
    return all(isinstance(one, Path) and os.path.isdir(one) and os.access(one, os.X_OK)
               for one in targets)


def _starts_loop(part: Part) -> bool:
    """True for ``while …``, ``{ for …``, ``do until …``: a loop's first part."""
    for word in part.words:
        if word.value in _LOOPS:
            return True
        if word.value not in RESERVED_WORDS:
            return False
    return False


def _loop_moving(parts: list[Part]) -> int | None:
    """Where the first loop starts when a part from there on may change dir, else ``None``."""
    start = next((k for k, part in enumerate(parts) if _starts_loop(part)), None)
    if start is None:
        return None
    for part in parts[start:]:
        words = command_words(part.words)
        if words and words[0].value in ("cd", "pushd", "popd", "eval"):
            return start
    return None


def _inner_lines(part: Part, command: str) -> tuple[str, ...]:
    """The command lines ``part`` runs here (not ``ssh dev 'cd /srv && …'``'s: the host's)."""
    from goosectx.shell_command import command_forms  # it reads what the rules read
    from goosectx.shell_remote import remote_lines

    remote = remote_lines([w.value for w in command_words(part.words)])
    return tuple(line for line in command_forms(part, command).inner if line not in remote)


_TOPLEVEL = re.compile(r"\$\(\s*git rev-parse --show-toplevel\s*\)|`\s*git rev-parse "
                       r"--show-toplevel\s*`")
"""``cd "$(git rev-parse --show-toplevel)"``: the work tree's top, an agent's everyday ``cd``."""


def _git_top(base: Path) -> Path | None:
    """The top of the work tree ``base`` is in (the nearest dir holding ``.git``), or ``None``."""
    here = Path(os.path.abspath(base))
    for candidate in (here, *here.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


def toplevel_cd(words: list[Word], dirs: tuple[Dir, ...], command: str,
                ) -> tuple[Dir, ...] | None:
    """Where ``cd "$(git rev-parse --show-toplevel)"`` goes from each of ``dirs``, or ``None``.

    ``None``: ``words`` are no such ``cd``/``pushd`` (or the line sets a ``GIT_`` variable,
    which may move the top); the top of the work tree of each dir, a dir not in one
    :class:`Unknown`.
    """
    if not words or words[0].value not in ("cd", "pushd") or "GIT_" in command:
        return None
    operand = cd_operand(words)
    word = next((w for w in words[1:] if w.value == operand), None)
    if word is None or not _TOPLEVEL.fullmatch(word.raw.removeprefix('"').removesuffix('"')):
        return None
    said = " ".join(w.value for w in words)
    return tuple(top if isinstance(base, Path) and (top := _git_top(base)) else Unknown(said)
                 for base in dirs)


def _moved(words: list[Word], dirs: tuple[Dir, ...], command: str,
           looping: bool) -> tuple[Dir, ...] | None:
    """Where a ``cd`` / ``pushd`` / ``popd`` part goes from each of ``dirs`` (``None``: no cd)."""
    name = words[0].value
    said = " ".join(w.value for w in words)
    if name == "eval" and any(re.search(r"\b(?:cd|pushd|popd)\b", w.value) for w in words):
        return (Unknown(said),)
    if name == "popd" or name == "pushd" and len(words) == 1:
        return (Unknown(said),)
    operand = cd_operand(words)
    if operand is None:
        return None
    word = next((w for w in words[1:] if w.value == operand), None)
    if looping or operand == "-" or word is not None and word.pattern or operand.startswith("+"):
        return (Unknown(said),)
    if (tops := toplevel_cd(words, dirs, command)) is not None:
        return tops  # cd "$(git rev-parse --show-toplevel)"
    if operand == "":
        home = expanded("$HOME", dirs[0], command)
        return (Path(home),) if home and name == "cd" else (Unknown(said),)
    relative = not re.match(r"(?:/|\.\.?(?:/|$))", operand)
    if relative and (os.environ.get("CDPATH") or "CDPATH" in command
                     or "cdable_vars" in command):  # cd NAME may go to $NAME's value
        return (Unknown(said),)
    physical = any(w.value.startswith("-") and "P" in w.value and not w.value.startswith("--")
                   for w in words[1:])
    targets: list[Dir] = []
    for base in dirs:
        value = (expanded(operand, base, command) if word is not None and word.expands
                 else operand)
        value = None if value is None or isinstance(base, Unknown) else argument_value(
            value, base)
        if value is None or isinstance(base, Unknown):
            targets.append(base if isinstance(base, Unknown) else Unknown(said))
            continue
        path = base / expand_user(value)
        targets.append(resolve(path) if physical else Path(os.path.normpath(path)))
    return tuple(dict.fromkeys(targets))


_CHDIR = {"env": "-C", "sudo": "-D"}
"""Wrappers whose option runs their command in another dir (``env -C DIR``, ``sudo -D DIR``;
both spell it ``--chdir`` too)."""


def chdir_dirs(name: str, args: list[str], dirs: tuple[Dir, ...]) -> tuple[Dir, ...]:
    """``dirs`` with the dir a wrapper's ``--chdir`` option moves its command to added.

    ``env -C .git cat config`` reads ``.git/config``, ``env -C .git tee HEAD`` writes
    ``.git/HEAD``. The dirs it came from are kept: a letter read as ``-C`` in a cluster of
    other options' values judges more paths, never fewer.
    """
    short = _CHDIR.get(name)
    if short is None:
        return dirs
    for k, word in enumerate(args):
        if word[:1] != "-" or word == "--":
            return dirs
        if word.startswith("--chdir"):
            value = word.partition("=")[2] if "=" in word else (
                args[k + 1] if k + 1 < len(args) else None)
        elif word[:2] != "--" and short[1] in word[1:]:
            value = word[word.index(short[1], 1) + 1:] or (
                args[k + 1] if k + 1 < len(args) else None)
        else:
            continue
        if value is None:
            return dirs
        moved = [base if isinstance(base, Unknown) else Path(os.path.normpath(
            base / expand_user(value))) for base in dirs]
        return tuple(dict.fromkeys((*dirs, *moved)))
    return dirs


def expanded(value: str, base: Dir, line: str = "") -> str | None:
    """``value`` with the environment's ``$NAME`` / ``${NAME}`` put in; ``None``: not knowable.

    ``$PWD`` is ``base``, the dir the command runs in (not knowable in an :class:`Unknown`
    one); ``$OLDPWD`` is where a ``cd`` of the line may have left. Arithmetic (``$((…))``)
    gives a number; a command's output (``$(…)``, backticks), another expansion, a variable
    the environment lacks (``$1``) or one ``line`` (the whole command line) may set — its
    name written there other than as ``$NAME`` (``X=/etc``, ``read X``, ``for X in``) — may
    be any path.
    """
    bare = _USED.sub("", line)

    def value_of(found: re.Match[str]) -> str:
        name = found[1] or found[2]
        if name == "OLDPWD" or re.search(rf"(?<!\w){name}(?!\w)", bare):
            return "\0"
        if name == "PWD":
            return str(base) if isinstance(base, Path) else "\0"
        return os.environ.get(name, "\0")

    value = _VARIABLE.sub(value_of, value.replace("$((…))", "0"))
    return None if "$" in value or "`" in value or "\0" in value else value


def stdin_arguments(words: list[Word]) -> str | None:
    """The command of ``xargs CMD`` (``parallel CMD`` with no ``:::``) as written, else ``None``.

    Its arguments, the files it reads among them, come from its input.

    Wrappers before it are looked through (``nice xargs cat``); ``xargs`` alone runs ``echo``
    and a program of :data:`NO_FILE_ARGUMENTS` reads no file (``None``).
    """
    words = command_words(words)
    for _ in range(8):
        name = words[0].value.rsplit("/", 1)[-1] if words else ""
        if name == "parallel" and not any(w.value.startswith(":::") for w in words):
            rest = [w for w in words[1:] if not w.value.startswith("-")]
        elif name == "xargs":
            rest = unwrap(name, words[1:])[0]
        elif name in WRAPPERS:
            words = unwrap(name, words[1:])[0]
            continue
        else:
            return None
        program = rest[0].value.rsplit("/", 1)[-1] if rest else "echo"
        return None if program in NO_FILE_ARGUMENTS else " ".join(w.value for w in words)
    return None


_DIR_STACK = re.compile(r"~(?:[+-]\d*|\d+)(?:/|$)")
"""bash's ``~-`` (``$OLDPWD``) and directory-stack entries ``~N``, ``~+N``, ``~-N``."""


def cd_operand(words: list[Word]) -> str | None:
    """The dir a ``cd`` / ``pushd`` part names: ``-`` the previous one, ``""`` none (``$HOME``).

    ``None``: the part is another command.
    """
    if not words or words[0].value not in ("cd", "pushd"):
        return None
    return next((w.value for w in words[1:] if w.value == "-" or not w.value.startswith("-")),
                "")


def cluster_words(value: str) -> list[str]:
    """A short-option cluster's other readings: ``-nhf.env`` → ``-hf.env``, ``-f.env``.

    getopt ends a cluster at its first letter taking a value, which takes the rest of the word
    (``grep -cf.env`` reads ``.env`` as ``-f``'s): each letter may be that one, so
    :func:`argument_value` of each reading is a value the program may take (at most 8).
    """
    if value[:1] != "-" or value[:2] == "--":
        return []
    letters = len(re.match(r"-[A-Za-z0-9]*", value)[0])  # type: ignore[index]  # "-" matches
    return ["-" + value[k:] for k in range(2, min(letters, len(value) - 1, 10))]


def argument_value(value: str, working_dir: Path) -> str | None:
    """The part of an argument word that may name a path, as bash and the program read it.

    ``--file=F`` → ``F``; a short option's attached value, ``-f.env`` → ``.env`` (``hexdump
    -f.env`` prints the file); ``~+/x`` (bash's ``$PWD``) → ``working_dir/x``; ``""`` for a
    bare option. ``None`` for ``~-``, ``~N``, ``~+N``, ``~-N``: the previous dir or the
    directory stack, unknown here.
    """
    if value.startswith("--"):
        return value.partition("=")[2]
    if value.startswith("-"):
        return value.partition("=")[2] or value[2:]
    if value == "~+" or value.startswith("~+/"):
        return str(working_dir) + value[2:]
    return None if _DIR_STACK.match(value) else value
