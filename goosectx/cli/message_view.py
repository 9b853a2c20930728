"""How one stored message looks: its text, thinking, tool calls and results, notices.

:class:`MessageView` draws whole messages and their parts on a
:class:`~goosectx.cli.surface.Surface` (a resumed tail, ``/history user``, ``/show``) and
numbers the outputs ``/show N`` prints, in the one numbering of :mod:`goosectx.shown`. The
live transcript (:class:`~goosectx.cli.render.TranscriptRenderer`) builds on it and draws each
part as its event arrives, once. Outside text passes the terminal cleaner first
(docs/architecture.md, "The print path").
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from goosectx import shell_escape as escapes
from goosectx.cli.folding import argument_lines, tool_result_label
from goosectx.cli.reasoning import ReasoningStream
from goosectx.cli.result_view import draw_edit_result, draw_folded_result, indented_rows
from goosectx.cli.sanitize import code_safe, terminal_safe
from goosectx.cli.stream import AssistantStream
from goosectx.cli.surface import Surface, safe_text
from goosectx.cli.transcript_text import attachment_line
from goosectx.conversation import (
    Attachment,
    Message,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.shown import attachment_key, numbered_outputs, result_key, thinking_key

__all__ = ["MessageView"]


def _only_notifications(message: Message) -> bool:
    return bool(message.content) and all(isinstance(p, SystemNotification)
                                         for p in message.content)


class MessageView(Surface):
    """Draws stored messages whole, parts numbered as ``/show`` counts them.

    Args:
        console: Where everything is written.
        plain: Plain look: no panels, no live updates, no spinners, no colour.
        assistant_title: Title of assistant panels.
        show_reasoning: Draw the model's reasoning (``show_reasoning = false``: not drawn).
    """

    def __init__(self, console: Console, *, plain: bool = False,
                 assistant_title: str = "goosectx", show_reasoning: bool = True) -> None:
        super().__init__(console, plain=plain)
        self.assistant_title = assistant_title
        self.show_reasoning = show_reasoning
        self._tool_names: dict[str, str] = {}
        # calls and results drawn live once (their event or their message, whichever came
        # first), by identity: a model may reuse a tool-call id in every reply
        self._drawn_once: dict[int, ToolRequest | ToolResponse] = {}
        self._numbers: dict[str, int] = {}
        self.view_numbers: dict[str, int] = {}  # /history agent: the view's keys' numbers
        self._unkeyed = 0  # results numbered live before their message (and key) arrived
        self._previewed: dict[str, str] = {}  # edit diffs drawn before their approval question
        self._unkept: dict[str, str] = {}  # !command outputs shown once, not stored (by id)

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

    def _number(self, key: str | None) -> int:
        """The number of output ``key``; ``None``: a live result whose message is to come."""
        if key in self.view_numbers:
            return self.view_numbers[key]
        if key is None:
            self._unkeyed += 1
            return len(self._numbers) + self._unkeyed
        return self._numbers.setdefault(key, len(self._numbers) + 1)

    def _keyed(self) -> None:
        """The results numbered live have their message (and keys) now."""
        self._unkeyed = 0

    def _drawn_before(self, part: ToolRequest | ToolResponse) -> bool:
        """Live: True on the second sighting of ``part`` (its event and its message)."""
        if self._drawn_once.pop(id(part), None) is part:
            return True
        self._drawn_once[id(part)] = part
        return False

    # -- messages ------------------------------------------------------------------------
    def history(self, messages: Iterable[Message]) -> None:
        """Draw a stored conversation: every user-visible message, compactions marked.

        Tool calls, results and notices are drawn again even when the live transcript
        already showed them (``/history user``), folded the same way.

        Args:
            messages: The whole conversation in order (agent-only messages are skipped,
                except that a summary without a compaction of ours, imported, marks where
                one happened; ours draw their own notice).
        """
        for m in messages:
            cid = m.metadata.compaction_id
            if m.metadata.user_visible and cid and _only_notifications(m):
                self.rule(" · ".join(p.text for p in m.content  # the compaction's own notice
                                     if isinstance(p, SystemNotification)))
                continue
            if m.metadata.is_summary and not cid:  # imported: no notice of ours marks it
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
            if message.metadata.cut_short:
                title += f" ({message.metadata.cut_short})"
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
                self._tool_result(p, result_key(message.id, i), again=again)
            elif isinstance(p, SystemNotification):
                if again or p.text not in self._shown_notices:
                    self._notice(p.text)
            elif isinstance(p, Attachment):
                self._attachment(p, attachment_key(message.id, i))

    def show_unkept(self, message_id: str, output: str) -> None:
        """Draw ``output`` for the ``!command`` record ``message_id``, which does not keep it.

        (Called before the record's event is handled, from the thread the command ran on.)
        """
        self._unkept[message_id] = output

    def _shell_escape(self, message: Message) -> None:
        """A ``!command``: its output folded like a tool result (``✓ ! ls · 3 lines``)."""
        output = self._unkept.pop(message.id, None)
        response = ToolResponse(message.id, escapes.escape_output(message) if output is None
                                else output, is_error=escapes.escape_failed(message))
        draw_folded_result(self, response, "! " + code_safe(escapes.escape_command(message)),
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
        if not again and self._drawn_before(request):
            return
        name = code_safe(request.name)
        args = [code_safe(line) for line in argument_lines(request)]
        if self.plain:
            self._plain(f"[tool] {name}")
            for line in args:
                self._plain(f"    {line}")
            return
        text = Text("▶ ", style="magenta")
        text.append(name, style="bold magenta")
        style = "red" if request.arguments is None else ""
        if len(args) == 1 and text.cell_len + 2 + Text(args[0]).cell_len <= self.console.width:
            text.append("  " + args[0], style=style)
        else:  # each line under the name, wrapped inside the indent, never at column 0
            for line in args:
                indented_rows(text, self.console, line, style, indent=Text("    "))
        self.console.print(text)

    def _tool_result(self, response: ToolResponse, key: str | None = None, *,
                     again: bool = False) -> None:
        """A result; ``key`` ``None``: drawn live, before its message is complete."""
        if not again and self._drawn_before(response):
            return
        name = code_safe(self._tool_names.get(response.id, "tool"))
        what, ran = tool_result_label(response)
        number = self._number(key)  # every result has one, as /show counts them
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
            draw_folded_result(self, response, f"{name} {what}", number,
                               tool=self._tool_names.get(response.id))
