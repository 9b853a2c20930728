"""Outside text placed in the summary's Markdown, kept from swallowing what follows it.

A summary field (the model's words, or the transcript's in an extractive summary) that opens a
block it never closes — a code fence (```` ``` ````, ``~~~``), an HTML comment or ``<pre>`` —
would have the rest of the summary, and the user's messages the model gets after it, read as
code or markup (docs/architecture.md, "summary"). :func:`contained` escapes such an opener; a
block the text closes itself is kept as written. :func:`one_line_code` puts a path in a code
span that no backtick or line break in it can end or leave.
"""

from __future__ import annotations

import re

from goosectx.compaction.actions import inline_code
from goosectx.lazy_pattern import LazyPattern

_BLOCK = (r"(`{3,}+(?!.*`)|~{3,}|<!--|<\?|<!\[CDATA\[|<![A-Za-z]"
          r"|<(?:script|pre|style|textarea)(?![^\s>]))")
_READER_INDENT = r"[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+|>[ \t]*)*"
"""Indentation as a reader may take it: any spaces and tabs, list markers and quote marks."""
_OPENERS = (LazyPattern(r" {0,3}" + _BLOCK, re.I), LazyPattern(_READER_INDENT + _BLOCK, re.I))
"""A line that opens a block running until its closer (CommonMark's fences and HTML blocks
1-5): as CommonMark reads it (indented at most three spaces), then as a reader may (after any
indentation, list marker or quote mark). A backtick run with a backtick after it on the line
is a code span, not a fence."""

_HTML_CLOSERS: dict[str, LazyPattern] = {
    "<!--": LazyPattern(r"-->"),
    "<?": LazyPattern(r"\?>"),
    "<![": LazyPattern(r"\]\]>"),
    "<!": LazyPattern(r">"),
    "<": LazyPattern(r"</(?:script|pre|style|textarea)>", re.I),
}
"""The text that ends each HTML block, by its opener's start (longest first)."""

_LINE_BREAK = LazyPattern(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")


def _closer(lines: list[str], at: int, m: re.Match[str], indent: str) -> int | None:
    """The index of the line that ends the block ``m`` opens on line ``at``, or ``None``.

    ``indent``: the pattern of a closing fence's indentation.
    """
    opener = m.group(1)
    if opener[0] in "`~":
        fence = re.compile(rf"{indent}{re.escape(opener[0])}{{{len(opener)},}}[ \t]*$")
        return next((i for i in range(at + 1, len(lines)) if fence.match(lines[i])), None)
    ends = next(p for start, p in _HTML_CLOSERS.items() if opener.startswith(start))
    if ends.search(lines[at], m.end(1)):
        return at
    return next((i for i in range(at + 1, len(lines)) if ends.search(lines[i])), None)


def _left_open(lines: list[str], lenient: bool) -> tuple[int, re.Match[str]] | None:
    """The first opener that no later line closes: its line's index and match, or ``None``.

    ``lenient``: read openers and closing fences after any indentation, list marker or quote
    mark, else as CommonMark does.
    """
    opener, indent = _OPENERS[lenient], _READER_INDENT if lenient else " {0,3}"
    i = 0
    while i < len(lines):
        m = opener.match(lines[i])
        if m is not None:
            end = _closer(lines, i, m, indent)
            if end is None:
                return i, m
            i = end
        i += 1
    return None


def contained(text: str) -> str:
    """``text`` with a backslash before each block opener it leaves open.

    A fence with its closing fence in ``text`` (code the model wrote) is kept as it is; an
    opener left open — as CommonMark reads the text, or as a reader taking an indented fence
    for one may — gets a backslash before it: Markdown shows the character itself, and a
    reader sees it is no fence. Escaping goes on, opener by opener, until both readings end
    with every block closed.
    """
    if "`" not in text and "~" not in text and "<" not in text:
        return text
    lines = text.splitlines(keepends=True)
    bare = [line.rstrip("\r\n") for line in lines]
    while True:
        found = _left_open(bare, False) or _left_open(bare, True)
        if found is None:
            return "".join(lines)
        i, m = found
        lines[i] = f"{lines[i][:m.start(1)]}\\{lines[i][m.start(1):]}"
        bare[i] = f"{bare[i][:m.start(1)]}\\{bare[i][m.start(1):]}"


def one_line_code(text: str) -> str:
    r"""``text`` as one Markdown code span: its line breaks written as escapes (``\n``)."""
    if _LINE_BREAK.search(text):
        text = _LINE_BREAK.sub(lambda m: m.group().encode("unicode_escape").decode(), text)
    return inline_code(text)


_FENCE = LazyPattern(r" {0,3}(`{3,}+(?!.*`)|~{3,})")
"""A line that opens a code fence as CommonMark reads it (indented at most three spaces)."""
_MARKERS = r" {0,3}(?:(?:[-*+]|\d{1,9}[.)])[ \t]+|>[ \t]*)*"
"""Where a line's own text starts: after up to three spaces and any list markers and quote marks
(a heading inside a list item or a quote is still drawn as a heading)."""
_HEADING = LazyPattern(_MARKERS + r"(#{1,6})(?:[ \t]|$)")
"""A line that is an ATX heading, alone or inside list items and quotes."""
_UNDERLINE = LazyPattern(_MARKERS + r"(=+|-+)[ \t]*$")
"""A line that, under a line of text, makes it a setext heading."""
_BREAKS = LazyPattern(r"\r\n?|[\v\f\x1c-\x1e\x85\u2028\u2029]")
"""Every line break but ``\n``: Python's ``splitlines`` (the sections' reader) splits at each, a
Markdown reader (the terminal's drawing) at ``\r`` alone, a model as its tokens fall."""


def fenced(lines: list[str]) -> list[bool]:
    """For each of ``lines``: True where it is part of a code fence (its fence lines too).

    CommonMark's reading: a fence closes at a line of the same character, at least as long,
    indented at most three spaces; one never closed runs to the end.
    """
    out = [False] * len(lines)
    closer: re.Pattern[str] | None = None
    for i, line in enumerate(lines):
        if closer is not None:
            out[i] = True
            if closer.match(line):
                closer = None
            continue
        m = _FENCE.match(line)
        if m is not None:
            out[i] = True
            mark = m.group(1)
            closer = re.compile(rf" {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}\s*$")
    return out


def one_reading(text: str) -> str:
    r"""``text`` with every line break written ``\n``: each reader splits its lines alike."""
    return _BREAKS.sub("\n", text) if _BREAKS.search(text) else text


def without_headings(text: str) -> str:
    """``text`` with a backslash before each heading line's ``#`` outside its code fences.

    A heading inside a list item or a quote (``- # Earlier user messages``) is escaped too,
    and so is a setext underline (``===``, ``---`` under a line of text). Markdown shows the
    character itself: the terminal draws no heading the model wrote (one mimicking goosectx's
    own), and no reader of the summary's sections (:mod:`.carry`) takes the line for one.
    Code it fenced is kept as written (a reader skips fences).
    """
    if "#" not in text and "=" not in text and "-" not in text:
        return text
    lines = text.splitlines(keepends=True)  # any line break: the reader splits at each
    inside = fenced(lines)
    for i, line in enumerate(lines):
        if inside[i]:
            continue
        m = _HEADING.match(line)
        if m is None and i and not inside[i - 1] and lines[i - 1].strip():
            m = _UNDERLINE.match(line)
        if m is not None:
            lines[i] = f"{line[:m.start(1)]}\\{line[m.start(1):]}"
    return "".join(lines)
