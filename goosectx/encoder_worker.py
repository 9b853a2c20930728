"""Loading the token encoding in a worker process while this one loads the session.

Part of token counting (docs/architecture.md §5; used by :mod:`goosectx.tokens`). Building
tiktoken's encoder holds the GIL for ~0.15–0.35 s, so a thread cannot overlap it with the
session's load; a process forked before the store is opened can, on another core. A command
that will certainly count (a real extractive compaction) calls :func:`start` first thing; the
worker builds the encoder (:func:`goosectx.encoding.get_encoder`, the same call as in this
process), then answers count requests over a pipe — a batch of texts per round trip — with the
same functions the in-process count uses (:mod:`goosectx.token_pieces`,
:mod:`goosectx.token_batch`), so the figures are the same.

The worker never touches the database (it closes every inherited descriptor but its pipes),
never prints (its standard streams are ``/dev/null``), ignores SIGINT and exits when its pipe
closes (this process ended, or :func:`stop`). On any failure — no ``os.fork``, the worker died,
a bad reply, no reply within :data:`REPLY_TIMEOUT_S` — this process kills and reaps it and
counts in-process as it does without a worker.
"""

from __future__ import annotations

import marshal
import os
import select
import signal
import struct
import threading
from collections.abc import Sequence
from typing import Any

from goosectx.encoding import Encoder, encoding_name, get_encoder

REPLY_TIMEOUT_S = 30.0
"""Longest wait for one reply (the first includes loading the encoding); then: in-process."""
TRIP_CHARS = 1 << 23
"""About how many characters of text one round trip carries (bounds the memory a batch takes)."""
_HEADER = struct.Struct("<Q")
_WHOLE, _MANY = 0, 1

_worker: RemoteEncoder | None = None


def start(model: str | None) -> None:
    """Fork the worker that loads ``model``'s encoding; call it before the store is opened.

    Nothing happens without ``os.fork``, while other threads run or when a worker is up.
    """
    global _worker  # noqa: PLW0603 - one worker per process
    if _worker is not None or not hasattr(os, "fork") or threading.active_count() > 1:
        return
    name = encoding_name(model)
    try:
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
    except OSError:
        return
    try:
        pid = os.fork()
    except OSError:
        for fd in (request_r, request_w, reply_r, reply_w):
            os.close(fd)
        return
    if pid == 0:  # the worker: never returns
        _serve(model, request_r, reply_w)
    os.close(request_r)
    os.close(reply_w)
    os.set_blocking(request_w, False)  # a request to a stopped worker times out
    _worker = RemoteEncoder(model, name, pid, request_w, reply_r)


def encoder_for(encoding: str) -> RemoteEncoder | None:
    """The worker's encoder when one was started for the encoding named ``encoding``."""
    return _worker if _worker is not None and _worker.named == encoding else None


def release() -> None:
    """Kill the worker, if any, without waiting for it; :func:`stop` reaps it.

    Its exit then overlaps what comes next; a later count is made in-process.
    """
    if _worker is not None:
        _worker.close(wait=False)


def stop() -> None:
    """End the worker, if any (its pipe closed, killed, reaped); counting goes on in-process."""
    if _worker is not None:
        _worker.close()


class RemoteEncoder:
    """The worker's encoder as seen from here: whole texts and batches counted there."""

    def __init__(self, model: str | None, named: str, pid: int, request_fd: int,
                 reply_fd: int) -> None:
        self.model, self.named = model, named
        self._pid: int | None = pid
        self._unreaped: int | None = None
        """The pid of a worker killed and not yet reaped."""
        self._request_fd, self._reply_fd = request_fd, reply_fd
        self._name: str | None = None
        self._local: Encoder | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The name of the encoding loaded (the worker's answer, or the in-process one's)."""
        if self._name is None:
            with self._lock:
                if self._name is None:
                    ready = self._reply()
                    self._name = ready if isinstance(ready, str) else self._fallback_name()
        return self._name

    def encode(self, text: str, *, disallowed_special: Any = ()) -> list[int]:
        """The token ids of ``text`` (in-process: the worker only counts)."""
        return self._in_process().encode(text, disallowed_special=disallowed_special)

    def count_whole(self, text: str, limit: int | None) -> tuple[int, bool]:
        """:func:`goosectx.token_pieces.token_len_whole` of ``text``, counted by the worker."""
        answer = self._ask(_WHOLE, text, limit)
        if (isinstance(answer, tuple) and len(answer) == 2 and type(answer[0]) is int
                and type(answer[1]) is bool):
            return answer[0], answer[1]
        from goosectx.token_pieces import token_len_whole

        return token_len_whole(self._in_process(), text, limit)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """The token count of each text, in order: a round trip per :data:`TRIP_CHARS`."""
        counts: list[int] = []
        start = size = 0
        for end, text in enumerate(texts, 1):
            size += len(text)
            if size >= TRIP_CHARS or end == len(texts):
                counts += self._count_trip(texts[start:end])
                start, size = end, 0
        return counts

    def _count_trip(self, texts: Sequence[str]) -> list[int]:
        answer = self._ask(_MANY, list(texts), None)
        if (isinstance(answer, list) and len(answer) == len(texts)
                and all(type(n) is int for n in answer)):
            return answer
        from goosectx.token_batch import count_each
        from goosectx.token_pieces import token_len

        local = self._in_process()
        return count_each(lambda text: token_len(local, text), texts)

    def close(self, *, wait: bool = True) -> None:
        """Close the pipes and kill the worker (it holds nothing to save); reap it if ``wait``."""
        global _worker  # noqa: PLW0603
        if self._pid is not None:
            for fd in (self._request_fd, self._reply_fd):
                try:
                    os.close(fd)
                except OSError:
                    pass
            try:
                os.kill(self._pid, signal.SIGKILL)
            except OSError:
                pass
            self._unreaped, self._pid = self._pid, None
        if wait and self._unreaped is not None:
            try:
                os.waitpid(self._unreaped, 0)
            except OSError:  # ChildProcessError: reaped already
                pass
            self._unreaped = None
        if _worker is self and self._unreaped is None:
            _worker = None

    # -- here -----------------------------------------------------------------------------------
    def _ask(self, op: int, payload: str | list[str], limit: int | None) -> object:
        """The worker's answer to one request, or ``None`` (it failed: counting goes in-process)."""
        self.name  # noqa: B018 - the first reply says the encoder is ready
        with self._lock:
            if self._pid is None:
                return None
            try:
                _write(self._request_fd, marshal.dumps((op, payload, limit)), REPLY_TIMEOUT_S)
            except (OSError, ValueError):
                self.close()
                return None
            return self._reply_locked()

    def _reply(self) -> object:
        if self._pid is None:
            return None
        return self._reply_locked()

    def _reply_locked(self) -> object:
        try:
            return marshal.loads(_read(self._reply_fd, REPLY_TIMEOUT_S))
        except (OSError, EOFError, ValueError, TypeError, TimeoutError):
            self.close()
            return None

    def _fallback_name(self) -> str:
        return str(getattr(self._in_process(), "name", "chars/4"))

    def _in_process(self) -> Encoder:
        if self._local is None:
            self._local = get_encoder(self.model)
        return self._local


def _write(fd: int, data: bytes, timeout: float | None = None) -> None:
    """``data``, framed, on ``fd``.

    With ``timeout`` (``fd`` non-blocking): TimeoutError once the reader took nothing that long.
    """
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        if timeout is not None and not select.select([], [fd], [], timeout)[1]:
            raise TimeoutError
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            continue


def _read(fd: int, timeout: float | None) -> bytes:
    """One framed message from ``fd``; EOFError when it closes, TimeoutError past ``timeout``."""
    header = _read_exactly(fd, _HEADER.size, timeout)
    return _read_exactly(fd, _HEADER.unpack(header)[0], timeout)


def _read_exactly(fd: int, size: int, timeout: float | None) -> bytes:
    chunks: list[bytes] = []
    while size:
        if timeout is not None and not select.select([fd], [], [], timeout)[0]:
            raise TimeoutError
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


# -- the worker ---------------------------------------------------------------------------------
def _serve(model: str | None, request_fd: int, reply_fd: int) -> None:
    """The forked worker's whole life: load, answer until the pipe closes, ``os._exit``."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for other in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(other, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        keep = sorted({request_fd, reply_fd})  # nothing else inherited stays open (the store)
        os.closerange(3, keep[0])
        os.closerange(keep[0] + 1, keep[1])
        os.closerange(keep[1] + 1, max(keep[1] + 1, os.sysconf("SC_OPEN_MAX")))
        from goosectx.token_batch import count_each
        from goosectx.token_pieces import token_len, token_len_whole

        encoder = get_encoder(model)
        _write(reply_fd, marshal.dumps(str(getattr(encoder, "name", "chars/4"))))
        while True:
            try:
                op, payload, limit = marshal.loads(_read(request_fd, None))
            except EOFError:
                break
            if op == _WHOLE:
                answer: tuple[int, bool] | list[int] = token_len_whole(encoder, payload, limit)
            else:
                answer = count_each(lambda text: token_len(encoder, text), payload)
            _write(reply_fd, marshal.dumps(answer))
    except BaseException:  # noqa: BLE001 - the parent sees the pipe close and counts itself
        code = 1
    finally:
        os._exit(code)
