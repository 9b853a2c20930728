"""The event loop an extension manager runs its servers on, on a daemon thread of its own.

Started at first need (:meth:`LoopThread.ensure`), never on the caller's thread; stopped by
:meth:`LoopThread.stop`, which waits for the loop to close and may be called any number of
times. A later :meth:`LoopThread.ensure` starts a fresh loop (a server restarted after the
manager stopped). The synchronous callers hand it coroutines and wait on the futures,
polling a cancel event (docs/architecture.md §1, extensions/).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

THREAD_NAME = "goosectx-extensions"
JOIN_TIMEOUT_S = 5.0
"""How long :meth:`LoopThread.stop` waits for the loop's thread to end, seconds."""
POLL_S = 0.05
"""How often a wait looks at its cancel event, seconds."""


class LoopThread:
    """One asyncio event loop on a daemon thread."""

    def __init__(self, name: str = THREAD_NAME) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop while it runs; ``None`` before the first start and after a stop."""
        return self._loop

    def ensure(self) -> asyncio.AbstractEventLoop:
        """The running loop, started (with its thread) if there is none."""
        with self._lock:
            if self._loop is None:
                ready = threading.Event()
                holder: list[asyncio.AbstractEventLoop] = []
                thread = threading.Thread(target=_run, args=(holder, ready), name=self.name,
                                          daemon=True)
                thread.start()
                ready.wait()
                self._loop, self._thread = holder[0], thread
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``coro`` on the loop (started if needed); its future."""
        return asyncio.run_coroutine_threadsafe(coro, self.ensure())

    def call_soon(self, callback: Callable[[], object]) -> bool:
        """Schedule ``callback`` on the running loop; False (not run) when there is none."""
        loop = self._loop
        if loop is None:
            return False
        try:
            loop.call_soon_threadsafe(callback)
        except RuntimeError:  # closed between the check and the call
            return False
        return True

    def stop(self, timeout_s: float = JOIN_TIMEOUT_S) -> None:
        """Stop the loop and wait (at most ``timeout_s``) for it to close; again: nothing."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        try:
            loop.call_soon_threadsafe(loop.stop)
        except RuntimeError:  # already closed
            pass
        if thread is not threading.current_thread():
            thread.join(timeout_s)


def wait(future: concurrent.futures.Future[T], cancel: threading.Event | None) -> T | None:
    """The future's result, or ``None`` once ``cancel`` is set (the task is cancelled)."""
    while True:
        try:
            return future.result(timeout=POLL_S)
        except concurrent.futures.TimeoutError:
            if cancel is not None and cancel.is_set():
                future.cancel()
                return None
        except concurrent.futures.CancelledError:
            return None


def ended(task: concurrent.futures.Future[Any], timeout_s: float) -> bool:
    """Whether ``task`` ended within ``timeout_s`` seconds (with a result or an error)."""
    try:
        task.result(timeout=max(0.0, timeout_s))
    except concurrent.futures.TimeoutError:
        return False
    except Exception:  # noqa: BLE001 - stopping must go on: it ended, failing
        pass
    return True


def _run(holder: list[asyncio.AbstractEventLoop], ready: threading.Event) -> None:
    loop = asyncio.new_event_loop()
    holder.append(loop)
    asyncio.set_event_loop(loop)
    ready.set()
    try:
        loop.run_forever()
    finally:
        loop.close()
