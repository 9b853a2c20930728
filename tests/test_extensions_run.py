"""``goosectx run`` with extensions, through the fake model: a tool of each server is called,
the stored session holds the paired call and result, secrets stay out of the store."""

from __future__ import annotations

import base64
import io
import json
import sys
from pathlib import Path

import pytest
from conftest import DUMMY_API_KEY, FAKE_MODEL
from extension_support import DEMO_SERVER, HttpDemo, demo_spec, free_port
from fakeserver import FakeServer
from store_support import assert_not_in_sessions_db

from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings
from goosectx.conversation import ToolRequest, ToolResponse
from goosectx.store import SessionStore


def run(*specs: str, remotes: tuple[str, ...] = (), mode: str = "auto",
        text: str = "use the tools") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    settings = load_settings()
    settings.extensions.flags = (tuple(specs), remotes)
    code = run_task(settings, text=text, input_file=None, name=None, resume=None,
                    continue_=False, max_turns=None, output_format="text", mode=mode,
                    model=None, stdin=io.StringIO(""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def call(name: str, arguments: dict[str, object], call_id: str) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "arguments": arguments, "id": call_id}]}


def stored_pairs() -> list[tuple[ToolRequest, ToolResponse]]:
    store = SessionStore(load_settings().data_dir)
    try:
        session = store.load(store.list_sessions()[0].id)
    finally:
        store.close()
    requests = {p.id: p for m in session.conversation for p in m.content
                if isinstance(p, ToolRequest)}
    return [(requests[p.id], p) for m in session.conversation for p in m.content
            if isinstance(p, ToolResponse) and p.id in requests]


def test_run_calls_a_stdio_and_an_http_tool_and_stores_the_pairs(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    http = HttpDemo()
    try:
        fake_model.add(call("demo__echo", {"text": "from stdio"}, "c1"),
                       call("remote__echo", {"text": "from http"}, "c2"),
                       {"text": "both tools answered"})
        code, out, err = run("DEMO_SECRET=hunter2-secret-value " + demo_spec(),
                             remotes=(http.url,))
    finally:
        http.stop()
    assert code == 0, err
    assert "both tools answered" in out
    pairs = stored_pairs()
    assert [(r.name, s.output, s.is_error) for r, s in pairs] == [
        ("demo__echo", "from stdio", False), ("remote__echo", "from http", False)]
    # The model was offered the tools, sorted after the built-ins, with the server's schema.
    tools = [t["function"]["name"] for t in fake_model.requests[0]["tools"]]
    assert tools[:3] == ["shell", "text_editor", "tree"]
    assert tools[3:] == sorted(tools[3:]) and "demo__echo" in tools
    assert "The demo server echoes" in fake_model.requests[0]["messages"][0]["content"]
    assert_not_in_sessions_db("hunter2-secret-value")


def test_smart_approve_asks_for_an_untrusted_read_only_tool(fake_model: FakeServer,
                                                             work: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    monkeypatch.chdir(work)
    fake_model.add(call("demo__echo", {"text": "x"}, "c1"), {"text": "denied"})
    code, _out, err = run(demo_spec(), mode="smart_approve")
    assert code == 0, err
    [(request, response)] = stored_pairs()
    assert response.is_error and "needs approval" in response.output


def test_trusted_server_read_only_tool_runs_in_smart_approve(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
        isolated_env: dict[str, Path]) -> None:
    monkeypatch.chdir(work)
    isolated_env["config"].write_text(
        f'[extensions.demo]\ncmd = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(DEMO_SERVER))}]\ntrusted = true\n')
    fake_model.add(call("demo__echo", {"text": "trusted"}, "c1"),
                   call("demo__fail", {}, "c2"), {"text": "done"})
    code, _out, err = run(mode="smart_approve")
    assert code == 0, err
    pairs = stored_pairs()
    assert (pairs[0][1].output, pairs[0][1].is_error) == ("trusted", False)
    assert pairs[1][1].is_error and "needs approval" in pairs[1][1].output  # not read-only


def test_a_server_that_fails_to_start_is_one_line_and_the_run_goes_on(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"text": "answered without tools"})
    code, out, err = run(demo_spec("--behaviour", "exit_at_start"))
    assert code == 0 and "answered without tools" in out
    assert "exited with code 3" in err and "DEMO_CONFIG is not set" in err
    assert FAKE_MODEL


def test_sessions_show_names_each_calls_extension(fake_model: FakeServer, work: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from cli_support import cli

    monkeypatch.chdir(work)
    fake_model.add(call("demo__echo", {"text": "x"}, "c1"), {"text": "ok"})
    assert run(demo_spec())[0] == 0
    capsys.readouterr()
    out, _err = cli(capsys, "sessions", "show", stored_session_id())
    assert "`demo__echo` (extension demo)" in out


def stored_session_id() -> str:
    store = SessionStore(load_settings().data_dir)
    try:
        return store.list_sessions()[0].id
    finally:
        store.close()


def test_sigterm_during_a_call_leaves_no_server_alive(fake_model: FakeServer, work: Path,
                                                      tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    from extension_support import group_alive

    fake_model.add(call("demo__hang", {}, "c1"), {"text": "never"})
    pid_file = tmp_path / "server.pid"
    spec = f"DEMO_PID_FILE={pid_file} " + demo_spec("--behaviour", "ignore_term")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen([sys.executable, "-m", "goosectx", "run", "-t", "hang",
                             "--mode", "auto", "--with-extension", spec], cwd=work, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while len(fake_model.requests) < 1 or not pid_file.exists():
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)
        time.sleep(0.5)  # the call is in flight
        server_pid = int(pid_file.read_text())
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    deadline = time.monotonic() + 5
    while group_alive(server_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not group_alive(server_pid)


def test_a_value_given_to_a_server_is_redacted_from_stored_output(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add(call("demo__echo", {"text": "key=pa55word-for-demo"}, "c1"), {"text": "ok"})
    code, _out, err = run("DEMO_PASS=pa55word-for-demo " + demo_spec())
    assert code == 0, err
    [(_request, response)] = stored_pairs()
    assert response.output == "key=[REDACTED]"


def test_resume_starts_the_sessions_extensions_again(fake_model: FakeServer, work: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"text": "first"}, call("demo__echo", {"text": "again"}, "c2"),
                   {"text": "second"})
    assert run(demo_spec(), "SECRET_THING=value-123456 " + demo_spec("--name", "x"))[0] == 0
    store = SessionStore(load_settings().data_dir)
    try:
        session_id = store.list_sessions()[0].id
        records = store.load_extensions(session_id)
    finally:
        store.close()
    assert [r["name"] for r in records] == ["demo", "demo_2"]
    assert "value-123456" not in json.dumps(records) and records[1]["env_names"] == [
        "SECRET_THING"]
    out, err = io.StringIO(), io.StringIO()
    code = run_task(load_settings(), text="again", input_file=None, name=None,
                    resume=session_id, continue_=False, max_turns=None, output_format="text",
                    mode="auto", model=None, stdin=io.StringIO(""), stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    assert "extension demo (added with a flag last time) started again" in err.getvalue()
    assert "extension demo_2 was added with a flag and needs its settings again" in \
        err.getvalue()
    assert [s.output for _r, s in stored_pairs()] == ["again"]


def test_hostile_server_text_never_reaches_the_terminal_raw(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from cli_support import cli

    monkeypatch.chdir(work)
    fake_model.add(call("demo__hostile", {}, "c1"), {"text": "done"})
    code, out, err = run(demo_spec())
    assert code == 0, err
    capsys.readouterr()
    listed, listed_err = cli(capsys, "extensions", "list", "--with-extension",
                             demo_spec("--behaviour", "exit_at_start"), code=1)
    for text in (out, err, listed, listed_err):
        assert "\x1b" not in text and "\u202e" not in text
    assert "exited with code 3" in listed + listed_err


DEMO_PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24  # what the demo server's image tool returns


@pytest.mark.parametrize(("model", "setting", "vision"), [
    ("openai/gpt-4o", None, True), (FAKE_MODEL, None, False), (FAKE_MODEL, "true", True),
    ("openai/gpt-4o", "false", False)])
def test_an_image_from_a_tool_reaches_a_vision_model_as_an_image_else_its_stub(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch, model: str,
        setting: str | None, vision: bool, isolated_env: dict[str, Path]) -> None:
    monkeypatch.chdir(work)
    monkeypatch.setenv("GOOSE_MODEL", model)  # litellm: gpt-4o reads images, fake-model not
    if setting is not None:  # the config's supports_vision overrides litellm's table
        isolated_env["config"].write_text(f'[models."{model}"]\nsupports_vision = {setting}\n')
    fake_model.add(call("demo__image", {}, "c1"), {"text": "a tiny png"})
    code, out, err = run(demo_spec())
    assert code == 0, err
    messages = fake_model.requests[1]["messages"]
    tool = next(m for m in messages if m["role"] == "tool")
    assert tool["tool_call_id"] == "c1"
    assert tool["content"] == "[image: image/png, 32 bytes, from demo__image]"
    after = messages[messages.index(tool) + 1]
    assert after["role"] == "user"
    body = json.dumps(after["content"])
    assert ("image_url" in body) is vision
    if vision:
        (url,) = [item["image_url"]["url"] for item in after["content"]
                  if item["type"] == "image_url"]
        assert url == "data:image/png;base64," + base64.b64encode(DEMO_PNG).decode()
    else:
        assert after["content"] == "[image: image/png, 32 bytes]"


def test_run_attaches_a_mentioned_resource_or_says_why_not(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
        isolated_env: dict[str, Path]) -> None:
    monkeypatch.chdir(work)
    isolated_env["config"].write_text(
        f'[extensions.demo]\ncmd = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(DEMO_SERVER))}]\n')
    fake_model.add({"text": "read"})
    code, out, err = run(text="read @demo:file:///notes.txt please, and @demo:file:///nope.txt")
    assert code == 0 and out == "read\n", err
    sent = json.dumps(fake_model.requests[0]["messages"])
    assert "the notes say: ship it" in sent
    notices = [line for line in err.splitlines() if "nope.txt" in line]
    assert len(notices) == 1 and notices[0].startswith("goosectx: @demo:file:///nope.txt: ")
    assert notices[0].endswith("not attached")
    store = SessionStore(load_settings().data_dir)
    try:
        session = store.load(store.list_sessions()[0].id)
    finally:
        store.close()
    user = next(m for m in session.conversation if m.role == "user")
    assert [(p.kind, p.source) for p in user.content if getattr(p, "type", "") == "attachment"] \
        == [("resource", "demo:file:///notes.txt")]


def test_extensions_list_json_escapes_what_a_server_sent(work: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    from cli_support import cli

    monkeypatch.chdir(work)
    listed, _err = cli(capsys, "extensions", "list", "--json", "--with-extension", demo_spec())
    assert "\x1b" not in listed and "\u202e" not in listed and "\\u202e" in listed
    (item,) = json.loads(listed)["extensions"]
    hostile = next(t for t in item["tools"] if t["server_name"] == "hostile")
    assert hostile["description"] == ("Text with terminal escape sequences \x1b[2J and a bidi "
                                      "\u202e override.")


def test_extensions_list_calls_a_server_that_did_not_become_ready_failed(
        work: Path, monkeypatch: pytest.MonkeyPatch, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    # Its process group killed at startup_timeout_s, the handshake had not ended yet when the
    # list was made: "hold: starting / error: killed by SIGKILL", exit 0.
    from cli_support import run_cli

    monkeypatch.chdir(work)
    isolated_env["config"].write_text(
        f'[extensions.hold]\ncmd = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(DEMO_SERVER))}, "--behaviour", "orphan_holds_stdout"]\n'
        'startup_timeout_s = 1\n')
    code, out, err = run_cli(capsys, "extensions", "list")
    assert code == 1
    assert out == "hold: failed\n  error: did not start within 1 s (startup_timeout_s)\n"
    assert err == "goosectx: 1 extension(s) failed to start: hold\n"
    code, out, _ = run_cli(capsys, "extensions", "list", "--json")
    (item,) = json.loads(out)["extensions"]
    assert code == 1 and (item["status"], item["error"]) == (
        "failed", "did not start within 1 s (startup_timeout_s)")


def test_extensions_list_calls_a_disabled_extension_disabled_not_failed(
        work: Path, monkeypatch: pytest.MonkeyPatch, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    # enabled = false (config.example.toml's docs) printed "off: failed — stopped before it
    # was ready (disabled)", "1 extension(s) failed to start" and exit 1.
    from cli_support import run_cli

    monkeypatch.chdir(work)
    isolated_env["config"].write_text(
        f'[extensions.demo]\ncmd = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(DEMO_SERVER))}]\n'
        '[extensions.off]\ncmd = "/nonexistent/server"\nenabled = false\n')
    code, out, err = run_cli(capsys, "extensions", "list")
    assert (code, err) == (0, "")
    assert out.startswith("demo: ready") and out.endswith("\noff: disabled\n")
    code, out, _ = run_cli(capsys, "extensions", "list", "--json")
    states = {i["name"]: (i["status"], i["error"]) for i in json.loads(out)["extensions"]}
    assert code == 0 and states == {"demo": ("ready", None), "off": ("disabled", None)}


def test_a_relative_cmd_that_is_not_there_says_where_it_was_looked_for(
        work: Path, monkeypatch: pytest.MonkeyPatch, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    # The README's example (cmd = ".venv/bin/python") run from another directory said only
    # ".venv/bin/python not found".
    from cli_support import run_cli

    monkeypatch.chdir(work)
    isolated_env["config"].write_text(
        '[extensions.adder]\ncmd = ".venv/bin/python"\nargs = ["adder.py"]\n')
    code, out, _ = run_cli(capsys, "extensions", "list")
    assert code == 1
    assert out == ("adder: failed\n  error: could not start: .venv/bin/python not found in "
                   f"{work} (a relative cmd is looked up from the server's working dir: give "
                   "an absolute path, or set cwd)\n")


def test_tools_alone_over_the_context_limit_name_the_extension_not_compact(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixed part of every request (system prompt + tool schemas) alone over the context
    limit: compaction cannot help, so the notice names the extension and the fix, not /compact;
    paused, the request over the limit is not sent (the turn ends as a refusal would)."""
    monkeypatch.chdir(work)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "1000")
    fake_model.add({"text": "hello", "usage": {"prompt_tokens": 1900, "completion_tokens": 5}},
                   {"text": "again", "usage": {"prompt_tokens": 1900, "completion_tokens": 5}})
    settings = load_settings()
    settings.extensions.flags = ((demo_spec("--shapes"),), ())
    settings.extensions.tool_budget_ratio = 1.0
    out, err = io.StringIO(), io.StringIO()
    for options in ({"name": "big"}, {"resume": "big"}):
        assert 1 == run_task(settings, text="hi", input_file=None, continue_=False, max_turns=None,
                        output_format="text", mode="auto", model=None, stdin=io.StringIO(""),
                        stdout=out, stderr=err, **{"name": None, "resume": None, **options})
    shown = err.getvalue()
    assert "/compact in the REPL" not in shown and "goosectx compact" not in shown
    assert "system prompt and tool definitions sent with every request alone" in shown
    assert "Extensions in it — demo: 13 tools" in shown and "tool_budget_ratio" in shown
    assert "error: the request does not fit the context window: the system prompt" in shown
    assert fake_model.requests == []


def test_a_server_dying_mid_call_shows_its_stderr_and_every_call_is_named(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In run the error said only "exited with code 7" (the REPL shows the end of the
    server's stderr), and the next call's error came with no "> NAME {}" line above it."""
    monkeypatch.chdir(work)
    fake_model.add(call("demo__crash", {}, "c1"), call("demo__echo", {"text": "x"}, "c2"),
                   {"text": "end"})
    code, out, err = run(demo_spec())
    assert code == 0 and "end" in out, err
    lines = err.splitlines()
    crash = lines.index("> demo__crash {}")
    assert "exited with code 7" in lines[crash + 1]
    assert "demo server: crashing on purpose" in lines[crash + 1]
    echo = lines.index('> demo__echo {"text":"x"}')
    assert "extension demo failed" in lines[echo + 1] and "not run" in lines[echo + 1]


def test_a_refused_request_whose_tools_alone_fill_the_window_names_the_extension(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The provider rejects the request as too long and the fixed part alone (system prompt +
    the demo server's tool schemas) is over the limit: a reactive compaction cannot help. The
    error said only that the request does not fit (and to use a larger model); it names the
    extension and the fix, as the pause notice does, and the history is not compacted."""
    monkeypatch.chdir(work)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "1000")
    for _ in range(4):
        fake_model.add({"error": "context_length"})
    settings = load_settings()
    settings.extensions.flags = ((demo_spec("--shapes"),), ())
    settings.extensions.tool_budget_ratio = 1.0
    out, err = io.StringIO(), io.StringIO()
    code = run_task(settings, text="hi", input_file=None, name="big", resume=None,
                    continue_=False, max_turns=None, output_format="text", mode="auto",
                    model=None, stdin=io.StringIO(""), stdout=out, stderr=err)
    assert code == 1, err.getvalue()
    errors = [line for line in err.getvalue().splitlines() if line.startswith("goosectx: error")]
    assert len(errors) == 1, err.getvalue()
    assert "system prompt and tool definitions" in errors[0]
    assert "demo: 13 tools" in errors[0] and "tool_budget_ratio" in errors[0]
    assert "[extensions.demo]" in errors[0] and "compacted" not in err.getvalue()


def test_a_key_written_in_a_flag_is_never_stored_nor_printed(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The provider's key typed into --with-extension's arguments or a remote URL's query was
    # stored verbatim in the session's extension records and printed again at resume.
    monkeypatch.chdir(work)
    dead_url = f"http://127.0.0.1:{free_port()}/mcp?x={DUMMY_API_KEY}"
    fake_model.add({"text": "first"}, {"text": "second"})
    code, out, err = run(demo_spec(f"--behaviour={DUMMY_API_KEY}"), remotes=(dead_url,))
    assert code == 0, err
    store = SessionStore(load_settings().data_dir)
    try:
        session_id = store.list_sessions()[0].id
        records = json.dumps(store.load_extensions(session_id))
    finally:
        store.close()
    assert DUMMY_API_KEY not in records and "--behaviour=[REDACTED]" in records
    assert "?x=[REDACTED]" in records
    assert DUMMY_API_KEY not in out + err
    out_2, err_2 = io.StringIO(), io.StringIO()
    code = run_task(load_settings(), text="again", input_file=None, name=None,
                    resume=session_id, continue_=False, max_turns=None, output_format="text",
                    mode="auto", model=None, stdin=io.StringIO(""), stdout=out_2, stderr=err_2)
    assert code == 0, err_2.getvalue()
    resumed = err_2.getvalue()
    assert DUMMY_API_KEY not in resumed + out_2.getvalue()
    # Not started again with "[REDACTED]" for an argument: the flag is asked for again.
    assert ("extension demo was added with a flag and needs its settings again: resume with "
            "--with-extension") in resumed and "--behaviour=[REDACTED]" in resumed
