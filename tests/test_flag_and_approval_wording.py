"""Messages that said the wrong thing: ``--history`` with nothing to resume, ``run``'s denial
warning before the call it is about, and piped input that ends at an approval question."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer
from test_run_cmd import Run, shell, store


@pytest.mark.parametrize("args", [["--history"], ["session", "--history"],
                                  ["--name", "x", "--history"]])
def test_history_without_a_session_to_resume_is_refused(capsys: pytest.CaptureFixture[str],
                                                        workdir: Path, args: list[str]) -> None:
    code, out, err = run_cli(capsys, *args)
    assert code == 2
    assert err == ("goosectx: error: --history applies only with --resume or --continue (-c): "
                   "a new session has no history to draw — e.g. goosectx --resume SESSION "
                   "--history\n")
    with_store = store()
    try:
        assert with_store.list_sessions() == []
    finally:
        with_store.close()


def test_run_s_denial_warning_comes_after_the_call_it_is_about(fake_model: FakeServer,
                                                               workdir: Path) -> None:
    fake_model.add(shell("touch y"), {"text": "could not"})
    run = Run(text="touch y")
    lines = run.err.splitlines()
    call = lines.index('> shell {"command":"touch y"}')
    assert lines[call + 1] == "  denied: no terminal to ask"
    assert lines[call + 2].startswith("goosectx: warning: shell needs approval and there is no "
                                      "terminal to ask, so it was denied")
