"""Helpers of the reliability suite (tests/test_reliability_*.py): run the real CLI in a
clean environment, wait for the product to reach a point, and check a stored session.

Everything goes through ``python -m goosectx`` subprocesses, as a user would run it.
Waiting is always for an event (a file the product writes at a pause point, a request reaching
the fake server, bytes on stdout), with a deadline — never a sleep standing in for one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from goosectx.conversation import Conversation, Message, ToolRequest, ToolResponse
from goosectx.session import Session
from goosectx.store import SessionStore

FAKE_MODEL = "openai/fake-model"
GOOSECTX = [sys.executable, "-m", "goosectx"]


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """This process's environment without GOOSE*/key variables, with its own data dir."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GOOSE_", "GOOSECTX_"))
           and not k.endswith(("_API_KEY", "_API_BASE", "_BASE_URL"))}
    # A named config file must exist; /dev/null reads as an empty one (defaults), wherever
    # the data dir is (some tests put it below a file or in /proc).
    env.update(GOOSECTX_HOME=str(home), GOOSECTX_CONFIG=os.devnull,
               NO_COLOR="1", TERM="dumb", GOOSECTX_RETRY_BASE_DELAY_S="0.01")
    env.update(extra)
    return env


def model_env(home: Path, base_url: str, key: str = "sk-test-dummy-0123456789",
              **extra: str) -> dict[str, str]:
    """:func:`clean_env` configured for the fake server the way a user would do it."""
    return clean_env(home, GOOSE_MODEL=FAKE_MODEL, OPENAI_API_BASE=base_url,
                     OPENAI_API_KEY=key, **extra)


def cli(env: dict[str, str], *args: str, cwd: Path | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``goosectx ARGS`` to the end (stdin closed)."""
    return subprocess.run([*GOOSECTX, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def start(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """Start ``goosectx ARGS`` (stdin closed, stdout/stderr piped, bytes)."""
    return subprocess.Popen([*GOOSECTX, *args], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def kill_while(job: list[str], env: dict[str, str], *args: str, cwd: Path | None = None) -> None:
    """Start ``goosectx ARGS``, kill -9 it once ``job`` (a command it runs) is running, then
    kill the job too (without a PID namespace a command outlives goosectx)."""
    from agent_harness import host_pid  # noqa: PLC0415 - the harness's process lookup

    proc = start(env, *args, cwd=cwd)
    pid = host_pid(job, timeout_s=60)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def wait_for(what: str, ready: Callable[[], bool], proc: subprocess.Popen[bytes] | None = None,
             timeout_s: float = 60) -> None:
    """Poll ``ready()`` until it is true; fail if ``proc`` exits first or time runs out."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"process exited ({proc.returncode}) before {what}: "
                                 f"{err.decode(errors='replace')[-2000:]}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def paused_env(marker: Path, point: str) -> dict[str, str]:
    """Environment entries that pause the product at ``point`` (see goosectx.testhooks)."""
    return {"GOOSECTX_TEST_PAUSE_AT": point, "GOOSECTX_TEST_PAUSE_FILE": str(marker)}


def error_lines(stderr: str) -> list[str]:
    """The ``goosectx: error:`` lines of a stderr text."""
    return [line for line in stderr.splitlines() if line.startswith("goosectx: error: ")]


def assert_one_line_error(code: int, returncode: int, stderr: str, *needles: str) -> str:
    """Exit ``code``, exactly one error line holding every needle, and no traceback."""
    assert returncode == code, (returncode, stderr)
    assert "Traceback" not in stderr, stderr
    lines = error_lines(stderr)
    assert len(lines) == 1, stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def load(home: Path, ref: str) -> Session:
    """Open the store afresh (as the next process would) and load SESSION."""
    store = SessionStore(home)
    try:
        ok = store._conn.execute("PRAGMA integrity_check").fetchone()[0]
        assert ok == "ok", ok
        return store.load(store.resolve(ref))
    finally:
        store.close()


def assert_sendable(conversation: Conversation) -> list[Message]:
    """The agent view is a valid request: alternating roles, starts with the user, every tool
    call answered in the very next message and every answer preceded by its call."""
    view = conversation.agent_view()
    assert view and view[0].role == "user" and view[-1].role == "user"
    for before, after in zip(view, view[1:], strict=False):
        assert before.role != after.role
    for i, m in enumerate(view):
        asked = [p.id for p in m.content if isinstance(p, ToolRequest)]
        if asked:
            answered = [p.id for p in view[i + 1].content if isinstance(p, ToolResponse)]
            assert sorted(asked) == sorted(answered), (asked, answered)
        if any(isinstance(p, ToolResponse) for p in m.content):
            assert i > 0 and view[i - 1].tool_requests
    return view


def fill(home: Path, workdir: Path, *, name: str = "work", pairs: int = 40,
         model: str | None = None, first: Sequence[Message] = ()) -> tuple[str, list[str]]:
    """A saved session of ``first``, then ``pairs`` × (request, tool call, tool result, answer).

    Returns:
        (session id, message ids in order).
    """
    store = SessionStore(home)
    session = store.create_session(workdir, name=name, model=model)
    ids = []
    for message in first:
        store.append_message(session.id, message)
        ids.append(message.id)
    for i in range(pairs):
        for message in (
            Message.user(f"question {i}: " + "why is that so? " * 30),
            Message("assistant", (ToolRequest(f"c{i}", "shell", {"command": f"echo {i}"}),)),
            Message("user", (ToolResponse(f"c{i}", f"{i}\n" + "output line\n" * 30),)),
            Message.assistant(f"answer {i}: " + "because of the reasons. " * 30),
        ):
            store.append_message(session.id, message)
            ids.append(message.id)
    store.close()
    return session.id, ids


def history_state(home: Path, ref: str, original_ids: Sequence[str]) -> str:
    """``"old"`` (as before a compaction) or ``"new"`` (compacted: the head hidden, a summary
    added, the newest originals left visible as the verbatim tail); fails on a mix."""
    session = load(home, ref)
    by_id = {m.id: m for m in session.conversation}
    assert all(i in by_id for i in original_ids), "a stored message was lost"
    flags = {by_id[i].metadata.agent_visible for i in original_ids}
    added = [m for m in session.conversation if m.id not in set(original_ids)]
    if flags == {True} and not added:
        return "old"
    summaries = [m for m in added if m.metadata.is_summary]
    visible = [by_id[i].metadata.agent_visible for i in original_ids]
    kept = visible[visible.index(True):] if True in visible else []  # the verbatim tail
    if (False in flags and all(kept) and len(summaries) == 1
            and session.ledger.current_is_estimate):
        assert all(by_id[i].metadata.user_visible for i in original_ids)
        assert_sendable(session.conversation)
        return "new"
    raise AssertionError(f"mixed history: agent-visible flags {flags}, {len(added)} added")


def held_reply(text: str, chunk_chars: int
               ) -> tuple[threading.Event, threading.Event, Callable[[Any], dict[str, Any]]]:
    """A fake-server reply that streams its first chunk, then waits for ``hold``.

    Returns:
        (set when the request arrived, the event that lets the stream go on, the reply).
    """
    arrived, hold = threading.Event(), threading.Event()

    def reply(body: Any) -> dict[str, Any]:
        arrived.set()
        return {"text": text, "chunk_chars": chunk_chars, "hold": hold}

    return arrived, hold, reply
