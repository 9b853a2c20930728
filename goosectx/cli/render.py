"""The transcript renderer: the core's events and stored messages, drawn with rich.

This module decides how the live transcript looks (STYLE.md example 1): the user's prompt,
the assistant's Markdown streamed as it arrives, reasoning, tool calls and results as they
come, inline notifications, a spinner while the model or the summariser works, and a rule
after each compaction. How one whole message and its parts look (a resumed tail,
``/history``) is :class:`~goosectx.cli.message_view.MessageView`, which it builds on; the
generic write primitives (notices, rules, errors, panels, spinner) live in
:class:`~goosectx.cli.surface.Surface`. Everything is written through the ``Console`` it is
given, so tests read the rendered text from a ``StringIO``.

Two looks: *rich* (panels; live streaming and spinners when the console is a terminal) and
*plain* (no TTY, ``TERM=dumb``, ``NO_COLOR``): simple prefixed lines, no escape codes.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from goosectx import shell_escape as escapes
from goosectx.approval import INPUT_ENDED_TEXT
from goosectx.cli.diffview import draw_edit_preview
from goosectx.cli.folding import plural, tool_result_label, unrun_reason
from goosectx.cli.message_view import MessageView
from goosectx.cli.reasoning import ReasoningStream
from goosectx.cli.stream import AssistantStream
from goosectx.cli.transcript_text import attachment_line, compaction_rule_text
from goosectx.conversation import (
    Message,
    ToolRequest,
    ToolResponse,
)
from goosectx.events import (
    CompactionUndone,
    Event,
    HistoryReplaced,
    MessageCompleted,
    MessageDelta,
    Notification,
    ReasoningDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolPairsSummarized,
    TurnFinished,
    UsageUpdated,
)
from goosectx.shown import output_keys
from goosectx.turn import TURN_ERROR_KEY
from goosectx.usage import COST_UNKNOWN

__all__ = ["LIVE_CALLS_SHOWN", "TranscriptRenderer", "attachment_line", "compaction_rule_text"]

LIVE_CALLS_SHOWN = 5
"""How many of a reply's tool calls are drawn when the reply completes; the rest (when two or
more) are one count line, each drawn right before its approval question or its result (a
reply of 300 calls would push its text and the first question off the screen)."""


class TranscriptRenderer(MessageView):
    """Draws the core's events as they arrive, and messages, on a rich ``Console``.

    Args:
        console: Where everything is written.
        plain: Plain look: no panels, no live updates, no spinners, no colour.
        assistant_title: Title of assistant panels.
        show_reasoning: Draw the model's reasoning (``show_reasoning = false``: a spinner).
    """

    def __init__(self, console: Console, *, plain: bool = False,
                 assistant_title: str = "goosectx", show_reasoning: bool = True) -> None:
        super().__init__(console, plain=plain, assistant_title=assistant_title,
                         show_reasoning=show_reasoning)
        self._reasoning: ReasoningStream | None = None
        self._reasoning_drawn = False  # the live reasoning of the reply being streamed
        self._echoed_user: str | None = None
        self._turn_notified = False
        self._input_ended = False
        """A call of this turn was not run because input ended at its approval question."""
        self._unrun: tuple[str, int] | None = None
        """A cancelled turn's answers drawn live: (why they did not run, how many followed)."""
        self._reply_drawn = False
        """The reply being streamed had its answer panel drawn and closed before it completed
        (a tool call's progress on the spinner, reasoning or a notice came after its text):
        its ``MessageCompleted`` must not draw that text a second time."""
        self.cost_unknown_said = False
        """Whether "cost unknown" was said (it is said once a session, not on every line)."""
        self.unsaved: Callable[[], int] = lambda: 0
        """How many events the session recorder holds back (a full disk): set by the REPL."""
        self._held: list[ToolRequest] = []
        """The reply's calls past :data:`LIVE_CALLS_SHOWN` not drawn yet, in order."""
        self._holding: set[int] = set()
        """The calls (by identity) the completing reply holds back: not drawn with it."""

    def asking(self, request: ToolRequest) -> None:
        """A tool call is about to be asked about: a call held back is drawn first."""
        if self._release(request):
            super()._tool_call(request)  # its ToolCallStarted then does not draw it again

    def edit_preview(self, request: ToolRequest, diff: str) -> None:
        """The diff an edit would make, drawn before its approval question."""
        self.settle()
        self._previewed[request.id] = diff
        draw_edit_preview(self, request, diff)

    # -- the turn's events ---------------------------------------------------------------
    def user(self, text: str, *, show: bool = True) -> None:
        """The user's prompt, drawn before the turn runs (``show=False``: already on screen).

        The turn's ``MessageCompleted`` for this text is then not drawn a second time.
        """
        self.settle()
        self._echoed_user = text
        if show:
            self._user_message(text)

    def settle(self) -> None:
        """Stop the spinner, finish streamed reasoning and answer (before a prompt)."""
        self._end_reasoning()
        self._end_unrun()
        super().settle()

    def handle(self, event: Event) -> None:
        """Draw one event of the core (see DESIGN.md §5 for their meaning)."""
        if not isinstance(event, ToolCallFinished):
            self._end_unrun()
        if isinstance(event, ReasoningDelta):
            self._reason(event.text)
            return
        self._end_reasoning()
        if isinstance(event, MessageDelta):
            self._stop_spinner()
            if self._stream is None:
                self._stream = AssistantStream(self.console, title=self.assistant_title,
                                               plain=self.plain, live=self.interactive)
            self._stream.feed(event.text)
            return
        if isinstance(event, Notification) and event.kind == "thinking":
            self._close_stream()
            if self.interactive:
                self.waiting(event.text)
            else:
                self._notice(event.text)
            return
        if isinstance(event, UsageUpdated):
            return  # the toolbar shows it; drawing it would interrupt a streamed answer
        self._stop_spinner()
        if isinstance(event, MessageCompleted):
            self._completed(event.message)
        elif isinstance(event, ToolCallStarted):
            self._close_stream()
            self._tool_call(event.request)
            self.waiting(f"running {event.request.name}…")
        elif isinstance(event, ToolCallFinished):
            self._close_stream()
            self._input_ended |= event.response.output.startswith(INPUT_ENDED_TEXT)
            if not self._folded_unrun(event.response):
                if self._held and self._held[0].id == event.response.id:  # never started
                    super()._tool_call(self._held.pop(0))  # (denied, refused, not run)
                self._tool_result(event.response)
            self.waiting()
        elif isinstance(event, Notification):
            self._close_stream()
            self._notice(event.text)
            self._turn_notified = True
        elif isinstance(event, HistoryReplaced):
            self._close_stream()
            text = compaction_rule_text(event, say_cost_unknown=not self.cost_unknown_said)
            self.cost_unknown_said = self.cost_unknown_said or COST_UNKNOWN in text
            self.rule(text)
        elif isinstance(event, CompactionUndone):  # the notice that follows says the rest
            self._close_stream()
            self.rule("compaction undone · auto-compaction paused")
        elif isinstance(event, ToolPairsSummarized):
            self._close_stream()
            one = event.count == 1
            self._notice(f"{plural(event.count, 'old tool call')} condensed to "
                         f"{'a one-line note' if one else 'one-line notes'} for the model "
                         f"(−{event.tokens_saved:,} tokens); you still see "
                         f"{'it' if one else 'them'} in full")
        elif isinstance(event, TurnFinished):
            self._turn_finished(event)

    def _tool_call(self, request: ToolRequest, *, again: bool = False) -> None:
        """Live: a call the completing reply holds back is drawn when it is asked or runs."""
        if not again and id(request) in self._holding:
            return
        self._release(request)
        super()._tool_call(request, again=again)

    def _release(self, request: ToolRequest) -> bool:
        """Take ``request`` (by identity) off the calls held back; False when it was not."""
        for i, held in enumerate(self._held):
            if held is request:
                del self._held[i]
                return True
        return False

    def _hold_calls(self, message: Message) -> list[ToolRequest]:
        """The calls of a completing reply past :data:`LIVE_CALLS_SHOWN` (none for one)."""
        fresh = [r for r in message.tool_requests if id(r) not in self._drawn_once]
        held = fresh[LIVE_CALLS_SHOWN:]
        return held if len(held) > 1 else []

    def _held_line(self, count: int) -> None:
        """``… and 296 more tool calls — each is shown when it is asked about or runs``."""
        line = (f"… and {plural(count, 'more tool call')} — each is shown when it is asked "
                "about or runs")
        if self.plain:
            self._plain(line)
        else:
            self.console.print(Text(line, style="magenta"))

    def _folded_unrun(self, response: ToolResponse) -> bool:
        """True for a call a cancel left unrun after another one: counted, not drawn.

        A reply's 200 calls cancelled at the first question would draw 400 lines; the first
        is drawn as any result, the rest become one line (:meth:`_end_unrun`). The result
        still takes its number (``/show N``) and is not drawn again with its message.
        """
        reason = unrun_reason(tool_result_label(response)[0])
        if self._unrun is not None and self._unrun[0] == reason:
            if not self._drawn_before(response):
                self._number(None)
                self._unrun = (reason, self._unrun[1] + 1)
            return True
        self._end_unrun()
        self._unrun = None if reason is None else (reason, 0)
        return False

    def _end_unrun(self) -> None:
        """``✗ 199 more tool calls not run: cancelled by you`` for the calls folded."""
        if self._unrun is None:
            return
        (reason, more), self._unrun = self._unrun, None
        if more:
            line = f"  ✗ {plural(more, 'more tool call')} not run: {reason}"
            if self.plain:
                self._plain(line)
            else:
                self.console.print(Text(line, style="yellow"))

    def _reason(self, text: str) -> None:
        """One chunk of live reasoning: drawn folded, or a spinner when it is hidden."""
        if self._reasoning is None:
            self._close_stream()
            if self.show_reasoning:
                self._stop_spinner()
                # /show's number for it: the next one (it is numbered when its reply completes)
                self._reasoning = ReasoningStream(self.console, plain=self.plain,
                                                  number=len(self._numbers) + 1)
                self._reasoning_drawn = True
            self.waiting("thinking…")
        if self._reasoning is not None:
            self._reasoning.feed(text)

    def _end_reasoning(self) -> None:
        if self._reasoning is not None:
            self._reasoning.close()
            self._reasoning = None

    def _close_stream(self, *, end: str = "") -> bool:
        closed = super()._close_stream(end=end)
        self._reply_drawn |= closed
        return closed

    def _completed(self, message: Message) -> None:
        meta = message.metadata  # an answer cut at the output limit: the notice after it says so
        self._close_stream(end=meta.cut_short if meta.cancelled else "")
        streamed, self._reply_drawn = self._reply_drawn, False
        reasoned, self._reasoning_drawn = self._reasoning_drawn, False
        if not message.metadata.user_visible or TURN_ERROR_KEY in meta.extra:
            return  # the error's notice: the turn's error line says it (_turn_finished)
        if escapes.is_shell_escape(message):
            self._shell_escape(message)
            return
        for key in output_keys(message):  # numbered as /show counts them, drawn or not
            self._number(key)
        self._keyed()
        if message.role == "user":
            echoed = self._echoed_user is not None and message.text == self._echoed_user
            if echoed:
                self._echoed_user = None
            if message.is_plain_user_text:
                if not echoed:
                    self._user_message(message.text)
                return
            self._parts(message, skip_text=echoed)  # e.g. the prompt's attachments
            return
        held = self._hold_calls(message)
        self._holding = {id(r) for r in held}
        try:
            self._parts(message, skip_text=streamed, skip_thinking=reasoned)
        finally:
            self._holding = set()
        if held:
            self._held.extend(held)
            self._held_line(len(held))
        if message.metadata.cancelled and not streamed and not message.text:
            self._notice(f"(answer {message.metadata.cut_short})")

    def _turn_finished(self, event: TurnFinished) -> None:
        self._close_stream(end="cancelled" if event.status == "cancelled" else "")
        self._reply_drawn = False  # a reply that failed mid-stream completes nothing
        self._echoed_user = None
        self._drawn_once.clear()  # a call not run (denied) was drawn once only
        self._held.clear()  # calls a cancel left unrun: counted, never drawn
        self._keyed()
        notified, self._turn_notified = self._turn_notified, False
        input_ended, self._input_ended = self._input_ended, False
        if event.status == "cancelled" and input_ended:  # no one cancelled; nothing to type
            saved = ("the session is saved" if not self.unsaved() else
                     "the session is NOT fully saved (see above)")
            self._notice(f"turn ended: input ended at the approval question — {saved}")
        elif event.status == "cancelled":
            from goosectx.cli.exit_signals import received_name

            by = received_name()  # SIGTERM / SIGHUP: the REPL leaves next, nothing to type
            saved = ("the session is saved" if not self.unsaved() else
                     "the session is NOT fully saved (see above)")
            self._notice(f"turn cancelled ({by}) — {saved}" if by else
                         f"turn cancelled — {saved}; type to continue")
        elif event.status == "max_turns" and not notified:
            self._notice("stopped: this turn reached its limit of model calls "
                         "(GOOSE_MAX_TURNS); say 'continue' to go on", style="yellow")
        elif event.status == "error":
            self.error(event.error or "the turn failed")
