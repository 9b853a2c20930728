"""The REPL's input history holds what the session stores: a typed key reads ``[REDACTED]``.

The file (the data dir's ``repl_history``, 0600), this process's up arrow and the next
process's all hold the redacted line; the redactor is the one the message itself went
through (cli/input_secrets.EnvironmentRedactor), so a configured ``api_key_env`` whose name
does not look secret is covered as well (its value reached the file as typed).
"""

from __future__ import annotations

import io
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console
from test_repl import CTRL_D, ENTER, World

from goosectx.cli.repl import Repl, ReplIO
from goosectx.config import ModelConfig

KEY = "llm-auth-Q7vX2mK9pL4sR6yH1zz"
UP = "\x1b[A"
NOTICE = "a secret of this environment (an API key's value) was redacted"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    monkeypatch.setenv("LLM_AUTH", KEY)  # a key variable whose name does not look secret
    w = World(tmp_path)
    w.settings.models["scripted/test-model"] = ModelConfig(api_key_env="LLM_AUTH")
    yield w
    w.store.close()


def run_with_history(world: World, keys: str) -> tuple[Repl, str]:
    buf = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        repl = Repl(world.settings, world.store, world.session,
                    io=ReplIO(Console(file=buf, width=200), input=pipe, output=DummyOutput()),
                    mode=world.mode, agent_factory=world.agent_factory(),
                    background_checks=False)
        assert repl.run() == 0
    return repl, buf.getvalue()


def history_file(world: World) -> Path:
    return world.settings.data_dir / "repl_history"


def test_a_key_typed_in_a_message_is_redacted_in_the_history_file(world: World) -> None:
    world.provider.add("ok")
    _repl, out = run_with_history(world, f"why is {KEY} refused?" + ENTER + CTRL_D)
    assert NOTICE in out
    saved = history_file(world).read_text()
    assert KEY not in saved and "+why is [REDACTED] refused?" in saved
    assert stat.S_IMODE(history_file(world).stat().st_mode) == 0o600


def test_the_up_arrow_recalls_the_message_as_it_was_sent(world: World) -> None:
    world.provider.add("ok", "again")
    recalled: list[str] = []
    repls: list[Repl] = []

    def prompt_text() -> str | None:
        """The prompt's text while it waits for input, else ``None``."""
        prompt = repls[0].prompt_session if repls else None
        if prompt is None or not prompt.app.is_running:
            return None
        return str(prompt.default_buffer.text)

    def wait_until(done: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 20
        while not done() and time.monotonic() < deadline:
            time.sleep(0.05)

    buf = io.StringIO()
    with create_pipe_input() as pipe:
        def typist() -> None:
            wait_until(lambda: prompt_text() == "")
            pipe.send_text(f"why is {KEY} refused?" + ENTER)
            wait_until(lambda: len(world.provider.requests) == 1 and prompt_text() == "")
            pipe.send_text(UP)
            wait_until(lambda: bool(prompt_text()))
            recalled.append(prompt_text() or "")
            pipe.send_text(ENTER)
            wait_until(lambda: len(world.provider.requests) == 2 and prompt_text() == "")
            pipe.send_text(CTRL_D)

        repl = Repl(world.settings, world.store, world.session,
                    io=ReplIO(Console(file=buf, width=200), input=pipe, output=DummyOutput()),
                    mode=world.mode, agent_factory=world.agent_factory(),
                    background_checks=False)
        repls.append(repl)
        thread = threading.Thread(target=typist, daemon=True)
        thread.start()
        assert repl.run() == 0
        thread.join()
    assert recalled == ["why is [REDACTED] refused?"]
    assert buf.getvalue().count(NOTICE) == 1  # the recalled line held no key to redact again


def test_a_key_typed_after_search_is_redacted_in_the_history_file(world: World) -> None:
    _repl, out = run_with_history(world, f"/search {KEY}" + ENTER + CTRL_D)
    assert "No message of this session mentions '[REDACTED]'" in out
    saved = history_file(world).read_text()
    assert KEY not in saved and "+/search [REDACTED]" in saved


def test_a_history_file_readable_by_others_is_made_private(world: World) -> None:
    world.settings.data_dir.mkdir(parents=True, exist_ok=True)
    history_file(world).write_text("\n# old\n+hello\n")
    history_file(world).chmod(0o644)
    repl, _out = run_with_history(world, CTRL_D)
    assert stat.S_IMODE(history_file(world).stat().st_mode) == 0o600
    assert list(repl.prompt_session.history.load_history_strings()) == ["hello"]


def test_a_key_an_older_version_wrote_to_the_history_is_recalled_redacted(world: World) -> None:
    world.settings.data_dir.mkdir(parents=True, exist_ok=True)
    history_file(world).write_text(f"\n# old\n+!curl -H 'auth: {KEY}' localhost\n")
    repl, _out = run_with_history(world, CTRL_D)
    assert list(repl.prompt_session.history.load_history_strings()) == [  # what Up loads
        "!curl -H 'auth: [REDACTED]' localhost"]


def test_a_key_an_older_version_wrote_to_the_history_file_is_removed_from_it(
        world: World) -> None:
    world.settings.data_dir.mkdir(parents=True, exist_ok=True)
    before = ("\n# 2026-01-02 10:00:00.1\n+ls -la\n"
              f"\n# 2026-01-02 10:01:00.2\n+!curl -H 'auth: {KEY}' \\\n+  localhost\n"
              "\n# 2026-01-02 10:02:00.3\n+caf\xe9 \u2713\n")
    history_file(world).write_bytes(before.encode() + b"\n# odd\n+\xff raw\n")
    history_file(world).chmod(0o600)
    repl, _out = run_with_history(world, CTRL_D)
    after = history_file(world).read_bytes()
    assert KEY.encode() not in after
    assert after == before.replace(KEY, "[REDACTED]").encode() + b"\n# odd\n+\xff raw\n"
    assert stat.S_IMODE(history_file(world).stat().st_mode) == 0o600
    assert list(repl.prompt_session.history.load_history_strings())[2] == (
        "!curl -H 'auth: [REDACTED]' \\\n  localhost")


def test_a_history_file_without_a_key_is_not_written(world: World) -> None:
    world.settings.data_dir.mkdir(parents=True, exist_ok=True)
    history_file(world).write_text("\n# old\n+hello\n")
    history_file(world).chmod(0o600)
    inode = history_file(world).stat().st_ino
    run_with_history(world, CTRL_D)
    assert history_file(world).stat().st_ino == inode
    assert history_file(world).read_text() == "\n# old\n+hello\n"


def test_a_symlinked_history_file_keeps_its_link_and_its_target_is_redacted(
        world: World, tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "goosectx_history"
    target.parent.mkdir()
    target.write_text(f"\n# old\n+export LLM_AUTH={KEY}\n")
    target.chmod(0o600)
    world.settings.data_dir.mkdir(parents=True, exist_ok=True)
    history_file(world).symlink_to(target)
    run_with_history(world, CTRL_D)
    assert history_file(world).is_symlink()
    assert target.read_text() == "\n# old\n+export LLM_AUTH=[REDACTED]\n"


def test_an_entry_another_repl_appends_meanwhile_is_not_lost(tmp_path: Path) -> None:
    from goosectx.cli.prompt import InputHistory
    from goosectx.redaction import Redactor

    path = tmp_path / "repl_history"
    path.write_text(f"\n# old\n+{KEY}\n")
    redactor = Redactor([KEY])
    calls: list[str] = []

    def redact_while_another_repl_appends(text: str) -> str:
        calls.append(text)
        if len(calls) == 2:  # the file's scrub has read it: another REPL appends now
            with open(path, "a") as f:
                f.write("\n# other\n+from the other REPL\n")
        return redactor(text)

    history = InputHistory(path, redact_while_another_repl_appends)
    assert list(history.load_history_strings()) == ["[REDACTED]"]
    assert path.read_text().endswith("+from the other REPL\n")
