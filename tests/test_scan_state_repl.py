"""The REPL's and ``run``'s compactions resume the facts scan's kept state (migration 11).

``goosectx compact`` read the state a dry run kept and scanned only the messages after it;
``/compact`` in the REPL and an automatic compaction scanned the whole view every time.
Observed as tests/test_scan_state.py does: the messages the scan meets, and the session the
compaction leaves (the same as with no state kept).
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_support import cli
from compaction_support import SUMMARY_JSON
from fakeserver import FakeServer
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console
from test_compaction_e2e import is_summary_call
from test_repl import CTRL_D, ENTER
from test_scan_state import _rows, _session, _summary, _view_size, _write, scanned

from goosectx.agent import Agent
from goosectx.approval import ApprovalFn
from goosectx.cli.repl import Repl, ReplIO
from goosectx.config import load_settings
from goosectx.store import SessionStore
from goosectx.tools.builtin import default_registry, make_tool_context

__all__ = ["scanned"]  # the fixture, shared


def _repl_compact(home: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """``/compact`` in a REPL on the session ``long`` of ``home`` (no model: extractive)."""
    monkeypatch.setenv("GOOSECTX_HOME", str(home))
    settings = load_settings()
    store = SessionStore(settings.data_dir)
    try:
        session = store.load(store.resolve("long"))

        def build(approve: ApprovalFn) -> Agent:
            return Agent(session, settings, provider=None, tools=default_registry(),
                         approve=approve, mode="approve",
                         tool_context=make_tool_context(settings, session.working_dir))

        buf = io.StringIO()
        with create_pipe_input() as pipe:
            pipe.send_text("/compact" + ENTER + CTRL_D)
            repl = Repl(settings, store, session,
                        io=ReplIO(Console(file=buf, width=100), input=pipe,
                                  output=DummyOutput(), history=False),
                        resumed=True, mode="approve", agent_factory=build,
                        background_checks=False)
            assert repl.run() == 0
        return buf.getvalue()
    finally:
        store.close()


def test_the_repls_compact_resumes_a_kept_state_with_the_same_outcome(
        isolated_env: dict[str, Path], work: Path, tmp_path: Path, scanned: list[int],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "4000")
    home = isolated_env["home"]
    _session(home, work)
    cli(capsys, "compact", "long", "--dry-run", "--strategy", "extractive")  # keeps the state
    assert _rows(home, "SELECT count(*) FROM scan_state") == [(1,)]
    fresh = tmp_path / "fresh"  # the same session with no state kept: the outcome to match
    shutil.copytree(home, fresh)
    _write(fresh, "DELETE FROM scan_state")
    view = _view_size(home)
    scanned.clear()
    out = _repl_compact(home, monkeypatch)
    assert "context compacted" in out, out
    assert 0 < sum(scanned) < view // 2  # only the messages after the kept state
    scanned.clear()
    fresh_out = _repl_compact(fresh, monkeypatch)
    assert max(scanned) == view  # with none kept, the whole view
    assert _summary(home) == _summary(fresh)
    assert out.split("context compacted")[1] == fresh_out.split("context compacted")[1]


def test_runs_automatic_compaction_resumes_it_too(
        isolated_env: dict[str, Path], work: Path, tmp_path: Path, scanned: list[int],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        fake_model: FakeServer) -> None:
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "4000")
    monkeypatch.chdir(work)
    home = isolated_env["home"]
    _session(home, work)
    cli(capsys, "compact", "long", "--dry-run", "--strategy", "extractive")
    fresh = tmp_path / "fresh"
    shutil.copytree(home, fresh)
    _write(fresh, "DELETE FROM scan_state")
    view = _view_size(home)

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        return {"text": SUMMARY_JSON} if is_summary_call(body) else {"text": "done"}

    fake_model.add(*[reply] * 8)
    scanned.clear()
    _, err = cli(capsys, "run", "--resume", "long", "-t", "go on")
    assert "goosectx: context compacted (auto)" in err, err
    # The automatic compaction's facts scan resumed the kept state. (In this 4,000-token
    # window no rung of the summary request fits: the digest rung's extractive digest of the
    # oldest messages is a second scan, of those messages, from the start.)
    assert 0 < scanned[0] < view // 2
    scanned.clear()
    monkeypatch.setenv("GOOSECTX_HOME", str(fresh))
    cli(capsys, "run", "--resume", "long", "-t", "go on")
    assert max(scanned) >= view
    assert _summary(home) == _summary(fresh)
