"""A load gives back exactly the messages stored, whichever way each row is read.

The loader builds the plain rows (the two visibility flags, or those and a compaction's
``hidden_by``; text, tool call and tool result parts) itself, through their slots, and reads
every other row with :meth:`Message.from_dict`. Both ways must give the same values, with the
same part classes, frozen as ever, and the same stored token counts.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from goosectx.conversation import Message
from goosectx.session import TokenCount
from goosectx.store import SessionStore

_FLAGS = {"user_visible": True, "agent_visible": True}
_HIDDEN = {"user_visible": True, "agent_visible": False, "hidden_by": "cmp_1a2b"}

ROWS: list[tuple[str, str, Any, Any]] = [
    # (role, created, content, metadata): as the store writes them ...
    ("user", "2026-01-01T00:00:00+00:00", [{"type": "text", "text": "port the parser"}], _FLAGS),
    ("assistant", "2026-01-01T00:00:01.250000+00:00", [
        {"type": "text", "text": "Looking."},
        {"type": "tool_request", "id": "t1", "name": "shell", "arguments": {"command": "ls"}},
    ], _FLAGS),
    ("user", "2026-01-01T00:00:02+00:00",
     [{"type": "tool_response", "id": "t1", "output": "a.py", "is_error": False}], _FLAGS),
    ("assistant", "2026-01-01T00:00:03+00:00", [
        {"type": "tool_request", "id": "t2", "name": "shell", "parse_error": "not JSON",
         "raw_arguments": "{ls"},
        {"type": "tool_request", "id": "t3", "name": "tree", "arguments": None},
    ], {"user_visible": False, "agent_visible": True}),
    ("user", "2026-01-01T00:00:04+00:00", [
        {"type": "tool_response", "id": "t2", "output": "bad arguments", "is_error": True},
        {"type": "tool_response", "id": "t3", "output": "edited", "is_error": False,
         "diff": "--- a\n+++ b\n"},
    ], _HIDDEN),
    ("assistant", "2026-01-01T00:00:05+00:00", [], _FLAGS),
    # ... as another tool or an older version wrote them: keys missing, extra or reordered
    ("user", "2026-01-01T00:00:06", [{"text": "no zone", "type": "text", "lang": "en"}],
     {"agent_visible": True, "user_visible": True}),
    ("user", "2026-01-01T01:00:07+01:00",
     [{"type": "tool_response", "id": "t4", "output": "no is_error"}], _FLAGS),
    # ... and rows that are not plain: other parts, other metadata
    ("assistant", "2026-01-01T00:00:08+00:00", [
        {"type": "thinking", "text": "hmm", "signature": "sig"},
        {"type": "text", "text": "answer"},
    ], _FLAGS),
    ("user", "2026-01-01T00:00:09+00:00", [
        {"type": "text", "text": "see @a.py"},
        {"type": "attachment", "kind": "file", "source": "a.py", "media_type": "text/x-python",
         "text": "print(1)\n", "token_estimate": 4},
    ], _FLAGS),
    ("assistant", "2026-01-01T00:00:10+00:00",
     [{"type": "system_notification", "notification_type": "inline", "text": "compacted"}],
     {"user_visible": True, "agent_visible": False}),
    ("user", "2026-01-01T00:00:11+00:00", [{"type": "text", "text": "summary"}],
     {"user_visible": False, "agent_visible": True, "is_summary": True,
      "compaction_id": "cmp_1a2b"}),
    ("assistant", "2026-01-01T00:00:12+00:00", [{"type": "text", "text": "partial"}],
     {"user_visible": True, "agent_visible": True, "cancelled": True}),
]


def _stored(tmp_path: Path, rows: list[tuple[str, str, Any, Any]], *, spaced: bool = False,
            counted: bool = True) -> tuple[SessionStore, str, list[dict[str, Any]]]:
    """A session holding ``rows`` as stored JSON (``spaced``: json.dumps' default spacing),
    each counted as ``10 + i`` tokens when ``counted``; the store, its id and the rows as
    dicts."""
    store = SessionStore(tmp_path / "data")
    session = store.create_session(tmp_path, name="s")
    separators = (", ", ": ") if spaced else (",", ":")
    items = []
    conn = sqlite3.connect(store.path)
    with conn:
        for i, (role, created, content, metadata) in enumerate(rows):
            item = {"id": f"msg_{i:03d}", "role": role, "created": created,
                    "content": content, "metadata": metadata}
            conn.execute(
                "INSERT INTO messages (id, session_id, position, role, created, content_json,"
                " metadata_json) VALUES (?,?,?,?,?,'[]',?)",
                (item["id"], session.id, float(i + 1), role, created,
                 json.dumps(metadata, separators=separators)))
            conn.execute("UPDATE messages SET content_json=? WHERE id=?",  # as damage comes
                         (json.dumps(content, separators=separators), item["id"]))
            items.append(item)
    conn.close()
    if counted:
        store.save_token_counts(session.id, {item["id"]: TokenCount(10 + i, "o200k_base")
                                             for i, item in enumerate(items)})
    return store, session.id, items


def _same(loaded: list[Message], items: list[dict[str, Any]]) -> None:
    """``loaded`` holds what ``Message.from_dict`` makes of each item: equal values, the same
    classes all the way down, frozen."""
    expected = [Message.from_dict(item) for item in items]
    assert loaded == expected
    for got, want in zip(loaded, expected, strict=True):
        assert type(got) is Message
        assert [type(p) for p in got.content] == [type(p) for p in want.content]
        assert type(got.content) is tuple
        assert got.created.tzinfo is not None and got.created == want.created
        with pytest.raises(dataclasses.FrozenInstanceError):
            got.id = "changed"  # type: ignore[misc]
        for part in got.content:
            with pytest.raises(dataclasses.FrozenInstanceError):
                part.type = "text"  # type: ignore[misc]


@pytest.mark.parametrize("spaced", [False, True], ids=["as stored", "spaced"])
def test_every_row_shape_loads_as_from_dict_reads_it(tmp_path: Path, spaced: bool) -> None:
    store, sid, items = _stored(tmp_path, ROWS, spaced=spaced)
    try:
        session = store.load(sid)
        _same(session.conversation.messages, items)
        assert session.token_counts == {
            item["id"]: TokenCount(10 + i, "o200k_base") for i, item in enumerate(items)}
        # how many parts each counted message had: a merged copy is counted on its own
        assert {mid: c.parts for mid, c in session.token_counts.items()} == {
            item["id"]: len(item["content"]) for item in items}
        assert [m for m in store.iter_messages(sid)] == session.conversation.messages
    finally:
        store.close()


def test_an_uncounted_session_loads_the_same_messages_and_no_counts(tmp_path: Path) -> None:
    store, sid, items = _stored(tmp_path, ROWS, counted=False)
    try:
        session = store.load(sid)
        _same(session.conversation.messages, items)
        assert session.token_counts == {}
    finally:
        store.close()


def test_a_message_time_that_does_not_parse_reads_as_unknown_only_where_asked(
        tmp_path: Path) -> None:
    from goosectx.errors import StoreCorrupt
    from goosectx.session import UNKNOWN_TIME

    rows = [*ROWS[:3], ("user", "yesterday", [{"type": "text", "text": "when?"}], _FLAGS)]
    store, sid, items = _stored(tmp_path, rows)
    try:
        with pytest.raises(StoreCorrupt, match="msg_003"):
            store.load(sid)
        session = store.load(sid, lenient_times=True)
        items[3]["created"] = UNKNOWN_TIME.isoformat()
        _same(session.conversation.messages, items)
    finally:
        store.close()


@pytest.mark.parametrize("content", [
    [{"type": "text", "text": 123}],
    [{"type": "text"}],
    [{"type": "tool_response", "id": "t1", "output": ["a"]}],
    [{"type": "tool_response", "id": "t1", "output": "a", "is_error": "yes"}],
    [{"type": "tool_response", "id": "t1", "output": "a", "diff": 5}],
    [{"type": "tool_request", "id": "t1", "name": 5}],
    [{"type": "tool_request", "id": "t1", "name": "shell", "arguments": [1]}],
    [{"type": "text", "text": "fine"}, "not a part"],
    {"type": "text", "text": "not a list"},
    [{"type": "sound", "text": "?"}],
], ids=["text number", "text missing", "output list", "is_error word", "diff number",
        "name number", "arguments list", "second part text", "content object", "unknown type"])
def test_a_damaged_part_is_refused_as_before(tmp_path: Path, content: Any) -> None:
    from goosectx.errors import StoreCorrupt

    store, sid, items = _stored(tmp_path, [*ROWS[:2], ("user", ROWS[2][1], content, _FLAGS)])
    try:
        with pytest.raises(ValueError) as direct:
            Message.from_dict(items[2])
        with pytest.raises(StoreCorrupt, match="msg_002") as loaded:
            store.load(sid)
        assert str(direct.value) in str(loaded.value)
    finally:
        store.close()


@pytest.mark.parametrize("role", ["system", "0", "1", "User"])
def test_a_stored_role_other_than_user_or_assistant_is_refused_as_before(
        tmp_path: Path, role: str) -> None:
    from goosectx.errors import StoreCorrupt

    store, sid, items = _stored(tmp_path, [*ROWS[:2], (role, *ROWS[2][1:])])
    try:
        with pytest.raises(ValueError) as direct:
            Message.from_dict(items[2])
        with pytest.raises(StoreCorrupt, match="msg_002") as loaded:
            store.load(sid)
        assert str(direct.value) in str(loaded.value)
    finally:
        store.close()
