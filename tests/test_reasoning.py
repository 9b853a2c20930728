"""The model's reasoning (issue 17 item 7): shown folded, hidden on request, never re-sent.

The fake server streams ``reasoning_content`` the way DeepSeek-style models and litellm's
Anthropic adapter do. The REPL is driven over pipe input (rich look) and through the real CLI
with piped stdin (plain look); ``run`` through the real CLI in-process.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from agent_harness import http_settings
from cli_support import cli
from fakeserver import FakeServer
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from goosectx.cli.repl import Repl, ReplIO
from goosectx.conversation import Message, TextContent, ThinkingContent
from goosectx.store import SessionStore
from goosectx.tokens import TokenCounter

ENTER = "\r"
CTRL_D = "\x04"
REASONING = "".join(f"step {i}: weigh option {i} against the constraints\n" for i in range(1, 11))
"""Ten lines of reasoning: the first ones are drawn, the rest folded."""


def _rich_repl(tmp_path: Path, server: FakeServer, keys: str, **settings: object) -> str:
    config = http_settings(server.base_url, tmp_path / "data", **settings)  # type: ignore[arg-type]
    workdir = tmp_path / "work"
    workdir.mkdir(exist_ok=True)
    store = SessionStore(config.data_dir)
    session = store.create_session(workdir, name="r", model=config.model)
    buf = io.StringIO()
    try:
        with create_pipe_input() as pipe:
            pipe.send_text(keys)
            repl = Repl(config, store, session,
                        io=ReplIO(Console(file=buf, width=100), input=pipe,
                                  output=DummyOutput(), history=False),
                        mode="auto", background_checks=False)
            assert repl.run() == 0
    finally:
        store.close()
    return buf.getvalue()


def test_rich_repl_streams_reasoning_folded_under_a_thinking_header(
        tmp_path: Path, fake_server: FakeServer) -> None:
    fake_server.add({"reasoning": REASONING, "text": "Option 3 it is."})
    out = _rich_repl(tmp_path, fake_server, "which option?" + ENTER + CTRL_D)
    header, first, answer = out.index("✻ thinking · #1"), out.index("step 1:"), out.index("Option 3")
    assert header < first < answer  # the reasoning streams before the answer
    assert "step 4:" in out and "step 5:" not in out  # folded to its first lines
    assert "… 6 more lines of thinking · /show 1" in out


def test_plain_repl_through_the_cli_shows_reasoning_then_hides_it_with_the_setting(
        fake_model: FakeServer, work: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"reasoning": REASONING, "text": "Option 3 it is."},
                   {"reasoning": REASONING, "text": "Still option 3."})
    monkeypatch.setattr(sys, "stdin", io.StringIO("which option?\n/show 1\n"))
    out, _ = cli(capsys, "session", "--name", "shown")
    lines = out.splitlines()
    at = lines.index("thinking · #1")
    assert lines[at + 1:at + 5] == [f"  | step {i}: weigh option {i} against the constraints"
                                    for i in range(1, 5)]
    assert lines[at + 5] == "  | … 6 more lines of thinking · /show 1"
    assert "Option 3 it is." in out
    # /show 1 prints it whole
    assert out.index("step 10: weigh option 10") > out.index("Option 3 it is.")

    monkeypatch.setenv("GOOSECTX_SHOW_REASONING", "false")
    monkeypatch.setattr(sys, "stdin", io.StringIO("sure?\n"))
    out, _ = cli(capsys, "session", "--resume", "shown")
    assert "Still option 3." in out
    assert "thinking" not in out and "step 1:" not in out
    # hidden, not lost: the session keeps the reasoning
    out, _ = cli(capsys, "sessions", "export", "shown", "--format", "json")
    assert json.loads(out)["messages"][-1]["content"][0] == {"type": "thinking",
                                                             "text": REASONING}


def test_reasoning_is_not_sent_back_in_the_next_turn(
        tmp_path: Path, fake_server: FakeServer) -> None:
    fake_server.add({"reasoning": "SECRET-PLAN: " + REASONING, "text": "first answer"},
                    {"text": "second answer"})
    _rich_repl(tmp_path, fake_server, "one" + ENTER + "two" + ENTER + CTRL_D)
    second = fake_server.requests[1]
    sent = json.dumps(second["messages"])
    assert "first answer" in sent and "SECRET-PLAN" not in sent
    assert not any("reasoning_content" in m or "thinking_blocks" in m
                   for m in second["messages"])


def test_reasoning_within_a_tool_loop_is_not_sent_with_the_tool_result(
        tmp_path: Path, fake_server: FakeServer) -> None:
    fake_server.add({"reasoning": "SECRET-PLAN: list the files",
                     "tool_calls": [{"name": "tree", "arguments": {}}]},
                    {"text": "done"})
    out = _rich_repl(tmp_path, fake_server, "look around" + ENTER + CTRL_D)
    assert out.count("SECRET-PLAN") == 1  # drawn once, live (not again with the tool call)
    assert "SECRET-PLAN" not in json.dumps(fake_server.requests[1]["messages"])


def test_unsigned_reasoning_is_not_counted_in_the_context() -> None:
    counter = TokenCounter()
    bare = Message("assistant", (TextContent("the answer"),))
    thought = Message("assistant", (ThinkingContent(REASONING * 20), TextContent("the answer")))
    signed = Message("assistant", (ThinkingContent(REASONING, "sig-1"),
                                   TextContent("the answer")))
    assert counter.count_message(thought) == counter.count_message(bare)
    assert counter.count_message(signed) > counter.count_message(bare)


def test_run_keeps_reasoning_off_stdout_and_stream_json_has_its_own_event(
        fake_model: FakeServer, work: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"reasoning": REASONING, "text": "Option 3 it is."},
                   {"reasoning": REASONING, "text": "Option 3 again."},
                   {"reasoning": REASONING, "text": "Option 3 once more."})
    out, err = cli(capsys, "run", "-t", "which option?")
    assert out == "Option 3 it is.\n" and "step 1" not in err

    out, _ = cli(capsys, "run", "-t", "which option?", "--output-format", "stream-json")
    events = [json.loads(line) for line in out.splitlines()]
    reasoning = [e["text"] for e in events if e["type"] == "reasoning_delta"]
    assert len(reasoning) > 1 and "".join(reasoning) == REASONING
    first = [e["type"] for e in events].index("reasoning_delta")
    assert first < [e["type"] for e in events].index("message_delta")

    monkeypatch.setenv("GOOSECTX_SHOW_REASONING", "0")
    out, _ = cli(capsys, "run", "-t", "which option?", "--output-format", "stream-json")
    assert "reasoning_delta" not in out and "Option 3 once more." in out


def test_a_reply_cancelled_while_reasoning_keeps_its_reasoning_for_the_user_only(
        tmp_path: Path) -> None:
    import threading

    from agent_harness import finished, make_harness

    from goosectx.config import Settings
    from goosectx.events import ReasoningDelta
    from goosectx.providers.scripted import ScriptedProvider, ScriptedReply

    provider = ScriptedProvider()
    provider.add(ScriptedReply(thinking="SECRET-PLAN: first read the file",
                               text="a long answer " * 50), "fine")
    harness = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider)
    cancel = threading.Event()
    events = harness.turn("go", cancel=cancel,
                          on_event=lambda e: cancel.set() if isinstance(e, ReasoningDelta)
                          else None)
    assert finished(events).status == "cancelled"
    kept = harness.stored()[-1]
    assert kept.metadata.cancelled and kept.content[0] == ThinkingContent(
        "SECRET-PLAN: first read the file")
    harness.turn("go on")
    sent = provider.requests[-1].messages
    assert not any(isinstance(p, ThinkingContent) for m in sent for p in m.content)
    harness.store.close()


def test_escape_codes_in_reasoning_read_the_same_live_on_resume_and_in_show(
        fake_model: FakeServer, work: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"reasoning": "weigh \x1b[31mred\x1b[0m first", "text": "Red it is."})
    monkeypatch.setattr(sys, "stdin", io.StringIO("which colour?\n/show 1\n"))
    out, _ = cli(capsys, "session", "--name", "coloured")
    assert out.count("weigh ␛[31mred␛[0m first") == 2, out  # live, then /show 1
    monkeypatch.setattr(sys, "stdin", io.StringIO("/show 1\n"))
    out, _ = cli(capsys, "session", "--resume", "coloured", "--history")
    assert out.count("weigh ␛[31mred␛[0m first") == 2, out  # the resumed transcript, /show 1
    assert "\x1b" not in out


REASONING_ONLY = "the model replied with reasoning only, no answer"


def test_a_reply_of_reasoning_only_gets_a_notice_in_run_like_an_empty_reply(
        fake_model: FakeServer, work: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"reasoning": REASONING}, {"reasoning": REASONING},
                   {"reasoning": REASONING}, {"text": ""})
    out, err = cli(capsys, "run", "-t", "which option?")
    assert out == "" and REASONING_ONLY in err
    out, _ = cli(capsys, "run", "-t", "which option?", "--output-format", "json")
    report = json.loads(out)
    assert report["notices"] == [REASONING_ONLY] and report["status"] == "done"
    out, _ = cli(capsys, "run", "-t", "which option?", "--output-format", "stream-json")
    assert REASONING_ONLY in out
    # the same exit status as an empty reply
    out, _ = cli(capsys, "run", "-t", "which option?", "--output-format", "json")
    assert json.loads(out)["notices"] == ["the model returned an empty reply"]
    assert json.loads(out)["exit_code"] == report["exit_code"]


def test_the_repl_notes_a_reply_of_reasoning_only(
        tmp_path: Path, fake_server: FakeServer) -> None:
    fake_server.add({"reasoning": REASONING})
    out = _rich_repl(tmp_path, fake_server, "which option?" + ENTER + CTRL_D)
    assert "✻ thinking · #1" in out and REASONING_ONLY in out
