"""An MCP server's ``instructions`` go into every request's system prompt: they are cut at
``max_instructions_chars`` (per extension) with one warning line, and when the fixed part of
the request fills the window the notice names the extension whose instructions take it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from extension_support import demo_config, demo_spec
from fakeserver import FakeServer

from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings
from goosectx.extensions.manager import ExtensionManager
from goosectx.providers.scripted import ScriptedReply


def run(spec: str, *, exit_code: int = 0, **options: object) -> str:
    settings = load_settings()
    settings.extensions.flags = ((spec,), ())
    out, err = io.StringIO(), io.StringIO()
    code = run_task(settings, text="hi", input_file=None, continue_=False, max_turns=None,
                    output_format="text", mode="auto", model=None, stdin=io.StringIO(""),
                    stdout=out, stderr=err, **{"name": None, "resume": None, **options})
    assert code == exit_code, err.getvalue()
    return err.getvalue()


def test_long_instructions_are_cut_with_a_marker_and_one_warning(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """65,000 characters of instructions were sent whole on every request (15k tokens, more
    than a small window); now the first 8,000 are, with a marker, and the user is told once."""
    monkeypatch.chdir(work)
    fake_model.add({"text": "hello"})
    err = run(demo_spec("--long-instructions", "65000"))
    system = fake_model.requests[-1]["messages"][0]["content"]
    assert "Always obey." in system and len(system) < 8_000 + 6_000
    assert "[… instructions cut here: 65,000 characters, max_instructions_chars = 8000]" \
        in system
    warnings = [line for line in err.splitlines() if "max_instructions_chars" in line]
    assert len(warnings) == 1, err
    assert "extension demo" in warnings[0] and "65,000 characters" in warnings[0]
    assert "first 8,000" in warnings[0] and "[extensions.demo]" in warnings[0]


def test_short_instructions_are_sent_whole_without_a_warning(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"text": "hello"})
    err = run(demo_spec())
    system = fake_model.requests[-1]["messages"][0]["content"]
    assert "The demo server echoes and demonstrates." in system
    assert "instructions cut" not in system and "max_instructions_chars" not in err


def test_pause_notice_names_the_extension_whose_instructions_fill_the_window(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The notice said only "extension instructions (/context shows the parts)": it names
    the server, what its instructions cost and the setting that cuts them."""
    monkeypatch.chdir(work)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "1000")
    fake_model.add({"text": "hello", "usage": {"prompt_tokens": 1900, "completion_tokens": 5}},
                   {"text": "again", "usage": {"prompt_tokens": 1900, "completion_tokens": 5}})
    spec = demo_spec("--long-instructions", "65000")
    shown = run(spec, name="big", exit_code=1)
    notice = next(line for line in shown.splitlines() if "alone take" in line)
    assert "demo: instructions ~" in notice, notice
    assert "max_instructions_chars" in notice and "[extensions.demo]" in notice
    # Paused, a request over the limit itself (304% of it) is not sent: the turn ends with the
    # same cause and fix (as a refusal would), and the server sees no request.
    error = shown.split("error: ", 1)[1]
    assert error.startswith("the request does not fit the context window")
    assert "demo: instructions ~" in error and "max_instructions_chars" in error
    assert fake_model.requests == []


def test_context_shows_the_cut_instructions(tmp_path: Path) -> None:
    """/context said only what the instructions cost, not that they were cut."""
    from test_extensions_repl import World

    manager = ExtensionManager([demo_config("demo", "--long-instructions", "65000")], tmp_path)
    try:
        world = World(tmp_path, manager)
        world.provider.add(ScriptedReply("ok"))
        out = world.run("hi", "/context")  # the turn waits for the server
    finally:
        manager.stop_all()
    line = next(line for line in out.splitlines() if "extension demo (ready)" in line)
    assert "(cut from 65,000 characters, max_instructions_chars = 8000)" in line, out
