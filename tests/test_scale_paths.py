"""Long sessions: what stays flat with size (stored token counts, streamed show and export).

Timings live in ``bench/scale.py``; these tests check the behaviour that makes them flat.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_support import cli

from goosectx.conversation import (
    Message,
    MessageMetadata,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.store import SessionStore
from goosectx.tokens import TokenCounter

MESSAGES = 300


def _long_session(home: Path, work: Path) -> str:
    store = SessionStore(home)
    session = store.create_session(work, name="long")
    for i in range(MESSAGES // 3):
        store.append_message(session.id, Message.user(f"question number {i}"))
        call = ToolRequest(f"c{i}", "shell", {"command": f"echo {i}"})
        store.append_message(session.id, Message("assistant", (call,)))
        store.append_message(session.id, Message("user", (ToolResponse(f"c{i}", f"out {i}"),)))
    store.close()
    return session.id


def _recounted(counted: list[str]) -> list[str]:
    """Counted texts that are (pieces of) stored messages; the texts compaction writes itself
    (the facts merged into a summary, the summary request chosen) are counted as new text."""
    return [t for t in counted if ("question number" in t or "echo" in t)
            and "(from the transcript)" not in t and not t.startswith("<conversation>")]


@pytest.mark.parametrize("strategy", [("--strategy", "extractive"),
                                      ("--strategy", "llm", "--model", "openai/gpt-4o-mini")])
def test_a_stored_token_count_is_used_instead_of_a_recount(
        strategy: tuple[str, ...], capsys: pytest.CaptureFixture[str],
        isolated_env: dict[str, Path], work: Path, counted_texts: list[str]) -> None:
    _long_session(isolated_env["home"], work)
    counted = counted_texts
    counted.clear()  # from here on
    first, _ = cli(capsys, "compact", "long", "--dry-run", *strategy)
    assert any("question number 7" in t for t in _recounted(counted))  # the first process counts
    counted.clear()
    again, _ = cli(capsys, "compact", "long", "--dry-run", *strategy)
    assert _recounted(counted) == []  # stored: no message (nor a line of the request) recounted
    assert again == first  # the same figure from the stored counts


class _Spy:
    """Stands in for stdout and records writes next to the store's reads."""

    def __init__(self, events: list[str]) -> None:
        self.events = events
        self.text: list[str] = []

    def write(self, text: str) -> int:
        self.events.append("write")
        self.text.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize("args", [("sessions", "show", "long"),
                                  ("sessions", "export", "long", "--format", "json"),
                                  ("sessions", "export", "long", "--format", "md")])
def test_show_and_export_write_their_first_line_before_reading_the_last_message(
        args: tuple[str, ...], isolated_env: dict[str, Path], work: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.cli.app import main

    _long_session(isolated_env["home"], work)
    events: list[str] = []
    real = SessionStore._iter_rows  # the rows both show and export read, a few at a time

    def reading(self: SessionStore, session_id: str) -> Any:
        for i, row in enumerate(real(self, session_id)):
            events.append("read last" if i == MESSAGES - 1 else "read")
            yield row

    monkeypatch.setattr(SessionStore, "_iter_rows", reading)
    spy = _Spy(events)
    monkeypatch.setattr(sys, "stdout", spy)
    with pytest.raises(SystemExit) as done:
        main(list(args))
    assert done.value.code == 0
    assert "read last" in events
    assert events.index("write") < events.index("read last")
    out = "".join(spy.text)
    assert "question number 0" in out and f"question number {MESSAGES // 3 - 1}" in out
    if "json" in args:
        assert len(json.loads(out)["messages"]) == MESSAGES


def test_show_and_export_md_print_the_transcript_of_the_loaded_session(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path], work: Path) -> None:
    """Most stored rows are drawn without building their messages; the text is the same."""
    from goosectx.export_markdown import transcript_markdown

    store = SessionStore(isolated_env["home"])
    session = store.create_session(work, name="mixed")
    for message in [
        Message.user("port the parser"),
        Message("assistant", (TextContent("looking"), ToolRequest("c1", "ext__grep", {"q": "é"}),
                              ToolRequest("c2", "shell", None, "bad json", "{raw"))),
        Message("user", (ToolResponse("c1", "found ``` it", True, "--- a\n+++ b\n"),
                         ToolResponse("c1", "again"))),
        Message("user", (ToolResponse("c2", ""),)),
        Message("assistant", (TextContent("  \n"),)),
        Message("assistant", (ThinkingContent("why"), TextContent("done"))),
        Message("assistant", (TextContent("hidden"),), MessageMetadata.agent_only()),
        Message("assistant", (TextContent("stopped"),), MessageMetadata(cancelled=True)),
        Message("user", (ToolResponse("c3", "late"),)),
        Message("assistant", (TextContent("the end"),)),
    ]:
        store.append_message(session.id, message)
    expected = transcript_markdown(store.load(session.id))
    store.close()
    assert "**tool error** #1" in expected and "**tool result** #2" in expected  # ids shared
    assert "## Tool results" in expected
    for args in (("sessions", "show", "mixed"), ("sessions", "export", "mixed", "-f", "md")):
        out, _ = cli(capsys, *args)
        assert out == expected, args


def test_plain_ascii_text_still_shows_every_control_character_as_a_stand_in() -> None:
    """The fast path for ASCII text (sessions show/export of long sessions) misses nothing."""
    from goosectx.cli.sanitize import json_safe, terminal_safe

    for code in [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F]:
        text = f"plain text {chr(code)} more"
        assert chr(code) not in terminal_safe(text), hex(code)
        assert chr(code) not in json_safe(text), hex(code)
    assert terminal_safe("tab\tand\nnewline") == "tab\tand\nnewline"


def test_the_counts_of_an_old_history_are_stored_off_the_thread_that_answers(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path], work: Path,
        fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first turn after resuming an uncounted session counts its history; storing those
    counts (a row rewrite each) does not hold up the answer's thread, and they are all stored
    by the time ``run`` has ended, so the next process counts nothing again."""
    import threading

    from goosectx.recorder import BULK_COUNTS

    store = SessionStore(isolated_env["home"])
    session = store.create_session(work, name="old")
    for i in range(BULK_COUNTS):  # 2 × BULK_COUNTS messages, none counted
        store.append_message(session.id, Message.user(f"question number {i}"))
        store.append_message(session.id, Message.assistant(f"answer number {i}"))
    store.close()
    fake_model.add({"text": "done"})
    saved_on: list[tuple[str, int]] = []
    real = SessionStore.save_token_counts

    def spy(self: SessionStore, session_id: str, counts: Any) -> int:
        saved_on.append((threading.current_thread().name, len(counts)))
        return real(self, session_id, counts)

    monkeypatch.setattr(SessionStore, "save_token_counts", spy)
    cli(capsys, "run", "--resume", "old", "-t", "one more")
    on_main = [n for name, n in saved_on if name == threading.main_thread().name]
    assert sum(n for _, n in saved_on) >= 2 * BULK_COUNTS
    assert all(n <= BULK_COUNTS for n in on_main), saved_on
    store = SessionStore(isolated_env["home"])
    try:
        loaded = store.load(session.id)
        old_ids = {m.id for m in loaded.conversation.messages[:2 * BULK_COUNTS]}
        assert old_ids <= set(loaded.token_counts)  # all stored: the next process counts none
    finally:
        store.close()


@pytest.mark.parametrize("argv, typed", [
    (["run", "--resume", "old", "-t", "one more"], None),
    (["--resume", "old"], "one more\n/exit\n"),  # the REPL on pipe input
], ids=["run", "repl"])
def test_a_resume_in_its_own_process_saves_the_whole_session_before_it_exits(
        isolated_env: dict[str, Path], work: Path, fake_model: Any, argv: list[str],
        typed: str | None) -> None:
    """The real ``goosectx run --resume`` and REPL (which end with ``os._exit`` as soon as the
    output is flushed and the session saved and closed) on an uncounted session: afterwards
    every old message, the new question and its answer are stored in order, with every old
    message's count."""
    import subprocess

    from goosectx.recorder import BULK_COUNTS

    store = SessionStore(isolated_env["home"])
    session = store.create_session(work, name="old")
    for i in range(BULK_COUNTS):  # 2 × BULK_COUNTS messages, none counted
        store.append_message(session.id, Message.user(f"question number {i}"))
        store.append_message(session.id, Message.assistant(f"answer number {i}"))
    old_ids = [m.id for m in store.load(session.id).conversation.messages]
    store.close()
    fake_model.add({"text": "the last answer"})
    proc = subprocess.run([sys.executable, "-m", "goosectx", *argv], input=typed, cwd=work,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "the last answer" in proc.stdout
    store = SessionStore(isolated_env["home"])
    try:
        loaded = store.load(session.id)
    finally:
        store.close()
    messages = loaded.conversation.messages
    assert [m.id for m in messages[:-2]] == old_ids
    assert [(m.role, m.text) for m in messages[-2:]] == [("user", "one more"),
                                                         ("assistant", "the last answer")]
    assert set(old_ids) <= set(loaded.token_counts)


def _pydantic_imported(work: Path, *argvs: list[str]) -> tuple[bool, str]:
    """Run ``argvs`` through ``main`` in one new interpreter (each must exit 0).

    Returns:
        (whether pydantic was imported by then, the commands' stdout).
    """
    import subprocess

    code = ("import sys\nfrom goosectx.cli.app import main\n"
            f"for argv in {list(argvs)!r}:\n"
            "    try:\n        main(argv)\n    except SystemExit as e:\n"
            "        assert not e.code, e.code\n"
            "print('pydantic' in sys.modules, file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=work)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr.strip().splitlines()[-1] == "True", proc.stdout


@pytest.mark.parametrize("argvs", [
    # text options only, or options not given
    [["sessions", "show", "long"]],
    # a choice given as one of its values, a plain path given as text
    [["sessions", "export", "long", "--format", "json", "-o", "l.json"],
     ["sessions", "import", "l.json", "--name", "again"]],
    [["compact", "long", "--dry-run", "--strategy", "extractive"]],
    # a whole number written plainly, within its range
    [["compact", "long", "--dry-run", "--strategy", "extractive",
      "--max-summary-tokens", "900"]],
])
def test_a_value_that_needs_no_converting_does_not_build_pydantic_adapters(
        isolated_env: dict[str, Path], work: Path, argvs: list[list[str]]) -> None:
    """typer checks every parameter with a pydantic adapter; a value that needs no converting
    (text, an option not given, a choice's own text, a path with no checks) skips it:
    pydantic is not even imported, and the command does what was asked."""
    _long_session(isolated_env["home"], work)
    imported, out = _pydantic_imported(work, *argvs)
    assert not imported
    command = argvs[0][:2]
    if command == ["sessions", "show"]:
        assert "question number 7" in out
    elif command == ["sessions", "export"]:
        assert "question number 7" in (work / "l.json").read_text(encoding="utf-8")
        assert f"(again): {MESSAGES} messages" in out
    else:
        assert "extractive" in out.lower()
        if "--max-summary-tokens" in argvs[0]:
            assert "Summary budget: 900 tokens" in out


@pytest.mark.parametrize(("value", "taken"), [
    ("-5", None), ("99", None), ("0x10", None), ("1e3", None), ("lots", None), ("0700", 700)])
def test_a_number_not_written_plainly_or_out_of_range_is_one_line_with_the_range(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path], work: Path,
        value: str, taken: int | None) -> None:
    from cli_support import run_cli

    _long_session(isolated_env["home"], work)
    code, out, err = run_cli(capsys, "compact", "long", "--dry-run", "--strategy",
                             "extractive", "--max-summary-tokens", value)
    if taken is not None:  # leading zeros: still the number (as typer read it)
        assert code == 0 and f"Summary budget: {taken} tokens" in out
    else:
        assert code == 2 and err == ("goosectx: error: --max-summary-tokens must be a whole "
                                     f"number from 100 to 100,000,000; got {value!r}\n")


def test_a_choice_not_among_the_values_gets_typers_error(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path], work: Path) -> None:
    from cli_support import run_cli

    _long_session(isolated_env["home"], work)
    code, _, err = run_cli(capsys, "sessions", "export", "long", "--format", "xml")
    assert code == 2 and "--format" in err and "'xml' is not one of 'md', 'json'" in err
    assert "Value error" not in err  # pydantic's prefix, not ours to show


def test_a_summary_merged_with_the_user_messages_after_it_counts_them_too(
        tmp_path: Path) -> None:
    """The view sent to the model merges the summary (a user message) with the user messages
    re-sent after it under the summary's id; the stored count of the summary alone must not
    stand for the merged message (the estimate, the spending cap and /context use it)."""
    from goosectx.conversation import Conversation
    from goosectx.message import MessageMetadata
    from goosectx.recorder import SessionRecorder

    store = SessionStore(tmp_path / "home")
    session = store.create_session(tmp_path, name="merged")
    summary = Message.user("summary of the work so far " * 20, MessageMetadata.agent_only())
    resent = Message.user("the user's long request, re-sent " * 300, MessageMetadata.agent_only())
    for m in (summary, resent, Message.assistant("going on")):
        store.append_message(session.id, m)
    first = TokenCounter("openai/gpt-4o-mini")
    whole = first.count_messages(Conversation([summary, resent]).agent_messages())
    loaded = store.load(session.id)
    counter = TokenCounter("openai/gpt-4o-mini", stored=loaded.token_counts)
    sent = loaded.conversation.agent_view()  # summary + re-sent merged: one message
    assert len(sent[0].content) == 2
    recorder = SessionRecorder(store, loaded)
    recorder.fresh_token_counts = counter.take_fresh
    counter.count_messages(sent)  # nothing stored yet: the merged copy is counted first
    recorder.save_counts(wait=True)
    again = store.load(session.id)
    assert summary.id not in again.token_counts  # a copy's count is not the summary's
    counter.count_messages(loaded.conversation.agent_messages())
    recorder.save_counts(wait=True)
    stored = store.load(session.id).token_counts
    assert stored[summary.id].count < stored[resent.id].count  # each message its own count
    fresh = TokenCounter("openai/gpt-4o-mini", stored=stored)
    merged = fresh.count_messages(store.load(session.id).conversation.agent_view()[:1])
    assert merged >= whole - 8  # the re-sent request is counted, not only the summary
    store.close()
