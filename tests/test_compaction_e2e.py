"""Compaction end to end through the fake OpenAI-compatible server and ``goosectx run``.

* Reactive: the server answers the first request with a context-length 400; goosectx
  compacts, retries the same step, and the turn succeeds.
* Auto: a multi-turn ``goosectx run`` session with a small ``GOOSE_CONTEXT_LIMIT`` compacts
  at the start of the turn that would cross the threshold; the request after it carries the
  summary and the continuation instead of the old messages; the next turn does not compact
  again; the stored session still shows every original message.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from compaction_support import SUMMARY_JSON, words
from conftest import DUMMY_API_KEY, FAKE_MODEL
from fakeserver import FakeServer

from goosectx.cli.run_cmd import run_task
from goosectx.compaction.prompts import CONTINUATION_TEXTS
from goosectx.config import load_settings
from goosectx.store import SessionStore


def run(server: FakeServer, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": server.base_url,
                "OPENAI_API_KEY": DUMMY_API_KEY, **env}
    return subprocess.run(["goosectx", "run", *args], env=full_env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def stored(name: str) -> Any:
    store = SessionStore(load_settings().data_dir)
    try:
        return store.load(store.resolve(name))
    finally:
        store.close()


def contents(request: dict[str, Any]) -> list[str]:
    return [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
            for m in request["messages"]]


def is_summary_call(request: dict[str, Any]) -> bool:
    return not request.get("tools") and "<conversation>" in json.dumps(request["messages"])


def usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}


def in_process_run(text: str, **options: Any) -> tuple[int, str, str]:
    """``goosectx run`` in this process (the same code path as the command)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    defaults: dict[str, Any] = dict(input_file=None, name=None, resume=None, continue_=False,
                                    max_turns=None, output_format="text", mode=None, model=None)
    code = run_task(load_settings(), text=text, **{**defaults, **options},
                    stdin=io.StringIO(""), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()



def shell_call_turn(server: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
                    commands: list[str], *, limit: int, task: str, name: str, answer: str,
                    summary_usage: dict[str, int] | None = None,
                    storm_pause: bool = True) -> str:
    """One ``run`` turn in ``work`` with a ``limit``-token context window (tool pairs not
    summarised): the model runs ``commands`` in the shell one by one, then says ``answer``;
    a compaction's summary is ``SUMMARY_JSON`` (with ``summary_usage``). Returns stderr.

    ``storm_pause=False``: results that fill the window compact at every step, as before the
    storm pause (``decide.storm``), for the tests of what such repeated compactions keep."""
    if not storm_pause:
        monkeypatch.setattr("goosectx.compaction.decide.STORM_STEPS", 0)
    monkeypatch.chdir(work)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", str(limit))
    monkeypatch.setenv("GOOSE_TOOL_PAIR_SUMMARIZATION", "false")
    left = list(commands)

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        if is_summary_call(body):
            return {"text": SUMMARY_JSON, **({"usage": summary_usage} if summary_usage else {})}
        if left:
            return {"tool_calls": [{"name": "shell", "arguments": {"command": left.pop(0)}}]}
        return {"text": answer}  # usage "auto": the server's own count

    server.add(*[reply] * (2 * len(commands) + 12))
    code, out, err = in_process_run(task, name=name, mode="auto")
    assert code == 0, err
    assert answer in out and not left
    return err


def test_reactive_compaction_after_a_context_length_400(fake_model: FakeServer,
                                                        tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    fake_model.add({"text": "noted " + words(300)}, {"text": "noted again"})
    assert in_process_run("first: " + words(600), name="big")[0] == 0
    assert in_process_run("second", resume="big")[0] == 0
    before = stored("big")
    fake_model.add({"error": "context_length"},
                   {"text": SUMMARY_JSON, "usage": usage(900, 60)},
                   {"text": "finished", "usage": usage(1200, 5)})
    code, out, err = in_process_run("now the third step", resume="big")
    assert code == 0, err
    assert "finished" in out
    assert "rejected the request as too long" in err
    rejected, summary_call, retry = fake_model.requests[-3:]
    assert contents(rejected)[-1] == "now the third step"
    assert is_summary_call(summary_call) and "first: lorem0" in contents(summary_call)[-1]
    sent = contents(retry)
    assert sent[1].startswith("# Conversation Summary")
    assert sent[2] == CONTINUATION_TEXTS["conversation"]
    # The small second turn stays verbatim in the tail; the newest request closes the request;
    # the big first turn is not kept verbatim (the summary may quote it).
    assert sent[3:] == ["second", "noted again", "now the third step"]
    assert not any("first: lorem0" in text for text in sent[2:])
    after = stored("big")
    old = {m.id: m for m in after.conversation}
    assert all(old[m.id].metadata.user_visible == m.metadata.user_visible
               for m in before.conversation)
    assert [e.purpose for e in after.ledger.entries][-2:] == ["compaction", "reply"]
    assert after.ledger.current_tokens == 1205


@pytest.mark.slow
def test_multi_turn_run_auto_compacts_and_keeps_the_transcript(fake_server: FakeServer,
                                                               tmp_path: Path) -> None:
    limit = {"GOOSE_CONTEXT_LIMIT": "5000"}  # threshold 0.8 → compaction above 4,000
    questions = [f"question {i}: " + words(1000) for i in range(4)]  # ~1,000 tokens each
    answers = [f"answer {i}: " + words(300, "dolor") for i in range(4)]
    fake_server.add({"text": answers[0], "usage": usage(1800, 300)},   # current 2,100
                    {"text": answers[1], "usage": usage(3100, 300)})   # current 3,400
    assert run(fake_server, tmp_path, "--name", "long", "-t", questions[0], **limit
               ).returncode == 0
    assert run(fake_server, tmp_path, "--resume", "long", "-t", questions[1], **limit
               ).returncode == 0
    assert not any(is_summary_call(r) for r in fake_server.requests)
    # Turn 3: 3,400 reported + ~1,000 for the new question > 4,000 → auto-compaction first.
    fake_server.add({"text": SUMMARY_JSON, "usage": usage(2500, 80)},
                    {"text": answers[2], "usage": usage(1900, 300)})
    proc = run(fake_server, tmp_path, "--resume", "long", "-t", questions[2], **limit)
    assert proc.returncode == 0, proc.stderr
    assert "compacting the conversation" in proc.stderr
    summary_call, answer_call = fake_server.requests[2:4]
    assert is_summary_call(summary_call)
    assert summary_call["max_tokens"] <= 5000
    sent = contents(answer_call)
    assert [m["role"] for m in answer_call["messages"]] == ["system", "user", "assistant", "user"]
    assert "# Conversation Summary" in sent[1] and "src/p.py" in sent[1]
    # The first question (the task) and the newest earlier one are re-sent within
    # keep_user_tokens (500 here: each cut in its middle) after the summary, though the turn
    # in progress fills the tail (DESIGN §4.5).
    assert questions[0][:30] in sent[1] and questions[1][:30] in sent[1]
    assert sent[1].index(questions[0][:30]) < sent[1].index(questions[1][:30])
    assert sent[1].count("tokens elided") == 2
    assert sent[2] == CONTINUATION_TEXTS["conversation"]
    assert sent[3] == questions[2]
    for old in (answers[0], answers[1]):
        assert not any(old[:30] in text for text in sent)
    # Turn 4 starts from the reported 2,200 + the new question: no second compaction.
    fake_server.add({"text": answers[3], "usage": usage(3300, 300)})
    proc = run(fake_server, tmp_path, "--resume", "long", "-t", questions[3], **limit)
    assert proc.returncode == 0, proc.stderr
    assert len(fake_server.requests) == 5 and not is_summary_call(fake_server.requests[4])
    assert contents(fake_server.requests[4])[1].startswith("# Conversation Summary")
    # The stored session still shows every original message, in order, to the user.
    session = stored("long")
    shown = [m.text for m in session.conversation.user_view() if m.text]
    expected = [t for pair in zip(questions, answers, strict=True) for t in pair]
    assert shown == expected
    assert [e.purpose for e in session.ledger.entries] == [
        "reply", "reply", "compaction", "reply", "reply"]
    listing = subprocess.run(["goosectx", "sessions", "show", "long"], capture_output=True,
                             text=True, timeout=60, env=os.environ)
    assert listing.returncode == 0, listing.stderr
    for text in expected:
        assert text[:20] in listing.stdout
    assert "compacted" in listing.stdout.lower()
