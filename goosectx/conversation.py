"""The message protocol: messages, content parts, visibility metadata and the conversation.

This module is the ONE place that decides what the model sees (:meth:`Conversation.agent_view`)
and what the user sees (:meth:`Conversation.user_view`). No other code filters on visibility.
Design after goose 1.45 (``Message``, ``MessageMetadata``, ``fix_conversation``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal, TypeAlias

from goosectx.usage import Usage

SCHEMA_VERSION = 1
"""Version of the JSON form of messages and exports."""

Role = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class TextContent:
    """Plain text (Markdown for the assistant)."""

    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ToolRequest:
    """A tool call the model asked for.

    Attributes:
        id: The provider's tool-call id; a tool response names it.
        name: Tool name.
        arguments: Parsed JSON arguments, or ``None`` when they did not parse.
        parse_error: Why the raw arguments did not parse (then ``raw_arguments`` holds them).
        raw_arguments: The arguments as the model sent them, kept only on a parse error.
    """

    id: str
    name: str
    arguments: dict[str, Any] | None = None
    parse_error: str | None = None
    raw_arguments: str | None = None
    type: Literal["tool_request"] = "tool_request"

    def arguments_json(self) -> str:
        """Return the arguments as compact JSON (the raw text on a parse error)."""
        if self.arguments is None:
            return self.raw_arguments or ""
        return json.dumps(self.arguments, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class ToolResponse:
    """The result of a tool call.

    Attributes:
        id: Id of the :class:`ToolRequest` this answers.
        output: Result text (already capped and redacted).
        is_error: True when the tool failed, was denied or cancelled.
    """

    id: str
    output: str
    is_error: bool = False
    type: Literal["tool_response"] = "tool_response"


@dataclass(frozen=True, slots=True)
class ThinkingContent:
    """Model reasoning, kept for display and never summarised.

    Sent back with its ``signature`` where the provider requires it.
    """

    text: str
    signature: str | None = None
    type: Literal["thinking"] = "thinking"


@dataclass(frozen=True, slots=True)
class SystemNotification:
    """A notice for the user (never sent to the model).

    Attributes:
        notification_type: ``inline`` (a line in the transcript) or ``thinking`` (a spinner).
        text: The notice.
    """

    notification_type: Literal["inline", "thinking"]
    text: str
    type: Literal["system_notification"] = "system_notification"


Part: TypeAlias = TextContent | ToolRequest | ToolResponse | ThinkingContent | SystemNotification

_PART_TYPES: dict[str, type[Part]] = {
    "text": TextContent,
    "tool_request": ToolRequest,
    "tool_response": ToolResponse,
    "thinking": ThinkingContent,
    "system_notification": SystemNotification,
}


def part_to_dict(part: Part) -> dict[str, Any]:
    """Return the JSON form of a part: ``{"type": ..., <fields>}``; ``None`` fields omitted."""
    data: dict[str, Any] = {"type": part.type}
    for name in part.__dataclass_fields__:
        value = getattr(part, name)
        if name != "type" and value is not None:
            data[name] = value
    return data


def part_from_dict(data: dict[str, Any]) -> Part:
    """Inverse of :func:`part_to_dict`.

    Raises:
        ValueError: unknown part type or missing field.
    """
    kind = data.get("type")
    cls = _PART_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown content part type {kind!r}")
    fields = {k: v for k, v in data.items() if k != "type" and k in cls.__dataclass_fields__}
    try:
        return cls(**fields)
    except TypeError as exc:
        raise ValueError(f"bad {kind} part: {exc}") from None


@dataclass(frozen=True, slots=True)
class MessageMetadata:
    """Visibility flags and markers of a message.

    Attributes:
        user_visible: Shown in the transcript.
        agent_visible: Sent to the model.
        usage: Usage of the model call that produced this message, if any.
        is_summary: A compaction summary.
        is_continuation: The assistant "continue" message after a summary.
        compaction_id: Id shared by the messages one compaction added.
        cancelled: The turn was cancelled while this message was being produced.
        extra: Importer-specific facts kept verbatim (e.g. source record ids).
    """

    user_visible: bool = True
    agent_visible: bool = True
    usage: Usage | None = None
    is_summary: bool = False
    is_continuation: bool = False
    compaction_id: str | None = None
    cancelled: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def both(cls) -> MessageMetadata:
        """Visible to the user and the model."""
        return cls()

    @classmethod
    def agent_only(cls) -> MessageMetadata:
        """Sent to the model, hidden from the transcript."""
        return cls(user_visible=False, agent_visible=True)

    @classmethod
    def user_only(cls) -> MessageMetadata:
        """Shown in the transcript, never sent to the model."""
        return cls(user_visible=True, agent_visible=False)

    @classmethod
    def invisible(cls) -> MessageMetadata:
        """Neither shown nor sent (kept for the record)."""
        return cls(user_visible=False, agent_visible=False)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (snake_case keys)."""
        data: dict[str, Any] = {
            "user_visible": self.user_visible,
            "agent_visible": self.agent_visible,
        }
        if self.usage is not None:
            data["usage"] = self.usage.to_dict()
        for name in ("is_summary", "is_continuation", "cancelled"):
            if getattr(self, name):
                data[name] = True
        if self.compaction_id:
            data["compaction_id"] = self.compaction_id
        if self.extra:
            data["extra"] = self.extra
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MessageMetadata:
        """Inverse of :meth:`to_dict`."""
        usage = data.get("usage")
        return cls(
            user_visible=bool(data.get("user_visible", True)),
            agent_visible=bool(data.get("agent_visible", True)),
            usage=Usage.from_dict(usage) if isinstance(usage, dict) else None,
            is_summary=bool(data.get("is_summary", False)),
            is_continuation=bool(data.get("is_continuation", False)),
            compaction_id=data.get("compaction_id"),
            cancelled=bool(data.get("cancelled", False)),
            extra=dict(data.get("extra") or {}),
        )


def new_message_id() -> str:
    """Return a fresh message id (``msg_`` + 32 hex digits)."""
    return "msg_" + uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a conversation.

    Messages are immutable values: compaction never edits one, it replaces its metadata via
    :meth:`with_metadata` and appends new messages.

    Attributes:
        role: ``user`` or ``assistant`` (tool responses travel in user messages).
        content: The parts, in order.
        metadata: Visibility and markers.
        id: Unique id.
        created: Creation time (UTC).
    """

    role: Role
    content: tuple[Part, ...]
    metadata: MessageMetadata = field(default_factory=MessageMetadata)
    id: str = field(default_factory=new_message_id)
    created: datetime = field(default_factory=lambda: datetime.now(UTC))

    @classmethod
    def user(cls, text: str, metadata: MessageMetadata | None = None) -> Message:
        """A user message holding one text part."""
        return cls("user", (TextContent(text),), metadata or MessageMetadata())

    @classmethod
    def assistant(cls, text: str, metadata: MessageMetadata | None = None) -> Message:
        """An assistant message holding one text part."""
        return cls("assistant", (TextContent(text),), metadata or MessageMetadata())

    @classmethod
    def notification(
        cls, text: str, notification_type: Literal["inline", "thinking"] = "inline"
    ) -> Message:
        """A user-only assistant message holding one system notification."""
        return cls(
            "assistant",
            (SystemNotification(notification_type, text),),
            MessageMetadata.user_only(),
        )

    def with_metadata(self, **changes: Any) -> Message:
        """Return a copy whose metadata has ``changes`` applied (same id and content)."""
        return replace(self, metadata=replace(self.metadata, **changes))

    @property
    def text(self) -> str:
        """The text parts joined by newlines."""
        return "\n".join(p.text for p in self.content if isinstance(p, TextContent))

    @property
    def tool_requests(self) -> list[ToolRequest]:
        """The tool-request parts, in order."""
        return [p for p in self.content if isinstance(p, ToolRequest)]

    @property
    def tool_responses(self) -> list[ToolResponse]:
        """The tool-response parts, in order."""
        return [p for p in self.content if isinstance(p, ToolResponse)]

    @property
    def is_plain_user_text(self) -> bool:
        """True for a user message made only of text (a real request, not tool results)."""
        return (
            self.role == "user"
            and bool(self.content)
            and all(isinstance(p, TextContent) for p in self.content)
            and bool(self.text.strip())
        )

    @property
    def is_user_request(self) -> bool:
        """True for plain user text the user wrote.

        Excludes summaries and text an imported transcript marks as tool output, harness text
        or a local command (``metadata.extra["source_kind"]``).
        """
        return (
            self.is_plain_user_text
            and not self.metadata.is_summary
            and self.metadata.extra.get("source_kind") is None
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form: id, role, created (ISO 8601), content, metadata."""
        return {
            "id": self.id,
            "role": self.role,
            "created": self.created.isoformat(),
            "content": [part_to_dict(p) for p in self.content],
            "metadata": self.metadata.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: a missing field, a bad role or a bad part.
        """
        role = data.get("role")
        if role not in ("user", "assistant"):
            raise ValueError(f"bad message role {role!r}")
        try:
            created = datetime.fromisoformat(data["created"])
            msg_id = str(data["id"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"bad message: {exc}") from None
        if created.tzinfo is None:
            created = created.replace(tzinfo=UTC)
        return cls(
            role=role,
            content=tuple(part_from_dict(p) for p in data.get("content") or []),
            metadata=MessageMetadata.from_dict(data.get("metadata") or {}),
            id=msg_id,
            created=created,
        )


@dataclass(slots=True)
class Conversation:
    """An ordered list of messages: the full history, visible or not.

    Nothing is ever deleted from it; compaction flips flags and appends.
    """

    messages: list[Message] = field(default_factory=list)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)

    def append(self, message: Message) -> None:
        """Append one message."""
        self.messages.append(message)

    def user_view(self) -> list[Message]:
        """The transcript: every ``user_visible`` message, in order, unchanged."""
        return [m for m in self.messages if m.metadata.user_visible]

    def agent_messages(self) -> list[Message]:
        """The ``agent_visible`` messages without notifications, unrepaired and unmerged.

        Token counting uses this list (counts are cached per stored message); use
        :meth:`agent_view` for what is sent.
        """
        out = []
        for m in self.messages:
            if not m.metadata.agent_visible:
                continue
            if SystemNotification in map(type, m.content):  # 2× faster than any(isinstance)
                parts = tuple(p for p in m.content if not isinstance(p, SystemNotification))
                if not parts:
                    continue
                m = replace(m, content=parts)
            out.append(m)
        return out

    def agent_view(self, *, for_sending: bool = True) -> list[Message]:
        """What the model sees: agent-visible messages, repaired.

        Repairs (goose: ``fix_conversation``): drop tool requests without a later response and
        responses without an earlier request, drop messages left empty, merge consecutive
        same-role messages, and — when ``for_sending`` — drop leading and trailing assistant
        messages so the list starts and ends with a user message.

        Returns:
            New message values, oldest first; merged messages keep the first one's id.
        """
        return repair(self.agent_messages(), for_sending=for_sending)

    def to_list(self) -> list[dict[str, Any]]:
        """JSON form of every message."""
        return [m.to_dict() for m in self.messages]

    @classmethod
    def from_list(cls, items: Iterable[dict[str, Any]]) -> Conversation:
        """Inverse of :meth:`to_list`."""
        return cls([Message.from_dict(d) for d in items])


def tool_pair_ids(messages: Sequence[Message]) -> set[str]:
    """Ids of tool requests that are followed later by a response with the same id."""
    requested: set[str] = set()
    paired: set[str] = set()
    for m in messages:
        for p in m.content:
            if isinstance(p, ToolRequest):
                requested.add(p.id)
            elif isinstance(p, ToolResponse) and p.id in requested:
                paired.add(p.id)
    return paired


def repair(messages: Sequence[Message], *, for_sending: bool = True) -> list[Message]:
    """Repair a list of agent-visible messages (see :meth:`Conversation.agent_view`).

    Runs the passes until nothing changes: dropping a leading assistant message can orphan the
    responses to its tool requests, which the next pass removes.
    """
    current = list(messages)
    while True:
        fixed = _merge(_order_responses(_drop_orphans(current)))
        if for_sending:
            while fixed and fixed[0].role == "assistant":
                fixed.pop(0)
            while fixed and fixed[-1].role == "assistant":
                fixed.pop()
        if len(fixed) == len(current) and all(a is b for a, b in zip(fixed, current, strict=True)):
            return fixed
        current = fixed


def _matched_tool_parts(messages: list[Message]) -> set[tuple[int, int]]:
    """(message index, part index) of every request and response that pair up, in order.

    A response answers the latest still-open assistant request with its id, so an id that a
    provider reuses across replies pairs each request with its own response; a request whose
    id comes again before it is answered stays unpaired.
    """
    open_at: dict[str, tuple[int, int]] = {}
    matched: set[tuple[int, int]] = set()
    for i, m in enumerate(messages):
        for j, p in enumerate(m.content):
            if isinstance(p, ToolRequest) and m.role == "assistant":
                open_at[p.id] = (i, j)
            elif isinstance(p, ToolResponse) and m.role == "user":
                request_at = open_at.pop(p.id, None)
                if request_at is not None:
                    matched.update((request_at, (i, j)))
    return matched


def _drop_orphans(messages: list[Message]) -> list[Message]:
    """Drop unpaired tool parts, notifications and messages left empty or thinking-only.

    Every tool request kept has its response later in the list (so the repair loop reaches a
    fixed point, also with reused tool-call ids or a response misfiled in an assistant message).
    """
    matched = _matched_tool_parts(messages)
    out: list[Message] = []
    for i, m in enumerate(messages):
        keep: list[Part] = []
        for j, p in enumerate(m.content):
            if isinstance(p, ToolRequest | ToolResponse):
                if (i, j) in matched:
                    keep.append(p)
            elif not isinstance(p, SystemNotification):
                keep.append(p)
        if not keep or all(isinstance(p, ThinkingContent) for p in keep):
            continue
        out.append(m if len(keep) == len(m.content) else replace(m, content=tuple(keep)))
    return out


def _merge(messages: list[Message]) -> list[Message]:
    """Merge consecutive same-role messages; the merged message keeps the first one's id."""
    out: list[Message] = []
    for m in messages:
        if out and out[-1].role == m.role:
            prev = out[-1]
            out[-1] = replace(prev, content=prev.content + m.content)
        else:
            out.append(m)
    return out


def _order_responses(messages: list[Message]) -> list[Message]:
    """Put every tool response in the user message right after its request's message.

    Providers require each assistant tool call to be answered by the very next message. A
    response stored later (e.g. across interleaved hidden messages) is moved up; other parts
    stay where they were, and messages left empty are dropped.
    """
    out = list(messages)
    changed = False
    for i, m in enumerate(out):
        if m.role != "assistant" or not m.tool_requests:
            continue
        wanted = {r.id for r in m.tool_requests}
        nxt = out[i + 1] if i + 1 < len(out) else None
        if nxt is not None and wanted <= {r.id for r in nxt.tool_responses}:
            continue
        changed = True
        moved: list[Part] = []
        for j in range(i + 1, len(out)):
            later = out[j]
            take = [p for p in later.content if isinstance(p, ToolResponse) and p.id in wanted]
            if take:
                wanted -= {p.id for p in take}  # the first response per id (ids may be reused)
                out[j] = replace(later, content=tuple(p for p in later.content if p not in take))
                moved.extend(take)
        if nxt is not None and nxt.role == "user":
            out[i + 1] = replace(out[i + 1], content=tuple(moved) + out[i + 1].content)
        else:
            out.insert(i + 1, Message("user", tuple(moved), MessageMetadata.agent_only()))
    return [m for m in out if m.content] if changed else out
