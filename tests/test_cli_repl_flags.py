"""REPL flags given before a command: the error names only a way that works — after the
command for the flags it takes, no command (the REPL) for the rest — never an option the
command does not have."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_cli


def _refusal(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == "", err
    assert err.startswith("goosectx: error: ") and err.count("\n") == 1, err
    return err


def test_a_flag_the_command_does_not_take_points_to_the_repl(
        capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    err = _refusal(capsys, "--history", "info")
    assert "info --help" not in err and "goosectx info --history" not in err
    assert "--history before a command applies to the REPL only; info does not take it" in err
    assert err.rstrip().endswith("give no command to start the REPL: "
                                 "goosectx --resume SESSION --history")


def test_flags_the_command_takes_go_after_it(capsys: pytest.CaptureFixture[str],
                                            workdir: Path) -> None:
    err = _refusal(capsys, "--resume", "abc", "--with-remote-extension", "http://x", "run")
    assert err.rstrip().endswith(
        "put them after the command: goosectx run --resume SESSION --with-remote-extension URL")
    code, _, _ = run_cli(capsys, "run", "--resume", "SESSION", "--with-remote-extension", "URL",
                         "--help")
    assert code == 0  # the options named exist


def test_some_taken_some_not_names_both_ways(capsys: pytest.CaptureFixture[str],
                                            workdir: Path) -> None:
    err = _refusal(capsys, "-c", "--history", "run")
    assert "run takes --continue but not --history" in err
    assert "goosectx run --continue" in err
    assert "give no command to start the REPL: goosectx --continue --history" in err


def test_a_command_group_takes_none(capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    err = _refusal(capsys, "--name", "x", "sessions", "list")
    assert "--name before a command applies to the REPL only; sessions does not take it" in err
    assert err.rstrip().endswith("give no command to start the REPL: goosectx --name NAME")


@pytest.mark.parametrize("args", [("--resume",), ("-r",), ("run", "-t", "x", "--resume")])
def test_resume_with_nothing_after_it_says_what_it_takes(
        capsys: pytest.CaptureFixture[str], workdir: Path, args: tuple[str, ...]) -> None:
    """click's own "Error: Option '--resume' requires an argument." named no fix."""
    err = _refusal(capsys, *args)
    assert err == (f"goosectx: error: {'-r' if args == ('-r',) else '--resume'} needs a session "
                   "name or id — list them with: goosectx sessions list (--continue resumes "
                   "the latest one in this directory)\n")


def test_another_option_with_no_value_points_to_its_commands_help(
        capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    assert _refusal(capsys, "run", "-t", "x", "--max-turns") == (
        "goosectx: error: --max-turns needs a value — see: goosectx run --help\n")
    assert _refusal(capsys, "--model") == (
        "goosectx: error: --model needs a value — see: goosectx --help\n")
