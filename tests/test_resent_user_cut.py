"""An earlier user request re-sent after a compaction keeps its beginning (its task statement).

The tester's repro (fresh13b user_msg_frontcut.sh): two ~1,500-token requests ("TASK ONE: …",
"TASK TWO: …"), a short third, ``goosectx compact``, then "What was TASK TWO?". The re-sent copy
of TASK TWO was cut from the front ("[… earlier part of this message cut …] re 177 more 178 …"),
so neither task statement reached the model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli
from compaction_support import SUMMARY_JSON
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call

ONE = "TASK ONE: rename foo to bar in src/x.py. Dump: " + " ".join(f"ctx {i}" for i in range(1, 501))
TWO = "TASK TWO: also add a test for bar. " + " ".join(f"more {i}" for i in range(1, 501))


def test_a_cut_earlier_request_keeps_its_task_statement_and_its_end(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "8000")
    fake_model.add({"text": "Answer one."})
    assert in_process_run(ONE, name="uc")[0] == 0
    fake_model.add({"text": "Answer two."})
    assert in_process_run(TWO, resume="uc")[0] == 0
    fake_model.add({"text": "Answer three."})
    assert in_process_run("Three: short question?", resume="uc")[0] == 0
    fake_model.add({"text": SUMMARY_JSON})
    cli(capsys, "compact", "uc")
    fake_model.add({"text": "?"})
    code, _, err = in_process_run("What was TASK TWO?", resume="uc")
    assert code == 0, err
    sent = [r for r in fake_model.requests if not is_summary_call(r)][-1]
    texts = [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
             for m in sent["messages"]]
    blob = "\n".join(texts)
    start = blob.find("TASK TWO: also add a test for bar. more 1 more 2")
    assert start >= 0, blob[:2000]  # its beginning: the task statement
    end = blob.find("more 499 more 500", start)  # and its end: cut in the middle
    assert end > start and "elided" in blob[start:end] and TWO not in blob
    # nothing re-sent cut from the front; TASK ONE, the session's first request, gets its
    # room first (fixf16): whole, or cut in the middle like TASK TWO
    assert "earlier part of this message cut" not in blob
    one = blob.find("TASK ONE: rename foo to bar in src/x.py. Dump: ctx 1 ctx 2")
    assert one >= 0 and blob.find("ctx 499 ctx 500", one) > one
