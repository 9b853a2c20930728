"""A session name stored before names were redacted, holding a key, is drawn redacted.

Names given since are stored redacted (tests/test_session_name_secrets.py); one stored by an
older goosectx still holds the key. Every place the name is drawn reads it with this run's
keys redacted (``redacted``, as a stored name reads): ``sessions list`` and ``search`` (table
and JSON), ``sessions show``, the exports, the REPL's ``/sessions`` and ``/resume`` choices.
The name is written straight into the store, as an old version left it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer

KEY = "sk-proj-Q7vX2mK9pL4nR8sT1wY6zA3bC5dE0fG7hJ2kL9mN4pQ8rS1t"
NAME = f"deploy-{KEY}"


def _old_name(name: str, **more: str) -> str:
    """Give the one session the name ``name`` (and ``more`` columns) in the store; its id."""
    from goosectx.config import load_settings

    with sqlite3.connect(load_settings().data_dir / "sessions.db") as conn:
        for column, value in {"name": name, **more}.items():
            conn.execute(f"UPDATE sessions SET {column}=?", (value,))
        (session_id,) = conn.execute("SELECT id FROM sessions").fetchone()
    return str(session_id)


def old_session(fake_model: FakeServer, monkeypatch: pytest.MonkeyPatch,
                capsys: pytest.CaptureFixture[str], name: str, **more: str) -> str:
    """A session run once, then stored as an old goosectx left it (``name``, ``more``)."""
    fake_model.add({"text": "all deployed"})
    cli(capsys, "run", "-t", "deploy it", "--name", "plain")
    session_id = _old_name(name, **more)
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)  # this run's key
    return session_id


@pytest.fixture
def old(fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> str:
    return old_session(fake_model, monkeypatch, capsys, NAME)


def listed_and_found(capsys: pytest.CaptureFixture[str]) -> tuple[str, str, str, str]:
    """``sessions list``, ``list --json``, ``search deployed``, ``search deployed --json``."""
    return (cli(capsys, "sessions", "list")[0], cli(capsys, "sessions", "list", "--json")[0],
            cli(capsys, "sessions", "search", "deployed")[0],
            cli(capsys, "sessions", "search", "deployed", "--json")[0])


def test_sessions_list_and_search_draw_an_old_name_redacted(
        old: str, capsys: pytest.CaptureFixture[str]) -> None:
    listed, as_json, found, found_json = listed_and_found(capsys)
    for text in (listed, as_json, found, found_json):
        assert KEY[8:20] not in text and KEY[-12:] not in text, text
    assert "deploy-redacted" in listed and old in listed
    assert json.loads(as_json)[0]["name"] == "deploy-redacted"


def test_sessions_show_and_export_draw_an_old_name_redacted(
        old: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    shown, _ = cli(capsys, "sessions", "show", old)
    exported, _ = cli(capsys, "sessions", "export", old)
    as_json, _ = cli(capsys, "sessions", "export", old, "-f", "json")
    _, err = cli(capsys, "sessions", "export", old, "-o", str(tmp_path / "out.md"))
    written = (tmp_path / "out.md").read_text()
    for text in (shown, exported, as_json, err, written):
        assert KEY[8:20] not in text, text
    assert "# Session deploy-redacted" in shown and "all deployed" in shown
    assert "deploy-redacted" in as_json and "deploy-redacted" in err


def test_a_name_without_a_key_is_drawn_as_stored(
        fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"text": "ok"})
    cli(capsys, "run", "-t", "hi", "--name", "plain")
    _old_name(f"fix-{KEY[:7]}")
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    listed, _ = cli(capsys, "sessions", "list")
    assert f"fix-{KEY[:7]}" in listed


def test_the_repls_sessions_and_resume_choices_draw_an_old_name_redacted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_repl import CTRL_D, ENTER, World
    from test_repl_sessions import run_with_lock

    from goosectx.cli.repl_sessions import resume_choices
    from goosectx.conversation import Message

    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    world = World(tmp_path)
    other = world.store.create_session(world.workdir, name="docs")
    world.store.append_message(other.id, Message.user("Write the install section"))
    world.store.rename(other.id, NAME)  # (as an old version stored it)
    try:
        out, repl, opened = run_with_lock(world, "/sessions" + ENTER + CTRL_D)
        choices = resume_choices(repl)
        opened.lock.release()
    finally:
        world.store.close()
    assert KEY[8:20] not in out and "deploy-redacted" in out
    assert choices == [(other.id, "deploy-redacted", "Write the install section")]


def test_the_repl_in_a_session_with_an_old_name_names_it_redacted_and_hints_its_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_repl import CTRL_D, ENTER, World
    from test_repl_sessions import run_with_lock

    from goosectx.conversation import Message

    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    world = World(tmp_path)
    world.store.append_message(world.session.id, Message.user("Fix the login"))
    world.store.rename(world.session.id, NAME)
    other = world.store.create_session(world.workdir, name="docs")
    world.store.append_message(other.id, Message.user("Write the install section"))
    try:
        out, _, opened = run_with_lock(world, f"/resume {world.session.id}" + ENTER
                                       + "/resume docs" + ENTER + CTRL_D)
        opened.lock.release()
    finally:
        world.store.close()
    assert KEY[8:20] not in out, out
    assert "already in session deploy-redacted" in out
    assert "saved deploy-redacted · resumed docs" in out


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_run_resuming_a_session_with_an_old_name_shows_no_key(
        old: str, fake_model: FakeServer, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    fake_model.add({"text": "again"})
    out, err = cli(capsys, "run", "--resume", old, "-t", "once more", "--output-format", fmt)
    assert KEY[8:20] not in out + err, out + err
    assert "again" in out
