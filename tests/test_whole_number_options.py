"""A whole-number option given anything but a whole number in its range: one line, exit 2.

``--max-turns 5.0``, ``--max-turns 99999999999999999999999`` (and ``1e3``, ``abc``, ``0``) are
refused before anything runs, with the range the option takes — typer's conversion took the
first two (a float that happens to be whole, a number without bound).
"""

from __future__ import annotations

import pytest
from cli_support import run_cli

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
