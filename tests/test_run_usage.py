"""``goosectx run`` given its task as an argument, as other agents take it; the usage it reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer


def test_a_task_typed_as_an_argument_gets_one_line_pointing_at_t(
        capsys: pytest.CaptureFixture[str]) -> None:
    out, err = cli(capsys, "run", "fix the tests", code=2)
    assert out == ""
    assert err.strip().splitlines() == [
        "goosectx: error: goosectx run takes the task as an option, not as 'fix the tests' — "
        "goosectx run -t 'TEXT' (or -i FILE, -i - for stdin)"]


def test_a_pasted_task_is_not_echoed_back_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    task = "refactor the parser " * 200
    _, err = cli(capsys, "run", task, code=2)
    assert len(err.strip().splitlines()) == 1 and len(err) < 200
    assert "'refactor the parser refactor the parser…'" in err


def test_other_usage_errors_are_one_line_naming_the_help_to_read(
        capsys: pytest.CaptureFixture[str]) -> None:
    """They were click's three lines ("Usage: …", "Try …", "Error: …"); exit 2 stays."""
    for argv, said, where in (
            (("run", "--output-format", "xml", "-t", "hi"),
             "Invalid value for '--output-format': 'xml' is not one of", "goosectx run"),
            (("--bogus",), "No such option: --bogus", "goosectx"),
            (("sessions", "shwo"), "No such command 'shwo'", "goosectx sessions"),
            (("sessions", "show", "a", "b"), "unexpected extra argument", "goosectx sessions show")):
        out, err = cli(capsys, *argv, code=2)
        assert err.count("\n") == 1 and err.startswith("goosectx: error: "), err
        assert said in err and err.rstrip().endswith(f"— see: {where} --help"), err
        assert "Usage:" not in err and "Try " not in err


def test_two_arguments_are_named_as_typed(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = cli(capsys, "run", "do", "two", code=2)
    assert out == ""
    assert err.strip().splitlines() == [
        "goosectx: error: goosectx run takes the task as an option, not as 'do', 'two' — "
        "goosectx run -t 'TEXT' (or -i FILE, -i - for stdin)"]


def test_a_task_split_into_thousands_of_words_gets_its_line_at_once(
        capsys: pytest.CaptureFixture[str]) -> None:
    # goosectx run $(cat notes.txt): a search of every run of words was cubic (2,000 words
    # took 15 s); past 64 words the text is shown as click joined it
    _, err = cli(capsys, "run", *(["word"] * 5000), code=2)
    assert err.strip().splitlines() == [
        "goosectx: error: goosectx run takes the task as an option, not as "
        f"'{('word ' * 8)[:39]}…' — goosectx run -t 'TEXT' (or -i FILE, -i - for stdin)"]


def test_usage_a_provider_did_not_report_is_null_in_the_json_not_zero(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Many local servers report no usage when streaming: the JSON said input/output/total 0,
    # an exact figure a CI summing tokens per job recorded (cache_* were already null).
    fake_model.add({"text": "no usage here", "usage": None})
    out, _err = cli(capsys, "run", "-t", "hi", "--output-format", "json")
    usage = json.loads(out)["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"],
            usage["unreported_calls"]) == (None, None, None, 1)
    fake_model.add({"text": "counted"})  # a reported call: its figures, and no unreported one
    out, _err = cli(capsys, "run", "-t", "again", "--output-format", "json")
    usage = json.loads(out)["usage"]
    assert usage["input_tokens"] > 0 and usage["unreported_calls"] == 0


def test_a_call_with_no_usage_is_exported_as_not_reported_not_zero(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The session's ledger kept the call as 0 tokens: the JSON export said input 0, output 0,
    # as exact as a reported figure, and an import of it kept them as 0 again.
    fake_model.add({"text": "no usage here", "usage": None}, {"text": "counted"})
    cli(capsys, "run", "-t", "hi", "--name", "u")
    cli(capsys, "run", "--resume", "u", "-t", "again")
    exported = json.loads(cli(capsys, "sessions", "export", "u", "-f", "json")[0])
    ledger = exported["usage_ledger"]
    replies = [m["metadata"].get("usage") for m in exported["messages"]
               if m["role"] == "assistant"]
    assert replies[0] is None and replies[1]["input_tokens"] > 0  # the reply's own: unknown
    figures = [(e["input_tokens"], e["output_tokens"], e["total_tokens"]) for e in ledger]
    assert figures[0] == (None, None, None) and figures[1][0] > 0
    copy = workdir / "u.json"
    cli(capsys, "sessions", "export", "u", "-o", str(copy))
    cli(capsys, "sessions", "import", str(copy), "--name", "back", "--force")
    again = json.loads(cli(capsys, "sessions", "export", "back", "-f", "json")[0])
    assert [(e["input_tokens"], e["total_tokens"]) for e in again["usage_ledger"]] == [
        (None, None), figures[1][::2]]


def _usage_lines(out: str) -> tuple[list[dict[str, object]], dict[str, object]]:
    """stream-json's ``usage_updated`` events' ``accumulated``, and the result's ``usage``."""
    lines = [json.loads(line) for line in out.splitlines()]
    updates = [line["accumulated"] for line in lines if line["type"] == "usage_updated"]
    result = next(line["usage"] for line in lines if line["type"] == "result")
    return updates, result


def test_stream_json_usage_updated_says_not_reported_as_the_result_line_does(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # fresh21 #11: after a call whose provider reported no usage, usage_updated said the
    # session had used 0 input, 0 output, 0 total tokens — exact figures — while the result
    # line said null with unreported_calls 1.
    fake_model.add({"text": "no usage here", "usage": None})
    out, _err = cli(capsys, "run", "-t", "hi", "--name", "u", "--output-format", "stream-json")
    (update,), result = _usage_lines(out)
    figures = ("input_tokens", "output_tokens", "total_tokens", "unreported_calls")
    assert [update[k] for k in figures] == [None, None, None, 1]
    assert [result[k] for k in figures] == [None, None, None, 1]
    # resumed, a reported call: the session's sum has figures and still counts the first call
    fake_model.add({"text": "counted"})
    out, _err = cli(capsys, "run", "--resume", "u", "-t", "again",
                    "--output-format", "stream-json")
    (update,), result = _usage_lines(out)
    assert isinstance(update["input_tokens"], int) and update["input_tokens"] > 0
    assert update["unreported_calls"] == 1  # the session's (accumulated)
    assert result["input_tokens"] == update["input_tokens"] and result["unreported_calls"] == 0
