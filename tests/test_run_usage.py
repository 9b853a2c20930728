"""``goosectx run`` given its task as an argument, as other agents take it."""

from __future__ import annotations

import pytest
from cli_support import cli


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


def test_other_usage_errors_keep_click_s_usage_block(capsys: pytest.CaptureFixture[str]) -> None:
    _, err = cli(capsys, "sessions", "show", "a", "b", code=2)
    assert "Usage: goosectx sessions show" in err and "unexpected extra argument" in err


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
