r"""A path as one shell word in plain characters that names it exactly (docs/architecture.md §1).

A command offered for a path (``mkdir -p …`` for a working dir that is gone) is read by the
model and drawn on the user's terminal: a path with an escape, a bidi control or a line break
quoted with :func:`shlex.quote` keeps those characters raw — the sanitiser draws them as
stand-ins (``␛``, ``<U+202E>``, ``␊``), so the user sees a command naming another path, and a
model must reproduce invisible characters exactly. :func:`ansi_c_word` gives such a path in
bash's ``$'…'`` form instead, each character ``keep`` refuses as its UTF-8 bytes (``\xHH``;
a name that is not UTF-8: its raw bytes): bash makes the very path from it.
:func:`exact_word` is the model's form (every character Python calls unprintable as bytes);
``cli/paste_command.pasteable`` the terminal's (what the sanitiser would change).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable

__all__ = ["ansi_c_word", "exact_word"]


def ansi_c_word(path: str, keep: Callable[[str], bool]) -> str:
    r"""``path`` as bash ``$'…'``: the characters ``keep`` refuses as ``\xHH`` bytes."""
    out = []
    for ch in path:
        if ch in "\\'":
            out.append("\\" + ch)
        elif keep(ch):
            out.append(ch)
        else:
            out += [f"\\x{b:02x}" for b in os.fsencode(ch)]
    return "$'" + "".join(out) + "'"


def exact_word(path: str) -> str:
    r"""``path`` as :func:`shlex.quote` gives it when it is all printable, else :func:`ansi_c_word`.

    The same word ``pasteable`` gives the user for an escape, a control, a line break or a bidi
    control (``$'/tmp/odd\x1b[1mdir'``), so the model and the user read one command.
    """
    if path.isprintable():
        return shlex.quote(path)
    return ansi_c_word(path, str.isprintable)
