"""``!command`` and ``!!`` at the REPL prompt (issue 17 point 6).

Driven over prompt-toolkit pipe input (in-process, scripted model) and, for the API key, the
real ``goosectx`` binary over piped stdin, probing ``env`` and ``/proc/$PPID/environ``.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from conftest import FAKE_MODEL
from fakeserver import FakeServer
from test_repl import CTRL_D, ENTER, ESC_ENTER, World
from test_security_secrets import KEY, PROC_PROBE
from unprivileged_support import as_nobody

from goosectx.config import Settings, load_settings
from goosectx.redaction import REDACTED


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_a_bang_command_runs_without_approval_and_joins_the_models_view(world: World) -> None:
    (world.workdir / "notes.txt").write_text("alpha\n")
    world.provider.add("I see notes.txt.")
    out = world.run("!ls && echo done-$((6*7))" + ENTER + "what did I list?" + ENTER + CTRL_D)
    # run in the working dir, no approval question (mode is approve), output shown
    assert "allow once" not in out and "⚑" not in out
    assert "✓ ! ls && echo done-$((6*7)) · 3 lines" in out
    assert "notes.txt" in out and "done-42" in out
    # the next request carries it as the user's own message, before the prompt
    sent = world.provider.requests[0].messages
    assert len(world.provider.requests) == 1
    assert "$ ls && echo done-$((6*7))" in sent[0].text and "done-42" in sent[0].text
    assert "[exit code: 0]" in sent[0].text and "what did I list?" in sent[-1].text
    stored = world.stored().conversation.messages
    assert stored[0].metadata.agent_visible and stored[0].role == "user"
    assert world.stored().title == "what did I list?"  # a !command is not a request
    from goosectx.export_markdown import transcript_markdown

    markdown = transcript_markdown(world.stored())
    assert "**!command** `ls && echo done-$((6*7))`" in markdown and "done-42" in markdown


def test_the_spinner_says_running_not_thinking_while_a_bang_command_runs(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.cli.render import TranscriptRenderer

    texts: list[str] = []
    monkeypatch.setattr(TranscriptRenderer, "waiting",
                        lambda self, text="thinking…": texts.append(text))
    world.run("!true" + ENTER + CTRL_D)
    assert texts and set(texts) == {"running…"}


def test_bang_bang_reruns_the_last_command_and_appends(world: World) -> None:
    out = world.run("!printf 'abc\\n'" + ENTER + "!!" + ENTER + "!! | tr a-z A-Z" + ENTER
                    + CTRL_D)
    commands = [m.metadata.extra.get("shell_escape") for m in world.stored().conversation]
    assert commands == ["printf 'abc\\n'", "printf 'abc\\n'", "printf 'abc\\n' | tr a-z A-Z"]
    assert out.count("abc") >= 2 and "ABC" in out
    assert not world.provider.requests  # no model call for any of them


def test_bang_bang_without_an_earlier_command_says_so(world: World) -> None:
    out = world.run("/help" + ENTER + "!!" + ENTER + "!" + ENTER + CTRL_D)
    assert "!COMMAND" in out and "run the previous !command again" in out
    assert "no earlier !command in this session" in out
    assert "type a shell command after !" in out
    assert len(world.stored().conversation) == 0


def test_a_failing_command_and_a_long_output_are_capped_like_a_tool_result(
        world: World) -> None:
    world.settings = Settings(data_dir=world.settings.data_dir, tool_output_max_chars=2_000)
    out = world.run("!seq 1 5000; exit 3" + ENTER + CTRL_D)
    assert "✗ ! seq 1 5000; exit 3" in out and "/show 1" in out
    message = world.stored().conversation.messages[0]
    output = message.content[1].text
    assert len(output) <= 2_000 and "[exit code: 3]" in output
    assert "characters of stdout cut; full stdout" in output  # and the overflow file:
    path = Path(output.split("characters) in ", 1)[1].split(" ...]", 1)[0])
    assert path.read_text().splitlines()[-1] == "5000"


def test_history_agent_folds_a_long_output_the_model_view_merged_with_the_next_message(
        world: World) -> None:
    """The model's view merges the !command with the message typed after it; /history agent
    still draws its output folded with its /show number, not all 3,000 lines."""
    world.provider.add("Noted.")
    out = world.run("!seq 1 3000" + ENTER + "what now?" + ENTER + "/history agent" + ENTER
                    + CTRL_D)
    agent = out[out.index("what the model sees"):]
    assert "✓ ! seq 1 3000 · 3,001 lines · #1 (/show 1)" in agent
    assert "… 2991 lines hidden …" in agent and "1500" not in agent
    assert "what now?" in agent and "Noted." in agent


def test_shell_escape_to_model_false_keeps_it_from_the_model(world: World) -> None:
    world.settings = Settings(data_dir=world.settings.data_dir, shell_escape_to_model=False)
    world.provider.add("ok")
    out = world.run("!echo private-$((2+3))" + ENTER + "hello" + ENTER + CTRL_D)
    assert "private-5" in out and "the model does not see it" in out
    assert all("private-5" not in m.text for m in world.provider.requests[0].messages)
    stored = world.stored().conversation.messages[0]
    assert stored.metadata.user_visible and not stored.metadata.agent_visible


def test_the_output_of_a_command_naming_a_sensitive_file_stays_with_the_user(
        world: World) -> None:
    """fresh17a #6: ``@.env`` was refused, but ``!cat .env`` sent the file to the provider."""
    (world.workdir / ".env").write_text("DB_PASSWORD=hunter2hunter2\n")
    (world.workdir / "notes.txt").write_text("plain-notes\n")
    world.provider.add("ok")
    out = world.run("!cat .env" + ENTER + "!cat notes.txt" + ENTER + "hello" + ENTER + CTRL_D)
    assert "hunter2hunter2" in out  # the user sees what they ran
    assert ".env is a sensitive file (keys, credentials), so the model does not see this " \
           "output" in " ".join(out.split())
    sent = "\n".join(m.text for m in world.provider.requests[0].messages)
    assert "hunter2" not in sent and "plain-notes" in sent  # an ordinary file still goes
    stored = world.stored().conversation.messages
    assert stored[0].metadata.user_visible and not stored[0].metadata.agent_visible
    assert stored[1].metadata.agent_visible


def test_a_credential_printer_is_not_run(world: World) -> None:
    """``!gh auth token`` prints a token from gh's own store, which no redaction here knows: it
    reached the model, and (test29e) once kept from the model it was still stored verbatim, in
    the search index and in exports. It is not run; an ordinary command still is."""
    gh = world.workdir / "bin" / "gh"
    gh.parent.mkdir()
    ran = world.workdir / "gh-ran"
    gh.write_text(f"#!/bin/sh\ntouch {ran}\necho gho_stored1token2in3ghs4own5store\n")
    gh.chmod(0o755)
    world.provider.add("ok")
    out = world.run("!./bin/gh auth token" + ENTER + "!echo plain-out" + ENTER + "hello" + ENTER
                    + CTRL_D)
    assert "not run: gh auth token prints a credential, which goosectx would keep in the " \
        "session" in " ".join(out.split())
    assert not ran.exists() and "stored1token" not in out
    sent = "\n".join(m.text for m in world.provider.requests[0].messages)
    assert "stored1token" not in sent and "plain-out" in sent
    stored = world.stored().conversation.messages
    assert all("stored1token" not in m.text and "gh auth token" not in m.text for m in stored)


def test_a_command_that_may_read_a_sensitive_file_is_worded_as_the_approval_words_it(
        world: World) -> None:
    """A read below a dir not known here "may name" a sensitive file (the approval question's
    words); the ``!`` notice said it "is a sensitive file", naming the pattern it searches."""
    (world.workdir / ".env").write_text("DB_PASSWORD=hunter2hunter2\n")
    world.provider.add("ok")
    out = " ".join(world.run('!cd "$(echo .)" && grep -r KEY .' + ENTER + "hello" + ENTER
                             + CTRL_D).split())
    assert ". (read below, after cd $(…): any may be) may name a sensitive file (keys, " \
           "credentials), so the model does not see this output" in out  # (KEY: grep's pattern)
    assert "is a sensitive file" not in out


def test_the_setting_comes_from_config_and_environment(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("shell_escape_to_model = false\n")
    assert load_settings(config, environ={}).shell_escape_to_model is False
    assert load_settings(config, environ={"GOOSECTX_SHELL_ESCAPE_TO_MODEL": "true"}
                         ).shell_escape_to_model is True
    assert load_settings(None, environ={}).shell_escape_to_model is True


def test_ctrl_c_stops_a_bang_command(world: World) -> None:
    flag = world.workdir / "started.flag"
    done = threading.Event()

    def interrupt_once_started() -> None:
        while not flag.exists() and not done.is_set():
            time.sleep(0.02)
        if not done.is_set():
            os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C

    watcher = threading.Thread(target=interrupt_once_started)
    watcher.start()
    try:
        out = world.run("!touch started.flag; sleep 60; echo never" + ENTER + CTRL_D)
    finally:
        done.set()
        watcher.join()
    assert "cancelling…" in out and "never" not in out.replace("echo never", "")
    output = world.stored().conversation.messages[0].content[1].text
    assert "[cancelled; the command and its child processes were killed]" in output


@pytest.mark.parametrize("to_model", [True, False])
def test_the_context_meter_and_slash_context_count_what_it_adds(world: World,
                                                                to_model: bool) -> None:
    world.settings = Settings(data_dir=world.settings.data_dir, shell_escape_to_model=to_model)
    out = world.run("/context" + ENTER + "!seq 1 3000" + ENTER + "/context" + ENTER + CTRL_D)
    before, after = [_messages_row(table) for table in out.split("❯ /context")[1:]]
    figure = world.repl._figure
    assert figure is not None
    if to_model:
        assert after - before > 3_000 and figure.current_tokens > 3_000
    else:
        assert after == before and figure.current_tokens < 3_000


def _messages_row(text: str) -> int:
    row = next(line for line in text.splitlines() if line.strip().startswith("messages"))
    return int(row.split()[1].replace(",", ""))


def _repl_as(server: FakeServer, home: Path, keys: str, *prefix: str
             ) -> subprocess.CompletedProcess[str]:
    """The real ``goosectx`` REPL over piped stdin, the key in its environment."""
    (home / "config.toml").touch()
    (home / "config.toml").chmod(0o644)  # readable by the unprivileged user too
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GOOSECTX_HOME": str(home / "data"),
           "GOOSECTX_CONFIG": str(home / "config.toml"), "GOOSE_MODEL": FAKE_MODEL,
           "OPENAI_API_BASE": server.base_url, "OPENAI_API_KEY": KEY,
           "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    return subprocess.run([*prefix, "goosectx"], input=keys, env=env, cwd=home,
                          capture_output=True, text=True, timeout=120)


KEY_PROBES = (f"!{PROC_PROBE}\n!cat /proc/$PPID/environ | tr '\\0' '\\n'; echo ppid=$PPID\n"
              "!env\n")


@pytest.mark.skipif(os.geteuid() != 0, reason="as root, the shell's PID namespace is what hides "
                    "goosectx's /proc (the unprivileged case is the next test)")
def test_the_api_key_is_not_readable_by_a_bang_command_as_root(
        fake_server: FakeServer, tmp_path: Path) -> None:
    done = _repl_as(fake_server, tmp_path, KEY_PROBES)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "key readable in 0 places" in out and KEY not in out and REDACTED not in out
    assert "PATH=" in out  # env did print the (scrubbed) environment
    assert not fake_server.requests  # no model call


def test_the_api_key_is_not_readable_by_a_bang_command_as_an_unprivileged_user(
        fake_server: FakeServer) -> None:
    prefix = as_nobody()
    home = Path(tempfile.mkdtemp(prefix="goosectx-bang-"))  # outside root's 0700 pytest dir
    home.chmod(0o777)  # the unprivileged user works and writes its data dir here
    try:
        done = _repl_as(fake_server, home, KEY_PROBES, *prefix)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # not root: no namespace; goosectx is non-dumpable, so /proc/$PPID/environ stays closed
    assert "key readable in 0 places" in out and KEY not in out and REDACTED not in out
    assert "PATH=" in out and not fake_server.requests


def test_a_bang_command_runs_while_the_model_client_is_still_loading(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from rich.console import Console

    from goosectx.cli.repl import Repl, ReplIO
    from goosectx.cli.startup import AgentLoader

    release = threading.Event()
    ran_while_loading: list[bool] = []

    def slow_check(self: AgentLoader, provider: object) -> None:  # litellm's import
        release.wait(5)
        ran_while_loading.append(any("escape-ran" in m.text
                                     for m in world.session.conversation))

    monkeypatch.setattr(AgentLoader, "_check", slow_check)
    buf = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text("!echo escape-ran" + ENTER + CTRL_D)
        repl = Repl(world.settings, world.store, world.session,
                    io=ReplIO(Console(file=buf, width=100), input=pipe, output=DummyOutput(),
                              history=False),
                    mode=world.mode, agent_factory=world.agent_factory())
        assert repl.run() == 0
    release.set()
    repl.loader._thread.join(10)  # type: ignore[union-attr]
    out = buf.getvalue()
    assert "escape-ran" in out and "loading the model client" not in out
    assert ran_while_loading == [True]


def test_a_secret_typed_in_a_bang_command_is_redacted_like_its_output(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-TYPEDSECRET4242"
    monkeypatch.setenv("GOOSECTX_TYPED_API_KEY", secret)
    world.provider.add("ok")
    out = world.run(f"!echo {secret}" + ENTER + "what was that?" + ENTER + CTRL_D)
    drawn = out.replace(f"!echo {secret}", "", 1)  # the prompt's echo of what was typed
    assert secret not in drawn and f"✓ ! echo {REDACTED}" in drawn
    assert secret not in str(world.provider.requests[0].messages)
    stored = world.stored().conversation.messages[0]
    assert secret not in stored.text and secret not in str(stored.metadata.extra)


def test_bang_bang_reruns_what_was_typed_not_its_redacted_record(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-TYPEDSECRET4242"
    monkeypatch.setenv("GOOSECTX_TYPED_API_KEY", secret)
    got = world.workdir / "got.txt"
    out = world.run(f"!echo {secret} >> got.txt" + ENTER + "!!" + ENTER
                    + "!! && echo again" + ENTER + CTRL_D)
    assert got.read_text() == f"{secret}\n" * 3  # each rerun ran what was typed
    drawn = out.replace(f"!echo {secret} >> got.txt", "", 1)  # the echo of the typed line
    assert secret not in drawn  # the reruns' echoes show the command as it is stored
    assert f"!echo {REDACTED} >> got.txt && echo again" in drawn
    commands = [m.metadata.extra.get("shell_escape") for m in world.stored().conversation]
    assert commands == [f"echo {REDACTED} >> got.txt"] * 2 + [
        f"echo {REDACTED} >> got.txt && echo again"]
    assert secret not in str([m.to_dict() for m in world.stored().conversation])


@pytest.mark.parametrize("how", ["pasted", "typed with Esc-Enter"])
def test_a_message_of_several_lines_starting_with_bang_goes_to_the_model_not_to_bash(
        world: World, how: str) -> None:
    # a pasted notebook cell ("!pip install …" + a question), a LaTeX log, a Markdown image
    cell = ["!touch LINE1_RAN.txt", "touch LINE2_RAN.txt", "why does this cell fail?"]
    keys = ("\x1b[200~" + "\n".join(cell) + "\x1b[201~" if how == "pasted"
            else ESC_ENTER.join(cell))
    world.provider.add("The install line needs a kernel restart.")
    out = world.run(keys + ENTER + CTRL_D)
    assert not list(world.workdir.glob("*_RAN.txt"))  # nothing ran
    assert "✓ !" not in out and "The install line needs a kernel restart." in out
    assert world.provider.requests[0].messages[-1].text == "\n".join(cell)
    stored = world.stored().conversation.messages
    assert stored[0].text == "\n".join(cell) and "shell_escape" not in stored[0].metadata.extra


def test_a_one_line_bang_command_with_blank_lines_around_it_still_runs(world: World) -> None:
    world.run("\x1b[200~\n!touch RAN.txt\n\n\x1b[201~" + ENTER + CTRL_D)
    assert (world.workdir / "RAN.txt").exists() and not world.provider.requests
