"""The words of a shell command that name a path outside the project.

docs/architecture.md §4 (clause "permission rules"). A prefix rule such as ``shell(cat*)``
names a program, not the files it reads: read scoping asks about a ``text_editor view`` of
``/etc/hosts``, so an allow rule must not run ``cat /etc/hosts`` unasked either.
:func:`outside_words` reads the words as :func:`goosectx.sensitive.sensitive_words` does (bash's
words, :func:`goosectx.shell_lexer.lex`; no second reading of the line) and judges each as
read scoping judges a path: resolved against the working dir, symlinks followed.

Core module: no printing, no ``cli`` imports.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterator
from pathlib import Path

from goosectx.glob_words import pattern_paths
from goosectx.sensitive import (
    argument_value,
    cd_operand,
    expand_user,
    inside,
    named_values,
    resolve,
    shown,
)
from goosectx.shell_lexer import RESERVED_WORDS, lex
from goosectx.shell_words import ASSIGNMENT_WORD, Word

STREAM_FILES = frozenset({"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr"})
"""Paths outside every project that name no file's contents (``diff /dev/null a.txt``)."""

NO_FILE_ARGUMENTS = frozenset({
    "echo", "printf", "true", "false", ":", "read", "export", "unset", "set", "declare",
    "local", "typeset", "readonly", "shift", "return", "exit", "test", "[", "[["})
"""Programs and builtins that read no file their arguments name (``echo $HOME``; ``test -f``
looks at a name, not at what the file holds): their words are not judged."""

FAR = "outside the project"
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def outside_words(command: str, working_dir: Path) -> Iterator[tuple[str, str]]:
    """Each argument word of ``command`` naming a path outside ``working_dir``: ``(word, why)``.

    Every word of every part after its program (an option's ``--name=VALUE`` by its value,
    ``if=F`` and ``@F`` by ``F`` too: :func:`~goosectx.sensitive.named_values`; a
    redirection's target), but for :data:`NO_FILE_ARGUMENTS`: absolute, ``~`` and ``..``
    paths, and links leading out, resolved as :func:`goosectx.sensitive.outside` does
    (``/etc/hosts is outside the project``, ``a.txt (→ /etc/hosts) is …``); a glob by every
    name it matches (``*.txt (matching b.txt → /etc/hosts) is …``). A word bash computes is
    judged with the environment's variables put in (``$HOME/x``); one holding what cannot be
    known here (``$(…)``, a variable the environment lacks, ``~-``) ``may be outside the
    project``.
    """
    real_dir = resolve(working_dir)
    for part in lex(command):
        args = list(part.words)
        while args and (args[0].value in RESERVED_WORDS or ASSIGNMENT_WORD.match(args[0].value)):
            args.pop(0)
        if not args or args[0].value.rsplit("/", 1)[-1] in NO_FILE_ARGUMENTS:
            continue
        if (moved := _cd_elsewhere(args, working_dir, real_dir)) is not None:
            yield moved
        for word in args[1:]:  # not the program (nor a redirection's `<`)
            value: str | None = word.value
            if word.expands:
                value = _expanded(word.value, working_dir)
            if value is not None:  # ~- is $OLDPWD, ~1 the dir stack: None
                value = argument_value(value, working_dir)
            if value is None:
                yield word.value, f"{word.value} may be {FAR}"
                continue
            if not value or value.startswith("-") or "\0" in value or value in STREAM_FILES:
                continue
            named = pattern_paths(value, working_dir) if word.pattern else [
                working_dir / expand_user(one) for one in named_values(value)]
            if named is None:
                yield word.value, f"{word.value} (too many matches to check) may be {FAR}"
                continue
            for path in named:
                if inside(real := resolve(path), real_dir):
                    continue
                led = "" if real == Path(os.path.abspath(path)) else f" → {real}"
                what = (f"{word.value} (matching {shown(path, working_dir)}{led})"
                        if word.pattern and not glob.has_magic(str(path)) else
                        f"{word.value} ({led[1:]})" if led else word.value)
                yield word.value, f"{what} is {FAR}"
                break


def _cd_elsewhere(args: list[Word], working_dir: Path,
                  real_dir: Path) -> tuple[str, str] | None:
    """Why a ``cd`` / ``pushd`` naming no dir goes outside (``None``: it does not).

    ``cd`` alone is ``cd $HOME``, ``cd -`` ``cd $OLDPWD``: the commands after it read there.
    """
    named = cd_operand(args)
    if named not in ("", "-"):
        return None  # another command, or a dir named: judged as every word is
    variable = "$OLDPWD" if named else "$HOME"
    where = _expanded(variable, working_dir)
    said = " ".join(w.value for w in args)
    if where is None:
        return said, f"{said} (to {variable}) may be {FAR}"
    if inside(resolve(working_dir / expand_user(where)), real_dir):
        return None
    return said, f"{said} (to {where}) is {FAR}"


def _expanded(value: str, working_dir: Path) -> str | None:
    """``value`` with the environment's ``$NAME`` / ``${NAME}`` put in; ``None``: not knowable.

    ``$PWD`` is the working dir (bash sets it so where the command starts). Arithmetic
    (``$((…))``) gives a number; a command's output (``$(…)``, backticks), another expansion
    or a variable the environment lacks (one the line sets, ``$1``) may be any path.
    """
    known = {**os.environ, "PWD": str(working_dir)}
    value = value.replace("$((…))", "0")
    value = _VARIABLE.sub(lambda m: known.get(m[1] or m[2], "\0"), value)
    return None if "$" in value or "`" in value or "\0" in value else value
