"""An API key of this environment in what the user sends never reaches the model or the store.

README, "Security": the REPL's typed message, ``run``'s task (``-t``), data piped to ``run``
and an ``@`` file are redacted as tool output is, with a one-line notice; the session's title
(made of the first message) is redacted with it.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer
from store_support import assert_not_in_sessions_db
from test_mentions import run_staged
from test_repl import CTRL_D, ENTER, World
from test_run_cmd import Run

from goosectx.config import load_settings

KEY = "sk-proj-Zq8xW3vB7nT2mK9pL4sR6yH1aa"
NOTICE = "a secret of this environment (an API key's value) was redacted from"


@pytest.fixture
def keyed(fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    """The fake model, with this environment's API key a real-looking one."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    (workdir / "conf.txt").write_text(f"OPENAI={KEY}\nport=8080\n")
    return fake_model


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_run_a_mentioned_file_is_sent_and_stored_redacted(keyed: FakeServer) -> None:
    keyed.add({"text": "ok"})
    run = Run(text="see @conf.txt")
    assert run.code == 0
    sent = json.dumps(keyed.requests[0]["messages"])
    assert KEY not in sent and "OPENAI=[REDACTED]" in sent and "port=8080" in sent
    assert_not_in_sessions_db(KEY, load_settings().data_dir)
    assert f"goosectx: {NOTICE} @conf.txt: it is neither saved nor sent" in run.err


def test_run_a_key_in_the_task_is_not_sent_stored_or_listed_as_the_title(
        keyed: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    keyed.add({"text": "ok"})
    run = Run(text=f"why is {KEY} refused?")
    assert run.code == 0
    assert KEY not in json.dumps(keyed.requests[0]["messages"])
    assert "why is [REDACTED] refused?" in json.dumps(keyed.requests[0]["messages"])
    assert_not_in_sessions_db(KEY, load_settings().data_dir)
    assert f"{NOTICE} the task" in run.err and KEY not in run.err
    code, out, _err = run_cli(capsys, "sessions", "list")
    assert code == 0 and "why is [REDACTED] refused?" in out and KEY not in out


@pytest.mark.slow  # a real pipe on stdin
def test_run_data_piped_with_the_task_is_sent_and_stored_redacted(keyed: FakeServer,
                                                                  workdir: Path) -> None:
    import os

    keyed.add({"text": "ok"})
    done = subprocess.run(["goosectx", "run", "-t", "see the log"], cwd=workdir,
                          input=(workdir / "conf.txt").read_text(), capture_output=True,
                          text=True, timeout=120, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    sent = json.dumps(keyed.requests[-1]["messages"])
    assert KEY not in sent and "OPENAI=[REDACTED]" in sent
    assert_not_in_sessions_db(KEY, load_settings().data_dir)
    assert f"{NOTICE} the piped input" in done.stderr


def test_repl_a_typed_key_is_not_sent_stored_or_the_title(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    world.provider.add("ok")
    out = world.run(f"my key is {KEY} ok?" + ENTER + CTRL_D)
    sent = " ".join(m.text for m in world.provider.requests[0].messages)
    assert KEY not in sent and "my key is [REDACTED] ok?" in sent
    assert_not_in_sessions_db(KEY, world.settings.data_dir)
    assert world.stored().title == "my key is [REDACTED] ok?"
    assert NOTICE in out and KEY not in out


def test_repl_a_mentioned_file_is_sent_and_stored_redacted(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    (world.workdir / "conf.txt").write_text(f"OPENAI={KEY}\n")
    world.provider.add("ok")
    out = run_staged(world, [("see @conf.txt" + ENTER, ""), (CTRL_D, "")])
    attached = [p.text for m in world.provider.requests[0].messages for p in m.content
                if getattr(p, "type", "") == "attachment"]
    assert attached == ["OPENAI=[REDACTED]\n"]
    assert_not_in_sessions_db(KEY, world.settings.data_dir)
    assert f"{NOTICE} @conf.txt" in out


def test_repl_search_for_a_key_does_not_echo_it_back(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out = world.run(f"/search {KEY}" + ENTER + CTRL_D)
    assert "No message of this session mentions '[REDACTED]'." in out
    assert f"mentions '{KEY}'" not in out


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per redactor made (``make_redactor``, where it lives and where it was)."""
    from goosectx import env_secrets
    from goosectx.tools import builtin

    made: list[int] = []
    real = env_secrets.make_redactor

    def counted(*args: object, **kwargs: object) -> object:
        made.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtin, "make_redactor", counted)
    monkeypatch.setattr(env_secrets, "make_redactor", counted)
    return made


def test_the_repl_redactor_is_made_once_and_again_when_the_environment_changes(
        made: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.cli.input_secrets import EnvironmentRedactor
    from goosectx.config import Settings

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    redact = EnvironmentRedactor(Settings())
    assert [redact(f"{KEY} {n}") for n in range(3)] == [f"[REDACTED] {n}" for n in range(3)]
    assert len(made) == 1
    monkeypatch.setenv("LATER_TOKEN", "tok-later-1234567890")  # a key set since
    assert redact(f"{KEY} tok-later-1234567890") == "[REDACTED] [REDACTED]"
    assert len(made) == 2


def test_the_repl_makes_its_redactor_once_for_its_messages_and_searches(
        world: World, made: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    world.provider.add("one", "two", "three")
    out = world.run(f"first {KEY}" + ENTER + "second" + ENTER + "third" + ENTER
                    + f"/search {KEY}" + ENTER + CTRL_D)
    assert out.count(NOTICE) == 1 and "mentions '[REDACTED]'" in out
    assert len(made) == 2  # the REPL's, and the tools' (the agent's tool context)


def test_repl_the_value_an_extension_s_env_keys_hands_a_server_is_redacted(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """``env_keys = ["MY_SERVICE_AUTH"]``: a name that does not look secret, a key all the same
    (the agent's redactor had it for tool output; the message's did not)."""
    value = "svc-auth-Zq8xW3vB7nT2mK9pL4"
    monkeypatch.setenv("MY_SERVICE_AUTH", value)
    world.settings.extensions.tables["svc"] = {"type": "stdio", "cmd": "svc-server",
                                               "env_keys": ["MY_SERVICE_AUTH"]}
    world.provider.add("ok")
    out = world.run(f"my token {value} fails" + ENTER + CTRL_D)
    assert NOTICE in out and value not in out
    assert world.stored().conversation.messages[0].text == "my token [REDACTED] fails"
