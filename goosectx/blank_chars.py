"""Characters that draw as blank space (or nothing) but are not a space.

docs/architecture.md §7 (what reaches the terminal): the sanitiser shows them as
``<U+3164>``-style stand-ins in code-like text (:func:`goosectx.cli.sanitize.code_safe`), and a
session name may not hold one (:func:`goosectx.session.name_problem`): invisible in a list,
impossible to type. Core module: no printing.
"""

from __future__ import annotations

BLANK_LOOKING = (0x00A0, 0x034F, 0x115F, 0x1160, 0x1680, 0x17B4, 0x17B5,
                 *range(0x2000, 0x200B), 0x202F, 0x205F, 0x2800, 0x3000, 0x3164, 0xFFA0)
"""Characters that draw as blank space (or nothing) but are not a space: a no-break space,
the Hangul fillers, the blank Braille pattern, the typographic and ideographic spaces, the
combining grapheme joiner. (U+FEFF and U+180E are :func:`terminal_safe`'s already.)"""

VARIATION_SELECTORS = (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0))
"""U+FE00–U+FE0F and U+E0100–U+E01EF: invisible, they change how the character before them
is drawn (an emoji's ❤️) — in a command, ``ls<U+FE0F>`` looks like ``ls`` but is another
program, and 256 of them can carry a hidden payload."""


def quoted(text: str) -> str:
    """``text`` quoted for a one-line message, a blank-looking character as ``<U+2800>``.

    A name or id the user typed, echoed in an error (``no session matches 'fix<U+2800>'``):
    Python's quoting shows a control or separator character as an escape, but prints U+2800
    or U+3164 as they are — blank — so the name looks like one that exists.
    """
    return repr("".join(stand_in(ord(c)) if ord(c) in BLANK_LOOKING else c for c in text))


def stand_in(code: int) -> str:
    """How an invisible character is shown where it must be seen: ``<U+3164>``."""
    return f"<U+{code:04X}>"
