"""The transcript renderer: the core's events and stored messages, drawn with rich.

Only this module decides how a transcript looks (STYLE.md example 1): user and assistant
panels (assistant Markdown streamed as it arrives), tool calls with their arguments, tool
results folded past :data:`FOLD_LINES`, inline notifications, a spinner while the model or
the summariser works, and a rule after each compaction. Everything is written through the
``Console`` it is given, so tests read the rendered text from a ``StringIO``; the generic
write primitives (notices, rules, errors, panels, spinner) live in
:class:`~goosectx.cli.surface.Surface`.

Two looks: *rich* (panels; live streaming and spinners when the console is a terminal) and
*plain* (no TTY, ``TERM=dumb``, ``NO_COLOR``): simple prefixed lines, no escape codes.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from goosectx import shell_escape as escapes
from goosectx.cli.diffview import draw_edit_preview
from goosectx.cli.folding import (
    argument_lines,
    plural,
    tool_result_label,
)
from goosectx.cli.reasoning import ReasoningStream
from goosectx.cli.result_view import draw_edit_result, draw_folded_result
from goosectx.cli.sanitize import terminal_safe
from goosectx.cli.stream import AssistantStream
from goosectx.cli.surface import Surface, safe_text
from goosectx.cli.transcript_text import attachment_line, compaction_rule_text
from goosectx.conversation import (
    Attachment,
    Message,
    SystemNotification,
    TextContent,
    ThinkingContent,
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
from goosectx.shown import attachment_key, numbered_outputs, output_keys, thinking_key
from goosectx.usage import COST_UNKNOWN

__all__ = ["TranscriptRenderer", "attachment_line", "compaction_rule_text"]


def _only_notifications(message: Message) -> bool:
    return bool(message.content) and all(isinstance(p, SystemNotification)
                                         for p in message.content)


class TranscriptRenderer(Surface):
    """Draws events and messages on a rich ``Console``.

    Args:
        console: Where everything is written.
        plain: Plain look: no panels, no live updates, no spinners, no colour.
        assistant_title: Title of assistant panels.
        show_reasoning: Draw the model's reasoning (``show_reasoning = false``: a spinner).
    """

    def __init__(self, console: Console, *, plain: bool = False,
                 assistant_title: str = "goosectx", show_reasoning: bool = True) -> None:
        super().__init__(console, plain=plain)
        self.assistant_title = assistant_title
        self.show_reasoning = show_reasoning
        self._reasoning: ReasoningStream | None = None
        self._reasoning_drawn = False  # the live reasoning of the reply being streamed
        self._tool_names: dict[str, str] = {}
        self._shown_requests: set[str] = set()
        self._shown_responses: set[str] = set()
        self._echoed_user: str | None = None
        self._turn_notified = False
        self.cost_unknown_said = False
        """Whether "cost unknown" was said (it is said once a session, not on every line)."""
        self._numbers: dict[str, int] = {}
        self._previewed: dict[str, str] = {}

    # -- numbered outputs (/show N) --------------------------------------------------------
    def seed_numbers(self, messages: Iterable[Message], *, fresh: bool = False) -> None:
        """Number the outputs of a stored conversation as ``/show`` does (before drawing).

        ``fresh`` forgets the numbers of the session drawn before (``/resume``).
        """
        messages = list(messages)
        if fresh:
            self._numbers.clear()
        # a result drawn without its call (a resumed tail cut between them) keeps its tool's name
        self._tool_names.update((r.id, r.name) for m in messages for r in m.tool_requests)
        for out in numbered_outputs(messages):
            self._numbers.setdefault(out.key, out.number)

    def _number(self, key: str) -> int:
        return self._numbers.setdefault(key, len(self._numbers) + 1)

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
        super().settle()

    def handle(self, event: Event) -> None:
        """Draw one event of the core (see DESIGN.md §5 for their meaning)."""
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

    def _completed(self, message: Message) -> None:
        streamed = self._close_stream(cancelled=message.metadata.cancelled)
        reasoned, self._reasoning_drawn = self._reasoning_drawn, False
        if not message.metadata.user_visible:
            return
        if escapes.is_shell_escape(message):
            self._shell_escape(message)
            return
        for key in output_keys(message):  # numbered as /show counts them, drawn or not
            self._number(key)
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
        self._parts(message, skip_text=streamed, skip_thinking=reasoned)
        if message.metadata.cancelled and not streamed and not message.text:
            self._notice("(answer cancelled)")

    def _turn_finished(self, event: TurnFinished) -> None:
        self._close_stream(cancelled=event.status == "cancelled")
        self._echoed_user = None
        notified, self._turn_notified = self._turn_notified, False
        if event.status == "cancelled":
            self._notice("turn cancelled — the session is saved; type to continue")
        elif event.status == "max_turns" and not notified:
            self._notice("stopped: this turn reached its limit of model calls "
                         "(GOOSE_MAX_TURNS); say 'continue' to go on", style="yellow")
        elif event.status == "error":
            self.error(event.error or "the turn failed")

    # -- messages ------------------------------------------------------------------------
    def history(self, messages: Iterable[Message]) -> None:
        """Draw a stored conversation: every user-visible message, compactions marked.

        Tool calls, results and notices are drawn again even when the live transcript
        already showed them (``/history user``), folded the same way.

        Args:
            messages: The whole conversation in order (agent-only messages are skipped,
                except that a summary marks where a compaction happened).
        """
        marked: set[str] = set()
        for m in messages:
            cid = m.metadata.compaction_id
            if m.metadata.user_visible and cid and _only_notifications(m):
                marked.add(cid)  # the compaction's own notice: drawn as its rule
                self.rule(" · ".join(p.text for p in m.content
                                     if isinstance(p, SystemNotification)))
                continue
            if m.metadata.is_summary and not (cid and cid in marked):
                when = m.created.astimezone().strftime("%Y-%m-%d %H:%M")
                self.rule(f"context compacted · {when}")
            if not m.metadata.user_visible:
                continue
            self.message(m)

    def message(self, message: Message, *, label: str | None = None) -> None:
        """Draw one whole message (text panel, thinking, tool calls and results, notices).

        Unlike the live events, it draws every part even if it was drawn before. A summary is
        Markdown (``# Conversation Summary``) and is drawn as such.
        """
        if message.metadata.is_summary and message.text.strip():
            AssistantStream.print_whole(self.console, message.text, title=label or "summary",
                                        plain=self.plain)
            return
        if escapes.is_shell_escape(message):
            self._shell_escape(message)
            return
        if message.role == "user" and message.is_plain_user_text:
            self._user_message(message.text, label=label)
            return
        if message.role == "assistant" and message.text.strip():
            for i, p in enumerate(message.content):
                if isinstance(p, ThinkingContent):
                    self._thinking(p.text, thinking_key(message.id, i))
            title = label or self.assistant_title
            if message.metadata.cancelled:
                title += " (cancelled)"
            AssistantStream.print_whole(self.console, message.text, title=title,
                                        plain=self.plain)
            self._parts(message, skip_text=True, skip_thinking=True, again=True)
            return
        if label:
            self._notice(f"[{label}]")
        self._parts(message, skip_text=False, again=True)

    def _parts(self, message: Message, *, skip_text: bool, skip_thinking: bool = False,
               again: bool = False) -> None:
        """Draw a message's parts.

        ``again`` also draws calls, results and notices drawn before (the live path skips
        them: a call is drawn when it is requested, a result when it arrives).
        """
        for i, p in enumerate(message.content):
            if isinstance(p, TextContent):
                if skip_text or not p.text.strip():
                    continue
                if message.role == "user":
                    self._user_message(p.text)
                else:
                    AssistantStream.print_whole(self.console, p.text,
                                                title=self.assistant_title, plain=self.plain)
            elif isinstance(p, ThinkingContent):
                if not skip_thinking:
                    self._thinking(p.text, thinking_key(message.id, i))
            elif isinstance(p, ToolRequest):
                self._tool_call(p, again=again)
            elif isinstance(p, ToolResponse):
                self._tool_result(p, again=again)
            elif isinstance(p, SystemNotification):
                if again or p.text not in self._shown_notices:
                    self._notice(p.text)
            elif isinstance(p, Attachment):
                self._attachment(p, attachment_key(message.id, i))

    def _shell_escape(self, message: Message) -> None:
        """A ``!command``: its output folded like a tool result (``✓ ! ls · 3 lines``)."""
        response = ToolResponse(message.id, escapes.escape_output(message),
                                is_error=escapes.escape_failed(message))
        draw_folded_result(self, response, "! " + terminal_safe(escapes.escape_command(message)),
                           self._number(escapes.shell_escape_key(message.id)))

    def _attachment(self, attachment: Attachment, key: str) -> None:
        line = attachment_line(attachment)
        if attachment.is_text:  # its content is folded away: /show N prints it
            number = self._number(key)
            line += f" · #{number} (/show {number})"
        if self.plain:
            self._plain(f"  {line}")
            return
        self.console.print(Text("  " + line, style="dim"))

    def _user_message(self, text: str, *, label: str | None = None) -> None:
        if self.plain:
            for line in terminal_safe(text).splitlines() or [""]:
                self._plain(f"> {line}")
            return
        self.console.print(Panel(safe_text(text), title=label or "you", title_align="left",
                                 border_style="blue", padding=(0, 1)))

    def _thinking(self, text: str, key: str) -> None:
        """Stored reasoning, drawn as it was live: a header, its first lines, a fold line."""
        if not text.strip():
            return
        number = self._number(key)
        if not self.show_reasoning:
            return
        reasoning = ReasoningStream(self.console, plain=self.plain, number=number)
        reasoning.feed(text)  # as live: model text, its escapes shown (cli/sanitize.py)
        reasoning.close()

    def _tool_call(self, request: ToolRequest, *, again: bool = False) -> None:
        self._tool_names[request.id] = request.name
        if request.id in self._shown_requests and not again:
            return
        self._shown_requests.add(request.id)
        name = terminal_safe(request.name)
        args = [terminal_safe(line) for line in argument_lines(request)]
        if self.plain:
            self._plain(f"[tool] {name}")
            for line in args:
                self._plain(f"    {line}")
            return
        text = Text("▶ ", style="magenta")
        text.append(name, style="bold magenta")
        style = "red" if request.arguments is None else ""
        if len(args) == 1:
            text.append("  " + args[0], style=style)
        else:
            for line in args:
                text.append("\n    " + line, style=style)
        self.console.print(text)

    def _tool_result(self, response: ToolResponse, *, again: bool = False) -> None:
        if response.id in self._shown_responses and not again:
            return
        self._shown_responses.add(response.id)
        name = terminal_safe(self._tool_names.get(response.id, "tool"))
        what, ran = tool_result_label(response)
        number = self._number(response.id)  # every result has one, as /show counts them
        if not ran:  # denied or chat mode: the response text is the model's, not the tool's
            if self.plain:
                self._plain(f"  ✗ {name} {what}")
            else:
                self.console.print(Text(f"  ✗ {name} {what}", style="yellow"))
            return
        if response.diff:
            seen = self._previewed.pop(response.id, None) == response.diff
            draw_edit_result(self, response, name, number, again=seen)
        else:
            draw_folded_result(self, response, f"{name} {what}", number)
