"""What one compaction works out once and looks up after: tool-part scans.

Part of the compaction pipeline (docs/architecture.md §5). A compaction scans the transcript
for facts more than once: the whole agent view for the room the facts may take
(:func:`goosectx.compaction.layout.facts_reserve_tokens`), then the head it summarises (the
extractive summary, or the facts merged into the model's summary). The passes meet the same
part objects; :class:`ScanMemo` keeps what a tool call or a tool result yields, so a later pass
neither parses a call's arguments nor searches a result's output again (the token counts of an
extractive summary's pieces are kept by :mod:`goosectx.compaction.cuts`). Every value is what
the memoised function returns: a memo changes no outcome. It also knows the whole
conversation, so a scan reads an elided copy's error from the result it was cut from
(:meth:`ScanMemo.original`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from goosectx.compaction.actions import (
    FileAction,
    actions_from_tool_call,
    describe_call,
    normalize_tool_name,
    open_file_in,
)
from goosectx.compaction.todos import STOP_TOOLS
from goosectx.compaction.tool_errors import error_excerpt
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse

if TYPE_CHECKING:
    from goosectx.compaction.carry import Facts
    from goosectx.compaction.scan_state import Checkpoint

CallFacts = tuple[ToolRequest, str | None, list[FileAction], str, bool]
"""A call as :meth:`ScanMemo.call` reads it: the call, the file open, its file actions, its
normalised tool name, whether it only stops a background task."""


class ScanMemo:
    """Per-part results of the facts scan, by part identity (the parts are kept alive).

    ``conversation``: every message of the session, the hidden ones included (an elided
    copy's original is hidden); ``()`` when the scan has only the messages it is given.
    """

    def __init__(self, conversation: Sequence[Message] = ()) -> None:
        self._conversation = conversation
        self._hidden: dict[str, Message] | None = None  # by id, made when first asked for
        self._calls: dict[int, CallFacts] = {}
        self._labels: dict[int, tuple[ToolRequest, str]] = {}
        self._commands: dict[int, tuple[ToolRequest, str]] = {}
        self._opened: dict[int, tuple[ToolResponse, str | None]] = {}
        self._errors: dict[int, tuple[ToolResponse, str | None]] = {}
        self._constraint_lines: dict[int, tuple[Message, tuple[str, ...]]] = {}
        self._constraint_scan: tuple[tuple[Message, ...], list[tuple[int, tuple[str, ...]]]] = (
            (), [])
        self.keep_facts_at: frozenset[int] = frozenset()
        """Where a head may end in the next whole-view scan: the facts of the messages before
        each of these positions are kept for :meth:`prefix_facts` (set by the layout)."""
        self._prefix_facts: dict[int, tuple[Sequence[Message], Facts]] = {}
        self.checkpoint: Checkpoint | None = None
        """A kept state of the first messages of :attr:`checkpoint_view` (:mod:`.scan_state`),
        which the scans of a list that starts with them resume (set by :mod:`.facts_scan`)."""
        self.checkpoint_view: Sequence[Message] = ()
        """The whole view: the one list whose scan keeps its state at :attr:`checkpoint_at`."""
        self.checkpoint_at = -1
        self.gathered: dict[str, Any] | None = None
        """The facts scan's state before ``checkpoint_view[checkpoint_at]`` (gather_state)."""

    @property
    def conversation(self) -> Sequence[Message]:
        """Every message of the session, the hidden ones included (as given)."""
        return self._conversation

    def resume_start(self, messages: Sequence[Message]) -> int:
        """Where a scan of ``messages`` starts: after the :attr:`checkpoint`'s messages, else 0.

        Only when ``messages`` starts with those very messages (checked by identity).
        """
        kept = self.checkpoint
        if kept is None or len(messages) < kept.at:
            return 0
        view = self.checkpoint_view
        if messages is not view and not _starts(messages, view[:kept.at]):
            return 0
        return kept.at

    def resume_gather(self) -> dict[str, Any]:
        """The facts scan's kept state (:func:`resume_start` said it applies)."""
        assert self.checkpoint is not None
        return self.checkpoint.gather

    def commands_before(self, messages: Sequence[Message]) -> tuple[int, list[str]]:
        """(:meth:`resume_start`, the newest commands run before it, newest first)."""
        start = self.resume_start(messages)
        return (start, self.checkpoint.commands) if start and self.checkpoint else (0, [])

    def keep_prefix_facts(self, scanned: Sequence[Message], facts: Facts) -> None:
        """Keep ``facts``, those of ``scanned[:facts.message_count]`` (not to be changed)."""
        self._prefix_facts[facts.message_count] = (scanned, facts)

    def prefix_facts(self, messages: Sequence[Message]) -> Facts | None:
        """The kept facts of ``messages`` when a scan met these very messages first, else None.

        The same facts a scan of ``messages`` gives: a scan of a longer list reaches the same
        state after its first ``len(messages)`` messages (checked by identity, message by
        message).
        """
        hit = self._prefix_facts.get(len(messages))
        if hit is None:
            return None
        scanned, facts = hit
        if scanned is not messages and not _starts(scanned, messages):
            return None
        return facts

    def original(self, copy: Message) -> Message | None:
        """The whole message an elided copy (``elided_from_tokens``) was cut from, else None.

        A compaction that cut a tool result to fit kept the original, hidden from the model
        (:func:`goosectx.compaction.elision.elided_copy`); a copy of a copy leads back to it.
        """
        if self._hidden is None:
            self._hidden = {m.id: m for m in self._conversation if not m.metadata.agent_visible}
        found = None
        extra = copy.metadata.extra
        while "elided_from_tokens" in extra:
            source = self._hidden.get(str(extra.get("copy_of")))
            if source is None or source is found:
                break
            found, extra = source, source.metadata.extra
        return found

    def call(self, req: ToolRequest, open_file: str | None) -> CallFacts:
        """What a scan reads of the call, with ``open_file`` open (not to be changed).

        ``(req, open_file, actions, tool, stops)``: its file actions
        (:func:`~goosectx.compaction.actions.actions_from_tool_call`), its normalised tool name
        and whether it only stops a background task (:data:`~goosectx.compaction.todos.STOP_TOOLS`)
        — each worked out once, not again for its result.
        """
        hit = self._calls.get(id(req))  # the scans meet a call with the same file open
        if hit is None or hit[0] is not req or hit[1] != open_file:
            tool = normalize_tool_name(req.name)
            hit = self._calls[id(req)] = (
                req, open_file, actions_from_tool_call(req.name, req.arguments,
                                                       open_file=open_file),
                tool, tool in STOP_TOOLS)
        return hit

    def label(self, req: ToolRequest) -> str:
        """The call's label (``describe_call``), made when first asked for.

        A scan needs the labels of the calls an error or the last work names, not of every
        call.
        """
        hit = self._labels.get(id(req))
        if hit is None or hit[0] is not req:
            hit = self._labels[id(req)] = (req, describe_call(req.name, req.arguments))
        return hit[1]

    def command(self, req: ToolRequest) -> str:
        """The call's label as a command line (``describe_call`` at 160 characters)."""
        hit = self._commands.get(id(req))
        if hit is None or hit[0] is not req:
            hit = self._commands[id(req)] = (
                req, describe_call(req.name, req.arguments, limit_chars=160))
        return hit[1]

    def opened(self, part: ToolResponse) -> str | None:
        """The file the result's end reports open (``open_file_in`` of its last 400 chars)."""
        hit = self._opened.get(id(part))
        if hit is None or hit[0] is not part:
            hit = self._opened[id(part)] = (part, open_file_in(part.output[-400:]))
        return hit[1]

    def error(self, part: ToolResponse) -> str | None:
        """``error_excerpt`` of the result's output."""
        hit = self._errors.get(id(part))
        if hit is None or hit[0] is not part:
            hit = self._errors[id(part)] = (part, error_excerpt(part.output))
        return hit[1]

    def constraint_lines(self, m: Message,
                         find: Callable[[Message], tuple[str, ...]]) -> tuple[str, ...]:
        """``find(m)``: the lines of ``m`` that name a user constraint, found once per message.

        ``find`` is always the same function (:func:`goosectx.compaction.facts.constraint_lines`).
        """
        hit = self._constraint_lines.get(id(m))
        if hit is None or hit[0] is not m:
            hit = self._constraint_lines[id(m)] = (m, find(m))
        return hit[1]

    def constraint_scan(self, messages: Sequence[Message],
                        find: Callable[[Message], tuple[str, ...]]
                        ) -> list[tuple[int, tuple[str, ...]]]:
        """(position, :meth:`constraint_lines`) of each user request of ``messages`` with some.

        In order. Kept for the last list scanned: a list that starts it (the head, after the
        whole view; checked by identity, message by message) takes its entries before its end.
        """
        scanned, found = self._constraint_scan
        if len(messages) <= len(scanned) and _starts(scanned, messages):
            return [entry for entry in found if entry[0] < len(messages)]
        start = self.resume_start(messages)  # the entries before it were kept (scan_state)
        found = list(self.checkpoint.constraints) if start and self.checkpoint else []
        for at, m in enumerate(messages[start:] if start else messages, start):
            if m.role != "user" or not m.content or not (isinstance(m.content[0], TextContent)
                                                         or isinstance(m.content[-1], TextContent)):
                continue  # no user text: no constraint line (nor a memo entry) to look up
            lines = self.constraint_lines(m, find)
            if lines:
                found.append((at, lines))
        self._constraint_scan = (tuple(messages), found)
        return found


def _starts(messages: Sequence[Message], prefix: Sequence[Message]) -> bool:
    """True when ``messages`` starts with the very messages of ``prefix`` (not longer)."""
    return len(prefix) <= len(messages) and all(map(operator.is_, prefix, messages))
