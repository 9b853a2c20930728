"""Records whose ``__init__`` is compiled at first use behave as the dataclasses they were.

``plain_record``, ``mutable_record`` and ``compared_record`` (goosectx/plain_record.py) make a
record's ``__init__`` when a value is first made or ``__init__`` first read, and a compared
record's ``__eq__``/``__hash__`` as closures. Each record here is compared with its twin, the
same fields given to ``dataclasses.make_dataclass``: the signature, defaults and fresh
factory values, a field set after ``__init__`` (``init=False``), ``__post_init__``, equality
and hash (a ``compare=False`` field left out), ``replace``, and the refusals a dataclass makes.
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from goosectx.conversation import Conversation, Message
from goosectx.plain_record import (
    COMPILE_AT,
    compared_record,
    frozen_record,
    mutable_record,
    plain_record,
)
from goosectx.providers.base import ContextLimit
from goosectx.session import Session, SessionState, TokenCount
from goosectx.usage import LedgerEntry, Usage


def _twin(cls: type[Any], **params: Any) -> type[Any]:
    """``cls``'s fields as ``dataclass(slots=True, **params)`` makes them."""
    specs = []
    for f in dataclasses.fields(cls):
        extra: dict[str, Any] = {"init": f.init, "compare": f.compare, "hash": f.hash}
        if f.default is not dataclasses.MISSING:
            extra["default"] = f.default
        if f.default_factory is not dataclasses.MISSING:
            extra["default_factory"] = f.default_factory
        specs.append((f.name, f.type, field(**extra)))
    namespace = {"__post_init__": cls.__post_init__} if hasattr(cls, "__post_init__") else {}
    return dataclasses.make_dataclass(cls.__name__, specs, namespace=namespace, slots=True,
                                      **params)


@pytest.mark.parametrize("cls", [Session, Conversation, ContextLimit, TokenCount, LedgerEntry])
def test_a_record_is_made_as_its_dataclass_twin(cls: type[Any]) -> None:
    twin = _twin(cls)
    assert str(inspect.signature(cls)) == str(inspect.signature(twin))
    assert cls.__init__.__annotations__ == twin.__init__.__annotations__
    assert cls.__dataclass_params__.init


def test_defaults_factories_and_fields_set_after_init_are_as_a_dataclass_makes_them(
        tmp_path: Path) -> None:
    when = datetime(2026, 12, 5, tzinfo=UTC)
    one, two = (Session(sid, None, tmp_path, None, when, when) for sid in ("s1", "s2"))
    assert one.conversation is not two.conversation and one.metadata is not two.metadata
    assert one.stored_messages is None and one.damaged_times == ()
    conversation = Conversation([Message.user("hi")])
    assert conversation.messages[0].text == "hi"
    assert conversation.agent_messages() == conversation.messages  # its memo started empty
    entry = LedgerEntry(Usage(1, 2, 3), "  ")  # __post_init__ ran
    assert entry.model == LedgerEntry(Usage(1, 2, 3), "", created=entry.created).model != "  "


def test_a_compared_record_compares_and_hashes_as_its_dataclass_twin() -> None:
    twin = _twin(TokenCount, unsafe_hash=True)
    pairs = [((5, "o200k_base", 2), (5, "o200k_base", 3)), ((5, "o200k_base"), (6, "o200k_base")),
             ((5, "o200k_base"), (5, "cl100k_base"))]
    for a, b in pairs:  # ``parts`` is compare=False: left out of both
        assert (TokenCount(*a) == TokenCount(*b)) == (twin(*a) == twin(*b))
        assert hash(TokenCount(*a)) == hash(twin(*a))
        assert (hash(TokenCount(*a)) == hash(TokenCount(*b))) == (twin(*a) == twin(*b))
    assert TokenCount(5, "x").__eq__(twin(5, "x")) is NotImplemented
    changed = dataclasses.replace(TokenCount(5, "x", 2), count=6)
    assert (changed.count, changed.encoding, changed.parts) == (6, "x", 2)


def test_a_record_refuses_what_a_dataclass_refuses() -> None:
    with pytest.raises(TypeError) as ours:
        ContextLimit()  # type: ignore[call-arg]
    with pytest.raises(TypeError) as theirs:
        _twin(ContextLimit)()
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        @plain_record
        class _Bad:
            a: int = 0
            b: int

    @compared_record
    class One:
        a: int

    assert One(1) == One(1) != One(2) and hash(One(1)) == hash((1,))

    @mutable_record
    class Empty:
        pass

    assert Empty() is not Empty() and dataclasses.fields(Empty) == ()


def _fields_of(value: Any) -> dict[str, Any]:
    return {f.name: getattr(value, f.name, "<unset>") for f in dataclasses.fields(value)}


@pytest.mark.parametrize("decorator", [plain_record, mutable_record, compared_record,
                                       frozen_record])
def test_the_first_values_and_the_later_ones_are_made_as_the_dataclass_makes_them(
        decorator: Any) -> None:
    made: list[str] = []

    def tag() -> list[str]:
        made.append("tag")
        return made

    class Record:
        """Fields of every kind a record may have (a frozen_record: no init=False one)."""

        name: str
        size: int = 3
        tags: list[str] = field(default_factory=tag)
        if decorator is not frozen_record:
            note: str = field(default="n", init=False)

        def __post_init__(self) -> None:
            made.append(f"post {self.name}")

    record = decorator(Record)
    twin = _twin(record, frozen=decorator is frozen_record)
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        (("a",), {}), (("a", 5), {}), ((), {"name": "b", "tags": ["x"]}), (("c",), {"size": 1}),
        ((), {}), (("a", 1, [], "x"), {}), (("a",), {"name": "b"}), (("a",), {"nope": 1}),
        (("a",), {"note": "x"})]
    for _ in range(COMPILE_AT // len(calls) + 2):  # the generic __init__, then the compiled one
        for args, kwargs in calls:
            outcomes = []
            for cls in (record, twin):
                made.clear()
                try:
                    value = cls(*args, **kwargs)
                except TypeError as exc:
                    outcomes.append(str(exc).replace(cls.__qualname__, "Record"))
                else:
                    outcomes.append((_fields_of(value), list(made)))
            assert outcomes[0] == outcomes[1], (args, kwargs)
    assert "__init__" in vars(record) and inspect.isfunction(vars(record)["__init__"])


def test_a_session_state_compares_and_prints_as_its_dataclass_twin() -> None:
    twin = _twin(SessionState)  # dataclass(slots=True): eq and repr, unhashable
    assert str(inspect.signature(SessionState)) == str(inspect.signature(twin))
    values = [{}, {"auto_compaction_paused": True, "pause_reason": "r"},
              {"calibration": {"m": [1.0]}, "context_figure": [5, 0, 2]}]
    for one in values:
        assert repr(SessionState(**one)).replace("SessionState", "X") == repr(
            twin(**one)).replace(twin.__qualname__, "X")
        for other in values:
            assert (SessionState(**one) == SessionState(**other)) == (one == other)
        with pytest.raises(TypeError, match="unhashable"):
            hash(SessionState(**one))
    assert SessionState().__eq__(twin()) is NotImplemented
    state = SessionState()
    state.compaction_failures = 2  # fields are assigned to
    assert state != SessionState() and state == SessionState(compaction_failures=2)
