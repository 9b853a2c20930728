"""``goosectx run`` with ``@path`` words in its task: the files go with it, as in the REPL."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_run_cmd import Run, only_session

from goosectx.attachment import Attachment

SECRET = "API_KEY=hunter2hunter2"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    (path / "app.py").write_text("def main():\n    return 41  # off by one\n")
    (path / ".env").write_text(SECRET + "\n")
    monkeypatch.chdir(path)
    return path


def sent_text(server: FakeServer) -> str:
    return json.dumps(server.requests[0]["messages"])


def test_a_mentioned_file_goes_with_the_task_and_a_sensitive_one_is_refused(
        fake_model: FakeServer, project: Path) -> None:
    fake_model.add({"text": "Fixed."})
    run = Run(text="fix @app.py, (the key is in @.env)")
    assert run.code == 0 and run.out == "Fixed.\n"
    sent = sent_text(fake_model)
    assert "return 41  # off by one" in sent and "app.py" in sent
    assert "hunter2" not in sent
    notices = [line for line in run.err.splitlines() if "@.env" in line]
    assert notices == ["goosectx: @.env is a sensitive file (keys, credentials) — not attached; "
                       "paste what the model needs instead"]
    user = next(m for m in only_session() if m.role == "user")
    attached = [p for p in user.content if isinstance(p, Attachment)]
    assert [(a.kind, a.source, a.text) for a in attached] == [
        ("file", "app.py", "def main():\n    return 41  # off by one\n")]


def test_stream_json_gives_the_notices_as_notification_events(fake_model: FakeServer,
                                                              project: Path) -> None:
    fake_model.add({"text": "ok"})
    run = Run(text="read @.env and @app.py", output_format="stream-json")
    lines = [json.loads(line) for line in run.out.splitlines()]
    assert lines[0]["type"] == "session_started"
    notes = [line for line in lines if line["type"] == "notification"]
    assert [n["text"] for n in notes if "@.env" in n["text"]] == [
        "@.env is a sensitive file (keys, credentials) — not attached; paste what the model "
        "needs instead"]
    assert "@.env" not in run.err
    assert "return 41" in sent_text(fake_model)


def test_json_output_stays_one_object_and_the_notice_goes_to_stderr(
        fake_model: FakeServer, project: Path) -> None:
    fake_model.add({"text": "ok"})
    run = Run(text="read @.env", output_format="json")
    assert json.loads(run.out)["status"] == "done"
    assert "goosectx: @.env is a sensitive file" in run.err
    assert "hunter2" not in sent_text(fake_model)


def test_a_file_over_mention_max_tokens_is_cut_with_a_notice(fake_model: FakeServer,
                                                             project: Path) -> None:
    Path(os.environ["GOOSECTX_CONFIG"]).write_text("mention_max_tokens = 100\n")
    (project / "big.log").write_text("".join(f"line {i} of the log\n" for i in range(2000)))
    fake_model.add({"text": "ok"})
    run = Run(text="why does @big.log fail?")
    assert "goosectx: @big.log is " in run.err and "over mention_max_tokens (100)" in run.err
    sent = sent_text(fake_model)
    assert "line 0 of the log" in sent and "line 1999 of the log" in sent
    assert "line 1000 of the log" not in sent and "left out by goosectx" in sent


def test_a_task_without_mentions_sends_no_attachment(fake_model: FakeServer,
                                                     project: Path) -> None:
    fake_model.add({"text": "ok"})
    run = Run(text="mail me at me@example.com about app.py")
    assert run.code == 0 and "not attached" not in run.err
    assert "return 41" not in sent_text(fake_model)
