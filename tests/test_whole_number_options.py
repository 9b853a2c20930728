"""A whole-number option given anything but a whole number in its range: one line, exit 2.

``--max-turns 5.0``, ``--max-turns 99999999999999999999999`` (and ``1e3``, ``abc``, ``0``) are
refused before anything runs, with the range the option takes — typer's conversion took the
first two (a float that happens to be whole, a number without bound). ``GOOSE_MAX_TURNS`` and
``max_turns`` in the config file take the same range (they took any number of any size).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import cli, run_cli

COMMANDS = [
    (("run", "-t", "go", "--max-turns"), "--max-turns must be a whole number from 1 to 1,000,000"),
    (("compact", "k", "--max-summary-tokens"),
     "--max-summary-tokens must be a whole number from 100 to 100,000,000"),
    (("sessions", "search", "word", "--limit"),
     "--limit must be a whole number from 1 to 1,000,000"),
]


@pytest.mark.parametrize(("args", "said"), COMMANDS)
@pytest.mark.parametrize("value", ["99999999999999999999999", "5.0", "1e3", "abc", "0", "-3",
                                   "0x10", "１２"])
def test_a_value_that_is_not_a_whole_number_in_range_is_one_line(
        capsys: pytest.CaptureFixture[str], isolated_env: object, args: tuple[str, ...],
        said: str, value: str) -> None:
    code, out, err = run_cli(capsys, *args, value)
    assert code == 2
    assert out == ""
    assert err == f"goosectx: error: {said}; got {value!r}\n"


@pytest.mark.parametrize("value", ["7", "0007", "1_000"])
def test_a_whole_number_in_range_is_taken(
        capsys: pytest.CaptureFixture[str], isolated_env: object, value: str) -> None:
    code, out, err = run_cli(capsys, "sessions", "search", "word", "--limit", value)
    assert code == 0, err
    assert "No session mentions 'word'" in out + err


TURNS = "a whole number from 1 to 1,000,000"  # what --max-turns takes


@pytest.mark.parametrize("value", ["99999999999999999999999", "1000001", "5.0", "1e3", "１２",
                                   "0x10", "0", "-3", "ten"])
def test_goose_max_turns_takes_the_range_of_max_turns(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path],
        monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("GOOSE_MAX_TURNS", value)
    code, out, err = run_cli(capsys, "info")
    assert (code, out) == (2, "")
    assert err == (f"goosectx: error: GOOSE_MAX_TURNS must be {TURNS}; got {value!r}"
                   " — e.g. GOOSE_MAX_TURNS=1000\n")
    assert not isolated_env["home"].exists()


@pytest.mark.parametrize(("value", "got"), [
    ("99999999999", "99999999999"), ("1_000_001", "1000001"), ("5.0", "5.0"), ("1.5", "1.5"),
    ("0", "0"), ("-3", "-3"), ("'ten'", "'ten'"), ("'１２'", "'１２'"), ("true", "True")])
def test_max_turns_in_the_config_file_takes_the_range_of_max_turns(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path], value: str,
        got: str) -> None:
    config = isolated_env["config"]
    config.write_text(f"max_turns = {value}\n")
    code, out, err = run_cli(capsys, "info")
    assert (code, out) == (2, "")
    assert err == (f"goosectx: error: max_turns in {config} must be {TURNS}; got {got}"
                   " — e.g. max_turns = 1000\n")


@pytest.mark.parametrize(("env", "file", "shown"), [("1000000", None, "1000000"),
                                                     ("1_000", None, "1000"),
                                                     (None, "1_000_000", "1000000"),
                                                     (None, "'25'", "25")])
def test_max_turns_in_range_is_taken(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path],
        monkeypatch: pytest.MonkeyPatch, env: str | None, file: str | None, shown: str) -> None:
    if env is not None:
        monkeypatch.setenv("GOOSE_MAX_TURNS", env)
    if file is not None:
        isolated_env["config"].write_text(f"max_turns = {file}\n")
    out, _ = cli(capsys, "info")
    assert any(line.split()[:3] == ["max", "turns", shown] for line in out.splitlines()), out
