"""Ids and the store (issue 15, points 5 and 8): ids become paths only after validation, and a
full disk is reported as one, not as an unreadable database."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cli_support import cli, run_cli
from disk_support import fill, small_tmpfs
from fakeserver import FakeServer

from goosectx.config import load_settings
from goosectx.conversation import Message
from goosectx.errors import StoreError
from goosectx.export import session_to_json
from goosectx.session import Session, valid_session_id
from goosectx.store import SessionStore


@pytest.mark.parametrize("value", ["20261201_044107_30a1", "abc", "A-b_9"])
def test_valid_ids(value: str) -> None:
    assert valid_session_id(value)


@pytest.mark.parametrize("value", ["", "../../x/poetry", "a/b", "..", ".hidden", "a.lock",
                                   "x" * 65, "a\x00b", "a b", "-rf", 7])
def test_invalid_ids(value: object) -> None:
    assert not valid_session_id(value)


def exported(tmp_path: Path, session_id: str) -> Path:
    now = datetime.now(UTC)
    session = Session(id=session_id, name=None, working_dir=tmp_path,
                      model="openai/gpt-4o-mini", created=now, updated=now)
    session.conversation.append(Message.user("hello from the poetry project"))
    path = tmp_path / "export.json"
    path.write_text(json.dumps(session_to_json(session)))
    return path


def test_an_imported_traversal_id_gets_a_new_id_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = load_settings().data_dir
    bad = "../../x/poetry"  # <data dir>/locks/../../x/poetry.lock
    victim = data_dir.parent / "x" / "poetry.lock"
    victim.parent.mkdir(parents=True)
    victim.write_text("precious lock file\n")
    out, _ = cli(capsys, "sessions", "import", str(exported(tmp_path, bad)))
    assert f"its id {bad!r} is not a valid session id, so it got a new one" in out
    new_id = out.split()[1].rstrip(":")
    assert valid_session_id(new_id)
    cli(capsys, "sessions", "remove", new_id, "--yes")
    assert victim.read_text() == "precious lock file\n"
    assert sorted(p.name for p in victim.parent.iterdir()) == ["poetry.lock"]


def test_a_stored_bad_id_is_refused_before_it_becomes_a_lock_path(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data")
    try:
        with pytest.raises(StoreError, match="cannot be used as a lock file name"):
            store.lock("../../x/poetry")
    finally:
        store.close()
    assert not (tmp_path / "x").exists()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path, "512k", "cannot mount a tmpfs here") as mount:
        yield mount


def test_a_full_disk_says_disk_full_not_unreadable(
    small_disk: Path, fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GOOSECTX_HOME", str(small_disk / "data"))
    monkeypatch.chdir(work)
    fake_model.add({"text": "first"}, {"text": "second"})
    cli(capsys, "run", "-t", "one", "--name", "full")
    fill(small_disk)
    code, out, err = run_cli(capsys, "run", "--resume", "full", "-t", "two")
    assert code != 0
    assert "disk full" in err and "unreadable" not in err and "Traceback" not in err


def test_commands_that_only_read_work_on_a_full_disk(
    small_disk: Path, work: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = small_disk / "data"
    monkeypatch.setenv("GOOSECTX_HOME", str(data))
    store = SessionStore(data)
    session = store.create_session(work, name="full")
    store.append_message(session.id, Message.user("where is the kenobi file"))
    store.append_message(session.id, Message.assistant("general kenobi is in notes.txt"))
    store.close()
    fill(small_disk)
    for args, expected in ((("sessions", "show", "full"), "general kenobi is in notes.txt"),
                           (("sessions", "show", "full", "--agent"), "general kenobi"),
                           (("sessions", "list"), "full"),
                           (("sessions", "search", "kenobi"), "full"),
                           (("sessions", "export", "full"), "general kenobi is in notes.txt"),
                           (("sessions", "export", "full", "--format", "json"),
                            '"general kenobi is in notes.txt"'),
                           (("info", "--session", "full"), "session full"),
                           (("info",), "calibration")):
        code, out, err = run_cli(capsys, *args)
        assert (code, err) == (0, ""), args
        assert expected in out, args
    code, _, err = run_cli(capsys, "sessions", "remove", "full", "--yes")  # a write still fails
    assert code != 0 and "disk full" in err


def test_compact_json_on_a_full_disk_names_the_session_it_found(
    tmp_path: Path, work: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with small_tmpfs(tmp_path, "2m", "cannot mount a tmpfs here") as disk:
        _compact_json_on_a_full_disk(disk, work, monkeypatch, capsys)


def _compact_json_on_a_full_disk(disk: Path, work: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = disk / "data"
    monkeypatch.setenv("GOOSECTX_HOME", str(data))
    store = SessionStore(data)
    session = store.create_session(work, name="full")
    for i in range(4):
        store.append_message(session.id, Message.user(f"question {i} " + "word " * 60))
        store.append_message(session.id, Message.assistant(f"answer {i} " + "word " * 60))
    store.close()
    fill(disk)
    code, out, err = run_cli(capsys, "compact", "full", "--strategy", "extractive", "--json")
    assert code != 0 and "disk full" in err
    assert json.loads(out)["session_id"] == session.id  # null is for a session not found
