"""A secret of this environment that comes back from the model is never stored.

The model sees a key only if something gave it one; still, README ("Security") promises an
API key never reaches a session: its text, reasoning, tool calls (arguments, name) and
goosectx's own answers to them ("There is no tool named …") are redacted before they are
stored, exported or sent back.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from store_support import assert_not_in_sessions_db


def test_a_key_in_the_models_reply_is_stored_exported_and_sent_back_redacted(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import DUMMY_API_KEY as KEY

    monkeypatch.chdir(tmp_path)
    fake_model.add(
        {"reasoning": f"the user's key is {KEY}",
         "tool_calls": [{"name": f"nosuch_{KEY}", "arguments": {"k": KEY}},
                        {"name": "shell", "arguments": {"command": f"echo {KEY[:8]}; true"}}]},
        {"text": f"your key is {KEY}"})
    _out, err = cli(capsys, "run", "--mode", "auto", "-t", "hi", "--name", "leak")
    assert "no tool named 'nosuch_REDACTED'" in err  # the call as shown, stored and answered
    assert_not_in_sessions_db(KEY)
    exported_json, _ = cli(capsys, "sessions", "export", "leak", "-f", "json")
    exported_md, _ = cli(capsys, "sessions", "export", "leak")
    shown, _ = cli(capsys, "sessions", "show", "leak")
    for text in (exported_json, exported_md, shown):
        assert KEY not in text
    assert "your key is [REDACTED]" in exported_md
    sent = json.dumps(fake_model.requests[1]["messages"])
    assert KEY not in sent
    assert "There is no tool named" in sent  # the unknown tool was still answered
    messages = json.loads(exported_json)["messages"]
    calls = [p for m in messages for p in m["content"] if p["type"] == "tool_request"]
    answers = [p for m in messages for p in m["content"] if p["type"] == "tool_response"]
    assert [c["id"] for c in calls] == [a["id"] for a in answers]  # still pairs
    assert calls[0]["name"] == "nosuch_REDACTED"  # a name a provider takes


def test_a_key_in_an_answer_a_cancel_cut_short_is_kept_redacted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_harness import make_harness

    from goosectx.config import Settings
    from goosectx.events import Event, MessageDelta
    from goosectx.providers.scripted import ScriptedProvider, ScriptedReply

    key = "deploy-Q7vX2mK9pL4sR6yH1zz"
    monkeypatch.setenv("DEPLOY_TOKEN", key)
    provider = ScriptedProvider([ScriptedReply(text=f"the key is {key} " + "word " * 200,
                                               chunk_chars=10), "ok"])
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider)
    cancel = threading.Event()
    seen: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, MessageDelta):
            seen.append(event.text)
            if len("".join(seen)) > 60:
                cancel.set()

    h.turn("hi", on_event=on_event, cancel=cancel)
    h.turn("go on")
    kept = h.stored()[1]
    assert kept.metadata.cancelled and kept.text.startswith("the key is [REDACTED] word")
    assert key not in json.dumps([m.text for m in provider.requests[-1].messages])
