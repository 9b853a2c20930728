"""The per-message values behave as the frozen slots dataclasses they were.

A message, its metadata, its parts, an attachment and a usage are ``plain_record.frozen_record``s
(``unhashable_record`` for a message and its metadata, whose ``extra`` dict made every hash
fail): the methods of ``dataclass(frozen=True, slots=True)`` made without compiling one
``exec`` per method. Each class is compared here with its twin, the same fields given to
``dataclasses.make_dataclass(..., frozen=True, slots=True)``: construction with and without
defaults, default factories giving fresh objects, equality, hash, repr, the frozen error on
assignment and deletion, ``replace``, ``fields``, ``__match_args__``, the signature, pickle
and copy.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from datetime import UTC, datetime
from typing import Any

import pytest

from goosectx.attachment import Attachment
from goosectx.conversation import (
    Message,
    MessageMetadata,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.usage import Usage

_WHEN = datetime(2026, 12, 5, 6, 0, tzinfo=UTC)
_USAGE = Usage(10, 5, 15, cost_usd=0.5)
# (class, the fields a value needs, a value's fields, another value's fields)
CASES: list[tuple[type[Any], dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    (TextContent, {"text": "hi"}, {"text": "hi"}, {"text": "ho"}),
    (ToolRequest, {"id": "c1", "name": "shell"},
     {"id": "c1", "name": "shell", "parse_error": "bad", "raw_arguments": "{"},
     {"id": "c1", "name": "shell", "arguments": {"cmd": "ls"}}),
    (ToolResponse, {"id": "c1", "output": "ok"}, {"id": "c1", "output": "ok", "diff": "+a"},
     {"id": "c1", "output": "ok", "is_error": True}),
    (ThinkingContent, {"text": "hm"}, {"text": "hm", "signature": "s"}, {"text": "hm"}),
    (SystemNotification, {"notification_type": "inline", "text": "n"},
     {"notification_type": "inline", "text": "n"},
     {"notification_type": "thinking", "text": "n"}),
    (Attachment, {"kind": "file", "source": "a.py", "media_type": "text/x-python", "text": "x"},
     {"kind": "file", "source": "a.py", "media_type": "text/x-python", "text": "x",
      "token_estimate": 3},
     {"kind": "image", "source": "a.png", "media_type": "image/png", "data": b"\x89PNG"}),
    (Usage, {}, {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
     {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7, "estimated": True}),
    (MessageMetadata, {}, {"usage": _USAGE, "compaction_id": "k", "extra": {"src": 1}},
     {"agent_visible": False, "hidden_by": "k"}),
    (Message, {"role": "user", "content": (TextContent("a"),)},
     {"role": "user", "content": (TextContent("a"),), "id": "m1", "created": _WHEN,
      "metadata": MessageMetadata(usage=_USAGE)},
     {"role": "assistant", "content": (TextContent("a"), ToolRequest("c", "shell")),
      "id": "m1", "created": _WHEN}),
]
IDS = [case[0].__name__ for case in CASES]


def _twin(cls: type[Any]) -> type[Any]:
    """``cls``'s fields as ``dataclass(frozen=True, slots=True)`` makes them."""
    specs = []
    for f in dataclasses.fields(cls):
        extra: dict[str, Any] = {}
        if f.default is not dataclasses.MISSING:
            extra["default"] = f.default
        if f.default_factory is not dataclasses.MISSING:
            extra["default_factory"] = f.default_factory
        specs.append((f.name, f.type, dataclasses.field(**extra)))
    namespace = {"__post_init__": cls.__post_init__} if hasattr(cls, "__post_init__") else {}
    return dataclasses.make_dataclass(cls.__name__, specs, namespace=namespace, frozen=True,
                                      slots=True)


def _hash(value: Any) -> Any:
    try:
        return hash(value)
    except TypeError:
        return TypeError


def _replaced(value: Any, changes: dict[str, Any]) -> tuple[str, str]:
    """``dataclasses.replace(value, **changes)``: its class name and repr, or the error."""
    try:
        changed = dataclasses.replace(value, **changes)
    except ValueError as exc:
        return "ValueError", str(exc)
    return type(changed).__name__, repr(changed)


@pytest.mark.parametrize(("cls", "needed", "one", "other"), CASES, ids=IDS)
def test_a_record_behaves_as_its_frozen_dataclass_twin(
        cls: type[Any], needed: dict[str, Any], one: dict[str, Any],
        other: dict[str, Any]) -> None:
    twin = _twin(cls)
    assert [(f.name, f.type, f.default, f.default_factory) for f in dataclasses.fields(cls)] == [
        (f.name, f.type, f.default, f.default_factory) for f in dataclasses.fields(twin)]
    assert cls.__match_args__ == twin.__match_args__
    assert cls.__slots__ == twin.__slots__
    assert str(inspect.signature(cls)) == str(inspect.signature(twin))
    assert cls.__dataclass_params__.frozen and cls.__dataclass_params__.eq
    for kwargs in (needed, one, other):
        value = cls(**kwargs)
        fixed = {f.name: getattr(value, f.name) for f in dataclasses.fields(cls)}
        twin_value = twin(**fixed)  # the factories' id and time as ``value`` got them
        assert repr(value) == repr(twin_value)
        assert value == cls(**fixed) and not value != cls(**fixed)
        assert _hash(value) == _hash(twin_value)
        assert value != twin_value  # another class: never equal, as between two dataclasses
        for name in cls.__slots__:
            for target in (value, twin_value):
                with pytest.raises(dataclasses.FrozenInstanceError):
                    setattr(target, name, None)
                with pytest.raises(dataclasses.FrozenInstanceError):
                    delattr(target, name)
        for made in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
            assert type(made) is cls and made == value and repr(made) == repr(value)
        assert _replaced(value, other) == _replaced(twin_value, other)
    assert (cls(**one) == cls(**other)) == (twin(**one) == twin(**other)) is False
    assert cls(**one).__eq__(object()) is NotImplemented
    factories = [f.name for f in dataclasses.fields(cls)
                 if f.default_factory is not dataclasses.MISSING]
    first, second = cls(**needed), cls(**needed)
    for name in factories:  # a fresh object each time (ids differ, dicts are not shared)
        assert getattr(first, name) is not getattr(second, name)


def test_a_message_and_its_metadata_are_unhashable_as_their_twins_were() -> None:
    message = Message.user("hi")
    for value in (message, message.metadata):
        with pytest.raises(TypeError, match="unhashable"):
            hash(value)
    assert hash(TextContent("a")) == hash(_twin(TextContent)("a"))
    with pytest.raises(TypeError):
        _twin(MessageMetadata)().__hash__()


def test_an_attachment_checks_its_fields_as_before() -> None:
    with pytest.raises(ValueError) as ours:
        Attachment("folder", "a", "text/plain", text="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError) as theirs:
        _twin(Attachment)("folder", "a", "text/plain", text="x")
    assert str(ours.value) == str(theirs.value)


def test_a_missing_field_is_refused_as_by_a_dataclass() -> None:
    with pytest.raises(TypeError) as ours:
        ToolRequest("c1")  # type: ignore[call-arg]
    with pytest.raises(TypeError) as theirs:
        _twin(ToolRequest)("c1")
    assert str(ours.value) == str(theirs.value)
