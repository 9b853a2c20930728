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
    SUMMARY_JSON,
    words,
)
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call

CJK_TASK = ("請不要修改任何代碼 我希望你幫我調查一下 有沒有好一點的自動生成文檔可以給這個 rust 專案 "
            "請幫我調查 不要產生代碼或編輯代碼")
REMINDER = "Continue; remember: do NOT modify any code, notes only."
SEQ = ["seq 0 600 | sed 's/$/ line of cargo doc output/'",
       "seq 1000 1600 | sed 's/$/ line of cargo doc output/'"]


def _sent(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"], ensure_ascii=False)


def test_earlier_user_messages_survive_an_auto_compaction_of_a_big_turn(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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

