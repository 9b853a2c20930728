"""The values a command line gives a variable other than by ``NAME=VALUE``, where it shows them.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.unmodelled_writes` reads the values a line gives its variables
(:func:`goosectx.unmodelled_writes.line_assignments`). ``read B <<< .git/hooks`` (and
``mapfile``/``readarray``) sets ``B`` from its here-string, ``printf -v B %s .git/hooks`` from
its format and arguments, ``B=$(echo .git/hooks)`` from what an ``echo`` or ``printf`` of
literal words prints: each is read here as bash computes it. Anything else (``B=$(mktemp)``,
``read B`` from a pipe) stays unknown, judged as a variable the line does not set is.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_words import Part

_READ_VALUED = frozenset("adinNptu")
"""``read``'s options that take a value (``-d DELIM``, ``-a ARRAY``, ``-n COUNT``)."""
_MAPFILE_VALUED = frozenset("dnOsuCc")
_ECHO_OPTIONS = re.compile(r"-[neE]+")
_CONVERSION = re.compile(r"%(?:%|[sb]|[^%]*?[a-zA-Z])")
_SUBSTITUTION = re.compile(r"\$\(…\)|`…`|[<>]\(…\)")
"""Where the lexer left a command substitution (``$(…)``, backticks) or a process
substitution (``<(…)``) in a word: each stands for a part lexed before the word's own."""
PLACEHOLDER = re.compile(r"\$\(…\)|`…`")
"""A command substitution as the lexer keeps it in a word."""


def builtin_values(words: list[str], here_string: str,
                   ifs: str = " \t\n") -> list[tuple[str, str]]:
    """The ``(NAME, VALUE)`` pairs ``read``, ``mapfile`` or ``printf -v`` sets in ``words``.

    ``read [-r] B [C …] <<< TEXT``: TEXT's first line split as bash's default ``IFS`` splits it
    (the last name takes the rest; ``-a A``: ``$A`` is its first field); ``mapfile [-t] A <<<
    TEXT``: ``$A`` is the first line; ``printf -v B FORMAT ARGS``: what it would print (``ifs``:
    the line's ``IFS``, each of its characters ending a field: ``IFS=:; read A B``). ``[]``
    for any other command, or one whose value the line does not show.
    """
    program, args = (words[0], words[1:]) if words else ("", [])
    if program == "printf":
        return _printf_v(args)
    if not here_string or program not in ("read", "mapfile", "readarray"):
        return []
    options, names = _options(args, _READ_VALUED if program == "read" else _MAPFILE_VALUED)
    if program != "read":
        lines = here_string.split("\n")[_count(options.get("s", "0")):]
        return [(names[-1] if names else "MAPFILE", lines[0] if lines else "")]
    text = here_string if "d" in options else here_string.split("\n")[0]
    if "r" not in options:
        text = re.sub(r"\\(.)", r"\1", text)
    if limit := options.get("n") or options.get("N"):
        text = text[:_count(limit)]
    names = [options["a"]] if "a" in options else names or ["REPLY"]
    split = re.compile(f"[{re.escape(ifs)}]+" if ifs.isspace() else f"[{re.escape(ifs)}]")
    fields = split.split(text.strip(" \t\n"), maxsplit=0 if "a" in options else len(names) - 1
                         ) if ifs else [text]  # read -a A: $A is its first field
    return [(name, fields[k] if k < len(fields) else "") for k, name in enumerate(names)]


def substitution_outputs(parts: list[Part]) -> list[list[str | None]]:
    """For each of ``parts``, what its words' substitutions print, in order (``None``: unknown).

    The lexer puts a substitution's commands before the part whose word holds it; one made of
    a single ``echo`` or ``printf`` of literal words prints what :func:`printed` says
    (``B=$(echo .git/hooks)``), any other is unknown.
    """
    pending: list[str | None] = []
    found: list[list[str | None]] = []
    for k, part in enumerate(parts):
        count = sum(len(_SUBSTITUTION.findall(w.value)) for w in part.words)
        taken: list[str | None] = [*([None] * count), *pending][-count:] if count else []
        pending = pending[:max(0, len(pending) - count)]  # the last ones: its own, in order
        found.append([out for out, where in zip(taken, _places(part), strict=True) if where])
        if part.joint.endswith("("):  # a substitution or subshell starts with this part
            alone = k + 1 < len(parts) and parts[k + 1].joint.startswith(")")
            pending.append(printed([w.value for w in part.words]) if alone and not any(
                w.expands or w.pattern for w in part.words) else None)
    return found


def _places(part: Part) -> list[bool]:
    """For each substitution in ``part``'s words, in order, whether it is a command's output."""
    return [m[0][:1] in "$`" for w in part.words for m in _SUBSTITUTION.finditer(w.value)]


def printed(words: list[str]) -> str | None:
    """What ``echo``/``printf`` ``words`` prints as ``$( )`` keeps it, or ``None``.

    Also ``git rev-parse --git-dir`` (``.git``) and ``--git-path X`` (``.git/X``), as in a
    repository of its own (a worktree's or a moved git dir's path is elsewhere).
    """
    program, args = (words[0], words[1:]) if words else ("", [])
    if program == "echo":
        escapes = False
        while args and _ECHO_OPTIONS.fullmatch(args[0]):
            escapes = escapes or "e" in args[0]
            args = args[1:]
        out = " ".join(args)
        return None if escapes and "\\" in out else out.rstrip("\n")
    if program == "git" and args[:1] == ["rev-parse"] and len(args) in (2, 3) and (
            args[1] in ("--git-dir", "--git-common-dir", "--absolute-git-dir") and len(args) == 2
            or args[1] == "--git-path" and len(args) == 3):  # $(git rev-parse --git-path hooks/x)
        return ".git" if len(args) == 2 else f".git/{args[2]}"
    if program == "printf" and args and args[0] != "-v":
        args = args[1:] if args[0] == "--" else args
        made = _format(args[0], args[1:]) if args else None
        return None if made is None else made.rstrip("\n")
    return None


def fill(value: str, outputs: list[str | None]) -> str:
    """``value`` with each command substitution put in from ``outputs`` (consumed in order).

    One whose output is unknown stays as the lexer keeps it (``$(…)``).
    """
    def one(match: re.Match[str]) -> str:
        out = outputs.pop(0) if outputs else None
        return match[0] if out is None else out
    return PLACEHOLDER.sub(one, value)


def _printf_v(args: list[str]) -> list[tuple[str, str]]:
    """``printf -v NAME FORMAT ARGS``'s ``(NAME, VALUE)``, or ``[]`` (no ``-v``, unknown)."""
    if args[:1] == ["-v"] and len(args) > 2:
        name, rest = args[1], args[2:]
    elif args[:1] and args[0].startswith("-v") and len(args[0]) > 2 and len(args) > 1:
        name, rest = args[0][2:], args[1:]
    else:
        return []
    rest = rest[1:] if rest[:1] == ["--"] else rest
    out = _format(rest[0], rest[1:]) if rest else None
    return [] if out is None else [(name, out)]


def _format(fmt: str, args: list[str]) -> str | None:
    """What ``printf FMT ARGS`` prints when FMT has only ``%s``, ``%b`` and ``%%``, or ``None``.

    The format is used again while arguments are left, as bash's ``printf`` does.
    """
    if "\\" in fmt or any(m[0] not in ("%%", "%s", "%b") for m in _CONVERSION.finditer(fmt)):
        return None
    takes = sum(m[0] != "%%" for m in _CONVERSION.finditer(fmt))
    out, rest = "", list(args)
    while True:
        out += _CONVERSION.sub(lambda m: "%" if m[0] == "%%" else (rest.pop(0) if rest else ""),
                               fmt)
        if not rest or not takes:
            return out


def _options(args: list[str], valued: frozenset[str]) -> tuple[dict[str, str], list[str]]:
    """A ``read``/``mapfile`` line's options (letter to value, ``""`` for a flag) and names."""
    options: dict[str, str] = {}
    k = 0
    while k < len(args) and args[k][:1] == "-" and args[k] != "-":
        if args[k] == "--":
            k += 1
            break
        word = args[k]
        for at, letter in enumerate(word[1:], 1):
            if letter in valued:  # -d '' (the next word), -a A, -aA
                glued = word[at + 1:]
                k += 0 if glued or k + 1 == len(args) else 1
                options[letter] = glued or (args[k] if args[k] != word else "")
                break
            options[letter] = ""
        k += 1
    return options, args[k:]


def _count(text: str) -> int:
    """``text`` as a count (``-n 4``), ``0`` when it is not one."""
    return int(text) if text.isdigit() else 0
