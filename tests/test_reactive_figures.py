"""A reactive compaction's rule shows the refused request's size, and says the refusals plainly.

fresh16c #15: a provider refused a ~1,500-token request in an 8,000-token window as "context
length exceeded": the rule said "context compacted · 8,000 → 1,490 tokens" — 8,000 is the
limit, not the request — and the summary failure read "openai/fake rejected 1 ever smaller
summary requests".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run

from goosectx.compaction.summarize import rejected_text


def test_the_rule_of_a_reactive_compaction_starts_from_the_refused_request(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "8000")
    long = "Filler answer text about the module. " * 40
    fake_model.add(*[{"text": long}] * 3)
    assert in_process_run("first", name="r", mode="auto")[0] == 0
    assert in_process_run("second", resume="r", mode="auto")[0] == 0
    assert in_process_run("third", resume="r", mode="auto")[0] == 0
    fake_model.add({"error": "context_length"}, {"error": "context_length"}, {"text": "ok"})
    code, _, err = in_process_run("fourth", resume="r", mode="auto")
    assert code == 0, err
    refused = len(str(fake_model.requests[3]["messages"])) // 4  # about its tokens
    figures = re.search(r"compacted \(reactive\) · ([\d,]+) → ([\d,]+) tokens",
                        err)
    assert figures, err
    before = int(figures.group(1).replace(",", ""))
    assert before != 8000 and refused / 2 < before < refused * 2, (before, refused)
    assert "rejected the summary request" in err
    assert "ever smaller" not in err


def test_the_summary_refusals_are_counted_in_words() -> None:
    assert rejected_text("openai/fake", 1) == "openai/fake rejected the summary request"
    assert rejected_text("m", 3) == "m rejected 3 summary requests, each smaller than the last"
