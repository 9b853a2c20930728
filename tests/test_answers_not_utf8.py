"""An answer typed with a byte that is not UTF-8 is an unknown answer, not a traceback.

A terminal in a UTF-8 locale gives Python a stdin that decodes strictly: a Latin-1 ``é``
(``\\xe9``) or a stray ``\\xff`` in the answer to ``run``'s approval question (or to ``sessions
remove``'s confirmation) ended goosectx with ``UnicodeDecodeError``. The byte now reads as
U+FFFD: an answer that means nothing, so the call is denied (``run`` denies what it does not
understand) and the session is kept.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer

from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings
from goosectx.store import SessionStore


class _Terminal(io.TextIOWrapper):
    """A terminal's stdin in a UTF-8 locale (strict decoding)."""

    def isatty(self) -> bool:
        return True


def terminal(data: bytes) -> _Terminal:
    return _Terminal(io.BytesIO(data), encoding="utf-8", errors="strict")


@pytest.mark.parametrize("answer", [b"\xff\n", b"y\xe9\n"])
def test_run_denies_an_approval_answer_that_is_not_utf8(
        fake_model: FakeServer, workdir: Path, answer: bytes) -> None:
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": "touch made"}}]},
                   {"text": "not run"})
    err = io.StringIO()
    code = run_task(load_settings(), text="make it", input_file=None, name=None, resume=None,
                    continue_=False, max_turns=None, output_format="text", mode="approve",
                    model=None, stdin=terminal(answer), stdout=io.StringIO(), stderr=err)
    assert code == 0, err.getvalue()
    assert "[c] cancel the task: " in err.getvalue()
    assert "denied" in err.getvalue()
    assert not (workdir / "made").exists()


def test_sessions_remove_keeps_the_session_on_an_answer_that_is_not_utf8(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path], work: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = SessionStore(isolated_env["home"])
    store.create_session(work, name="keep")
    store.close()
    monkeypatch.setattr(sys, "stdin", terminal(b"y\xe9\n"))
    code, _, err = run_cli(capsys, "sessions", "remove", "keep")
    assert code == 0 and err.strip().endswith("kept")
    store = SessionStore(isolated_env["home"])
    assert [s.name for s in store.list_sessions()] == ["keep"]
    store.close()
