"""The transcript's write primitives: every line goosectx draws on a console goes out here.

:class:`Surface` owns the ``Console``, the look (*rich* or *plain*, see
:mod:`goosectx.cli.render`), the spinner and the open streamed answer, and draws the
generic pieces of a transcript: notices, rules, error panels, titled panels and plain lines.
Every string drawn here passes :func:`~goosectx.cli.sanitize.terminal_safe` first (it may
hold outside text: tool names, error bodies, session names) and becomes a ``Text``, never
markup.
:class:`~goosectx.cli.render.TranscriptRenderer` builds on it and decides what to draw for
the core's events and stored messages (docs/architecture.md, "The print path").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console, RenderableType
from rich.panel import Panel
from rich.text import Text

from goosectx.cli.approval_view import ApprovalQuestion, rich_question
from goosectx.cli.sanitize import terminal_safe
from goosectx.cli.stream import AssistantStream

if TYPE_CHECKING:
    from rich.status import Status  # console.status imports it: at the first spinner


class Surface:
    """A console with a look, a spinner and at most one streamed answer.

    Args:
        console: Where everything is written.
        plain: Plain look: no panels, no live updates, no spinners, no colour.
    """

    def __init__(self, console: Console, *, plain: bool = False) -> None:
        self.console = console
        self.plain = plain
        self.interactive = console.is_terminal and not console.is_dumb_terminal and not plain
        self._stream: AssistantStream | None = None
        self._status: Status | None = None
        self._shown_notices: set[str] = set()

    # -- activity (spinner, stream) ------------------------------------------------------
    def waiting(self, text: str = "thinking…") -> None:
        """Show a spinner until the next event (nothing in a non-interactive console)."""
        if not self.interactive:
            return
        if self._status is None:
            self._status = self.console.status(safe_text(text, "dim"), spinner="dots")
            self._status.start()
        else:
            self._status.update(safe_text(text, "dim"))

    def settle(self) -> None:
        """Stop the spinner and finish a streamed answer (before a prompt or a question)."""
        self._stop_spinner()
        self._close_stream()

    def _stop_spinner(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def _close_stream(self, *, end: str = "") -> bool:
        """Finish the streamed answer (``end``: why it stopped short); True when one was open."""
        if self._stream is None:
            return False
        self._stream.close(end=end)
        self._stream = None
        return True

    # -- notices -------------------------------------------------------------------------
    def _notice(self, text: str, *, style: str = "dim") -> None:
        self._shown_notices.add(text)
        if self.plain:
            self._plain(f"-- {text}")
            return
        self.console.print(safe_text("● " + text, style))

    def cancelling(self, text: str) -> None:
        """Say a cancel is under way without cutting a streamed answer in two.

        A streaming answer ends with a ``cancelled`` border anyway; a spinner shows the text;
        otherwise it is an inline notice.
        """
        if self._stream is not None:
            return
        if self._status is not None:
            self._status.update(safe_text(text, "yellow"))
            return
        self._notice(text, style="yellow")

    def notice(self, text: str, *, style: str = "dim") -> None:
        """An inline notice line."""
        self.settle()
        self._notice(text, style=style)

    def command_echo(self, line: str) -> None:
        """Keep a slash command the user ran in the transcript (the prompt line is erased)."""
        self.settle()
        if self.plain:
            return
        self.console.print(safe_text("❯ " + line, "bold blue"))

    def rule(self, text: str) -> None:
        """A horizontal rule with ``text`` in it (compactions)."""
        self.settle()
        if self.plain:
            self._plain(f"--- {text} ---")
            return
        self.console.rule(safe_text(text, "cyan"), style="cyan")

    def error(self, message: str, hint: str | None = None) -> None:
        """A failure the user should read: a red panel (plain: ``error:`` lines)."""
        self.settle()
        if self.plain:
            self._plain(f"error: {message}")
            if hint:
                self._plain(f"hint: {hint}")
            return
        body = safe_text(message)
        if hint:
            body.append("\n" + terminal_safe(hint), style="bold")
        self.console.print(Panel(body, title="error", title_align="left", border_style="red"))

    def panel(self, body: RenderableType | str, *, title: str, style: str = "cyan") -> None:
        """A titled panel (plain: the title line, then the body)."""
        self.settle()
        if self.plain:
            self._plain(f"== {title} ==")
            if isinstance(body, str):
                for line in body.splitlines():
                    self._plain(line)
            else:
                self.console.print(body)
            return
        content: Any = safe_text(body) if isinstance(body, str) else body
        self.console.print(Panel(content, title=title, title_align="left", border_style=style))

    def print(self, renderable: RenderableType) -> None:
        """Print any renderable (tables of ``/usage`` and ``/context``)."""
        self.settle()
        self.console.print(renderable)

    def approval(self, question: ApprovalQuestion, *, whole: bool) -> None:
        """Draw goosectx's own approval question (``cli/approval_view.py``).

        The streamed answer is finished first; every line is marked; the call is shown
        whole unless it is long and ``whole`` is False.
        """
        self.settle()
        self.console.print(rich_question(question, whole=whole), soft_wrap=self.plain)

    def _plain(self, line: str) -> None:
        """One plain-look line: outside text in it is made terminal-safe, never markup."""
        self.console.print(terminal_safe(line), markup=False, highlight=False, emoji=False,
                           soft_wrap=True)


def safe_text(text: str, style: str = "") -> Text:
    """A rich ``Text`` of outside text: terminal-safe, and markup never applies to it."""
    return Text(terminal_safe(text), style=style)
