"""A streamed assistant answer: Markdown drawn in a panel while it arrives.

Rendering the whole answer in one ``rich.live.Live`` breaks once it is taller than the
terminal (the part scrolled off can no longer be redrawn). So the panel is drawn line by
line: the Markdown is rendered to lines; all but the last :data:`LIVE_LINES` are printed
for good, and only that tail stays live and is redrawn as text arrives (the approach of
aider's ``MarkdownStream``). Without a terminal the panel is printed once, whole, when the
answer ends; the plain look writes the text as it arrives. Either way the text is made
terminal-safe first (:mod:`goosectx.cli.sanitize`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style

from goosectx.cli.sanitize import SafeStream, terminal_safe

if TYPE_CHECKING:
    from rich.live import Live

LIVE_LINES = 8
"""Lines at the end of a streamed answer that are still redrawn."""
REFRESH_INTERVAL_S = 0.08
"""Least time between two redraws of a streamed answer, seconds."""
BORDER_STYLE = Style(color="green")


_RULE = re.compile(r"\s*([-*_])(\s*\1){2,}\s*")
_NEW_BLOCK = re.compile(r"\n[ \t]*\n(?=[A-Za-z#])")


def _last_block_boundary(text: str, start: int) -> int | None:
    """Offset of the last blank-line block boundary after ``start`` outside code fences."""
    found: int | None = None
    fenced = text.count("```", 0, start) % 2 == 1
    pos = start
    for match in _NEW_BLOCK.finditer(text, start):
        fenced ^= text.count("```", pos, match.start()) % 2 == 1
        pos = match.start()
        before = text[text.rfind("\n", 0, match.start()) + 1:match.start()]
        if not fenced and not _RULE.fullmatch(before):  # a rule renders its own gap
            found = match.end()
    return found


@cache
def markdown_class() -> Any:
    """The ``Markdown`` of rich, drawing an image as a link: ``image: alt (target)``, in place.

    rich draws an image as a block of its own before the paragraph (``🌆 alt``, no target),
    and the paragraph's first line then runs past the panel and is cut. Loaded with the first
    answer (markdown-it is slow to import). A data URI, an encoded target and an escape
    sequence in the alt text or a link's target: :mod:`goosectx.cli.markdown_images`.
    """
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from rich.markdown import Markdown

    from goosectx.cli.markdown_images import hold_brackets, image_target, link_target, put_back

    # rich's __init__ builds MarkdownIt().enable("strikethrough").enable("table") for every
    # text (0.26 ms, as long as parsing a short answer takes); parsing keeps no state in it
    # (tests/test_stream_markdown.py checks this parser parses as rich's own does)
    parser = MarkdownIt().enable("strikethrough").enable("table")
    settings: dict[tuple[Any, ...], dict[str, Any]] = {}

    class _ImagesAsLinks(Markdown):
        def __init__(self, markup: str, *args: Any, **kwargs: Any) -> None:
            held = hold_brackets(markup)
            key = (*args, *sorted(kwargs.items()))
            if key not in settings:  # the first text of these settings: rich's own __init__
                super().__init__(held, *args, **kwargs)
                settings[key] = dict(vars(self))
            else:  # the same attributes, parsed by the one parser
                vars(self).update(settings[key])
                self.parsed = parser.parse(held)
            self.markup = markup
            if held is not markup:
                put_back(self.parsed)

        def _flatten_tokens(self, tokens: Iterable[Token]) -> Iterable[Token]:
            for token in super()._flatten_tokens(tokens):
                if token.type in ("html_block", "html_inline"):  # rich drops them: shown as
                    yield from _html_as_text(token)            # written (the model reads it)
                    continue
                if token.type == "link_open":
                    href = str(token.attrs.get("href", ""))
                    token.attrs["href"] = link_target(href, self.markup)
                if token.type != "image":
                    yield token
                    continue
                alt = token.content.strip()
                target = image_target(str(token.attrs.get("src", "")), self.markup)
                yield Token("link_open", "a", 1, attrs={"href": target})
                yield Token("text", "", 0, content=f"image: {alt}" if alt else "image")
                yield Token("link_close", "a", -1)

    return _ImagesAsLinks


def _html_as_text(token: Any) -> Iterator[Any]:
    """An HTML block or inline tag as the text it is (a block as a paragraph of its lines).

    rich's Markdown draws nothing for HTML (a ``<script>`` block or ``<b>`` vanished from an
    answer or a summary the model reads whole); ``<kbd>`` too is shown as written.
    """
    from markdown_it.token import Token

    if token.type == "html_inline":
        yield Token("text", "", 0, content=token.content)
        return
    yield Token("paragraph_open", "p", 1)
    yield Token("text", "", 0, content=token.content.rstrip("\n"))
    yield Token("paragraph_close", "p", -1)


class _Lines:
    """Pre-rendered lines as a renderable."""

    def __init__(self, lines: Iterable[list[Segment]]) -> None:
        self.lines = list(lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines:
            yield from line
            yield Segment.line()


class AssistantStream:
    """One assistant answer being streamed.

    Args:
        console: Where the panel is drawn.
        title: The panel title.
        plain: Write raw text as it arrives (no panel, no escape codes).
        live: Redraw the tail live (only on a terminal).
    """

    def __init__(self, console: Console, *, title: str, plain: bool, live: bool) -> None:
        self.console = console
        self.title = title
        self.plain = plain
        self.live_enabled = live and not plain
        self._text = ""
        self._pieces: list[str] = []  # fed since ``_text`` was last joined
        self._emitted = 0
        self._live: Live | None = None
        self._last_draw_s = 0.0
        self._interval_s = REFRESH_INTERVAL_S
        self._frozen_chars = 0
        self._frozen_lines: list[list[Segment]] = []
        self._frozen_width = max(10, console.width - 4)
        self._top_printed = False
        self._safe = SafeStream()

    # -- public --------------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The answer so far, joined when read.

        Adding each chunk to one string would copy the whole answer per chunk.
        """
        if self._pieces:
            self._text += "".join(self._pieces)
            self._pieces.clear()
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._text = value
        self._pieces.clear()

    def feed(self, chunk: str) -> None:
        """Add streamed text (redrawn at most every :data:`REFRESH_INTERVAL_S`)."""
        chunk = self._safe.feed(chunk)
        if not chunk:
            return
        self._pieces.append(chunk)
        if self.plain:
            self.console.file.write(chunk)
            self.console.file.flush()
            return
        if not self.live_enabled:
            return
        now = time.monotonic()
        if now - self._last_draw_s >= self._interval_s:
            self._draw(final=False)
            # Each redraw renders the whole answer; keep that under ~20 % of the time.
            cost_s = time.monotonic() - now
            self._interval_s = max(REFRESH_INTERVAL_S, 5 * cost_s)
            self._last_draw_s = time.monotonic()

    def close(self, *, end: str = "") -> None:
        """Finish the answer: print what is left and the bottom border.

        ``end``: why the answer stopped short (``cancelled``, ``stopped by an error``), drawn
        in the bottom border; empty for an answer that ended as the model ended it.
        """
        held = self._safe.flush()
        if held:
            self._pieces.append(held)
            if self.plain:
                self.console.file.write(held)
        if self.plain:
            if self.text and not self.text.endswith("\n"):
                self.console.file.write("\n")
            if end:
                self.console.file.write(terminal_safe(f"-- ({end})\n"))
            self.console.file.flush()
            return
        self._draw(final=True, end=end)

    @classmethod
    def print_whole(cls, console: Console, text: str, *, title: str, plain: bool) -> None:
        """Print a finished answer at once (stored messages, unstreamed replies)."""
        text = terminal_safe(text)
        if plain:
            console.file.write(text.rstrip("\n") + "\n")
            console.file.flush()
            return
        stream = cls(console, title=title, plain=False, live=False)
        stream.text = text
        stream.close()

    # -- drawing -------------------------------------------------------------------------
    def _render(self, text: str, *, trim: bool = True) -> list[list[Segment]]:
        """Markdown → lines at the panel's inner width (``trim``: trailing blanks dropped)."""
        width = max(10, self.console.width - 4)
        options = self.console.options.update_width(width)
        # hyperlinks=False: a link is drawn as its text and "(target)", never as an OSC 8
        # hyperlink whose clickable text ("https://docs…") hides where it goes.
        markdown = markdown_class()(text.rstrip(), hyperlinks=False)
        lines = self.console.render_lines(markdown, options, pad=True)
        while trim and lines and not "".join(s.text for s in lines[-1]).strip():
            lines.pop()
        return lines

    def _freeze(self) -> None:
        """Render finished top-level blocks once, so a redraw renders only the rest.

        A block is finished when a blank line outside a code fence is followed by a line
        that can only start a new block (a letter or ``#``); rendered apart, such blocks
        look as they do in the whole answer (one blank line between them).
        """
        boundary = _last_block_boundary(self.text, self._frozen_chars)
        if boundary is None:
            return
        width = max(10, self.console.width - 4)
        if self._frozen_width != width:  # the terminal was resized: start over
            self._frozen_chars, self._frozen_lines, self._frozen_width = 0, [], width
            boundary = _last_block_boundary(self.text, 0)
            if boundary is None:
                return
        chunk = self._render(self.text[self._frozen_chars:boundary], trim=False)
        if chunk:
            if self._frozen_lines:
                self._frozen_lines.append([Segment(" " * width)])
            self._frozen_lines += chunk
        self._frozen_chars = boundary

    def _body_lines(self) -> list[list[Segment]]:
        self._freeze()
        lines = list(self._frozen_lines)
        rest = self._render(self.text[self._frozen_chars:])
        if lines and rest:
            lines.append([Segment(" " * max(10, self.console.width - 4))])
        lines += rest
        left, right = Segment("│ ", BORDER_STYLE), Segment(" │", BORDER_STYLE)
        return [[left, *line, right] for line in lines]

    def _edge(self, top: bool, label: str) -> list[Segment]:
        width = max(10, self.console.width)
        corner_l, corner_r = ("╭", "╮") if top else ("╰", "╯")
        head = f"{corner_l}─ {label} " if label else corner_l
        fill = max(0, width - len(head) - 1)
        return [Segment(head + "─" * fill + corner_r, BORDER_STYLE)]

    def _draw(self, *, final: bool, end: str = "") -> None:
        lines = self._body_lines()
        if final:
            pending = [] if self._top_printed else [self._edge(True, self.title)]
            pending += lines[self._emitted:]
            pending.append(self._edge(False, end))
            if self._live is not None:
                self._live.stop()
                self._live = None
            self.console.print(_Lines(pending))
            self._emitted = len(lines)
            return
        if self._live is None:
            self.console.print(_Lines([self._edge(True, self.title)]))
            self._top_printed = True
            from rich.live import Live  # at the first streamed answer, not at launch

            self._live = Live(console=self.console, auto_refresh=False, transient=True,
                              redirect_stdout=False, redirect_stderr=False)
            self._live.start()
        stable = max(self._emitted, len(lines) - LIVE_LINES)
        if stable > self._emitted:
            self._live.console.print(_Lines(lines[self._emitted:stable]))
            self._emitted = stable
        self._live.update(_Lines(lines[self._emitted:]), refresh=True)
