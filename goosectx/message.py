"""Messages and their visibility metadata.

A :class:`Message` is an immutable value; compaction replaces its metadata and appends new
messages (see docs/architecture.md, "The message model and its two projections"). Import these
names from :mod:`goosectx.conversation`, which re-exports them.
"""

from __future__ import annotations

import uuid
from dataclasses import field, fields, replace
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from goosectx.attachment import Attachment
from goosectx.parts import (
    Part,
    SystemNotification,
    TextContent,
    ToolRequest,
    ToolResponse,
    is_plain_part,
    json_kind,
    part_from_dict,
    part_to_dict,
    slot_twin,
)
from goosectx.plain_record import unhashable_record
from goosectx.usage import Usage

Role = Literal["user", "assistant"]


@unhashable_record
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
        hidden_by: Id of the compaction that hid this message from the model (its head), so
            an undo can show it again (docs/architecture.md §5, "Undo"); ``None`` otherwise.
        stopped_by_error: With ``cancelled``: no one cancelled, an error ended the turn while
            this message was being produced (the stream failed, the model repeated itself).
        cut_at_output_limit: The provider ended this answer at its output limit
            (``finish_reason`` ``length``): complete as stored, unfinished as written.
        exited: With ``cancelled``: goosectx exited (kill -9, a crash, a power cut) while this
            answer streamed; it holds what was saved as it streamed
            (:class:`~goosectx.answer_draft.AnswerDraft`).
    """

    user_visible: bool = True
    agent_visible: bool = True
    usage: Usage | None = None
    is_summary: bool = False
    is_continuation: bool = False
    compaction_id: str | None = None
    cancelled: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    hidden_by: str | None = None
    stopped_by_error: bool = False
    cut_at_output_limit: bool = False
    exited: bool = False

    @property
    def cut_short(self) -> str:
        """Why the message stopped short, as labels say it, or ``""`` when it did not.

        ``cancelled`` (the user, a signal), ``stopped by an error``, ``cut off: goosectx
        exited`` or ``cut off at the output limit``.
        """
        if not self.cancelled:
            return "cut off at the output limit" if self.cut_at_output_limit else ""
        if self.exited:
            return "cut off: goosectx exited"
        return "stopped by an error" if self.stopped_by_error else "cancelled"

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
        for name in ("is_summary", "is_continuation", "cancelled", "stopped_by_error",
                     "cut_at_output_limit", "exited"):
            if getattr(self, name):
                data[name] = True
        if self.compaction_id:
            data["compaction_id"] = self.compaction_id
        if self.hidden_by:
            data["hidden_by"] = self.hidden_by
        if self.extra:
            data["extra"] = self.extra
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MessageMetadata:
        """Inverse of :meth:`to_dict`."""
        if len(data) == 2 and "user_visible" in data and "agent_visible" in data:  # most rows
            return cls(user_visible=bool(data["user_visible"]),
                       agent_visible=bool(data["agent_visible"]))
        usage = data.get("usage")
        for name in ("compaction_id", "hidden_by"):  # compared and used as keys
            if not isinstance(data.get(name), str | None):
                raise ValueError(f'"metadata.{name}" must be text, not '
                                 f"{json_kind(data[name])}")
        extra = data.get("extra") or {}
        if not isinstance(extra, dict):
            raise ValueError(f'"metadata.extra" must be an object, not {json_kind(extra)}')
        return cls(
            user_visible=bool(data.get("user_visible", True)),
            agent_visible=bool(data.get("agent_visible", True)),
            usage=Usage.from_dict(usage) if isinstance(usage, dict) else None,
            is_summary=bool(data.get("is_summary", False)),
            is_continuation=bool(data.get("is_continuation", False)),
            compaction_id=data.get("compaction_id"),
            cancelled=bool(data.get("cancelled", False)),
            hidden_by=data.get("hidden_by") or None,
            extra=dict(extra),
            stopped_by_error=bool(data.get("stopped_by_error", False)),
            cut_at_output_limit=bool(data.get("cut_at_output_limit", False)),
            exited=bool(data.get("exited", False)),
        )


_METADATA_FIELDS = tuple(f.name for f in fields(MessageMetadata))
"""The fields of :class:`MessageMetadata` in declaration order (its positional arguments;
:meth:`Message.with_metadata` names them in this order)."""
_METADATA_FIELD_SET = frozenset(_METADATA_FIELDS)


def new_message_id() -> str:
    """Return a fresh message id (``msg_`` + 32 hex digits)."""
    return "msg_" + uuid.uuid4().hex


@unhashable_record
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
        """Return a copy whose metadata has ``changes`` applied (same id and content).

        What ``dataclasses.replace`` of both would give (an unknown field raises
        ``TypeError``), built positionally: a compaction marks every message of a long
        history, and ``replace`` costs several times more per call.
        """
        if not changes.keys() <= _METADATA_FIELD_SET:
            return replace(self, metadata=replace(self.metadata, **changes))  # raises
        meta, get = self.metadata, changes.get  # each field by name: no loop, no getattr
        return Message(self.role, self.content, MessageMetadata(
            get("user_visible", meta.user_visible), get("agent_visible", meta.agent_visible),
            get("usage", meta.usage), get("is_summary", meta.is_summary),
            get("is_continuation", meta.is_continuation),
            get("compaction_id", meta.compaction_id), get("cancelled", meta.cancelled),
            get("extra", meta.extra), get("hidden_by", meta.hidden_by),
            get("stopped_by_error", meta.stopped_by_error),
            get("cut_at_output_limit", meta.cut_at_output_limit), get("exited", meta.exited)),
            self.id, self.created)

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
        return (  # some text not all whitespace: ``self.text.strip()``, without joining
            self.role == "user"
            and bool(self.content)
            and isinstance(self.content[0], TextContent)  # tool results stop here, cheaply
            and all(isinstance(p, TextContent) for p in self.content)
            and any(p.text and not p.text.isspace() for p in self.content
                    if isinstance(p, TextContent))
        )

    @property
    def is_user_request(self) -> bool:
        """True for plain user text the user wrote, with any attachments (``@path``) it has.

        Excludes summaries and text an imported transcript marks as tool output, harness text
        or a local command (``metadata.extra["source_kind"]``).
        """
        content = self.content
        if self.role != "user" or not content or not isinstance(content[0], TextContent):
            return False  # tool results stop here, cheaply
        if len(content) == 1:  # most requests: one text, checked without the generators
            text = content[0].text
            if not text or text.isspace():
                return False
        elif not (all(isinstance(p, (TextContent, Attachment)) for p in content)
                  and any(p.text and not p.text.isspace() for p in content
                          if isinstance(p, TextContent))):
            return False
        return not self.metadata.is_summary and self.metadata.extra.get("source_kind") is None

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
        if "created" in data and not isinstance(data["created"], str):
            raise ValueError('"created" must be an ISO 8601 time (text), not '
                             f"{json_kind(data['created'])}")
        try:
            created = datetime.fromisoformat(data["created"])
            msg_id = str(data["id"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"bad message: {exc}") from None
        if created.tzinfo is None:
            created = created.replace(tzinfo=UTC)
        content = data.get("content") or []
        if not isinstance(content, list):
            raise ValueError(f'"content" must be a list of parts, not {json_kind(content)}')
        metadata = data.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise ValueError(f'"metadata" must be an object, not {json_kind(metadata)}')
        # role, content, metadata, id, created: given by position (half the call's cost)
        return cls(role, tuple([part_from_dict(p) for p in content]),
                   MessageMetadata.from_dict(metadata), msg_id, created)



_MessageFields = slot_twin(Message, "role", "content", "metadata", "id", "created")


def build_message(role: Role, content: tuple[Part, ...], metadata: MessageMetadata,
                  msg_id: str, created: datetime) -> Message:
    """``Message(role, content, metadata, msg_id, created)``, built through its slots.

    The same value for a third of the work (:func:`~goosectx.parts.slot_twin`): for the
    loader and the compaction, which build one for every message of a long history.
    """
    built: Any = _MessageFields()
    built.role = role
    built.content = content
    built.metadata = metadata
    built.id = msg_id
    built.created = created
    built.__class__ = Message
    message: Message = built
    return message


class PlainMessage(NamedTuple):
    """A stored message read without building a :class:`Message` (see :func:`plain_message`).

    Attributes:
        id: The message id.
        role: ``user`` or ``assistant``.
        content: Its parts as stored: text, tool_request and tool_response objects whose
            fields hold their declared JSON types (:func:`~goosectx.parts.is_plain_part`).
        user_visible: Shown in the transcript (the metadata holds only the two visibility
            flags).
    """

    id: str
    role: Role
    content: list[dict[str, Any]]
    user_visible: bool


def plain_message(msg_id: Any, role: Any, created: Any, content: Any,
                  metadata: Any) -> PlainMessage | None:
    """The message as a :class:`PlainMessage`, or ``None`` unless it is a plain one.

    Plain: :meth:`Message.from_dict` of these fields would succeed and give only text, tool
    request and tool response parts and metadata of the two visibility flags alone: almost every
    stored message. ``None`` says nothing about validity: read it with ``from_dict``, which
    raises what it always raised. Lets ``sessions show`` / ``export`` skip building objects.
    """
    if (type(msg_id) is not str or role not in ("user", "assistant") or type(created) is not str
            or type(content) is not list or type(metadata) is not dict or len(metadata) != 2
            or "user_visible" not in metadata or "agent_visible" not in metadata):
        return None
    try:
        datetime.fromisoformat(created)
    except ValueError:
        return None
    for part in content:
        if not is_plain_part(part):
            return None
    # The tuple made directly: a NamedTuple's __new__ is a Python function, a call a row.
    plain: PlainMessage = _new_tuple(PlainMessage, (msg_id, role, content,
                                                    bool(metadata["user_visible"])))
    return plain


_new_tuple: Any = tuple.__new__
