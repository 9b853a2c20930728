"""A message larger than the context window is sent cut in its middle, between words.

The cut copy of an oversized message (the compaction's elision, ``compaction/tail.py``) cut
its head and tail at a character count: the model was sent half words on both sides of the
marker. It now cuts where the summary's shortened pieces cut (``compaction/cuts.py``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from compaction_support import SUMMARY_JSON
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call

WORDS = [f"alpha{i}omega" for i in range(3000)]  # one line: no line break to cut at


def test_an_oversized_request_is_cut_between_words(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "8000")

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        return {"text": SUMMARY_JSON if is_summary_call(body) else "DONE"}

    fake_model.add(*[reply] * 6)
    code, out, err = in_process_run("first question", name="w")
    assert code == 0, err
    code, out, err = in_process_run(" ".join(WORDS), resume="w")
    assert code == 0 and "DONE" in out, err
    sent = [m["content"] for r in fake_model.requests if not is_summary_call(r)
            for m in r["messages"] if m["role"] == "user" and "alpha0omega" in str(m["content"])]
    cut = [str(c) for c in sent if "tokens elided" in str(c)]
    assert cut, "the oversized request was not cut"
    head, tail = re.split(r"\[… [\d,]+ tokens elided to fit the context window …\]", cut[-1])
    known = set(WORDS)
    assert head.split() and set(head.split()) <= known, head[-60:]
    assert tail.split() and set(tail.split()) <= known, tail[:60]


def test_a_word_longer_than_the_cut_is_cut_not_dropped() -> None:
    """A pasted blob after a label (one word far longer than the cut): the head keeps its
    share of the blob, not the label alone (it was cut back to ``data:``)."""
    from goosectx.compaction.cuts import word_head, word_tail
    from goosectx.compaction.elision import elide_text

    blob = "data: " + "Qm9" * 20_000 + " end"
    head, tail = elide_text(blob, 2_000, 20_000).split("\n[…")
    assert head.startswith("data: Qm9") and len(head) > 2_500
    assert len(tail) > 2_500
    assert word_head(blob, 3_000) == blob[:3_000]  # the summary's cuts: the same rule
    assert word_tail("start " + "Qm9" * 1_000, 600) == ("Qm9" * 1_000)[-600:]
