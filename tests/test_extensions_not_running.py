"""A call of a tool of an extension that is not running names the extension and why.

The model was told "There is no tool named 'bad__x'. Available tools: shell, …" for a server
that could not start, did not start in time, could not be reached over HTTP, or was added
with a flag not given again on ``run --resume`` — as if it had misspelt the name.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest
from extension_support import DEMO_SERVER, demo_spec, free_port
from fakeserver import FakeServer
from test_extensions_run import call, run, stored_pairs

from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings
from goosectx.store import SessionStore


def test_a_tool_of_a_server_that_could_not_start_gets_why(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
        isolated_env: dict[str, Path]) -> None:
    monkeypatch.chdir(work)
    isolated_env["config"].write_text(
        '[extensions.bad]\ncmd = "/nonexistent/bin/x"\n'
        f'[extensions.slow]\ncmd = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(DEMO_SERVER))}, "--behaviour", "never_start"]\n'
        'startup_timeout_s = 1\n')
    fake_model.add(call("bad__x", {}, "c1"), call("slow__echo", {"text": "x"}, "c2"),
                   {"text": "done"})
    code, out, err = run()
    assert code == 0 and "done" in out, err
    (bad, bad_said), (slow, slow_said) = stored_pairs()
    assert (bad.name, bad_said.output, bad_said.is_error) == (
        "bad__x", "extension bad could not start: /nonexistent/bin/x not found; this call was "
                  "not run.", True)
    # The turn waits startup_timeout_s + 1 s; on a busy machine the killed server may not
    # have been marked failed yet when the call comes: then it is still starting.
    assert slow.name == "slow__echo" and slow_said.is_error
    assert re.fullmatch(r"extension slow (did not start within 1 s \(startup_timeout_s\)|is "
                        r"still starting); this call was not run\.", slow_said.output), slow_said


def test_a_tool_of_an_http_server_nobody_answers_names_it(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add(call("remote__echo", {"text": "x"}, "c1"), {"text": "done"})
    code, _out, err = run(remotes=(f"http://127.0.0.1:{free_port()}/mcp",))
    assert code == 0, err
    [(_request, response)] = stored_pairs()
    assert response.is_error and response.output.startswith("extension remote failed: ")
    assert response.output.endswith("; this call was not run.")
    assert "There is no tool" not in response.output


def test_a_flag_extension_not_given_again_on_resume_names_the_flag(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its only extension: there was no tool source at all, so also no reason to give."""
    monkeypatch.chdir(work)
    fake_model.add({"text": "first"}, call("demo__echo", {"text": "again"}, "c2"),
                   {"text": "second"})
    assert run("SECRET_THING=value-123456 " + demo_spec())[0] == 0
    session_id = _only_session_id()
    code, err = _resume(session_id)
    assert code == 0, err
    [(_request, response)] = stored_pairs()
    assert response.is_error
    assert response.output.startswith("extension demo was added with a flag and needs its "
                                      "settings again: resume with --with-extension ")
    assert response.output.endswith("(with its environment values: SECRET_THING); this call "
                                    "was not run.")  # (the name, never the value)
    assert "value-123456" not in response.output


def test_a_server_that_could_not_start_is_said_on_stderr_with_json_output(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
        isolated_env: dict[str, Path]) -> None:
    """Text mode said it on stderr; json kept it only in its final "notices": a CI log showed
    nothing about the dead server."""
    monkeypatch.chdir(work)
    isolated_env["config"].write_text('[extensions.bad]\ncmd = "/nonexistent/bin/x"\n')
    fake_model.add({"text": "done"})
    out, err = io.StringIO(), io.StringIO()
    code = run_task(load_settings(), text="go", input_file=None, name=None, resume=None,
                    continue_=False, max_turns=None, output_format="json",
                    mode="auto", model=None, stdin=io.StringIO(""), stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    said = "extension bad could not start: /nonexistent/bin/x not found"
    assert f"goosectx: {said}\n" in err.getvalue()
    assert err.getvalue().count(said) == 1
    assert json.loads(out.getvalue())["notices"] == [said]


def _only_session_id() -> str:
    """The id of the one session the test's run made."""
    store = SessionStore(load_settings().data_dir)
    try:
        return store.list_sessions()[0].id
    finally:
        store.close()


def _resume(session_id: str) -> tuple[int, str]:
    """``run --resume SESSION -t again`` in auto mode: its exit code and stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = run_task(load_settings(), text="again", input_file=None, name=None,
                    resume=session_id, continue_=False, max_turns=None, output_format="text",
                    mode="auto", model=None, stdin=io.StringIO(""), stdout=out, stderr=err)
    return code, err.getvalue()


def test_a_flag_extension_is_still_named_on_every_later_resume_without_the_flag(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second resume without the flag dropped the session's record of it: its call got
    "There is no tool named 'demo__echo'" and no notice said the extension was not loaded."""
    monkeypatch.chdir(work)
    fake_model.add(call("demo__echo", {"text": "one"}, "c1"), {"text": "first"},
                   {"text": "second"}, call("demo__echo", {"text": "three"}, "c3"),
                   {"text": "third"})
    assert run("SECRET_THING=value-123456 " + demo_spec())[0] == 0
    session_id = _only_session_id()
    for _ in range(2):
        code, err = _resume(session_id)
        assert code == 0, err
        assert "extension demo was added with a flag and needs its settings again" in err
    (_r1, first), (third_call, third) = stored_pairs()
    assert first.output == "one" and third_call.name == "demo__echo"
    assert third.is_error and "There is no tool" not in third.output
    assert third.output.startswith("extension demo was added with a flag and needs its "
                                   "settings again: resume with --with-extension ")


def test_a_configured_extension_removed_from_the_config_is_named_once_then_forgotten(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rev20 F5: an extension the user deleted from the config was named on every resume,
    forever (its record was kept like a flag-added one's)."""
    monkeypatch.chdir(work)
    config = Path(load_settings().config_path or "")
    config.write_text(f'[extensions.demo]\ncmd = {json.dumps(sys.executable)}\n'
                      f'args = [{json.dumps(str(DEMO_SERVER))}]\n')
    fake_model.add({"text": "first"}, {"text": "second"}, {"text": "third"})
    assert run()[0] == 0
    session_id = _only_session_id()
    config.write_text("")
    said = "extension demo was in this session's config but is no longer configured"
    code, first = _resume(session_id)
    assert code == 0 and said in first, first
    code, second = _resume(session_id)
    assert code == 0 and "extension demo" not in second, second
