r"""Whether a sed script runs a command, read command by command as GNU sed reads it.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_runners` reads an interpreter's inline code for the shell's permission
rules. GNU sed runs a shell command with its ``e`` command (``e rm x``; a bare ``e`` runs the
pattern space) and the ``e`` flag of ``s`` (``s/x/rm y/e``), after any address it takes:
``0~1``, ``2!``, ``/x/I``, ``$``, ``1,+2``, ``1,~4``, ``\%x%M``, blanks between the address,
``!`` and the command. :func:`sed_runs` walks the script as sed does (a ``s``/``y`` command's
delimited parts, the text of ``a``/``i``/``c``, the file name of ``r``/``w``, a label up to a
blank), so an ``e`` in a file name or in the text sed prints is not read as the command; a
script it cannot walk (a syntax it does not know) is taken to run one, as is a script bash
computes (:func:`computed_script`: ``sed "$x" f``, ``sed "s/a/$(cmd)/"``).
:func:`sed_commands` gives the walk's ``e``, ``r``, ``R``, ``w``, ``W`` (and ``s///w FILE``)
with their arguments, for :mod:`goosectx.sed_script`'s trusted surface. What the command text
shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_options import long_option, short_value

_BARE = frozenset("=dDgGhHnNpPxzF")
"""Commands without an argument."""
_TO_LINE_END = frozenset("aicrRwW")
"""Commands whose argument (text, a file name, a label) runs to the end of the line."""
_LABELLED = frozenset("btTv:")
"""Commands whose optional argument (a label, a version) ends at a blank, ``;`` or a newline."""
_NUMBERED = frozenset("qQlL")
"""Commands with an optional number."""
_ADDRESS = re.compile(r"\d+(?:~\d+)?|\$")
_SECOND = re.compile(r"[+~]?\d+|\$")


class _Unreadable(Exception):
    """The script has a form :func:`sed_runs` does not walk."""


def _delimited(script: str, i: int, delimiter: str, regex: bool = True) -> int:
    r"""Where the part starting at ``i`` and ending at ``delimiter`` ends (after it).

    A backslash escapes the next character (``\/``, ``\n``); in a ``regex``, a bracket
    expression holds the delimiter as a character (``s/[/]/x/``), as GNU sed 4.9 reads it.
    """
    while i < len(script):
        char = script[i]
        if char == "\\":
            i += 2
            continue
        if char == delimiter:
            return i + 1
        if char == "[" and regex:
            i = _bracket(script, i + 1)
            continue
        if char == "\n" and delimiter != "\n":
            raise _Unreadable
        i += 1
    raise _Unreadable


def _bracket(script: str, i: int) -> int:
    """Where the bracket expression whose inside starts at ``i`` ends (after its ``]``)."""
    i += script.startswith("^", i)
    i += script.startswith("]", i)  # []x]: a ] first is a character
    while i < len(script) and script[i] != "\n":
        if script[i] == "]":
            return i + 1
        close = {"[:": ":]", "[=": "=]", "[.": ".]"}.get(script[i:i + 2])
        if close is not None:
            end = script.find(close, i + 2)
            if end < 0:
                raise _Unreadable
            i = end + 2
            continue
        i += 1
    raise _Unreadable


def _regex_address(script: str, i: int) -> int | None:
    r"""Where a ``/re/`` or ``\cREc`` address at ``i`` ends, its ``I``/``M`` flags included."""
    if script.startswith("/", i):
        i = _delimited(script, i + 1, "/")
    elif script.startswith("\\", i) and i + 1 < len(script):
        i = _delimited(script, i + 2, script[i + 1])
    else:
        return None
    while i < len(script) and script[i] in "IM":
        i += 1
    return i


def _address(script: str, i: int) -> int:
    """Where the address (none, one or a range) and its ``!`` at ``i`` end."""
    end = _regex_address(script, i)
    if end is None and (found := _ADDRESS.match(script, i)):
        end = found.end()
    if end is not None:
        i = _blanks(script, end)
        if script.startswith(",", i):
            i = _blanks(script, i + 1)
            second = _regex_address(script, i)
            if second is None:
                found = _SECOND.match(script, i)
                if found is None:
                    raise _Unreadable
                second = found.end()
            i = second
    i = _blanks(script, i)
    while script.startswith("!", i):
        i = _blanks(script, i + 1)
    return i


def _blanks(script: str, i: int) -> int:
    while i < len(script) and script[i] in " \t":
        i += 1
    return i


def _line_end(script: str, i: int) -> int:
    r"""Where the text from ``i`` ends: a newline not escaped (``a\`` text goes on)."""
    while i < len(script) and script[i] != "\n":
        i += 2 if script[i] == "\\" else 1
    return min(i, len(script))


def _substitute(script: str, i: int) -> tuple[int, bool, str | None]:
    """Where the ``s`` command after its ``s`` at ``i`` ends, its ``e`` flag, its ``w`` file.

    The file is ``None`` when it has no ``w`` flag.
    """
    if i >= len(script) or script[i] in "\n\\":
        raise _Unreadable
    delimiter = script[i]
    i = _delimited(script, i + 1, delimiter)
    while True:  # the replacement (no bracket expression); an escaped newline goes on
        if i >= len(script):
            raise _Unreadable
        if script[i] == "\\":
            i += 2
        elif script[i] == delimiter:
            i += 1
            break
        else:
            i += 1
    runs = False
    while i < len(script) and (script[i] in "gpiImMe" or script[i].isdigit()):
        runs = runs or script[i] == "e"
        i += 1
    if script.startswith("w", i):  # s/a/b/w FILE: the file name ends the line
        end = _line_end(script, i + 1)
        return end, runs, script[i + 1:end].strip(" \t")
    return i, runs, None


def sed_commands(script: str) -> list[tuple[str, str]] | None:
    """What ``script`` does beyond editing the text, as ``(command, argument)`` pairs.

    One for each ``e`` (``s///e`` too, as ``e``), ``r``, ``R``, ``w``, ``W`` (``s///w FILE`` as
    ``w``); ``None`` for a script of a form not walked here.
    """
    try:  # sed -n "$((n + 1))p": a number
        return _commands(_ARITHMETIC.sub("1", script))
    except _Unreadable:
        return None


def _commands(script: str) -> list[tuple[str, str]]:
    """:func:`sed_commands`; raises :class:`_Unreadable`."""
    found: list[tuple[str, str]] = []
    i = 0
    while True:
        while i < len(script) and script[i] in " \t\n;":
            i += 1
        if i >= len(script):
            return found
        if script[i] == "#":
            i = _line_end(script, i)
            continue
        i = _address(script, i)
        if i >= len(script):
            raise _Unreadable
        command = script[i]
        i += 1
        if command in "{}" or command in _BARE:
            continue
        if command == "s":
            i, runs, written = _substitute(script, i)
            found += [("e", "")] if runs else []
            found += [("w", written)] if written is not None else []
        elif command == "y":
            if i >= len(script) or script[i] in "\n\\":
                raise _Unreadable
            delimiter = script[i]
            i = _delimited(script, _delimited(script, i + 1, delimiter, False), delimiter, False)
        elif command in _TO_LINE_END or command == "e":
            end = _line_end(script, i)
            if command in "erRwW":
                found.append((command, script[i:end].strip(" \t")))
            i = end
        elif command in _LABELLED:  # GNU sed 4.9: the label ends at a blank, ';' or newline
            i = _blanks(script, i)
            while i < len(script) and script[i] not in " \t;\n":
                i += 1
            continue  # the next command may follow the blank without ';' (':a e rm x')
        elif command in _NUMBERED:
            i = _blanks(script, i)
            while i < len(script) and script[i].isdigit():
                i += 1
        else:
            raise _Unreadable
        i = _blanks(script, i)
        if i < len(script) and script[i] not in ";\n}#":
            raise _Unreadable


def sed_runs(script: str) -> bool:
    """True when a sed ``script`` may run a shell command (``e``, ``s///e``), or is not read.

    Read as GNU sed reads it: an address of any GNU form and ``!`` before the command; a
    script of a form not walked here counts as running one.
    """
    found = sed_commands(script)
    return found is None or any(command == "e" for command, _ in found)


_ARITHMETIC = re.compile(r"\$\(\([^()$`]*\)\)")
"""An arithmetic expansion of plain names and numbers (``$((n + 1))``): bash makes a number
(a ``$x`` or ``$( )`` inside it is read elsewhere: :mod:`goosectx.shell_arith`)."""


def computed_script(args: list[str], computed: list[bool]) -> bool:
    """True when bash computes part of the script sed's ``args`` give (``sed "$x" f``).

    ``computed``: for each word of ``args``, whether bash computes part of it. A word whose
    only expansions are :data:`_ARITHMETIC` (``"$((n + 1))p"``) is a number, read as ``1``;
    a computed file operand (``sed 's/a/b/' "$f"``) is no script.
    """
    marked = [a + "\0" if c and re.search(r"[$`]", _ARITHMETIC.sub("", a)) else a
              for a, c in zip(args, computed, strict=True)]
    return "\0" in (sed_script(marked) or "")


_LONG_VALUED = ("--expression", "--file", "--line-length")


def sed_script(args: list[str]) -> str | None:
    """The script sed's arguments give inline, or ``None`` (none, or ``--sandbox``).

    Every ``-e SCRIPT`` / ``-ne SCRIPT`` / ``--expression=SCRIPT`` (any prefix getopt takes),
    joined by newlines as sed joins them; without one and without ``-f FILE``, the first
    operand. ``-l N`` / ``-f FILE`` take the next word; ``-i`` only an attached suffix
    (``-ie`` is ``-i`` with the suffix ``e``). ``--sandbox`` refuses ``e``, ``r`` and ``w``.
    """
    scripts: list[str] = []
    operands: list[str] = []
    files = False
    i = 0
    while i < len(args):
        word, after = args[i], args[i + 1] if i + 1 < len(args) else ""
        if word == "--":
            operands += args[i + 1:]
            break
        if word.startswith("--"):
            i += 1
            if long_option(word, "--sandbox"):
                return None
            valued = next((o for o in _LONG_VALUED if long_option(word, o)), None)
            if valued is not None:
                value = word.partition("=")[2] if "=" in word else after
                i += "=" not in word
                scripts += [value] if valued == "--expression" else []
                files = files or valued == "--file"
            continue
        if not word.startswith("-") or word == "-":
            operands.append(word)
            i += 1
            continue
        short = short_value(args, i, "efl", "i")  # -i[SUFFIX]: the rest of the word is the suffix
        i = short.next
        scripts += [short.value or ""] if short.letter == "e" else []
        files = files or short.letter == "f"
    if not scripts and not files and operands:
        scripts = operands[:1]
    return "\n".join(scripts) if scripts else None


_IN_PLACE = re.compile(r"-[nsEruz]*i(.*/.*)", re.DOTALL)
"""``-i SUFFIX`` written whole in one word (``-i'bak/*'``, ``-ni'bak/*'``): letters before it
that take no value, the suffix holding a ``/``."""


def backup_dir(value: str) -> str | None:
    """The directory GNU sed writes its backups into for ``-iSUFFIX`` (a word's value).

    A suffix with a ``/`` names a path, its ``*`` standing for each file's name
    (``-i'bak/*'`` → ``bak``, ``-i/etc/*.orig`` → ``/etc``): that directory is where sed
    writes, not a file it reads. ``None``: no such suffix, or one whose directory has a
    component starting with ``.`` (``.git/hooks``, ``..``: judged as the word is, asked), or
    anything bash or sed would compute.
    """
    found = _IN_PLACE.fullmatch(value)
    if found is None:
        return None
    directory = found[1].rsplit("/", 1)[0]
    if any(part.startswith(".") or not re.fullmatch(r"[\w+-]*", part)
           for part in directory.split("/")):
        return None
    return directory or "/"
