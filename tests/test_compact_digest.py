"""``goosectx compact`` of a session far larger than the window: the digest rung.

No rung of the summary ladder can hold a history ~20× the summariser's window; the model then
summarises the extractive digest of the oldest messages followed by the newest that fit
(goosectx/compaction/digest_rung.py), instead of the run failing or falling back.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from cli_support import cli, load_stored, stored_session
from compaction_support import (
    REQUEST,
    SUMMARY_JSON,
    cancelled_while_summarising,
    chat,
    collect,
    make_session,
    manager,
    notices,
    replaced,
    tool_pair,
    words,
)
from conftest import DUMMY_API_KEY
from fakeserver import FakeServer

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider
from goosectx.tokens import TokenCounter

PRICED_MODEL = "openai/gpt-4o-mini"
WINDOW = 8_000

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:pydantic")


@pytest.fixture
def small_window(fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    monkeypatch.setenv("GOOSE_MODEL", PRICED_MODEL)
    monkeypatch.setenv("OPENAI_API_BASE", fake_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(
        f'[models."{PRICED_MODEL}"]\ncontext_limit = {WINDOW}\nmax_output_tokens = 1000\n')
    return fake_server


def _long_history() -> list[Message]:
    """~20× the window: an early file write, then many long turns, then the newest request."""
    early = tool_pair("wrote 12 lines", "write_file",
                      {"path": "src/ancient_module.py", "content": "x = 1\n"})
    return [Message.user("start the ancient module"), *early, *chat(150, 500),
            Message.user("newest request: finish the release notes")]


def test_a_session_far_over_the_window_gets_a_model_summary_of_the_whole_history(
        small_window: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    messages = _long_history()
    counter = TokenCounter(PRICED_MODEL)
    assert counter.count_messages(messages) > 18 * WINDOW
    sid = stored_session("long", messages)
    dry, _ = cli(capsys, "compact", "long", "--dry-run")
    assert small_window.requests == []
    rung_line = next(line for line in dry.splitlines() if line.startswith("Rung: "))
    assert rung_line.startswith("Rung: extractive digest + ")
    assert "newest message" in rung_line
    planned = json.loads(cli(capsys, "compact", "long", "--dry-run", "--json")[0])
    assert planned["request_tokens"] + planned["max_tokens"] <= WINDOW

    small_window.add({"text": SUMMARY_JSON,
                      "usage": {"prompt_tokens": 6000, "completion_tokens": 200}})
    out, _ = cli(capsys, "compact", "long")
    assert len(small_window.requests) == 1
    sent = small_window.requests[0]
    prompt = sent["messages"][-1]["content"]
    prompt = prompt if isinstance(prompt, str) else "".join(p["text"] for p in prompt)
    system = sent["messages"][0]["content"]
    system = system if isinstance(system, str) else "".join(p["text"] for p in system)
    sent_tokens = counter.count_text(system) + counter.count_text(prompt)
    assert sent_tokens + sent["max_tokens"] <= WINDOW
    assert sent_tokens <= planned["request_tokens"]  # the dry run's figure bounds it
    assert "Summary request: at most " in dry
    assert "[extractive digest of the " in prompt
    assert "src/ancient_module.py" in prompt  # the digest's facts of the oldest part
    newest = prompt[prompt.index("[end of the digest]"):]
    assert "question 149: " in newest and "answer 148: " in newest  # the newest, verbatim
    assert "answer 20: " not in prompt  # the middle is only in the digest
    assert out.startswith(f"Compacted long (llm, rung {planned['rung']}): ")
    view = load_stored(sid).conversation.agent_view()
    assert view[0].metadata.is_summary and "src/p.py" in view[0].text  # the model's summary
    assert "src/ancient_module.py" in view[0].text  # the facts, from the transcript


def test_a_session_that_fits_is_summarised_at_a_rung_of_the_ladder_as_before(
        small_window: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    stored_session("long", [*chat(3, 300), *tool_pair(words(400)), Message.user("now write the docs")])
    dry, _ = cli(capsys, "compact", "long", "--dry-run")
    assert "Rung: no tool results to trim" in dry  # (the tool call is in the kept part)
    assert "digest" not in dry
    small_window.add({"text": SUMMARY_JSON,
                      "usage": {"prompt_tokens": 2000, "completion_tokens": 100}})
    out, _ = cli(capsys, "compact", "long")
    assert out.startswith("Compacted long (llm, rung 100%): ")
    assert "[extractive digest" not in json.dumps(small_window.requests[0]["messages"])


# -- in memory: cancel, and the automatic compaction ------------------------------------------
def test_a_cancelled_digest_summary_leaves_the_history_untouched() -> None:
    session = make_session(_long_history())
    before = list(session.conversation.messages)
    cancel = threading.Event()
    provider = ScriptedProvider([cancelled_while_summarising(cancel)],
                                context_limit_tokens=WINDOW, output_limit=1_000)
    events = collect(manager(session, provider).compact(REQUEST, cancel=cancel))
    assert "[extractive digest of the " in provider.requests[0].messages[0].text
    assert replaced(events) == [] and notices(events)[-1] == (
        "Compaction cancelled; nothing changed.")
    assert session.conversation.messages == before and session.ledger.entries == []


def test_auto_compaction_of_a_history_far_over_the_window_uses_the_models_summary() -> None:
    session = make_session(_long_history())
    provider = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=WINDOW,
                                output_limit=1_000)
    events = collect(manager(session, provider).before_call(REQUEST))
    done = replaced(events)
    assert len(done) == 1 and done[0].strategy == "llm"
    assert done[0].rung is not None and done[0].rung.startswith("extractive digest + ")
    assert not any("extractive summary instead" in t for t in notices(events))
    summary = session.conversation.agent_view()[0]
    assert summary.metadata.is_summary and "src/p.py" in summary.text
