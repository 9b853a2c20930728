"""A compaction by hand of a short conversation never trades the user's words for a summary.

fresh17b #24: three short turns in an 8k window, ``goosectx compact``: 1,051 → 1,026 tokens
(2 % saved), and every user message — the task itself — left the model's view; the next
request was the summary ("Continue the work."), the continuation and "fourth". A head smaller
than the summary's budget was summarised whole with no user message re-sent (goose's layout).
DESIGN §4.5(1): the earlier user messages are re-sent verbatim within ``keep_user_tokens``
(the newest, answered, is summarised, as an automatic compaction's fallback does); a compaction
that then saves nothing is refused as "would grow", nothing changed.
fresh17b #25: the spinner's "Summarising N messages…" counted the repaired view sent to the
summariser, the undo ("the model sees the M messages it had replaced again") the stored ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_cli
from compaction_support import (
    REQUEST,
    SUMMARY_JSON,
    chat,
    collect,
    make_session,
    manager,
    notices,
    tool_pair,
    words,
)
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call

from goosectx.conversation import Message
from goosectx.events import CompactionUndone
from goosectx.providers.scripted import ScriptedProvider

TASK = "TASK-ALPHA: make the parser accept trailing commas in src/parse.py."
FOLLOW_UPS = ["second message: also look at the lexer", "third message: any progress?"]


SMALL_SUMMARY = json.dumps({"intent": "Continue the work.", "current_work": "Working.",
                            "next_step": "Keep going."})
ANSWERS = ["Answer one: I will start by reading the code of the parser module and then write "
           "the fix.", "Answer two: looked at stuff, the parser module has a bug in tokenize().",
           "Answer three: still going.", "Answer four."]


def _script(fake_model: FakeServer, answers: list[str]) -> None:
    """The model answers each turn with the next of ``answers``; a summary call, tersely."""
    left = list(answers)

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        return {"text": SMALL_SUMMARY} if is_summary_call(body) else {"text": left.pop(0)}

    fake_model.add(*[reply] * 20)


def _turns(*texts: str) -> None:
    """Session ``t`` started (or resumed) with each of ``texts``."""
    for text in texts:
        code, _, err = (in_process_run(text, name="t") if text == TASK
                        else in_process_run(text, resume="t"))
        assert code == 0, err


def _next_request(fake_model: FakeServer) -> str:
    """The messages of the request the next turn sends, as JSON text."""
    assert in_process_run("fourth", resume="t")[0] == 0
    return json.dumps(fake_model.requests[-1]["messages"])


def test_a_short_conversation_compacted_by_hand_keeps_the_task(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The repro: compact after two turns (refused: it would grow), after a third (it went
    ahead, 2 % saved, every user message gone)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "8000")
    _script(fake_model, ANSWERS)
    _turns(TASK, FOLLOW_UPS[0])
    code, _, err = run_cli(capsys, "compact", "t")
    assert code == 0 or "nothing changed" in err.splitlines()[-1]
    _turns(FOLLOW_UPS[1])
    code, _, err = run_cli(capsys, "compact", "t")
    assert code == 0 or "nothing changed" in err.splitlines()[-1]
    sent = _next_request(fake_model)
    for text in (TASK, *FOLLOW_UPS):
        assert text in sent


def test_a_small_view_compacted_by_hand_re_sends_the_users_messages(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Long answers in a large window: the view is smaller than the summary's budget, so it
    is summarised whole — and still the task and the follow-up before the newest (answered,
    summarised) request reach the next request verbatim."""
    monkeypatch.chdir(tmp_path)
    _script(fake_model, ["Answer: " + words(1500, "detail")] * 4)
    _turns(TASK, *FOLLOW_UPS)
    code, out, err = run_cli(capsys, "compact", "t")
    assert code == 0, err
    assert "Compacted t" in out
    sent = _next_request(fake_model)
    assert "detail1 detail2" not in sent  # the answers were summarised
    for text in (TASK, FOLLOW_UPS[0]):
        assert text in sent


def test_the_summarising_count_is_the_count_an_undo_gives_back() -> None:
    # Two user messages in a row and a call whose answer was lost: the summary request is
    # made from the repaired view (merged, the orphan dropped), the undo counts stored ones.
    pending = tool_pair("never answered")[0]
    session = make_session([Message.user("first part of the task"),
                            Message.user("second part of the task"), *chat(6, 300),
                            pending, *chat(4, 300)])
    provider = ScriptedProvider([SUMMARY_JSON])
    events = collect(manager(session, provider).compact(REQUEST))
    undone = next(e for e in collect(manager(session, provider).undo_compaction(REQUEST))
                  if isinstance(e, CompactionUndone))
    n = undone.restored_count
    assert notices(events, "thinking") == [f"Summarising {n:,} message{'s' * (n != 1)}…"]
