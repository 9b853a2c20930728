"""Ctrl-C / SIGTERM during ``goosectx compact``: one line says so, the session is unchanged."""

from __future__ import annotations

import json
import signal
import threading

import pytest
from fakeserver import FakeServer
from reliability_support import fill, load, model_env, start, wait_for


@pytest.mark.parametrize(("signum", "code", "as_json"), [
    (signal.SIGINT, 130, False), (signal.SIGTERM, 143, False), (signal.SIGINT, 130, True)])
def test_a_cancelled_compaction_says_so(tmp_path, work, signum, code, as_json):  # noqa: ANN001
    home = tmp_path / "home"
    _, ids = fill(home, work, name="k", pairs=12)
    arrived, hold = threading.Event(), threading.Event()

    def summary(body):  # noqa: ANN001, ANN202
        arrived.set()
        return {"text": '{"user_intent": "questions"}', "chunk_chars": 5, "hold": hold}

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
