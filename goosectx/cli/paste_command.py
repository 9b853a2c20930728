r"""A path as a shell word the user can paste: the very path, drawn safely on one line.

A hint that offers a command (``mkdir -p …``) is drawn through the sanitiser, which shows an
escape, a bidi control, a line break as a stand-in (``␛``, ``<U+202E>``, ``␊``): a command
quoted with :func:`shlex.quote` and drawn so would name another path. :func:`pasteable` quotes
such a path in bash's ``$'…'`` form instead, each character the sanitiser would change given
as its UTF-8 bytes (``\xHH``): plain ASCII, nothing for the sanitiser to change, and bash
makes the very path from it. Any other path reads as :func:`shlex.quote` writes it; a word
the sanitiser would still change is not given (``None``): the hint then names no command.
"""

from __future__ import annotations

import os
import shlex

from goosectx.cli.sanitize import one_line_safe

__all__ = ["pasteable"]


def pasteable(path: str) -> str | None:
    """``path`` as one shell word that names it exactly and draws as it is typed, or ``None``."""
    word = shlex.quote(path)
    if one_line_safe(word) == word:
        return word
    out = []
    for ch in path:
        if ch in "\\'":
            out.append("\\" + ch)
        elif one_line_safe(ch) == ch:
            out.append(ch)
        else:  # its bytes (a name that is not UTF-8: its raw bytes, as the file system has it)
            out += [f"\\x{b:02x}" for b in os.fsencode(ch)]
    word = "$'" + "".join(out) + "'"
    return word if one_line_safe(word) == word else None
