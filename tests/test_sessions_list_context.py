"""The context column of ``sessions list`` and ``/sessions`` (tester, wave 16).

It showed the session's stored ``current_tokens`` — the provider's last report — while
``/context`` and ``compact --dry-run`` add what joined the model's view since (a turn stopped
after a tool call, a ``!command``): ``965`` listed against ``115,438`` there. The list now
shows the figure the toolbar and ``/context`` last showed, as a share of the model's limit,
and ``—`` when it does not know it without loading and counting the session.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from test_repl import CTRL_D, ENTER, World

from goosectx.cli import repl_agent
from goosectx.config import load_settings
from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedReply
from goosectx.store import SessionStore
from goosectx.usage import LedgerEntry, Usage

LIMIT = 200_000


def big_file(where: Path, lines: int = 3000) -> Path:
    path = where / "big.txt"
    path.write_text("\n".join(f"line {i}: socket{i % 97} parser{i % 89} buffer{i % 83} "
                              f"thread{i % 79} alpha{i * 7 % 1000}" for i in range(lines)))
    return path


def listed(capsys: pytest.CaptureFixture[str], name: str) -> dict[str, object]:
    out, _ = cli(capsys, "sessions", "list", "--json")
    return next(row for row in json.loads(out) if row["name"] == name)


def table_row(capsys: pytest.CaptureFixture[str], name: str) -> str:
    out, _ = cli(capsys, "sessions", "list")
    return next(line for line in out.splitlines() if f" {name} " in line)


def test_list_shows_the_figure_compact_dry_run_reports_after_a_stopped_turn(
        fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", str(LIMIT))
    big_file(workdir)
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": "cat big.txt"}}]})
    cli(capsys, "run", "--name", "big", "--mode", "auto", "--max-turns", "1",
        "-t", "show me big.txt", code=3)  # stopped after the call: its result came later
    out, _ = cli(capsys, "compact", "big", "--dry-run", "--json", "--strategy", "extractive")
    before = json.loads(out)["tokens_before"]
    assert before > 10_000  # the tool's output is in the model's view
    row = listed(capsys, "big")
    assert row["current_tokens"] == before and row["context_limit_tokens"] == LIMIT
    assert row["current_is_estimate"] is True  # a report plus the estimate of the output
    assert f"  ~{round(100 * before / LIMIT)}% {before:,}  " in table_row(capsys, "big")


def test_a_session_changed_since_its_figure_was_kept_is_listed_as_unknown(
        fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", str(LIMIT))
    fake_model.add({"text": "hello", "usage": {"prompt_tokens": 5_000,
                                               "completion_tokens": 100}})
    cli(capsys, "run", "--name", "small", "-t", "say hello")
    row = listed(capsys, "small")
    assert (row["current_tokens"], row["current_is_estimate"]) == (5_100, False)
    assert "  3% 5,100  " in table_row(capsys, "small")
    # a message stored by something that did not measure it (an older goosectx, a crash)
    store = SessionStore(load_settings().data_dir)
    sid = store.resolve("small")
    store.append_message(sid, Message.user("x " * 40_000))
    store.close()
    row = listed(capsys, "small")
    assert row["current_tokens"] is None and row["current_is_estimate"] is None
    assert re.search(r" — +/", table_row(capsys, "small"))  # not the stale 3 %


def test_repl_sessions_and_list_show_what_context_shows_after_a_bang_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(tmp_path)
    try:
        big_file(world.workdir)
        world.provider.add(ScriptedReply("Hi.", usage=Usage(3_000, 20)))
        out = world.run("hello" + ENTER + "!cat big.txt" + ENTER + "/context" + ENTER
                        + "/sessions" + ENTER + CTRL_D)
        current = re.search(r"current \(what the trigger uses\)\s+([\d,]+)", out)
        assert current, out
        tokens = int(current.group(1).replace(",", ""))
        assert tokens > 20_000  # the !command's output joined the view without a call
        limit = repl_agent.context_manager(world.repl).context_limit().tokens
        shown = f"~{round(100 * tokens / limit)}% {tokens:,}"
        sessions_row = next(line for line in out.splitlines() if world.session.id in line
                            and line.lstrip().startswith("*"))
        assert shown in sessions_row
        from goosectx.cli.sessions_list import list_sessions

        list_sessions(world.settings, as_json=False)  # after leaving: the same figure
        assert shown in capsys.readouterr().out
    finally:
        world.store.close()


def test_a_session_saved_before_the_figure_was_kept_lists_its_report_when_it_covers_all(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(load_settings().data_dir)
    answered = store.create_session(tmp_path, name="answered")
    stopped = store.create_session(tmp_path, name="stopped")
    for session in (answered, stopped):
        store.append_message(session.id, Message.user("hello"))
        store.append_message(session.id, Message.assistant("hi"))
        store.add_usage(session.id, LedgerEntry(Usage(5_000, 100), "openai/gpt-4o-mini"),
                        current_tokens=5_100, is_estimate=False)  # no figure in its state
    store.append_message(stopped.id, Message.user("x " * 40_000))  # after the report
    store.close()
    _, err = cli(capsys, "compact", "answered", "--dry-run", code=1)  # too small to compact
    assert "would grow the context from 5,100 to" in err  # its figure, as on resume
    assert listed(capsys, "answered")["current_tokens"] == 5_100
    assert listed(capsys, "stopped")["current_tokens"] is None  # not the report: "—"
