"""An export's messages are imported as the messages ``session_from_json`` reads.

``sessions import`` reads most messages of a goosectx export straight into their stored form
(``goosectx.stored_message``); whatever shape a message has in the file (keys in another
order, optional fields missing or null, a time without an offset, keys it does not know),
the imported session shows, exports, searches and counts as that message read in full would.
The file is read whole and, with the size caps scaled down, a message at a time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import cli

from goosectx.config import load_settings
from goosectx.export import session_from_json
from goosectx.importers import builder, detect, json_stream
from goosectx.session import first_request_title
from goosectx.store import SessionStore
from goosectx.store.rows import message_row
from goosectx.tokens import rough_count_messages

FLAGS = {"user_visible": True, "agent_visible": True}


def _message(number: int, role: str, content: Any, metadata: Any = None,
             created: str | None = None, **more: Any) -> dict[str, Any]:
    return {"id": f"m{number}", "role": role,
            "created": created or f"2026-01-01T00:00:{number:02d}+00:00", "content": content,
            "metadata": FLAGS if metadata is None else metadata, **more}


MESSAGES = [
    _message(1, "assistant", [{"type": "text", "text": "not the title"}]),
    _message(2, "user", [{"type": "text", "text": "  \n  port the okapi   module\nsecond"}]),
    _message(3, "assistant", [
        {"text": "keys in another order", "type": "text"},
        {"type": "tool_request", "id": "c1", "name": "shell", "arguments": {"command": "ls"}},
        {"name": "shell", "type": "tool_request", "arguments": {"n": [1, 2.5, None]}, "id": "c2"},
    ], {**FLAGS, "usage": {"input_tokens": 12, "output_tokens": 3}}),
    _message(4, "user", [
        {"type": "tool_response", "id": "c1", "output": "no is_error"},
        {"type": "tool_response", "id": "c2", "output": "o", "is_error": True, "diff": "-a\n+b"},
    ], {"user_visible": False, "agent_visible": True}),
    _message(5, "assistant", [
        {"type": "tool_request", "id": "c3", "name": "a", "arguments": None},
        {"type": "tool_request", "id": "c4", "name": "b"},
        {"type": "tool_request", "id": "c5", "name": "c", "arguments": None,
         "parse_error": "not JSON", "raw_arguments": "{oops"},
        {"type": "text", "text": "unknown key kept out", "colour": "red"},
    ], created="2026-01-01T00:00:05"),
    _message(6, "user", [
        {"type": "tool_response", "id": "c3", "output": "", "is_error": False, "diff": None},
        {"type": "tool_response", "id": "c4", "output": "ü 😀 \"q\" \\ \t", "is_error": False},
        {"type": "tool_response", "id": "c5", "output": "x", "is_error": False, "more": 1},
    ], created="2026-01-01T00:00:06Z", unknown_top="ignored"),
    _message(7, "assistant", [{"type": "thinking", "text": "hm", "signature": "sig"},
                              {"type": "text", "text": "after thinking"}]),
    _message(8, "user", [{"type": "text", "text": "nul \u0000 inside okapi"}],
             {"user_visible": 1, "agent_visible": 0}),
    _message(9, "user", [{"type": "text", "text": "harness okapi"}],
             {**FLAGS, "extra": {"source_kind": "harness"}, "hidden_by": "k1"},
             created="2026-01-01T00:00:09+01:00:00"),
    _message(10, "assistant", [{"type": "text", "text": "summary"}],
             {"user_visible": False, "agent_visible": True, "is_summary": True,
              "compaction_id": "k1"}, created="2026-01-01T00:00:10.250000+02:00"),
    _message(11, "user", [], {}, created="2026-01-01T00:00:11.000000-00:00"),
    _message(12, "user", None, None, created="2026-01-01T00:00:12-05:30"),
]


def _document(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    doc = {"format": "goosectx-session", "schema_version": 2,
           "session": {"id": "20260101_000000_abcd", "name": None, "working_dir": "/nowhere",
                       "model": "m", "created": "2026-01-01T00:00:00+00:00",
                       "updated": "2026-01-01T01:00:00+00:00", "current_tokens": 0,
                       "current_is_estimate": True, "state": {}, "metadata": {}},
           "messages": MESSAGES, "usage_ledger": []}
    path = tmp_path / "hand-written.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path, doc


@pytest.mark.parametrize("read", ["whole", "a message at a time"])
def test_an_imported_export_holds_the_messages_read_in_full(
        work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, read: str) -> None:
    path, doc = _document(tmp_path)
    if read != "whole":
        for module in (builder, detect):
            monkeypatch.setattr(module, "MAX_DOCUMENT_BYTES", 512)
        monkeypatch.setattr(json_stream, "CHUNK_CHARS", 64)
    expected = session_from_json(doc).conversation
    out, _ = cli(capsys, "sessions", "import", str(path), "--name", "hand")
    assert "12 messages, 5 tool calls from goosectx" in out
    exported = json.loads(cli(capsys, "sessions", "export", "hand", "--format", "json")[0],
                          object_pairs_hook=list)  # keys in their order, as written
    messages = dict(exported)["messages"]
    assert messages == [json.loads(json.dumps(m.to_dict()), object_pairs_hook=list)
                        for m in expected]
    store = SessionStore(load_settings(None).data_dir)
    try:
        session = store.load(store.resolve("hand"))
    finally:
        store.close()
    assert session.conversation.messages == expected.messages  # (a Conversation compares by identity)
    assert session.title == first_request_title(expected) == "port the okapi module"
    assert session.ledger.current_tokens == rough_count_messages(expected.agent_messages())
    hits = json.loads(cli(capsys, "sessions", "search", "okapi", "--json")[0])
    assert [(h["name"], h["message_hits"]) for h in hits] == [("hand", 2)]


def test_an_imported_export_is_stored_as_its_messages_saved_in_full(
        work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The stored form writes its parts' JSON itself (ASCII by a faster encoder): the rows hold
    # the very text the messages read in full would be stored as, whatever the characters.
    texts = ["plain ascii", "del \x7f here", "tab\tbell\x07 nl\n", "ü 😀 \u2028 \u202e", "",
             "quote \" back \\ slash /"]
    messages = [_message(i + 1, "user" if i % 2 else "assistant", [
        {"type": "text", "text": text},
        *([{"type": "tool_response", "id": f"c{i}", "output": text, "is_error": i % 3 == 0}]
          if i % 2 else [])]) for i, text in enumerate(texts)]
    path, doc = _document(tmp_path)
    doc["messages"] = messages
    path.write_text(json.dumps(doc), encoding="utf-8")
    cli(capsys, "sessions", "import", str(path), "--name", "odd")
    store = SessionStore(load_settings(None).data_dir)
    try:
        rows = store._conn.execute(  # noqa: SLF001 - the stored text itself
            "SELECT content_json FROM messages ORDER BY position").fetchall()
    finally:
        store.close()
    expected = session_from_json(doc).conversation
    assert [r[0] for r in rows] == [message_row("s", 1.0, m)[5] for m in expected]
