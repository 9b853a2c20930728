"""Project instruction files a repository cannot abuse (fresh16b finding 08).

A cloned repository's ``CLAUDE.md`` linked to ``~/.aws/credentials`` put the keys in the
system prompt of the first request. Instruction files are now read only when they resolve
inside the repository, are regular files and lead to no sensitive file; each file skipped is
one warning line.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from test_repl import CTRL_D, ENTER, World


def system_prompt(fake_model: FakeServer) -> str:
    first = fake_model.requests[0]["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("goosectx: warning:")]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    monkeypatch.chdir(path)
    return path


def test_a_link_to_a_secret_outside_the_repository_is_not_sent(
    fake_model: FakeServer, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    secret = tmp_path / "home" / ".aws" / "credentials"
    secret.parent.mkdir(parents=True)
    secret.write_text("[default]\naws_secret_access_key = AWSSECRETVALUE123\n")
    (repo / "CLAUDE.md").symlink_to(os.path.relpath(secret, repo))
    (repo / "AGENTS.md").write_text("run the tests with pytest -q")
    fake_model.add({"text": "hi"})
    _out, err = cli(capsys, "run", "-t", "hello")
    assert "AWSSECRETVALUE123" not in system_prompt(fake_model)
    assert "run the tests with pytest -q" in system_prompt(fake_model)
    assert warnings(err) == [
        f"goosectx: warning: project instructions CLAUDE.md skipped: it leads outside the "
        f"repository (to {secret}); copy the file in if it should be read"]


def test_links_inside_the_repository_are_read_but_not_to_a_sensitive_file(
    fake_model: FakeServer, repo: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "agents.md").write_text("use ruff")
    (repo / "AGENTS.md").symlink_to("docs/agents.md")
    (repo / ".env").write_text("TOKEN=ENVSECRET")
    (repo / ".goosehints").symlink_to(".env")
    fake_model.add({"text": "hi"})
    _out, err = cli(capsys, "run", "-t", "hello")
    prompt = system_prompt(fake_model)
    assert "use ruff" in prompt and "ENVSECRET" not in prompt
    assert warnings(err) == [
        f"goosectx: warning: project instructions .goosehints skipped: it leads to a sensitive "
        f"file ({repo / '.env'}); its contents are never sent"]


def test_a_fifo_is_skipped_without_waiting(
    fake_model: FakeServer, repo: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    os.mkfifo(repo / "AGENTS.md")
    fake_model.add({"text": "hi"})
    _out, err = cli(capsys, "run", "-t", "hello")
    assert "AGENTS.md skipped: it is not a regular file" in err


def test_the_repl_warns_once_at_start_and_sends_nothing(tmp_path: Path) -> None:
    world = World(tmp_path)
    try:
        (tmp_path / "secret.txt").write_text("OUTSIDE SECRET")
        (world.workdir / "AGENTS.md").symlink_to(tmp_path / "secret.txt")
        world.provider.add("one", "two")
        out = world.run("hello" + ENTER + "again" + ENTER + CTRL_D)
        assert " ".join(out.split()).count(
            "warning: project instructions AGENTS.md skipped: it leads outside the project") == 1
        assert all("OUTSIDE SECRET" not in r.system for r in world.provider.requests)
        assert len(world.provider.requests) == 2
    finally:
        world.store.close()
