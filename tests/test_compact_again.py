"""``goosectx compact`` right after another, with nothing new since it.

fresh18b #01: the README promised that such a repeat is refused ("nothing to compact") without
a model call, but when the first compaction kept a verbatim tail the second summarised that
tail (5,529 → 3,992, then 3,992 → 1,199: a second summary call). A repeat typed by accident
costs nothing now; one meant to shrink further says so with instructions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli, run_cli
from compaction_support import SUMMARY_JSON
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call


def summary_calls(server: FakeServer) -> int:
    return sum(is_summary_call(r) for r in server.requests)


@pytest.fixture
def compacted(fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A session of 8 turns (a shell call and an answer each), compacted once by hand; the
    compaction kept its newest messages verbatim."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "16000")
    (tmp_path / "nums.txt").write_text("".join(f"{i} padding words here to fill\n"
                                               for i in range(2000)))
    for i in range(1, 9):
        fake_model.add({"tool_calls": [{"name": "shell", "arguments": {
                           "command": f"sed -n {i * 40},{i * 40 + 60}p nums.txt"}}]},
                       {"text": f"done {i}"})
        code, _, err = in_process_run(f"turn {i}: show part {i} of nums.txt",
                                      **({"resume": "s1"} if i > 1 else {"name": "s1"}),
                                      mode="auto")
        assert code == 0, err
    fake_model.add({"text": SUMMARY_JSON})
    return "s1"


def test_a_second_compact_with_nothing_new_is_refused_without_a_model_call(
        compacted: str, fake_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = cli(capsys, "compact", compacted, "--json")
    assert json.loads(out)["tokens_after"] < json.loads(out)["tokens_before"]
    assert summary_calls(fake_model) == 1
    shown, _ = cli(capsys, "sessions", "show", compacted, "--agent")
    assert "done 8" in shown  # the first compaction kept the newest messages verbatim
    fake_model.add({"text": SUMMARY_JSON})
    for extra in ([], ["--dry-run"], ["--strategy", "extractive"]):
        code, _, err = run_cli(capsys, "compact", compacted, *extra)
        assert code == 1
        assert err.count("\n") == 1 and "nothing to compact: nothing is new since" in err
        assert "--instructions" in err  # how to summarise the kept messages on purpose
    assert summary_calls(fake_model) == 1
    assert cli(capsys, "sessions", "show", compacted, "--agent")[0] == shown  # unchanged


def test_a_second_compact_with_instructions_summarises_the_kept_messages_too(
        compacted: str, fake_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    first = json.loads(cli(capsys, "compact", compacted, "--json")[0])
    fake_model.add({"text": SUMMARY_JSON})
    second = json.loads(cli(capsys, "compact", compacted, "--json", "--instructions",
                            "keep only the part numbers")[0])
    assert summary_calls(fake_model) == 2
    assert second["tokens_after"] < first["tokens_after"]
    assert "keep only the part numbers" in json.dumps(fake_model.requests[-1]["messages"])
    assert "done 8" not in cli(capsys, "sessions", "show", compacted, "--agent")[0]
