"""A ``!command`` naming a sensitive file through a glob or brace keeps its output from the model.

``!cat .env`` was kept to the user with a notice, but ``!cat .en?`` and
``!cat ~/.aw[s]/credentials`` sent ``.env`` and the AWS credentials to the provider with the
next message (fresh20b #17). Nor does the session keep it: the store, its search and exports
held ``.env``'s secret in plain text (test30a). Driven over the REPL's pipe input with the scripted model; what
a user notices: the notice, and what the provider received.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, World


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = AWSCREDLINE2\n")
    monkeypatch.setenv("HOME", str(home))
    w = World(tmp_path)
    (w.workdir / ".env").write_text("DB_PASSWORD=DOTENVSECRET1\n")
    (w.workdir / "notes.txt").write_text("plain-notes\n")
    yield w
    w.store.close()


def _sent(world: World) -> str:
    return "\n".join(m.text for m in world.provider.requests[0].messages)


@pytest.mark.parametrize(("command", "secret", "matched"), [
    ("cat .en?", "DOTENVSECRET1", ".en? (matching .env)"),
    ("cat .e*", "DOTENVSECRET1", ".e* (matching .env)"),
    ("cat .en{v,x}", "DOTENVSECRET1", ".en{v,x} (matching .env)"),
    ("cat .en{u..w}", "DOTENVSECRET1", ".en{u..w} (matching .env)"),
    ("cat ~/.aw[s]/credentials", "AWSCREDLINE2", "~/.aw[s]/credentials (matching "),
    ("cat ~/.*/cred*", "AWSCREDLINE2", "~/.*/cred* (matching "),
])
def test_a_glob_or_brace_that_expands_to_a_sensitive_file_keeps_the_output_to_the_user(
        world: World, command: str, secret: str, matched: str) -> None:
    world.provider.add("ok")
    out = world.run(f"!{command}" + ENTER + "hello" + ENTER + CTRL_D)
    assert secret in out  # the user sees what they ran
    flat = " ".join(out.split())
    assert f"shown to you only, once: {matched}" in flat
    assert "is a sensitive file (keys, credentials), so the model does not see" in flat
    assert "the session does not keep it" in flat
    assert secret not in _sent(world)
    stored = world.stored().conversation.messages  # nor the store, its search, its exports
    assert secret not in "\n".join(part.text for m in stored for part in m.content
                                   if hasattr(part, "text"))
    assert any("shown to the user once and not kept" in m.text for m in stored)
    assert not world.store.search(secret)


def test_a_glob_matching_only_ordinary_files_still_reaches_the_model(world: World) -> None:
    world.provider.add("ok")
    out = world.run("!cat note?.txt *.txt" + ENTER + "hello" + ENTER + CTRL_D)
    assert "sensitive file" not in out
    assert "plain-notes" in _sent(world)
