"""Ctrl-C / SIGTERM during ``goosectx compact``: one line says so, the session is unchanged."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from fakeserver import FakeServer
from reliability_support import (
    clean_env,
    cli,
    fill,
    held_reply,
    load,
    model_env,
    paused_env,
    start,
    wait_for,
)


@pytest.mark.parametrize(("signum", "code", "as_json"), [
    (signal.SIGINT, 130, False), (signal.SIGTERM, 143, False), (signal.SIGINT, 130, True)])
def test_a_cancelled_compaction_says_so(tmp_path, work, signum, code, as_json):  # noqa: ANN001
    home = tmp_path / "home"
    _, ids = fill(home, work, name="k", pairs=12)
    arrived, hold, summary = held_reply('{"user_intent": "questions"}', 5)

    with FakeServer([summary]) as server:
        proc = start(model_env(home, server.base_url), "compact", "k",
                     *(["--json"] if as_json else []), cwd=work)
        try:
            wait_for("the summary call", arrived.is_set, proc)
            proc.send_signal(signum)
            out, err = proc.communicate(timeout=60)
        finally:
            hold.set()
    assert proc.returncode == code, err
    lines = err.decode().strip().splitlines()
    assert b"Traceback" not in err
    assert "compaction cancelled" in lines[-1] and "the session is unchanged" in lines[-1], err
    if as_json:
        data = json.loads(out)
        assert data["changed"] is False and "cancelled" in data["reason"]
    else:
        assert out == b""
    session = load(home, "k")
    assert [m.id for m in session.conversation] == ids
    assert not any(m.metadata.is_summary for m in session.conversation)


@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_while_compact_loads_says_so_and_leaves_no_worker(tmp_path, work, as_json):  # noqa: ANN001
    home, marker = tmp_path / "home", tmp_path / "paused"
    _, ids = fill(home, work, name="k", pairs=12)
    env = clean_env(home, **paused_env(marker, "compact:loading"))
    proc = start(env, "compact", "k", "--strategy", "extractive", "--model", "openai/gpt-4o",
                 *(["--json"] if as_json else []), cwd=work)
    wait_for("the pause", marker.exists, proc)
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.decode().strip().splitlines()[-1] == (
        "goosectx: error: compaction cancelled (Ctrl-C); the session is unchanged")
    if as_json:
        assert json.loads(out)["changed"] is False
    for pid in children:  # the encoder worker, when one was forked: killed and reaped
        assert not Path(f"/proc/{pid}").exists()
    assert [m.id for m in load(home, "k").conversation] == ids


def _compacted(home: Path, work: Path) -> list[tuple[str, bool]]:
    """A saved session ``k`` compacted once (extractive); its (id, model sees it) pairs."""
    fill(home, work, name="k", pairs=12)
    done = cli(clean_env(home), "compact", "k", "--strategy", "extractive", cwd=work)
    assert done.returncode == 0, done.stderr
    return _view(home)


def _view(home: Path) -> list[tuple[str, bool]]:
    return [(m.id, m.metadata.agent_visible) for m in load(home, "k").conversation]


@pytest.mark.parametrize(("point", "signum", "code", "as_json"), [
    ("compact:loading", signal.SIGINT, 130, False),
    ("compact:loading", signal.SIGTERM, 143, True),
    ("replace_history:before_commit", signal.SIGINT, 130, True),
    ("replace_history:before_commit", signal.SIGHUP, 129, False)])
def test_an_interrupted_undo_says_the_session_is_unchanged(  # noqa: PLR0913
        tmp_path, work, point, signum, code, as_json):  # noqa: ANN001
    home, marker = tmp_path / "home", tmp_path / "paused"
    before = _compacted(home, work)
    proc = start(clean_env(home, **paused_env(marker, point)), "compact", "k", "--undo",
                 *(["--json"] if as_json else []), cwd=work)
    wait_for(point, marker.exists, proc)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert b"Traceback" not in err
    by = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}[signum]
    assert err.decode().strip().splitlines()[-1] == (
        f"goosectx: error: undo cancelled ({by}); the session is unchanged")
    if as_json:
        data = json.loads(out)
        assert data["changed"] is False and data["undone_compaction_id"] is None
        assert data["reason"] == f"undo cancelled ({by}); the session is unchanged"
    else:
        assert out == b""
    assert _view(home) == before


@pytest.mark.parametrize(("undo", "signum", "code"), [
    (False, signal.SIGINT, 130), (True, signal.SIGINT, 130), (True, signal.SIGTERM, 143)])
def test_an_interrupt_once_the_change_is_saved_does_not_call_it_cancelled(
        tmp_path, work, undo, signum, code):  # noqa: ANN001
    home, marker = tmp_path / "home", tmp_path / "paused"
    if undo:
        before = _compacted(home, work)
    else:
        fill(home, work, name="k", pairs=12)
        before = _view(home)
    point = "replace_history:after_commit"
    args = ("--undo",) if undo else ("--strategy", "extractive")
    proc = start(clean_env(home, **paused_env(marker, point)), "compact", "k", *args, cwd=work)
    wait_for(point, marker.exists, proc)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert b"unchanged" not in err and b"cancelled" not in err and b"Traceback" not in err
    assert _view(home) != before  # it was saved
