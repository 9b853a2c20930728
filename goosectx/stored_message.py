"""A message of a JSON export kept in its stored form: what an import saves without a Message.

``sessions import`` of a goosectx export stores each message as the row its :class:`Message`
would give; for the messages whose parts are all text, tool requests and tool responses
(almost every one of a long session) it reads the parsed JSON straight into that form, with
the checks and results of :meth:`Message.from_dict`, and builds no object graph. Every other
message is read with ``from_dict`` as before. See docs/architecture.md §8 (how an import reads
and saves a long session).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, NamedTuple

from goosectx.message import MessageMetadata, Role
from goosectx.parts import arguments_json, compact_json, is_plain_part


class StoredMessage(NamedTuple):
    """A message read from an export without building it (see :func:`stored_message`).

    Attributes:
        id: The message id.
        role: ``user`` or ``assistant``.
        created: Its time as :meth:`Message.to_dict` writes it (ISO 8601 with an offset).
        content: Its parts as :func:`~goosectx.parts.part_to_dict` gives them: text,
            tool_request and tool_response objects, keys in that order, ``None`` fields left
            out.
        metadata: Its metadata, as :meth:`MessageMetadata.from_dict` reads it.
    """

    id: str
    role: Role
    created: str
    content: list[dict[str, Any]]
    metadata: MessageMetadata

    @property
    def text(self) -> str:
        """The text parts joined by newlines (:attr:`Message.text`)."""
        return "\n".join([p["text"] for p in self.content if p["type"] == "text"])

    @property
    def tool_requests(self) -> list[dict[str, Any]]:
        """The tool-request parts, in order."""
        return [p for p in self.content if p["type"] == "tool_request"]

    def content_json(self) -> str:
        """The stored ``content_json``: the parts as compact JSON."""
        return compact_json(self.content)

    def count_text(self) -> str:
        """:func:`goosectx.tokens.message_text_for_count` of the message it stands for."""
        pieces: list[str] = []
        for p in self.content:
            kind = p["type"]
            if kind == "text":
                pieces.append(p["text"])
            elif kind == "tool_request":
                pieces.append(p["name"])
                pieces.append(arguments_json(p.get("arguments"), p.get("raw_arguments")))
            else:
                pieces.append(p["output"])
        return "\n".join(pieces)


_STORED_KEYS = {
    "text": ("type", "text"),
    "tool_response": ("type", "id", "output", "is_error"),
    "tool_request": ("type", "id", "name", "arguments"),
}
"""Each plain part type's keys as ``part_to_dict`` writes them when no optional field is set
(and a tool request's arguments parsed): a part read with exactly these keys is its own
stored form."""

_FIELDS = {
    "tool_response": ("id", "output", "is_error", "diff"),
    "tool_request": ("id", "name", "arguments", "parse_error", "raw_arguments"),
}
"""The fields after ``type``, in the order ``part_to_dict`` writes them."""


def _stored_part(data: dict[str, Any]) -> dict[str, Any]:
    """``part_to_dict(part_from_dict(data))`` of a plain part (:func:`is_plain_part`)."""
    kind = data["type"]
    if tuple(data) == _STORED_KEYS[kind] and data.get("arguments", {}) is not None:
        return data
    if kind == "text":
        return {"type": "text", "text": data["text"]}
    out: dict[str, Any] = {"type": kind}
    for name in _FIELDS[kind]:
        value = data.get(name, False if name == "is_error" else None)
        if value is not None:
            out[name] = value
    return out


_FLAGS_ONLY: dict[Any, MessageMetadata] = {
    (user, agent): MessageMetadata(user, agent)
    for user in (True, False) for agent in (True, False)}
"""The metadata of almost every message, made once: a stored message's metadata is only read
(to write its row), never handed to code that could change its ``extra``. Looked up by flags
that equal these (``1`` is ``True`` here too: ``from_dict`` reads each flag with ``bool``)."""


def _flags(metadata: dict[str, Any]) -> tuple[Any, Any] | None:
    """``(user_visible, agent_visible)`` when ``metadata`` holds those two keys alone."""
    if len(metadata) != 2:
        return None
    return metadata.get("user_visible"), metadata.get("agent_visible")


def stored_message(item: Any) -> StoredMessage | None:
    """Message ``item`` of an export in its stored form, or ``None``.

    Given only when :meth:`Message.from_dict` of ``item`` would succeed, with parts that are
    all plain (:func:`~goosectx.parts.is_plain_part`): the value holds what that message
    stores. ``None`` says nothing about validity: read ``item`` with ``from_dict``, which
    gives the message or its error as it always did.
    """
    if type(item) is not dict:
        return None
    msg_id, role, created = item.get("id"), item.get("role"), item.get("created")
    content = item.get("content") or []
    metadata = item.get("metadata") or {}
    if (type(msg_id) is not str or role not in ("user", "assistant") or type(created) is not str
            or type(content) is not list or type(metadata) is not dict):
        return None
    for part in content:
        if not is_plain_part(part):
            return None
    try:
        when = datetime.fromisoformat(created)
        meta = _FLAGS_ONLY.get(_flags(metadata)) or MessageMetadata.from_dict(metadata)
    except (ValueError, TypeError, AttributeError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return StoredMessage(msg_id, role, when.isoformat(), [_stored_part(p) for p in content],
                         meta)
