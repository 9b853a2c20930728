"""A message of a JSON export kept in its stored form: what an import saves without a Message.

``sessions import`` of a goosectx export stores each message as the row its :class:`Message`
would give; for the messages whose parts are all text, tool requests and tool responses
(almost every one of a long session) it reads the parsed JSON straight into that form, with
the checks and results of :meth:`Message.from_dict`, without the costlier objects (the
``Message``, its time, and for the two visibility flags alone, its metadata). Every other
message is read with ``from_dict`` as before. See docs/architecture.md §8 (how an import reads
and saves a long session).
"""

from __future__ import annotations

from datetime import UTC, datetime
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any, NamedTuple

from goosectx.lazy_pattern import LazyPattern
from goosectx.message import MessageMetadata, Role
from goosectx.parts import (
    Part,
    TextContent,
    ToolRequest,
    ToolResponse,
    compact_json,
    part_to_dict,
    plain_parts,
)


class StoredMessage(NamedTuple):
    """A message read from an export without building it (see :func:`stored_message`).

    Attributes:
        id: The message id.
        role: ``user`` or ``assistant``.
        created: Its time as :meth:`Message.to_dict` writes it (ISO 8601 with an offset).
        content: Its parts: text, tool requests and tool responses, as
            :func:`~goosectx.parts.part_from_dict` reads them.
        metadata: Its metadata, as :meth:`MessageMetadata.from_dict` reads it.
    """

    id: str
    role: Role
    created: str
    content: tuple[Part, ...]
    metadata: MessageMetadata

    @property
    def text(self) -> str:
        """The text parts joined by newlines (:attr:`Message.text`)."""
        return "\n".join([p.text for p in self.content if type(p) is TextContent])

    @property
    def tool_requests(self) -> list[ToolRequest]:
        """The tool-request parts, in order."""
        return [p for p in self.content if type(p) is ToolRequest]

    def content_json(self) -> str:
        """The stored ``content_json``: the parts as compact JSON.

        The text of :func:`~goosectx.parts.compact_json` of their
        :func:`~goosectx.parts.part_to_dict` forms; a text part and a tool response without a
        diff are written here, each string by :func:`_string_json`.
        """
        pieces = ["["]
        for p in self.content:
            if len(pieces) > 1:
                pieces.append(",")
            if type(p) is TextContent and type(p.text) is str:
                pieces += ('{"type":"text","text":', _string_json(p.text), "}")
            elif (type(p) is ToolResponse and p.diff is None and type(p.id) is str
                  and type(p.output) is str and type(p.is_error) is bool):
                pieces += ('{"type":"tool_response","id":', _string_json(p.id), ',"output":',
                           _string_json(p.output),
                           ',"is_error":true}' if p.is_error else ',"is_error":false}')
            else:
                pieces.append(compact_json(part_to_dict(p)))
        pieces.append("]")
        return "".join(pieces)

    def count_chars(self) -> int:
        """``len`` of :func:`goosectx.tokens.message_text_for_count` of its message.

        The pieces that text joins by newlines are measured, not joined.
        """
        chars = pieces = 0
        for p in self.content:
            if type(p) is TextContent:
                chars += len(p.text)
                pieces += 1
            elif type(p) is ToolRequest:
                chars += len(p.name) + len(p.arguments_json())
                pieces += 2
            elif type(p) is ToolResponse:
                chars += len(p.output)
                pieces += 1
        return chars + pieces - 1 if pieces else 0


def _string_json(text: str) -> str:
    """``compact_json(text)`` for a string: the same JSON string, made faster for ASCII.

    ASCII without DEL (almost every text and tool output) is escaped identically by json's
    ``ensure_ascii`` encoder, whose loop is ~30 % cheaper (10k-message import: 0.146 -> ~0.10 s);
    any other string takes the stored form's own encoder (non-ASCII written as it is).
    """
    if text.isascii() and "\x7f" not in text:
        return encode_basestring_ascii(text)
    return encode_basestring(text)


_AS_STORED = LazyPattern(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
                        r"(?:\.(?!000000)[0-9]{6})?(?:\+|-(?!00:00))(?:[01][0-9]|2[0-3]):[0-5][0-9]")
"""A time ``datetime.fromisoformat`` reads and ``isoformat`` writes back as it was (one with
an offset, no fraction of zeros, no ``-00:00``): stored as it is, not formatted again."""


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
    all plain (:func:`~goosectx.parts.is_plain_part`): the value holds that message's fields
    (its time as the text it is stored as). ``None`` says nothing about validity: read
    ``item`` with ``from_dict``, which gives the message or its error as it always did.
    """
    if type(item) is not dict:
        return None
    msg_id, role, created = item.get("id"), item.get("role"), item.get("created")
    content = item.get("content") or []
    metadata = item.get("metadata") or {}
    if (type(msg_id) is not str or role not in ("user", "assistant") or type(created) is not str
            or type(content) is not list or type(metadata) is not dict):
        return None
    parts = plain_parts(content)
    if parts is None:
        return None
    try:
        when = datetime.fromisoformat(created)
        meta = _FLAGS_ONLY.get(_flags(metadata)) or MessageMetadata.from_dict(metadata)
    except (ValueError, TypeError, AttributeError):
        return None
    if _AS_STORED.fullmatch(created) is None:
        created = (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()
    return StoredMessage(msg_id, role, created, tuple(parts), meta)
