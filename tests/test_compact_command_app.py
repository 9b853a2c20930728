"""``goosectx compact …`` runs on an app of the root and that command only (``command_app``):
what a user sees — output, errors, exit codes — is what the whole app gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from compaction_support import chat, tool_pair, words

from goosectx.cli.app import app, command_app
from goosectx.cli.dispatch import dispatch
from goosectx.config import load_settings
from goosectx.conversation import Message
from goosectx.store import SessionStore


def _saved_session() -> None:
    store = SessionStore(load_settings().data_dir)
    try:
        session = store.create_session(Path.cwd(), name="work")
        for m in [*chat(4), *tool_pair(words(400)), Message.user("now write the docs")]:
            store.append_message(session.id, m)
    finally:
        store.close()


def _outcome(capsys: pytest.CaptureFixture[str], args: list[str],
             narrow: bool) -> tuple[int, str, str]:
    code = dispatch(app, list(args), command_app if narrow else None)
    out, err = capsys.readouterr()
    return code, out, err


CASES = [
    ["compact", "work", "--dry-run"],
    ["compact", "work", "--dry-run", "--json"],
    ["compact", "work", "--dry-run", "--strategy", "extractive"],
    ["compact", "work", "--dry-run", "--strategy", "extractive", "--max-summary-tokens", "200"],
    ["compact", "--dry-run"],  # the session missing
    ["compact", "nosuch", "--dry-run"],
    ["compact", "work", "--dry-run", "--strategy", "bogus"],
    ["compact", "work", "--dry-run", "--max-summary-tokens", "5"],
    ["compact", "work", "--dry-run", "--bogus"],
    ["compact", "work", "--dry-run", "--undo"],
    ["compact", "work", "extra", "--dry-run"],
    ["compact"],
]


@pytest.mark.parametrize("args", CASES, ids=" ".join)
def test_compact_reads_and_refuses_its_command_line_as_the_whole_app(
        args: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOSE_MODEL", raising=False)
    _saved_session()
    whole = _outcome(capsys, args, narrow=False)
    assert _outcome(capsys, args, narrow=True) == whole
    assert whole[1] or whole[2]  # each case says something


def test_the_narrow_app_has_only_compact_and_help_takes_the_whole_app() -> None:
    import typer.main

    only = typer.main.get_command(command_app(["compact", "work", "--dry-run"]))
    assert list(getattr(only, "commands", {})) == ["compact"]
    for args in (["compact", "work", "--dry-run", "--help"], ["compact", "-h"],
                 ["--debug", "compact", "work"], ["run", "-t", "compact"], []):
        assert command_app(args) is app
