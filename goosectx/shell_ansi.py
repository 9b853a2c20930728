r"""The value of a bash ``$'…'`` (ANSI-C quoted) word, for permission rules.

docs/architecture.md §4, clause 2: :class:`goosectx.shell_words.WordScanner` reads every
word's value through quote removal; ``$'…'`` is one more quoting, whose backslash escapes
bash decodes (``$'-exec'`` is ``-exec``, ``$'\x3b'`` is ``;``). An escape whose value is not
known exactly here (``\c``, a NUL that ends the word, a byte or character beyond ASCII, which
the locale decides) gives ``None``: the command is unreadable.

Core module: no printing.
"""

from __future__ import annotations

import re

_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
           "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_NUMBER = re.compile(r"([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})")


def ansi_c_value(body: str) -> str | None:
    r"""The value bash gives ``$'BODY'`` (``body``: the text between the quotes), or ``None``.

    As bash's ``ansicstr``: ``\n``, ``\t`` … ``\\``, ``\'``; ``\NNN`` octal, ``\xHH``,
    ``\uHHHH``, ``\UHHHHHHHH``; any other ``\X`` stays as written. ``None`` when an escape
    gives a NUL, a value beyond ASCII, or is ``\c``.
    """
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _SIMPLE:
            out.append(_SIMPLE[nxt])
            i += 2
            continue
        if nxt == "c":
            return None
        number = _NUMBER.match(body, i + 1)
        if number is None:
            out.append(body[i:i + 2])  # \q: bash keeps the backslash
            i += 2
            continue
        digits = next(g for g in number.groups() if g)
        code = int(digits, 8 if number[1] else 16)
        if code == 0 or code > 0x7F:
            return None
        out.append(chr(code))
        i = number.end()
    return "".join(out)


def braces(unquoted: str) -> bool:
    """True when ``unquoted`` (a word's unquoted text) holds a brace expansion.

    A ``{…}`` with a ``,`` or ``..`` outside any inner braces, nested ones too
    (``{rm,{}}`` is ``rm {}``); ``{}`` and ``{x}`` are no expansion.
    """
    opened: list[int] = []
    for i, c in enumerate(unquoted):
        if c == "{":
            opened.append(i)
        elif c == "}" and opened:
            start = opened.pop()
            inside, depth = [], 0
            for d in unquoted[start + 1:i]:
                depth += (d == "{") - (d == "}")
                inside.append(d if depth == 0 and d not in "{}" else "_")
            text = "".join(inside)
            if "," in text or ".." in text:
                return True
    return False
