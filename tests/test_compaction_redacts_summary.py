"""A key the summariser copies into a summary or a tool-pair note is redacted, as a reply's is.

Before, a summary reply holding the environment's API key (or its base64) was kept as written:
``sessions show --agent`` printed it, the store and exports held it and the next request sent
it back to the model — while the same key in an ordinary reply was stored as ``[REDACTED]``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from cli_support import run_cli
from compaction_support import REQUEST, collect, make_session, manager, tool_pair, words
from conftest import DUMMY_API_KEY
from fakeserver import FakeServer

from goosectx.config import load_settings
from goosectx.conversation import Message
from goosectx.events import ToolPairsSummarized
from goosectx.providers.scripted import ScriptedProvider
from goosectx.redaction import REDACTED
from goosectx.store import SessionStore
from goosectx.usage import Usage

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:pydantic")

ENCODED = base64.b64encode(DUMMY_API_KEY.encode()).decode()
LEAKY_SUMMARY = json.dumps({
    "user_intent": f"deploy with the key {DUMMY_API_KEY}",
    "files": [{"path": "key.txt", "summary": f"holds {ENCODED}"}],
    "next_step": "run the tests"})


def _stored_texts(name: str) -> list[str]:
    store = SessionStore(load_settings().data_dir)
    try:
        return [m.text for m in store.load(store.resolve(name)).conversation.messages]
    finally:
        store.close()


def _save(name: str) -> None:
    store = SessionStore(load_settings().data_dir)
    try:
        session = store.create_session(Path.cwd(), name=name)
        for i in range(4):
            store.append_message(session.id, Message.user(f"step {i}: " + words(300)))
            store.append_message(session.id, Message.assistant(f"done {i}: " + words(300)))
        store.append_message(session.id, Message.user("now write the docs"))
    finally:
        store.close()


@pytest.fixture
def project_model(fake_model: FakeServer, monkeypatch: pytest.MonkeyPatch,
                tmp_path: Path) -> FakeServer:
    """The fake model (conftest), in a project dir of its own."""
    monkeypatch.chdir(tmp_path)
    return fake_model


def test_an_offline_compaction_keeps_no_key_the_summariser_wrote(
        project_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    _save("keyt")
    project_model.add({"text": LEAKY_SUMMARY})
    code, out, err = run_cli(capsys, "compact", "keyt")
    assert code == 0, err
    summary = next(t for t in _stored_texts("keyt") if "deploy with the key" in t)
    assert DUMMY_API_KEY not in summary and ENCODED not in summary
    assert f"deploy with the key {REDACTED}" in summary
    code, out, err = run_cli(capsys, "sessions", "show", "keyt", "--agent")
    assert code == 0 and DUMMY_API_KEY not in out + err and ENCODED not in out + err


def test_an_agents_compaction_redacts_the_summary_before_it_is_sent_back(
        project_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    _save("live")
    project_model.add({"error": "context_length"}, {"text": LEAKY_SUMMARY}, {"text": "finished"})
    code, out, err = run_cli(capsys, "run", "--resume", "live", "-t", "the next step")
    assert code == 0, err
    assert "finished" in out
    retry = json.dumps(project_model.requests[-1]["messages"])
    assert "deploy with the key" in retry and DUMMY_API_KEY not in retry and ENCODED not in retry
    assert not any(DUMMY_API_KEY in t for t in _stored_texts("live"))


def test_a_tool_pair_note_holding_a_key_is_redacted() -> None:
    secret = "sk-live-" + "q7" * 12
    messages = [Message.user("migrate")]
    for i in range(26):
        messages += tool_pair("line\n" * 50, args={"command": f"migrate t{i}"})
    session = make_session(messages)
    notes = [f"ran migrate with {secret}" if i == 3 else f"note {i}" for i in range(10)]
    provider = ScriptedProvider(["```json\n" + json.dumps(notes) + "\n```"])
    cm = manager(session, provider)
    cm.reply_redact = lambda: (lambda text: text.replace(secret, REDACTED))
    cm.record_call(Usage.of(20_000, 10), REQUEST, model="m")
    events = collect(cm.after_call(REQUEST))
    assert isinstance(events[-1], ToolPairsSummarized)
    texts = [m.text for m in session.conversation.messages]
    assert f"[earlier tool call] ran migrate with {REDACTED}" in texts
    assert not any(secret in t for t in texts)
