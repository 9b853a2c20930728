"""``--resume ''`` (an unset ``$SID`` in ``run --resume "$SID"``) started a new session, exit
0: the work split in two. An empty or blank session reference is now one line, exit 2, and
nothing is started or saved."""

from __future__ import annotations

import pytest
from fakeserver import FakeServer
from reliability_support import assert_one_line_error, cli, model_env


@pytest.mark.parametrize("args", [
    ("run", "--resume", "", "-t", "hi"),
    ("run", "-r", "  ", "-t", "hi"),
    ("--resume", ""),
    ("session", "--resume", "\t"),
])
def test_an_empty_resume_is_refused_and_starts_nothing(tmp_path, work, args):
    home = tmp_path / "home"
    with FakeServer() as server:
        server.add({"text": "a new session"})
        proc = cli(model_env(home, server.base_url), *args, cwd=work)
        assert server.requests == []
    assert_one_line_error(2, proc.returncode, proc.stderr, "--resume", "names no session")
    assert proc.stdout == ""
    assert not (home / "sessions.db").exists()


@pytest.mark.parametrize("args", [
    ("run", "--model", "", "-t", "hi"),
    ("run", "-m", "  ", "-t", "hi"),
    ("--model", ""),
])
def test_an_empty_model_is_refused_not_ignored(tmp_path, work, args):
    """``--model "$MODEL"`` with the variable unset ran the configured model, exit 0."""
    home = tmp_path / "home"
    with FakeServer() as server:
        server.add({"text": "answered by the configured model"})
        proc = cli(model_env(home, server.base_url), *args, cwd=work)
        assert server.requests == []
    assert_one_line_error(2, proc.returncode, proc.stderr, "--model", "names no model")
    assert proc.stdout == ""
    assert not (home / "sessions.db").exists()


@pytest.mark.parametrize("args", [
    ("--resume", "--debug"), ("--resume", "--mode", "auto"), ("run", "--resume", "-t", "hi"),
    ("session", "-r", "--history"),
])
def test_an_option_after_resume_is_not_taken_for_a_session(tmp_path, work, args):
    """test29e: ``goosectx --resume --debug`` said "no session matches '--debug'", and ``run
    --resume -t hi`` that the task was given as an argument."""
    home = tmp_path / "home"
    with FakeServer() as server:
        server.add({"text": "a new session"})
        proc = cli(model_env(home, server.base_url), *args, cwd=work)
        assert server.requests == []
    assert_one_line_error(2, proc.returncode, proc.stderr, "--resume needs a session name or id "
                          f"before {args[args.index('--resume' if '--resume' in args else '-r') + 1]}")
