"""What the model is sent after ``sessions import`` of another agent's transcript (round 15a).

An imported transcript reaches the model whole: one that starts mid-conversation (with the
assistant's reply), tool calls without results and results without calls (mended at import,
and said), and a secret of this environment inside an imported tool output (redacted at import).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer


def _sent(server: FakeServer) -> str:
    """Every message of the last request, as one text (roles, contents, tool calls)."""
    return json.dumps(server.requests[-1]["messages"][1:], ensure_ascii=False)


def _import(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> tuple[str, str]:
    return cli(capsys, "sessions", "import", str(path), "--name", "imp", *extra)


def test_a_transcript_that_starts_with_the_assistant_reaches_the_model(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "asst_first.json"
    source.write_text(json.dumps([
        {"role": "assistant", "content": "I already edited src/app.py: 3 failures remain",
         "tool_calls": [{"id": "a", "type": "function",
                         "function": {"name": "shell", "arguments": "{\"command\":\"pytest\"}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "3 failed"},
        {"role": "assistant", "content": "Next: fix test_b"}]))
    _import(capsys, source)
    fake_model.default_reply = {"text": "ok"}
    cli(capsys, "run", "--resume", "imp", "-t", "continue the fix")
    messages = fake_model.requests[-1]["messages"][1:]
    sent = _sent(fake_model)
    assert "I already edited src/app.py" in sent
    assert "3 failed" in sent and "Next: fix test_b" in sent
    assert messages[0]["role"] == "user" and "starts mid-way" in messages[0]["content"]
    assert messages[-1] == {"role": "user", "content": "continue the fix"}
