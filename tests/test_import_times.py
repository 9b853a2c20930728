"""Impossible times in an imported transcript (the year 3026, a negative epoch, NaN, a number
past year 9999) are not stored: such a session stayed first in ``sessions list`` for ever and
got an id of the year 3026. Each message keeps the time before it, and a note counts them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cli_support import run_cli as run


def claude_code(path: Path, session_id: str, times: list[object]) -> Path:
    """A Claude Code session file alternating user and assistant records at ``times``."""
    lines = []
    for i, when in enumerate(times):
        role = "user" if i % 2 == 0 else "assistant"
        content: object = f"request {i}" if role == "user" else [{"type": "text",
                                                                  "text": f"answer {i}"}]
        record = {"type": role, "uuid": f"{session_id}-{i}", "sessionId": session_id,
                  "timestamp": when, "message": {"role": role, "content": content}}
        lines.append(json.dumps(record, allow_nan=True))  # NaN written as JSON's NaN
    path.write_text("\n".join(lines) + "\n")
    return path


def listed(capsys: pytest.CaptureFixture[str]) -> list[dict]:
    code, out, _ = run(capsys, "sessions", "list", "--json")
    assert code == 0
    return json.loads(out)


def test_impossible_message_times_keep_the_time_before_and_a_note_counts_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    absurd = claude_code(tmp_path / "absurd.jsonl", "abc", [
        "2026-08-05T10:00:00Z", "3026-01-01T00:00:00Z", float("nan"), -5, 1e30, 0])
    code, out, err = run(capsys, "sessions", "import", str(absurd))
    assert code == 0, err
    assert "Traceback" not in err
    assert ("note: 5 messages had an impossible time (the first: 3026-01-01): kept with the "
            "time of the message before") in err, err
    (session,) = listed(capsys)
    assert session["id"].startswith("20260805_"), session  # not 30260101_…
    assert session["updated"].startswith("2026-08-05T10:00"), session
    code, exported, _ = run(capsys, "sessions", "export", session["id"], "-f", "json")
    times = [m["created"] for m in json.loads(exported)["messages"]]
    assert len(times) == 6 and all(t.startswith("2026-08-05T10:00") for t in times), times
    # a session imported later with a real, later time is listed before it
    later = claude_code(tmp_path / "later.jsonl", "def", ["2026-09-01T10:00:00Z"] * 2)
    assert run(capsys, "sessions", "import", str(later))[0] == 0
    assert [s["title"] for s in listed(capsys)] == ["request 0", "request 0"]
    assert [s["id"][:8] for s in listed(capsys)] == ["20260901", "20260805"]


def test_messages_at_the_start_with_impossible_times_take_the_first_real_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = claude_code(tmp_path / "s.jsonl", "abc", [
        "3026-01-01T00:00:00Z", -1, "2026-08-05T10:00:00Z", "2026-08-05T10:01:00Z"])
    code, _, err = run(capsys, "sessions", "import", str(source))
    assert code == 0, err
    assert "note: 2 messages had an impossible time (the first: 3026-01-01)" in err, err
    (session,) = listed(capsys)
    assert session["created"].startswith("2026-08-05T10:00"), session  # not the import's time
    code, exported, _ = run(capsys, "sessions", "export", session["id"], "-f", "json")
    times = [m["created"][:16] for m in json.loads(exported)["messages"]]
    assert times == ["2026-08-05T10:00"] * 3 + ["2026-08-05T10:01"], times


def test_impossible_session_times_of_a_goose_export_are_not_stored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "goose.json"
    export.write_text(json.dumps({
        "id": "g1", "created_at": "9999-12-31 23:59:59", "updated_at": "3026-05-01 00:00:00",
        "conversation": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}], "created": 1785964761},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
             "created": 1785964762}]}))
    code, _, err = run(capsys, "sessions", "import", str(export))
    assert code == 0, err
    assert "impossible" not in err  # the messages' own times were fine
    (session,) = listed(capsys)
    now = datetime.now(UTC)
    for key in ("created", "updated"):
        assert datetime.fromisoformat(session[key]) <= now, session
    assert session["updated"].startswith("2026-08-05"), session


def test_impossible_times_of_a_goosectx_export_are_not_stored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = claude_code(tmp_path / "s.jsonl", "abc", ["2026-08-05T10:00:00Z"] * 4)
    assert run(capsys, "sessions", "import", str(source), "--name", "orig")[0] == 0
    code, text, _ = run(capsys, "sessions", "export", "orig", "-f", "json")
    export = json.loads(text)
    export["session"]["updated"] = "3026-01-01T00:00:00+00:00"
    export["messages"][0]["created"] = "3026-01-01T00:00:00+00:00"
    export["messages"][2]["created"] = "0001-01-01T00:00:00+00:00"
    (tmp_path / "edited.json").write_text(json.dumps(export))
    assert run(capsys, "sessions", "remove", "orig", "--yes")[0] == 0
    code, _, err = run(capsys, "sessions", "import", str(tmp_path / "edited.json"))
    assert code == 0, err
    assert "note: 2 messages had an impossible time (the first: 3026-01-01)" in err, err
    (session,) = listed(capsys)
    assert session["updated"].startswith("2026-08-05T10:00"), session
    code, text, _ = run(capsys, "sessions", "export", session["id"], "-f", "json")
    times = [m["created"] for m in json.loads(text)["messages"]]
    assert all(t.startswith("2026-08-05T10:00") for t in times), times
