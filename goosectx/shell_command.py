"""A shell command line as permission rules see it: its simple commands and their forms.

docs/architecture.md §4, clause 2 of the one approval decision. :func:`shell_parts` splits a
command line into simple commands; :func:`command_forms` gives the forms of one simple command
that a rule is matched against: the text as written, and the command after the shell's own
unquoting (``r''m`` → ``rm``), without leading ``VAR=value`` assignments, with a program given
by path reduced to its name (``/bin/rm`` → ``rm``) and with well-known wrappers removed
(``command``, ``env``, ``sudo``, ``nice``, ``timeout 5``, ``xargs`` …); the string of
``bash -c STRING``, ``eval STRING`` and ``find -exec`` is split and matched as commands of its
own. This matches what the command text shows; it is not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

# -- shell commands split into parts ------------------------------------------------------
_OPERATORS = ("&&", "||", ";", "|", "&", "\n")


def shell_parts(command: str) -> list[str]:
    """The simple commands of a shell command line, each with its white space normalised.

    Splits on ``;`` ``&&`` ``||`` ``|`` ``&`` and newlines outside quotes; the inside of
    ``$( )`` and backticks (also inside double quotes) is split as commands of its own; a
    redirection (``>``, ``>>``, ``<``, ``2>``, ``&>``) and its target become a part
    ``> TARGET``. Empty parts are dropped.
    """
    parts: list[str] = []
    _split(command, parts)
    return [p for p in (" ".join(x.split()) for x in parts) if p]


def _split(text: str, parts: list[str]) -> None:  # noqa: C901 - one small scanner
    current: list[str] = []
    i, quote = 0, ""
    while i < len(text):
        ch = text[i]
        if quote == "'":
            current.append(ch)
            if ch == "'":
                quote = ""
            i += 1
            continue
        if ch == "\\" and i + 1 < len(text):
            current.append(text[i:i + 2])
            i += 2
            continue
        if ch == "$" and text.startswith("$(", i):
            end = _closing(text, i + 2)
            _split(text[i + 2:end], parts)
            current.append("$(…)")
            i = end + 1
            continue
        if ch == "`":
            end = text.find("`", i + 1)
            end = len(text) if end < 0 else end
            _split(text[i + 1:end], parts)
            current.append("`…`")
            i = end + 1
            continue
        if quote == '"':
            current.append(ch)
            if ch == '"':
                quote = ""
            i += 1
            continue
        if ch in "'\"":
            quote = ch
            current.append(ch)
            i += 1
            continue
        op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
        if op is not None and not (op == "&" and text.startswith("&>", i)):
            parts.append("".join(current))
            current = []
            i += len(op)
            continue
        redirect = re.match(r"(\d*|&)(>>|>|<)&?\s*", text[i:])
        if redirect and (not current or current[-1].isspace() or redirect.group(1) == ""):
            target = re.match(r"(\"[^\"]*\"|'[^']*'|[^\s;&|]+)", text[i + redirect.end():])
            tail = target.group(0) if target else ""
            if not (redirect.group(0).rstrip().endswith("&") and tail.isdigit()):
                parts.append(f"{redirect.group(2)} {tail}")  # not 2>&1: that writes nothing
            i += redirect.end() + len(tail)
            continue
        current.append(ch)
        i += 1
    parts.append("".join(current))


def _closing(text: str, start: int) -> int:
    depth = 1
    i = start
    while i < len(text):
        if text.startswith("$(", i) or text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


# -- the forms of one simple command -------------------------------------------------------
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "ash", "busybox"})
"""Shells whose ``-c STRING`` is a command line of its own."""

# wrapper → (options that take a value, positional words before the command)
_WRAPPERS: dict[str, tuple[str, int]] = {
    "command": ("", 0), "builtin": ("", 0), "exec": ("a", 0), "nohup": ("", 0),
    "env": ("uCS", 0), "sudo": ("ugpChDrtUTR", 0), "doas": ("uC", 0), "nice": ("n", 0),
    "time": ("fo", 0), "timeout": ("sk", 1), "stdbuf": ("ioe", 0), "ionice": ("cnp", 0),
    "xargs": ("adEILnPs", 0), "watch": ("nd", 0), "chronic": ("", 0), "setsid": ("", 0),
    "unbuffer": ("", 0), "torsocks": ("", 0), "proxychains": ("f", 0), "flock": ("w", 1),
}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_MAX_DEPTH = 8


@dataclass(frozen=True, slots=True)
class CommandForms:
    """The forms of one simple command that permission rules are matched against.

    Attributes:
        all: Every form (as written, unquoted, and each step of normalisation, inner commands
            of ``bash -c`` / ``eval`` / ``find -exec`` included): a deny or ask rule catches the
            command when it matches ANY of them.
        words: The unquoted form (``None`` when the shell could not parse the text): an allow
            rule covers the command only when it matches this form.
    """

    all: tuple[str, ...]
    words: str | None


def command_forms(part: str) -> CommandForms:
    """The forms of one simple command (one element of :func:`shell_parts`)."""
    forms: list[str] = [part]
    try:
        words = shlex.split(part)
    except ValueError:  # unbalanced quote: match a crude unquoting too, never allow
        forms.append(" ".join(re.sub(r"[\\'\"]", "", part).split()))
        return CommandForms(tuple(dict.fromkeys(forms)), None)
    _normalise(words, forms, 0)
    return CommandForms(tuple(dict.fromkeys(f for f in forms if f)), " ".join(words))


def _add_line(line: str, forms: list[str], depth: int) -> None:
    """The forms of every part of an inner command line (``bash -c STRING``)."""
    if depth >= _MAX_DEPTH:
        return
    for part in shell_parts(line):
        forms.append(part)
        try:
            words = shlex.split(part)
        except ValueError:
            forms.append(" ".join(re.sub(r"[\\'\"]", "", part).split()))
            continue
        _normalise(words, forms, depth + 1)


def _normalise(words: list[str], forms: list[str], depth: int) -> None:  # noqa: C901
    """Append the forms of ``words`` (already unquoted), one per step of normalisation."""
    words = list(words)
    while words:
        forms.append(" ".join(words))
        if _ASSIGNMENT.match(words[0]):
            words = words[1:]
            continue
        name = words[0].rsplit("/", 1)[-1] if "/" in words[0] else words[0]
        if name != words[0] and name:
            words = [name, *words[1:]]
            continue
        if name in SHELLS or name in ("su", "eval") or name == "env" and "-S" in words:
            inner = _inner_line(name, words[1:])
            if inner is not None:
                _add_line(inner, forms, depth)
                return
        if name == "find":
            for command in _find_exec(words):
                _normalise(command, forms, depth + 1)
            return
        if name not in _WRAPPERS:
            return
        words = _unwrap(name, words[1:])


def _inner_line(name: str, args: list[str]) -> str | None:
    """The command string of ``bash -c STRING``, ``su -c STRING``, ``env -S STRING``, ``eval``."""
    if name == "eval":
        return " ".join(args)
    flag = "S" if name == "env" else "c"
    for i, word in enumerate(args):
        if word == "--command" or (word.startswith("-") and not word.startswith("--")
                                   and flag in word[1:]):
            rest = word.split(flag, 1)[1] if name == "env" else ""
            if rest:
                return rest
            return args[i + 1] if i + 1 < len(args) else None
        if not word.startswith("-") and name != "su" and name != "env":
            return None  # `bash script.sh`: a script, not a command line
    return None


def _find_exec(words: list[str]) -> list[list[str]]:
    """The commands of ``find … -exec CMD … ;`` (also ``-execdir``, ``-ok``, ``-okdir``)."""
    commands: list[list[str]] = []
    i = 0
    while i < len(words):
        if words[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(words) and words[j] not in (";", "+"):
                j += 1
            if words[i + 1:j]:
                commands.append(words[i + 1:j])
            i = j
        i += 1
    return commands


def _unwrap(name: str, args: list[str]) -> list[str]:
    """The command a wrapper runs: its options, values and leading positionals skipped."""
    with_value, positionals = _WRAPPERS[name]
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            i += 1
            break
        if name == "env" and _ASSIGNMENT.match(word):
            i += 1
            continue
        if not word.startswith("-") or word == "-":
            if name == "env" and word == "-":
                i += 1
                continue
            break
        if word.startswith("--"):
            i += 1  # --long=value, or a flag; --long value is rare for these wrappers
            continue
        if name == "nice" and word[1:].isdigit():
            i += 1  # nice -10 CMD
            continue
        letter = word[1]
        i += 2 if letter in with_value and len(word) == 2 else 1
    return args[i + positionals:]
