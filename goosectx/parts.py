"""Content parts of a message and their JSON form.

Parts are tagged by ``type``: ``text``, ``tool_request``, ``tool_response``, ``thinking``,
``system_notification`` and ``attachment`` (:mod:`goosectx.attachment`); see
docs/architecture.md, "The message model and its two projections".
Import them from :mod:`goosectx.conversation`, which re-exports every name here.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any, Literal, TypeAlias

from goosectx.attachment import Attachment
from goosectx.plain_record import frozen_record

SCHEMA_VERSION = 2
"""Version of the JSON form of messages and exports.

1: text, tool_request, tool_response, thinking, system_notification parts.
2: adds the ``attachment`` part (its bytes base64 in ``data``); schema 1 reads unchanged.
"""

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_C_ENCODE = (json.encoder.c_make_encoder(  # type: ignore[attr-defined]
    None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False, True)
    if json.encoder.c_make_encoder is not None else None)  # type: ignore[attr-defined]
"""The C encoder ``_ENCODER.encode`` makes anew for every value, with the same settings, made
once (4.5 -> 1.3 µs a call). It keeps no circular-reference marks (a mark left by a failed
call could refuse a later value): the values given are trees read from JSON or built so."""


def not_json_number(name: str) -> Any:
    """``json.loads``'s ``parse_constant``: ``NaN`` and ``Infinity`` are not JSON."""
    raise ValueError(f"{name} is not a JSON number")


def finite_float(text: str) -> float:
    """``json.loads``'s ``parse_float``: a number too large for a float (``1e400``) is refused."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large a number")
    return value


def compact_json(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``: JSON as stored."""
    if _C_ENCODE is None:
        return _ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


def arguments_json(arguments: dict[str, Any] | None, raw_arguments: str | None) -> str:
    """A tool call's arguments as compact JSON, or its raw text when they did not parse."""
    if arguments is None:
        return raw_arguments or ""
    return compact_json(arguments)


@frozen_record
class TextContent:
    """Plain text (Markdown for the assistant)."""

    text: str
    type: Literal["text"] = "text"


@frozen_record
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
        return arguments_json(self.arguments, self.raw_arguments)


@frozen_record
class ToolResponse:
    """The result of a tool call.

    Attributes:
        id: Id of the :class:`ToolRequest` this answers.
        output: Result text (already capped and redacted).
        is_error: True when the tool failed, was denied or cancelled.
        diff: For a file edit: a unified diff of the change. Shown to the user only; the
            model reads ``output`` (it is never sent, counted or summarised).
    """

    id: str
    output: str
    is_error: bool = False
    diff: str | None = None
    type: Literal["tool_response"] = "tool_response"


@frozen_record
class ThinkingContent:
    """Model reasoning, kept for display and never summarised.

    Sent back with its ``signature`` where the provider requires it.
    """

    text: str
    signature: str | None = None
    type: Literal["thinking"] = "thinking"


@frozen_record
class SystemNotification:
    """A notice for the user (never sent to the model).

    Attributes:
        notification_type: ``inline`` (a line in the transcript) or ``thinking`` (a spinner).
        text: The notice.
    """

    notification_type: Literal["inline", "thinking"]
    text: str
    type: Literal["system_notification"] = "system_notification"


Part: TypeAlias = (
    TextContent | ToolRequest | ToolResponse | ThinkingContent | SystemNotification | Attachment
)

_PART_TYPES: dict[str, type[Part]] = {
    "text": TextContent,
    "tool_request": ToolRequest,
    "tool_response": ToolResponse,
    "thinking": ThinkingContent,
    "system_notification": SystemNotification,
    "attachment": Attachment,
}


def part_to_dict(part: Part) -> dict[str, Any]:
    """Return the JSON form of a part: ``{"type": ..., <fields>}``; ``None`` fields omitted."""
    if type(part) is TextContent:  # the commonest parts: the loop below, said directly
        text = part.text
        return {"type": part.type} if text is None else {"type": part.type, "text": text}
    if (type(part) is ToolResponse and part.diff is None
            and part.id is not None and part.output is not None and part.is_error is not None):
        return {"type": part.type, "id": part.id, "output": part.output,
                "is_error": part.is_error}
    if isinstance(part, Attachment):
        return part.to_dict()
    data: dict[str, Any] = {"type": part.type}
    for name in part.__dataclass_fields__:
        value = getattr(part, name)
        if name != "type" and value is not None:
            data[name] = value
    return data


def json_kind(value: Any) -> str:
    """The JSON name of ``value``'s type ("text", "a number"…), for a one-line import error."""
    names = {bool: "true/false", int: "a number", float: "a number", str: "text",
             list: "a list", dict: "an object"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


_TEXT = (str,)
_TEXT_OR_NULL = (str, type(None))
_PART_FIELDS: dict[type, tuple[tuple[str, tuple[type, ...], str], ...]] = {
    TextContent: (("text", _TEXT, "text"),),
    ThinkingContent: (("text", _TEXT, "text"), ("signature", _TEXT_OR_NULL, "text")),
    SystemNotification: (("text", _TEXT, "text"),),
    ToolRequest: (("id", _TEXT, "text"), ("name", _TEXT, "text"),
                  ("arguments", (dict, type(None)), "an object"),
                  ("parse_error", _TEXT_OR_NULL, "text"),
                  ("raw_arguments", _TEXT_OR_NULL, "text")),
    ToolResponse: (("id", _TEXT, "text"), ("output", _TEXT, "text"),
                   ("is_error", (bool,), "true/false"), ("diff", _TEXT_OR_NULL, "text")),
}


def check_part_fields(part: Part) -> None:
    """Raise ValueError naming a field of ``part`` whose JSON type is not the one it holds.

    A part read from a file or a damaged database may hold any JSON value in any field
    (``"text": 123``); the rest of goosectx (token counts, the transcript) relies on the
    declared types. Attachments check their own fields in :meth:`Attachment.from_dict`.
    """
    for name, kinds, what in _PART_FIELDS.get(type(part), ()):
        value = getattr(part, name)
        if not isinstance(value, kinds):
            kind = getattr(part, "type", "")
            raise ValueError(f'{kind} part: "{name}" must be {what}, not {json_kind(value)}')
    if isinstance(part, SystemNotification) and part.notification_type not in (
            "inline", "thinking"):
        raise ValueError('system_notification part: "notification_type" must be "inline" or '
                         f'"thinking", not {part.notification_type!r}'[:200])


def part_from_dict(data: dict[str, Any]) -> Part:
    """Inverse of :func:`part_to_dict`; each field's JSON type checked (:func:`check_part_fields`).

    Raises:
        ValueError: unknown part type, a missing field, or a field of the wrong type (named).
    """
    if not isinstance(data, dict):
        raise ValueError(f"a content part must be an object, not {json_kind(data)}")
    kind = data.get("type")
    cls = _PART_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown content part type {kind!r}")
    if cls is Attachment:
        return Attachment.from_dict(data)
    try:
        part = cls(**data)  # every key a field ("type" is one): what our own code stores
    except TypeError:  # an unknown key (an import, an older version) is dropped
        fields = {k: v for k, v in data.items() if k != "type" and k in cls.__dataclass_fields__}
        try:
            part = cls(**fields)
        except TypeError as exc:
            raise ValueError(f"bad {kind} part: {exc}") from None
    if not is_plain_part(data):  # a plain part's fields hold their types: nothing to check
        check_part_fields(part)
    return part



_STR_OR_NONE = (str, type(None))


def is_plain_part(data: Any) -> bool:
    """True when ``data`` is a text, tool_request or tool_response part that reads as it is.

    That is: :func:`part_from_dict` reads it without error, each field of exactly its JSON
    type. The parts of almost every stored message: a reader that needs only their fields
    (``sessions show`` / ``export``) may use ``data`` as it is. False means nothing about
    validity: read the part with :func:`part_from_dict`, which gives the error if any.
    """
    if type(data) is not dict:
        return False
    kind = data.get("type")
    if kind == "text":
        return type(data.get("text")) is str
    if kind == "tool_response":
        return (type(data.get("id")) is str and type(data.get("output")) is str
                and type(data.get("is_error", False)) is bool
                and type(data.get("diff")) in _STR_OR_NONE)
    if kind == "tool_request":
        return (type(data.get("id")) is str and type(data.get("name")) is str
                and type(data.get("arguments")) in (dict, type(None))
                and type(data.get("parse_error")) in _STR_OR_NONE
                and type(data.get("raw_arguments")) in _STR_OR_NONE)
    return False


def slot_twin(cls: type[Any], *names: str) -> type[Any]:
    """A class with the slots of the frozen slots dataclass ``cls``, to build many of its values.

    ``obj = twin()``, a plain attribute store per field (``obj.text = text``), then
    ``obj.__class__ = cls``: the same value as ``cls(...)`` for a third of the work (a
    :class:`~goosectx.conversation.Message`: 2,900 instructions instead of 9,400; its slot
    descriptors' setters, called one by one, took 5,400). The frozen ``__init__`` sets each
    field through ``object.__setattr__``; the twin has no ``__setattr__`` of its own, so
    CPython stores each field straight into its slot, and ``__class__`` assignment is allowed
    between two classes of the same layout (checked here, once). A long session's load builds
    a message, ~1.4 parts and a token count per row.

    ``names``: the fields the caller sets, in ``cls``'s order — all of them, so a field added
    to ``cls`` later fails here, at import, instead of being left unset.

    Raises:
        TypeError: ``names`` are not ``cls``'s fields, or the twin cannot become a ``cls``.
    """
    slots = tuple(f.name for f in fields(cls))
    if names != slots or cls.__slots__ != slots:
        raise TypeError(f"{cls.__name__} twin: its fields are {slots}, not {names}")
    twin: type[Any] = type(f"_{cls.__name__}Fields", (), {"__slots__": slots})
    twin().__class__ = cls  # raises TypeError unless the layouts match
    return twin


_TextFields = slot_twin(TextContent, "text", "type")
_ResponseFields = slot_twin(ToolResponse, "id", "output", "is_error", "diff", "type")
_RequestFields = slot_twin(ToolRequest, "id", "name", "arguments", "parse_error",
                           "raw_arguments", "type")


def plain_part(data: Any) -> Part | None:
    """The part ``data`` holds when it is a plain one (:func:`is_plain_part`), else ``None``.

    The same value :func:`part_from_dict` gives (unknown keys dropped), checked and built in
    one go (:func:`slot_twin`): the loader of a long session reads almost only such parts.
    ``None`` says nothing about validity: read the part with :func:`part_from_dict`.
    """
    if type(data) is not dict:
        return None
    get = data.get
    kind = get("type")
    part: Any
    if kind == "text":
        text = get("text")
        if type(text) is not str:
            return None
        part = _TextFields()
        part.text = text
        part.type = "text"
        part.__class__ = TextContent
    elif kind == "tool_response":
        part_id, output, is_error, diff = get("id"), get("output"), get("is_error", False), get(
            "diff")
        if (type(part_id) is not str or type(output) is not str or type(is_error) is not bool
                or (diff is not None and type(diff) is not str)):
            return None
        part = _ResponseFields()
        part.id = part_id
        part.output = output
        part.is_error = is_error
        part.diff = diff
        part.type = "tool_response"
        part.__class__ = ToolResponse
    elif kind == "tool_request":
        part_id, name, arguments = get("id"), get("name"), get("arguments")
        parse_error, raw_arguments = get("parse_error"), get("raw_arguments")
        if (type(part_id) is not str or type(name) is not str
                or (arguments is not None and type(arguments) is not dict)
                or (parse_error is not None and type(parse_error) is not str)
                or (raw_arguments is not None and type(raw_arguments) is not str)):
            return None
        part = _RequestFields()
        part.id = part_id
        part.name = name
        part.arguments = arguments
        part.parse_error = parse_error
        part.raw_arguments = raw_arguments
        part.type = "tool_request"
        part.__class__ = ToolRequest
    else:
        return None
    built: Part = part
    return built


def plain_parts(content: list[Any]) -> tuple[Part, ...] | None:
    """The parts of ``content`` when every one is plain (:func:`plain_part`), else ``None``.

    A message's ``content`` as it is: a tuple, made without a list when it holds one part (as
    most stored messages do).
    """
    if len(content) == 1:
        part = plain_part(content[0])
        return None if part is None else (part,)
    parts = []
    for data in content:
        part = plain_part(data)
        if part is None:
            return None
        parts.append(part)
    return tuple(parts)
