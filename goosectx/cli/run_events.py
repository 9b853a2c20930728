"""What ``goosectx run`` does with each event of its turn: record it, print it, gather the result.

Part of ``goosectx run`` (:mod:`goosectx.cli.run_cmd`; docs/architecture.md §1): every event
goes to the session recorder (so the session is saved as it runs) and to the chosen output;
:class:`Finished` gathers the turn's status, messages, usage and denied calls for the summary
and the exit code.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from goosectx.cli.common import OpenSession, save_listed_figure
from goosectx.cli.run_denials import DeniedCalls
from goosectx.cli.run_output import JsonOutput, StreamJsonOutput, TextOutput
from goosectx.conversation import Message
from goosectx.events import (
    Event,
    HistoryReplaced,
    MessageCompleted,
    ToolPairsSummarized,
    TurnFinished,
    UsageUpdated,
)
from goosectx.recorder import SessionRecorder
from goosectx.usage import Usage

if TYPE_CHECKING:
    from goosectx.agent import Agent


class Finished:
    """What the turn produced, gathered from its events."""

    def __init__(self) -> None:
        self.status: str = "cancelled"
        self.error: str | None = None
        self.messages: list[Message] = []
        self.usage = Usage()
        """Every model call of the run, compaction and tool-pair summary calls included."""
        self.calls = self.unreported = 0  # model calls; those whose provider reported no usage
        self.last_usage: UsageUpdated | None = None
        self.compactions = 0
        self.denied = DeniedCalls()

    def add(self, usage: Usage) -> None:
        """Count one model call's usage (a call with no report counts as zero tokens)."""
        self.usage, self.calls = self.usage + usage, self.calls + 1
        self.unreported += not usage.reported


def drive(events: Iterator[Event], cancel: threading.Event, opened: OpenSession,
           output: TextOutput | StreamJsonOutput | JsonOutput, agent: Agent) -> Finished:
    """Record and print every event until the turn ends; then store the context figure.

    A Ctrl-C that lands here rather than inside the agent sets ``cancel`` and keeps
    iterating, so the agent still closes the turn out (partial text kept, open tool calls
    answered). A Ctrl-C that escapes the agent itself ends the turn as cancelled.
    """
    recorder = SessionRecorder(opened.store, opened.session)
    recorder.fresh_token_counts = agent.context.take_fresh_token_counts
    recorder.redact = agent.reply_redact()  # the draft of an answer: as the answer is
    try:
        return _drive_events(events, cancel, recorder, output)
    finally:
        save_listed_figure(agent, recorder)  # what sessions list shows
        recorder.wait_for_counts()  # counts of an old history, stored while the answer printed


def _drive_events(events: Iterator[Event], cancel: threading.Event, recorder: SessionRecorder,
                  output: TextOutput | StreamJsonOutput | JsonOutput) -> Finished:
    finished = Finished()
    while True:
        try:
            event = next(events)
        except StopIteration:
            return finished
        except KeyboardInterrupt:
            finished.status = "cancelled"
            return finished
        try:
            recorder.record(event)
            finished.denied.observe(event)
            if isinstance(event, MessageCompleted):
                finished.messages.append(event.message)
            elif isinstance(event, UsageUpdated):
                finished.add(event.call.usage)
                finished.last_usage = event
            elif isinstance(event, HistoryReplaced | ToolPairsSummarized):
                if event.call is not None:
                    finished.add(event.call.usage)
                if isinstance(event, HistoryReplaced) and event.trigger != "clear":
                    finished.compactions += 1
            elif isinstance(event, TurnFinished):
                finished.status, finished.error = event.status, event.error
            output.on_event(event)
        except KeyboardInterrupt:
            cancel.set()
