"""Running one core generator (a turn, ``/compact``, ``/clear``) under the REPL.

The generator runs on a worker thread; its events come back through a queue to the calling
(main) thread, which records and draws each one. Approval questions travel the same queue,
so every terminal read and write happens on the main thread. Ctrl-C meanwhile only sets the
turn's cancel event — the agent closes the turn itself and the history stays valid — and it
never interrupts the recorder halfway through a write. SIGTERM and SIGHUP arrive as that
Ctrl-C (:mod:`goosectx.cli.exit_signals`).
"""

from __future__ import annotations

import queue
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len, set_cell_size

from goosectx.approval import ApprovalAnswer, ApprovalDecision
from goosectx.cli.exit_signals import received
from goosectx.cli.folding import clean_output
from goosectx.cli.render import TranscriptRenderer
from goosectx.cli.terminal import TerminalEcho
from goosectx.collector import after_turn
from goosectx.conversation import ToolRequest
from goosectx.events import Event, Notification

POLL_S = 0.1
"""How often the main thread looks at the queue and at Ctrl-C presses, seconds."""

EventSource = Callable[[threading.Event], Iterator[Event]]
"""Starts the core's generator given the turn's cancel event."""


@dataclass(slots=True)
class _Ask:
    """An approval question from the worker thread; the answer goes into ``answer``."""

    request: ToolRequest
    answer: queue.SimpleQueue[ApprovalDecision | ApprovalAnswer]


@dataclass(slots=True)
class _Spinner:
    """New spinner text from the worker thread (drawn only where a spinner is)."""

    text: str


@dataclass(slots=True)
class _Failed:
    """The worker's generator raised."""

    error: BaseException


_DONE = object()


class TurnDriver:
    """Runs core generators one at a time for the REPL.

    Args:
        renderer: Draws the spinner and the cancel notices.
        on_event: Called on the main thread for every event, in order (record, then draw).
        ask: Called on the main thread for an approval question; gets the request and the
            turn's cancel event, returns the decision.
        on_failure: Called on the main thread when the generator raised.
        quiet_terminal: Turn the real terminal's echo off while a generator runs.
        typed_input: The prompt's input, whose keys typed ahead may hold a Ctrl-C
            (:func:`take_typed_ctrl_c`); ``None`` without a prompt.
    """

    def __init__(
        self,
        renderer: TranscriptRenderer,
        *,
        on_event: Callable[[Event], None],
        ask: Callable[[ToolRequest, threading.Event], ApprovalDecision | ApprovalAnswer],
        on_failure: Callable[[BaseException], None],
        quiet_terminal: bool,
        typed_input: Callable[[], Any] = lambda: None,
    ) -> None:
        self.renderer = renderer
        self.on_event = on_event
        self.ask = ask
        self.on_failure = on_failure
        self.quiet_terminal = quiet_terminal
        self.typed_input = typed_input
        self.asking = False
        """True while the main thread asks a question (Ctrl-C then raises there)."""
        self._queue: queue.Queue[Any] | None = None

    def approve(self, request: ToolRequest) -> ApprovalDecision | ApprovalAnswer:
        """The agent's approval callable: asks on the main thread and waits for the answer.

        Called on the worker thread. Outside a running generator it denies.
        """
        events = self._queue
        if events is None:
            return "deny"
        answer: queue.SimpleQueue[ApprovalDecision | ApprovalAnswer] = queue.SimpleQueue()
        events.put(_Ask(request, answer))
        return answer.get()

    def progress(self, text: str) -> None:
        """Show a long tool call's progress as the spinner text (called on any thread)."""
        events = self._queue
        if events is not None:
            events.put(Notification("thinking", text))

    def spinner(self, text: str) -> None:
        """Show ``text`` as the spinner text; nothing without a spinner (any thread).

        For a streaming tool call's progress, which would be a line every few tenths of a
        second in the plain look.
        """
        events = self._queue
        if events is not None:
            events.put(_Spinner(text))

    def run(self, start: EventSource, *, waiting: str = "thinking…") -> None:
        """Run one generator to its end, handling its events on this thread.

        ``waiting``: the spinner's text until the first event (a ``!command``: "running…").

        Ctrl-C sets the cancel event (the generator ends the turn validly); a second one
        says it is still stopping; a third abandons the worker (a daemon thread) and
        returns.
        """
        cancel = threading.Event()
        events: queue.Queue[Any] = queue.Queue()
        self._queue = events
        presses = [0]

        def work() -> None:
            try:
                for event in start(cancel):
                    events.put(event)
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread
                events.put(_Failed(exc))
            finally:
                events.put(_DONE)

        def on_sigint(_signum: int, _frame: object) -> None:
            cancel.set()
            presses[0] += 1
            if self.asking:
                raise KeyboardInterrupt

        previous = _install_sigint(on_sigint)
        if take_typed_ctrl_c(self.typed_input()):  # pressed before the turn could take it
            on_sigint(signal.SIGINT, None)
        echo = TerminalEcho(self.quiet_terminal)
        echo.off()
        threading.Thread(target=work, name="goosectx-turn", daemon=True).start()
        self.renderer.waiting(waiting)
        seen = 0
        try:
            while True:
                try:
                    item = events.get(timeout=POLL_S)
                except queue.Empty:
                    item = None
                except KeyboardInterrupt:  # no handler installed (not the main thread)
                    cancel.set()
                    presses[0] += 1
                    item = None
                if presses[0] != seen:
                    seen = presses[0]
                    if seen >= 3:
                        self.renderer.error("turn abandoned while it was still stopping",
                                            "the saved session holds every completed message")
                        return
                    self.renderer.cancelling(
                        "cancelling…" if seen == 1
                        else "still stopping — Ctrl-C once more abandons the turn")
                if item is _DONE:
                    return
                if item is not None:
                    self._dispatch(item, cancel)
        finally:
            _restore_sigint(previous)
            echo.restore()
            self._queue = None
            self.renderer.settle()
            after_turn()  # the turn's cycles, in a long resumed session

    def _dispatch(self, item: Any, cancel: threading.Event) -> None:
        if isinstance(item, _Ask):
            self.renderer.settle()
            decision: ApprovalDecision | ApprovalAnswer = "cancel"
            if not cancel.is_set():
                self.renderer.asking(item.request)  # a call held back is drawn above it
                try:
                    decision = self.ask(item.request, cancel)
                except OSError:  # the terminal is gone (SIGHUP: the window closed)
                    if received() is None:
                        raise
            item.answer.put(decision)
            self.renderer.waiting()
        elif isinstance(item, _Spinner):
            if self.renderer.interactive:  # one line, cut to fit beside the spinner
                line = " ".join(clean_output(item.text).split())
                room = max(10, self.renderer.console.width - 4)
                if cell_len(line) > room:
                    line = set_cell_size(line, room - 1) + "…"
                self.renderer.handle(Notification("thinking", line))
        elif isinstance(item, _Failed):
            self.on_failure(item.error)
        else:
            self.on_event(item)


def take_typed_ctrl_c(typed: Any) -> bool:
    """Whether a Ctrl-C was typed ahead on the line after the one the prompt just took.

    Keys typed while the prompt still holds the terminal (e.g. busy drawing) after Enter
    are kept by prompt-toolkit for the next prompt, a Ctrl-C among them as a key, not a
    SIGINT: the turn would run to its end and the Ctrl-C then land on the empty prompt. One
    typed before any further Enter is taken here with the keys before it (as the prompt would
    have cleared them); the rest stay for the next prompt.
    """
    if typed is None:
        return False
    from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
    from prompt_toolkit.keys import Keys

    keys = get_typeahead(typed)
    for i, press in enumerate(keys):
        if press.key in (Keys.ControlM, Keys.ControlJ):
            break
        if press.key == Keys.ControlC:
            store_typeahead(typed, keys[i + 1:])
            return True
    store_typeahead(typed, keys)
    return False


def _install_sigint(handler: Callable[[int, Any], None]) -> Any:
    """Install a SIGINT handler when on the main thread; returns the previous one."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, handler)


def _restore_sigint(previous: Any) -> None:
    if previous is not None:
        signal.signal(signal.SIGINT, previous)
