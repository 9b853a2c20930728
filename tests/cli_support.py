"""Running the goosectx CLI in-process from a test (``main()`` with the test's capsys)."""

from __future__ import annotations

import pytest

from goosectx.cli.app import main


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``goosectx ARGS`` in-process; return (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def cli(capsys: pytest.CaptureFixture[str], *args: str, code: int = 0) -> tuple[str, str]:
    """Run ``goosectx ARGS`` in-process, assert its exit code, return (stdout, stderr)."""
    got, out, err = run_cli(capsys, *args)
    assert got == code, err
    return out, err
