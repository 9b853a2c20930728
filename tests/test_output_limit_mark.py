"""An answer the provider stopped at its output limit reaches the model marked as cut off.

Round 19, finding 04: a reply with ``finish_reason: length`` went back to the model in the
next request as if complete (``Plan: 1. rename helper 2. update imports 3. run te``), while a
Ctrl-C'd or error-cut answer is marked ("[interrupted by the user]", "[cut off: …]"). In a long
task the model then builds on a plan it never finished writing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from compaction_support import REQUEST, collect, make_session, manager, tool_pair, words
from fakeserver import FakeServer

from goosectx.conversation import OUTPUT_LIMIT_MARK, Message, MessageMetadata
from goosectx.providers.scripted import ScriptedProvider

CUT = "Plan: 1. rename helper 2. update imports 3. run te"


def goosectx(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "PROMPT_TOOLKIT_NO_CPR": "1"}
    return subprocess.run([sys.executable, "-m", "goosectx", *args], env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)


def _answers_sent(fake_model: FakeServer) -> list[str]:
    """The assistant messages of the last request the fake server received."""
    return [str(m["content"]) for m in fake_model.requests[-1]["messages"]
            if m["role"] == "assistant"]


def test_run_sends_a_cut_answer_back_marked_and_a_resume_keeps_the_mark(
        fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add({"text": CUT, "finish_reason": "length"}, {"text": "ok"})
    first = goosectx("run", "--name", "plan", "-t", "Plan the refactor")
    assert first.returncode == 0, first.stderr
    assert first.stdout == CUT + "\n"  # the user sees it as it came, and is told on stderr
    assert "cut off at the provider's output limit" in first.stderr
    assert goosectx("run", "--resume", "plan", "-t", "go on").returncode == 0
    assert OUTPUT_LIMIT_MARK == "[cut off: the reply reached the output limit]"
    (sent,) = _answers_sent(fake_model)
    assert sent.startswith(CUT) and sent.endswith(OUTPUT_LIMIT_MARK), sent
    shown = goosectx("sessions", "show", "plan").stdout
    assert "(cut off at the output limit)" in shown
    assert OUTPUT_LIMIT_MARK not in shown  # the transcript keeps what the model wrote


def test_the_repl_sends_a_cut_answer_back_marked(fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add({"text": CUT, "finish_reason": "length"}, {"text": "ok"})
    proc = goosectx(stdin="Plan the refactor\ngo on\n/exit\n")
    assert "answer was cut off at the provider's output limit" in " ".join(proc.stdout.split())
    (sent,) = _answers_sent(fake_model)
    assert sent.endswith(OUTPUT_LIMIT_MARK), sent


def test_a_complete_answer_goes_back_unmarked(fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add({"text": "Plan: 1. rename helper."}, {"text": "ok"})
    assert goosectx("run", "--name", "plan", "-t", "Plan the refactor").returncode == 0
    assert goosectx("run", "--resume", "plan", "-t", "go on").returncode == 0
    assert _answers_sent(fake_model) == ["Plan: 1. rename helper."]



def test_a_cut_answer_a_compaction_hid_keeps_its_mark_for_an_undo() -> None:
    """Compaction's shortcut for plain metadata must not drop the flag of a hidden answer."""
    cut = Message.assistant(CUT, MessageMetadata(cut_at_output_limit=True))
    session = make_session([Message.user("Plan the refactor"), cut, Message.user("go on"),
                            *tool_pair(words(600)), Message.assistant("done")])
    collect(manager(session, ScriptedProvider(['{"user_intent": "plan"}']), keep_recent_ratio=0,
                    keep_user_tokens=0).compact(REQUEST))
    (hidden,) = [m for m in session.conversation.messages if m.id == cut.id]
    assert not hidden.metadata.agent_visible and hidden.metadata.hidden_by
    assert hidden.metadata.cut_short == "cut off at the output limit"


def test_with_no_max_tokens_sent_the_notice_names_no_figure(
        fake_model: FakeServer, workdir: Path) -> None:
    """The fake model is unknown to litellm and nothing set max_output_tokens: the request
    carried no max_tokens, yet the notice said "the model's output limit (4,096 tokens)" —
    goosectx's own fallback, a figure nobody sent or stated."""
    fake_model.add({"text": CUT, "finish_reason": "length"})
    run = goosectx("run", "-t", "Plan the refactor")
    assert run.returncode == 0, run.stderr
    assert "max_tokens" not in fake_model.requests[-1]
    notice = " ".join(run.stderr.split())
    assert "cut off at the provider's output limit (no max_output_tokens was sent)" in notice
    assert "4,096" not in notice and "set max_output_tokens under" in notice
