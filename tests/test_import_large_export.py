"""A goosectx export too large to read whole (a long session) imports, a message at a time.

The size caps are scaled down (a few KB instead of 64 MB / 16 MB); the file is read in small
chunks so values cross chunk boundaries. Timings live in ``bench/scale.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli, run_cli

from goosectx.config import load_settings
from goosectx.conversation import (
    Message,
    MessageMetadata,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.importers import builder, detect, json_stream
from goosectx.session import Session
from goosectx.store import SessionStore
from goosectx.usage import LedgerEntry, Usage

CAP_BYTES = 4096


def _original(work: Path) -> None:
    store = SessionStore(load_settings(None).data_dir)
    try:
        session = store.create_session(work, name="long", model="openai/gpt-4o",
                                       metadata={"note": "kept"})
        for i in range(40):
            store.append_message(session.id, Message.user(f"request {i}: port the okapi module"))
            store.append_message(session.id, Message("assistant", (
                ThinkingContent("hm", "sig"), TextContent(f"answer {i} ü 😀 1.5e3"),
                ToolRequest(f"t{i}", "shell", {"command": f"ls {i}", "n": 12345.5}))))
            store.append_message(session.id, Message(
                "user", (ToolResponse(f"t{i}", "x" * 300),), MessageMetadata.user_only()))
        store.append_message(session.id, Message.user(
            "summary", MessageMetadata.agent_only()).with_metadata(is_summary=True))
        # brackets in text are no nesting: not refused as nested too deeply
        store.append_message(session.id, Message.assistant("brackets " + "[{" * 150))
        store.add_usage(session.id, LedgerEntry(Usage.of(100, 20, 0.01), "openai/gpt-4o"),
                        current_tokens=120, is_estimate=False)
    finally:
        store.close()


def _load(name: str) -> Session:
    store = SessionStore(load_settings(None).data_dir)
    try:
        return store.load(store.resolve(name))
    finally:
        store.close()


@pytest.fixture
def small_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (builder, detect):
        monkeypatch.setattr(module, "MAX_DOCUMENT_BYTES", CAP_BYTES)
    monkeypatch.setattr(json_stream, "CHUNK_CHARS", 100)


@pytest.mark.parametrize("layout", ["exported", "one line"])
def test_an_export_over_the_size_cap_imports_as_a_smaller_one_does(
        work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    _original(work)
    export = tmp_path / "long.json"
    cli(capsys, "sessions", "export", "long", "--format", "json", "-o", str(export))
    if layout == "one line":
        export.write_text(json.dumps(json.loads(export.read_text()), ensure_ascii=False))
    cli(capsys, "sessions", "remove", "long", "--yes")
    cli(capsys, "sessions", "import", str(export), "--name", "whole")
    whole = _load("whole")
    cli(capsys, "sessions", "remove", "whole", "--yes")
    for module in (builder, detect):
        monkeypatch.setattr(module, "MAX_DOCUMENT_BYTES", CAP_BYTES)
    monkeypatch.setattr(json_stream, "CHUNK_CHARS", 100)
    assert export.stat().st_size > 10 * CAP_BYTES
    out, _ = cli(capsys, "sessions", "import", str(export), "--name", "streamed")
    assert "(streamed): 122 messages, 40 tool calls from goosectx" in out
    streamed = _load("streamed")
    assert [m.to_dict() for m in streamed.conversation] == [
        m.to_dict() for m in whole.conversation]
    assert streamed.id == whole.id and streamed.ledger.entries == whole.ledger.entries
    assert (streamed.title, streamed.model, streamed.state) == (
        whole.title, whole.model, whole.state)
    hits = json.loads(cli(capsys, "sessions", "search", "okapi", "--json")[0])
    assert [h["name"] for h in hits] == ["streamed"]


@pytest.mark.parametrize(("edit", "words"), [
    (lambda text: text[: len(text) // 2], '"messages" item #'),
    (lambda text: text + "\n{}", "after the JSON object"),
    (lambda text: text.replace('"role": "assistant"', '"role": "robot"', 1),
     "message #2: bad message role"),
    (lambda text: text.replace('"messages": [', '"messages": [' + "[" * 99 + "]" * 99 + ",", 1),
     '"messages" item #1: JSON nested more than 100 levels'),
    (lambda text: text.replace('"schema_version": 2', '"schema_version": 9', 1),
     "unsupported schema_version 9"),
    (lambda text: text.replace('"messages": [', '"messages": [{"role": "user", "text": "'
                               + "y" * 3 * CAP_BYTES + '"},', 1), "is over"),
    (lambda text: text.replace('"text":"answer 3 ', '"text":7,"x":"', 1),
     'message #11: text part: "text" must be text, not a number'),
    (lambda text: text.replace('"id": "msg_', '"id": "dup", "x": "', 2),
     "message #2: its id 'dup' is also message #1's"),
])
def test_a_broken_large_export_fails_in_one_line_and_saves_nothing(
        work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, small_caps: None, edit: object, words: str) -> None:
    monkeypatch.setattr(builder, "MAX_LINE_BYTES", 2 * CAP_BYTES)
    _original(work)
    export = tmp_path / "long.json"
    cli(capsys, "sessions", "export", "long", "--format", "json", "-o", str(export))
    cli(capsys, "sessions", "remove", "long", "--yes")
    export.write_text(edit(export.read_text()))  # type: ignore[operator]
    code, out, err = run_cli(capsys, "sessions", "import", str(export))
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and words in err, err
    assert "No sessions" in run_cli(capsys, "sessions", "list")[1]


def test_a_document_read_in_chunks_of_any_size_reads_as_it_does_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = ('{"format": "goosectx-session", "schema_version": 12345.5e-1, "a": -7,\n'
            '"messages": [1, 2.5e10, {"text": "ü \\u00fc \\"q\\" 😀", "n": [true, null]}, [], {}],'
            ' "z": false, "s": "tail"}  \n')
    path = tmp_path / "doc.json"
    path.write_text(text)
    whole = json.loads(text)
    for chunk in range(1, 40):
        monkeypatch.setattr(json_stream, "CHUNK_CHARS", chunk)
        members = {}
        items = []
        for key, number, value in json_stream.iter_members(path, "messages"):
            if number is None:
                members[key] = value
            else:
                items.append((number, value))
        assert {**members, "messages": [v for _, v in items]} == whole
        assert [n for n, _ in items] == [1, 2, 3, 4, 5]
