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

import shlex

from goosectx.cli.sanitize import one_line_safe
from goosectx.path_word import ansi_c_word

__all__ = ["pasteable"]


def pasteable(path: str) -> str | None:
    """``path`` as one shell word that names it exactly and draws as it is typed, or ``None``.

    The model is told the same word for the same path (:func:`goosectx.path_word.exact_word`,
    the shell tool's missing working dir) wherever a character is not printable.
    """
    word = shlex.quote(path)
    if one_line_safe(word) == word:
        return word
    word = ansi_c_word(path, lambda ch: one_line_safe(ch) == ch)
    return word if one_line_safe(word) == word else None
