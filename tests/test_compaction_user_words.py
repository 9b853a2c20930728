"""The user's own words stay in the model's view after an auto-compaction mid-turn.

fresh15a R6: a session whose task says 請不要修改任何代碼 ("do not modify any code"), a
14,000-token context limit, then "remember: do NOT modify any code", then a turn with two
600-line tool outputs. The compaction ran at 87 % and every later request had neither
constraint (the CJK one is no English constraint word the facts know; neither message was
re-sent) while a 600-line ``seq`` output stayed verbatim: the turn in progress took all the
room and the earlier user messages (``keep_user_tokens``) got none. DESIGN §4.5: the user's
requests are kept; the tail shrinks first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from compaction_support import (
    REQUEST,
    SUMMARY_JSON,
    chat,
    collect,
    make_session,
    manager,
    tool_pair,
    words,
)
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider

CJK_TASK = ("請不要修改任何代碼 我希望你幫我調查一下 有沒有好一點的自動生成文檔可以給這個 rust 專案 "
            "請幫我調查 不要產生代碼或編輯代碼")
REMINDER = "Continue; remember: do NOT modify any code, notes only."
SEQ = ["seq 0 600 | sed 's/$/ line of cargo doc output/'",
       "seq 1000 1600 | sed 's/$/ line of cargo doc output/'"]


def _sent(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"], ensure_ascii=False)


def test_earlier_user_messages_survive_an_auto_compaction_of_a_big_turn(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        isolated_env: dict[str, Path]) -> None:
    isolated_env["config"].write_text("tool_output_max_chars = 40000\n")  # results larger than
    # the window's default share, as before the cap followed the window
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "14000")
    monkeypatch.setenv("GOOSE_TOOL_PAIR_SUMMARIZATION", "false")
    fake_model.add({"text": "調查結果 report: " + words(3500)})
    assert in_process_run(CJK_TASK, name="cjk", mode="auto")[0] == 0
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": "echo step1"}}]},
                   {"text": "Turn one done."})
    assert in_process_run(REMINDER, resume="cjk", mode="auto")[0] == 0
    left = list(SEQ)

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        if is_summary_call(body):
            return {"text": SUMMARY_JSON}
        if left:
            return {"tool_calls": [{"name": "shell", "arguments": {"command": left.pop(0)}}]}
        return {"text": "Turn two done."}

    fake_model.add(*[reply] * 8)
    first = len(fake_model.requests)
    code, out, err = in_process_run("Now try cargo doc output.", resume="cjk", mode="auto")
    assert code == 0, err
    assert "compacted" in err, err
    later = fake_model.requests[first:]
    summary_at = next(i for i, r in enumerate(later) if is_summary_call(r))
    after = [r for r in later[summary_at + 1:] if not is_summary_call(r)]
    assert after
    for request in after:  # every request the model gets after the compaction
        sent = _sent(request)
        assert CJK_TASK in sent
        assert REMINDER in sent


def test_a_constraint_typed_after_an_unanswered_tool_call_is_listed_in_the_summary() -> None:
    """The message after a tool response is merged into it when sent (one user message); its
    constraint was then not a "user request" to the facts and went missing from the summary
    (fresh15a R6: "remember: do NOT modify any code" after an imported turn's last call)."""
    call = tool_pair("interrupted")
    messages = [*chat(6, 400), *call, Message.user("remember: do NOT modify any code"),
                *chat(6, 400)]
    session = make_session(messages)
    summariser = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=8_000)
    collect(manager(session, summariser, keep_user_tokens=0).compact(REQUEST))
    sent = "\n".join(m.text for m in session.conversation.agent_view())
    assert "User constraints" in sent
    assert "remember: do NOT modify any code" in sent
