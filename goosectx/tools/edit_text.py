"""How the text editor lays out text: line endings kept, numbered lines, snippets of an edit.

Pure functions on ``str``; :mod:`goosectx.tools.text_editor` reads and writes the files.
"""

from __future__ import annotations

import re

from goosectx.tools.files import split_lines

SNIPPET_CONTEXT_LINES = 4
"""Unchanged lines shown around an edit."""
_BARE_LF = re.compile(r"(?<!\r)\n")


def numbered(lines: list[str], first_line: int) -> str:
    """``lines`` numbered from ``first_line``, as ``view`` shows them (number, tab, text)."""
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, start=first_line))


def snippet(text: str, first_changed: int, last_changed: int) -> str:
    """Numbered lines ``first_changed..last_changed`` (1-based) with context around them."""
    lines = [line.removesuffix("\r") for line in split_lines(text)]
    start = max(1, first_changed - SNIPPET_CONTEXT_LINES)
    end = min(len(lines), last_changed + SNIPPET_CONTEXT_LINES)
    return numbered(lines[start - 1 : end], start)


def newline_of(text: str) -> str:
    """The line ending most of ``text``'s lines use: CRLF when more end so than with a bare LF.

    A file of LF lines with one stray CRLF line (a Windows contributor's) stays LF where it is
    edited; a CRLF file with one stray LF stays CRLF.
    """
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf > text.count("\n") - crlf else "\n"


def with_newline(text: str, newline: str) -> str:
    """``text`` with its bare LFs written as ``newline`` (a CRLF file stays CRLF)."""
    return _BARE_LF.sub("\r\n", text) if newline == "\r\n" else text
