"""NaN, Infinity and 1e400 are not JSON: a model's tool call or an imported transcript holding
one is refused where it is read, not stored.

A tool call's arguments ``{"timeout_s": Infinity}`` parsed (Python's ``json`` takes them),
were stored as written, and the message's insert then failed in SQLite's JSON functions (the
search index trigger): the run ended with exit 1 saying "session database … is unreadable
(malformed JSON)" and the model's reply was lost.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli, run_cli
from fakeserver import FakeServer


@pytest.mark.parametrize("value", [float("inf"), float("nan")], ids=["Infinity", "NaN"])
def test_a_tool_call_with_a_non_json_number_is_answered_as_a_parse_error(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        value: float) -> None:
    fake_model.add({"tool_calls": [{"name": "shell",
                                    "arguments": {"command": "echo hi", "timeout_s": value}}]},
                   {"text": "sorry, fixed"})
    code, out, err = run_cli(capsys, "run", "--mode", "auto", "-t", "go")
    assert code == 0, err
    assert "sorry, fixed" in out and "unreadable" not in err
    told = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(told) == 1 and "is not a JSON number" in told[0]
    listed, _ = cli(capsys, "sessions", "list", "--json")
    assert json.loads(listed)[0]["message_count"] >= 4


def test_imported_tool_arguments_holding_nan_are_kept_as_a_parse_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "nan.json"
    source.write_text(
        '[{"role": "user", "content": "q"},'
        ' {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function",'
        '   "function": {"name": "shell", "arguments": {"command": "x", "timeout_s": NaN}}}]},'
        ' {"role": "tool", "tool_call_id": "a", "content": "ok"},'
        ' {"role": "assistant", "content": "done"}]')
    code, _out, err = run_cli(capsys, "sessions", "import", str(source))
    assert code == 0, err
    listed, _ = cli(capsys, "sessions", "list", "--json")
    assert json.loads(listed)[0]["message_count"] == 4
    shown, _ = cli(capsys, "sessions", "export", json.loads(listed)[0]["id"], "-f", "json")
    assert "hold NaN or Infinity" in shown
