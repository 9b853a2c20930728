"""Drive an Agent the way ``run`` and the REPL do: every event recorded into a real store.

Shared by the agent-loop tests (scripted provider and fake HTTP server).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from store_support import store_bytes

from goosectx.agent import Agent
from goosectx.approval import ApprovalDecision
from goosectx.config import ApprovalMode, ModelConfig, Settings
from goosectx.conversation import Message, ToolRequest
from goosectx.events import Event, MessageCompleted, TurnFinished
from goosectx.recorder import SessionRecorder
from goosectx.session import Session
from goosectx.store import SessionStore
from goosectx.tools.base import ToolContext, ToolRegistry, ToolResult

FAKE_MODEL = "openai/fake-model"


@dataclass
class Approvals:
    """An approval callable that answers from a queue and records what it was asked."""

    answers: list[ApprovalDecision] = field(default_factory=list)
    asked: list[ToolRequest] = field(default_factory=list)

    def __call__(self, request: ToolRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.answers.pop(0) if self.answers else "deny"


def drive(events: Iterator[Event], recorder: SessionRecorder | None, cancel: threading.Event,
          on_event: Callable[[Event], None] | None = None) -> list[Event]:
    """Consume a turn like ``run`` does: record each event; a KeyboardInterrupt landing in the
    consumer sets ``cancel`` and iteration goes on."""
    seen: list[Event] = []
    while True:
        try:
            event = next(events)
        except StopIteration:
            return seen
        try:
            if recorder is not None:
                recorder.record(event)
            seen.append(event)
            if on_event is not None:
                on_event(event)
        except KeyboardInterrupt:
            cancel.set()


@dataclass
class Harness:
    """An agent over a real store in ``tmp``; ``turn()`` runs one turn and returns its events."""

    agent: Agent
    store: SessionStore
    session: Session

    def turn(self, text: str, *, on_event: Callable[[Event], None] | None = None,
             cancel: threading.Event | None = None) -> list[Event]:
        cancel = cancel or threading.Event()
        recorder = SessionRecorder(self.store, self.session)
        return drive(self.agent.reply(text, cancel=cancel), recorder, cancel, on_event)

    def stored(self) -> list[Message]:
        return list(self.store.load(self.session.id).conversation)

    def db_bytes(self) -> bytes:
        return store_bytes(self.store.data_dir)


def finished(events: list[Event]) -> TurnFinished:
    ends = [e for e in events if isinstance(e, TurnFinished)]
    assert len(ends) == 1, f"expected one TurnFinished, got {ends}"
    assert events[-1] is ends[0]
    return ends[0]


def completed(events: list[Event]) -> list[Message]:
    return [e.message for e in events if isinstance(e, MessageCompleted)]


def http_settings(server_url: str, data_dir: Path, **overrides: Any) -> Settings:
    """Settings for the fake server as the configured model (``api_base``, no key)."""
    return Settings(model=FAKE_MODEL, models={FAKE_MODEL: ModelConfig(api_base=server_url)},
                    data_dir=data_dir, **overrides)


def make_harness(tmp: Path, settings: Settings, *, provider: Any = None,
                 tools: ToolRegistry | None = None, approve: Callable[..., Any] | None = None,
                 mode: ApprovalMode = "auto", interactive: bool = True) -> Harness:
    """A harness: real store, real built-in tools unless ``tools`` is given."""
    from goosectx.providers.litellm_provider import make_provider
    from goosectx.tools.builtin import default_registry, make_tool_context

    workdir = tmp / "work"
    workdir.mkdir(exist_ok=True)
    store = SessionStore(settings.data_dir)
    session = store.create_session(workdir, model=settings.model)
    agent = Agent(
        session, settings,
        provider=provider if provider is not None else make_provider(settings),
        tools=tools if tools is not None else default_registry(),
        approve=approve or Approvals(), mode=mode,
        tool_context=make_tool_context(settings, workdir), interactive=interactive,
    )
    return Harness(agent, store, session)


class EchoTool:
    """A read-only test tool: ``{"text": ...}`` → ``echo: <text>``."""

    name = "echo"
    description = "Echo the text back."
    parameters: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}},
                                  "required": ["text"]}

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        return True

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.calls.append(arguments)
        return ToolResult(f"echo: {arguments.get('text')}")


class WriteTool(EchoTool):
    """A test tool that "changes something" (needs approval in smart_approve)."""

    name = "write"
    description = "Pretend to write a file."

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        return False

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.calls.append(arguments)
        return ToolResult(f"wrote {arguments.get('text')}")


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (a zombie waiting for pid 1 to reap it counts)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat[stat.rfind(")") + 2] in "ZX"


def host_pid(argv: list[str], timeout_s: float = 10.0) -> int:
    """The host pid of the process running exactly ``argv`` (found through ``/proc``).

    As root the shell tool runs commands in a PID namespace, where ``$!`` and ``$$`` are
    namespace pids that mean something else (or nothing) on the host: tests start a process
    with a unique command line and look it up here instead.
    """
    wanted = "\0".join(argv) + "\0"
    deadline = time.monotonic() + timeout_s
    while True:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if cmdline == wanted:
                return int(entry.name)
        assert time.monotonic() < deadline, f"no process runs {argv}"
        time.sleep(0.01)
