"""A turn an error ends leaves a notice in the transcript (user-only): ``sessions show``, a
resume and an export say "The turn stopped: <the error>"; the model never sees it."""

from __future__ import annotations

import json

import pytest
from cli_support import cli, run_cli
from fakeserver import FakeServer
from test_cost_cap import priced  # noqa: F401  (the fixture: gpt-4o-mini, priced)


def _flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


def test_a_turn_the_spending_cap_ends_says_so_in_show_export_and_resume(
        priced: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    priced.add({"tool_calls": [{"name": "shell", "arguments": {"command": "echo ran"}}],
                "usage": {"prompt_tokens": 100_000, "completion_tokens": 10}})  # in the window
    code, _, err = run_cli(capsys, "--mode", "auto", "run", "--name", "capped", "--max-cost",
                           "0.01", "-t", "do it")
    assert code == 1 and "spending cap reached" in err and len(priced.requests) == 1
    assert err.count("spending cap reached") == 1  # live: the error line only, not twice
    shown = _flat(cli(capsys, "sessions", "show", "capped")[0])
    assert "The turn stopped: spending cap reached" in shown
    assert shown.index("ran") < shown.index("The turn stopped")  # after the tool's result
    saved = json.loads(cli(capsys, "sessions", "export", "capped", "--format", "json")[0])
    last = saved["messages"][-1]
    assert last["metadata"]["agent_visible"] is False and last["metadata"]["user_visible"]
    assert "The turn stopped: spending cap reached" in json.dumps(last["content"])
    markdown = cli(capsys, "sessions", "export", "capped", "--format", "md")[0]
    assert "The turn stopped: spending cap reached" in markdown

    priced.add({"text": "fine"})  # a resume with no cap: the model's side is as it was
    code, out, _ = run_cli(capsys, "run", "--resume", "capped", "-t", "go on")
    assert code == 0 and "fine" in out
    sent = json.dumps(priced.requests[-1])
    assert "The turn stopped" not in sent and "echo ran" in sent


def test_a_401_leaves_the_notice_with_the_key_redacted(
        priced: FakeServer, capsys: pytest.CaptureFixture[str],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-proj-" + "Q7wz" * 10
    monkeypatch.setenv("OPENAI_API_KEY", key)
    priced.add({"status": 401, "body": {"error": {
        "message": f"Incorrect API key provided: {key}.", "type": "invalid_request_error",
        "code": "invalid_api_key"}}})
    code, _, err = run_cli(capsys, "run", "--name", "denied", "-t", "hello")
    assert code != 0 and err.strip()
    saved = cli(capsys, "sessions", "export", "denied", "--format", "json")[0]
    assert "The turn stopped: openai/gpt-4o-mini rejected the API key" in saved
    assert "[REDACTED]" in saved and key not in saved  # the server's message held the key
    assert "The turn stopped:" in _flat(cli(capsys, "sessions", "show", "denied")[0])
