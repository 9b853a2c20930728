"""Resuming a long session without waiting for it: the prompt first, the tail once loaded.

Parsing every stored message of a session takes seconds at tens of thousands of messages.
A REPL on a real terminal that resumes a session of more than :data:`BACKGROUND_FROM`
messages opens with the session's header only (name, state, ledger; ``cli.common``'s
``open_session(defer_from=...)``), draws its banner and prompt at once, and loads the
messages on a background thread with its own store connection. When they are in, the
session object is filled in place (everything holding it sees the messages), the tail is
drawn above the prompt (erased and drawn again around it, in raw mode) and the agent is
built (``Repl.show_loaded``, as for a session loaded before the prompt). A line entered
before that waits for the load, so no turn or command ever sees a half-loaded session (``/exit``
and Ctrl-D leave at once: leaving needs none of its messages); a load
that fails ends the REPL with the store's one-line error, as a failed load before the prompt
would. See docs/architecture.md ("The print path").
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from goosectx.cli.common import load_to_resume
from goosectx.cli.folding import plural
from goosectx.session import Session

if TYPE_CHECKING:
    from goosectx.cli.repl import Repl

BACKGROUND_FROM = 2_000
"""Sessions of more messages than this load after the prompt is up (a real terminal only).
Smaller ones load before it: a few milliseconds, and the tail stays above the banner's
prompt with no redraw."""


class BackgroundLoad:
    """Loads the messages of ``repl.session`` (opened as a header) on a background thread.

    Args:
        repl: The REPL; its session is the header :meth:`SessionStore.load_header` gave.
        count: How many messages the session holds (for the waiting notice).
    """

    def __init__(self, repl: Repl, count: int) -> None:
        self._repl = repl
        self.count = count
        self._loaded: Session | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._finished = False
        self._lock = threading.Lock()
        self._prompt_up = False
        self._thread = threading.Thread(target=self._work, name="goosectx-resume-load",
                                        daemon=True)

    def start(self) -> None:
        """Start loading, once (the prompt's first draw starts it, or a wait for it).

        Not before the banner and the prompt are drawn: the load holds the interpreter for
        most of its second at 100k messages, and drawing beside it took half as long again.
        """
        with self._lock:
            if self._thread.ident is not None:
                return
            self._thread.start()

    def _work(self) -> None:
        from goosectx.store import SessionStore
        from goosectx.testhooks import pause_point

        try:
            pause_point("resume:loading")  # tests: a load that is not in yet
            store = SessionStore(self._repl.store.data_dir)  # its own connection
            try:
                self._loaded = load_to_resume(store, self._repl.session.id)
            finally:
                store.close()
        except BaseException as exc:  # noqa: BLE001 - handed over to the main thread
            self._error = exc
        self._done.set()
        self._post()

    # -- handing over to the prompt --------------------------------------------------------
    def pre_run(self) -> None:
        """Called inside a running prompt (its ``pre_run``): a load that ended is drawn now.

        The load starts here, after the prompt's first draw (``call_soon``: the prompt draws
        itself right after its ``pre_run``, before its loop runs anything).
        """
        self._prompt_up = True
        if self._done.is_set():
            self._post()
        elif self._thread.ident is None:
            prompt = self._repl.prompt_session
            app = prompt.app if prompt is not None else None
            if app is not None and app.loop is not None:
                app.loop.call_soon(self.start)
            else:
                self.start()

    def _post(self) -> None:
        """Ask the running prompt (if any) to draw the tail above itself, or to end on error."""
        prompt = self._repl.prompt_session
        app = prompt.app if prompt is not None else None
        if not self._prompt_up or app is None or not app.is_running or app.loop is None:
            return  # no prompt is up: the main thread finishes before its next prompt
        if self._error is not None:
            error = self._error
            app.loop.call_soon_threadsafe(lambda: app.exit(exception=error))
            return

        def draw_above() -> None:
            # Not run_in_terminal: it puts the terminal in cooked mode meanwhile, and a line
            # typed then would arrive ending in a newline (Enter would not send it). Here
            # keys wait in raw mode while the prompt is erased, the tail drawn, the prompt
            # drawn again.
            if self._finished:
                return
            app.renderer.erase()
            try:
                self.finish()
            finally:
                app.renderer.reset()
                app.renderer.request_absolute_cursor_position()
                app.invalidate()

        app.loop.call_soon_threadsafe(draw_above)

    # -- the main thread -------------------------------------------------------------------
    @property
    def pending(self) -> bool:
        """True until the tail is drawn (a failed load stays pending: :meth:`wait` raises)."""
        return not self._finished

    def finish_if_loaded(self) -> None:
        """Before a prompt: draw the tail now if the load ended meanwhile."""
        if self._done.is_set():
            self.wait()

    def wait(self) -> None:
        """Wait for the load (saying so when it is not in yet), then draw the tail.

        Raises:
            The load's error (e.g. ``StoreCorrupt``), unchanged.
        """
        if not self._done.is_set():
            self.start()  # (when no prompt was drawn to start it)
            self._repl.renderer.notice(f"loading the session's {plural(self.count, 'message')}…")
            self._done.wait()
        if self._error is not None:
            raise self._error
        self.finish()

    def finish(self) -> None:
        """Fill the session in place, draw its tail and start building the agent (once)."""
        with self._lock:
            if self._finished or self._loaded is None:
                return
            self._finished = True
        session, loaded = self._repl.session, self._loaded
        session.conversation = loaded.conversation
        session.token_counts = loaded.token_counts
        self._loaded = None
        self._repl.show_loaded()


def after_render(step: Callable[[], object]) -> Callable[[], None]:
    """A prompt ``pre_run`` that runs ``step`` once the prompt's first render is done.

    (prompt-toolkit draws right after its ``pre_run``, before its loop runs anything.)
    """

    def kick() -> None:
        import asyncio

        asyncio.get_event_loop().call_soon(step)

    return kick


def compose_pre_run(*steps: Any) -> Any:
    """One prompt ``pre_run`` that runs each of ``steps`` that is not ``None``."""
    present = [s for s in steps if s is not None]
    if not present:
        return None

    def run_all() -> None:
        for step in present:
            step()

    return run_all
