"""Loading the token encoding in a worker process while this one loads the session.

Part of token counting (docs/architecture.md §5; used by :mod:`goosectx.tokens`). Building
tiktoken's encoder holds the GIL for ~0.15–0.35 s, so a thread cannot overlap it with the
session's load; a process forked before the store is opened can, on another core. A command
that will certainly count (a real extractive compaction) calls :func:`start` first thing; the
worker builds the encoder (:func:`goosectx.encoding.get_encoder`, the same call as in this
process), then answers count requests over a pipe — a whole text, or a batch of texts per round
trip — with the functions the in-process count uses (:mod:`goosectx.token_pieces`), so the
figures are the same. A long batch is counted on both processes at once while another CPU is
idle (:func:`goosectx.token_batch.thread_count`): part of it goes to the worker, this process
counts the rest meanwhile (with its own encoder, loaded while the worker counts a batch whole
once enough is still to count to pay for the load) and then reads the reply; the part each
gets follows how fast each counted the batch before, so both finish together. Neither uses
counting threads (two processes already use the two cores: threads would only take turns with
them); on a busy machine the worker counts each batch whole while this process waits, as it
did before batches were shared.

The worker never touches the database (it closes every inherited descriptor but its pipes),
never prints (its standard streams are ``/dev/null``), ignores SIGINT and exits when its pipe
closes (this process ended, or :func:`stop`). On any failure — no ``os.fork``, the worker died,
a reply that is not one, no reply within :data:`REPLY_TIMEOUT_S` — this process kills and
reaps it and counts in-process as it does without a worker. An interrupt (Ctrl-C) while a
request is out kills it too: its reply, still to come, must not be read as a later request's.
"""

from __future__ import annotations

import marshal
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from goosectx import token_batch
from goosectx.encoder_pipe import MANY, WHOLE, read_frame, serve, write_frame
from goosectx.encoding import Encoder, encoding_name, get_encoder
from goosectx.token_pieces import token_len, token_len_whole

REPLY_TIMEOUT_S = 30.0
"""Longest wait for one reply (the first includes loading the encoding); then: in-process."""
TRIP_CHARS = 1 << 23
"""About how many characters of text one round trip carries (bounds the memory a batch takes)."""
SPLIT_CHARS = 1 << 16
"""Characters of a batch from which this process counts part of it while the worker counts the
rest (below, one round trip costs more than the half it saves)."""
MAX_SHARE = 0.9
"""The most of a shared batch either side gets (so each side's pace is measured again)."""
LOAD_HERE_CHARS = 1 << 23
"""Characters still to count (a batch and those announced after it) from which this process
loads its own encoder, as the worker counts that batch whole, to share the batches after it:
~0.4 s of counting, half of which pays for the ~0.2 s load (a 1k-message history, or a counted
session's compaction, which counts only its summary's pieces, never pays for it)."""

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
        serve(model, request_r, reply_w)
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
        self._share = 0.5
        """The part of a shared batch's characters the worker gets (its pace ÷ both paces)."""

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
        answer = self._ask(WHOLE, text, limit)
        if (isinstance(answer, tuple) and len(answer) == 2 and type(answer[0]) is int
                and type(answer[1]) is bool):
            return answer[0], answer[1]
        self.close()  # failed, or a reply that is not one: from here on, in-process
        return token_len_whole(self._in_process(), text, limit)

    def count_many(self, texts: Sequence[str], then_chars: int = 0,
                   meanwhile: Callable[[], object] | None = None) -> list[int]:
        """The token count of each text, in order: a round trip per :data:`TRIP_CHARS`.

        A trip of :data:`SPLIT_CHARS` or more is shared with this process once it has its own
        encoder (:meth:`_count_shared`); it loads it as the worker counts a trip whole, when
        that trip, the ones after it and ``then_chars`` (characters the caller will ask for
        next) come to :data:`LOAD_HERE_CHARS`. Only while another CPU is idle
        (:func:`goosectx.token_batch.thread_count`, asked at each trip, when the worker is
        idle): on a busy machine the worker counts each trip whole, as this process waits.
        ``meanwhile`` (the caller's work) is called once, while the worker counts the first
        trip (or first, when it does not).
        """
        once = _Once(meanwhile)
        counts: list[int] = []
        left = sum(map(len, texts)) + then_chars
        start = size = 0
        for end, text in enumerate(texts, 1):
            size += len(text)
            if size >= TRIP_CHARS or end == len(texts):
                counts += self._count_trip(texts[start:end], size, left, once)
                start, left, size = end, left - size, 0
        once()
        return counts

    def _count_trip(self, texts: Sequence[str], size: int, left: int,
                    meanwhile: Callable[[], object]) -> list[int]:
        if self._pid is None:  # closed (or failed): no round trip, no split
            meanwhile()
            return self._count_here(texts)
        share = (size >= SPLIT_CHARS and (self._local is not None or left >= LOAD_HERE_CHARS)
                 and token_batch.thread_count() >= 2)  # else the two would only take turns
        if share and self._local is not None:
            if getattr(self._local, "name", "chars/4") == self.name:  # it loaded here too
                return self._count_shared(texts, size, meanwhile)

        def both() -> None:
            meanwhile()
            if share and self._local is None:
                self._in_process()  # loads it

        answer = _counts(self._ask(MANY, list(texts), None, meanwhile=both), len(texts))
        if answer is None:  # failed, or a reply that is not one: from here on, in-process
            self.close()
            meanwhile()
            return self._count_here(texts)
        return answer[0]

    def _count_shared(self, texts: Sequence[str], size: int,
                      meanwhile: Callable[[], object]) -> list[int]:
        """Counts of ``texts``: the worker counts the first ones while this process counts the rest.

        The worker gets its :attr:`_share` of the characters; how fast each side counted its
        part (this side's ``meanwhile`` included) sets the share of the next trip. What the
        worker fails to count is counted here.
        """
        local = self._in_process()
        cut = theirs_chars = 0
        while cut < len(texts) and theirs_chars < size * self._share:
            theirs_chars += len(texts[cut])
            cut += 1
        theirs, rest = list(texts[:cut]), texts[cut:]
        self.name  # noqa: B018 - the first reply says the encoder is ready
        with self._lock:
            started = time.perf_counter()
            sent = bool(theirs) and self._send(MANY, theirs, None)
            try:
                meanwhile()
                mine = [token_len(local, text) for text in rest]
                mine_s = time.perf_counter() - started
                answer = _counts(self._reply_locked(), len(theirs)) if sent else None
            except BaseException:  # Ctrl-C: the reply still to come must never be read
                if sent:
                    self.close()
                raise
            if answer is None:  # failed, or a reply that is not one: from here on, in-process
                self.close()
                return self._count_here(theirs) + mine
            counts, theirs_s = answer
            if rest and theirs_s > 0 and mine_s > 0:
                theirs_pace, mine_pace = theirs_chars / theirs_s, (size - theirs_chars) / mine_s
                goal = theirs_pace / (theirs_pace + mine_pace)
                self._share = min(MAX_SHARE, max(1 - MAX_SHARE, (self._share + goal) / 2))
        return counts + mine

    def _count_here(self, texts: Sequence[str]) -> list[int]:
        """Counts of ``texts`` in this process, as without a worker (on threads when long)."""
        local = self._in_process()
        return token_batch.count_each(lambda text: token_len(local, text), texts)

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
    def _ask(self, op: int, payload: str | list[str], limit: int | None,
             meanwhile: Callable[[], object] | None = None) -> object:
        """The worker's answer to one request, or ``None`` (it failed: counting goes in-process).

        ``meanwhile`` is called once the request is out, before the reply is read.
        """
        self.name  # noqa: B018 - the first reply says the encoder is ready
        with self._lock:
            if not self._send(op, payload, limit):
                return None
            try:
                if meanwhile is not None:
                    meanwhile()
                return self._reply_locked()
            except BaseException:  # Ctrl-C: the reply still to come must never be read
                self.close()
                raise

    def _send(self, op: int, payload: str | list[str], limit: int | None) -> bool:
        """Write one request (the lock held); False when the worker is closed or fails here."""
        if self._pid is None:
            return False
        try:
            write_frame(self._request_fd, marshal.dumps((op, payload, limit)), REPLY_TIMEOUT_S)
        except (OSError, ValueError):
            self.close()
            return False
        except BaseException:  # Ctrl-C mid-write: the request is cut, the pipe unusable
            self.close()
            raise
        return True

    def _reply(self) -> object:
        if self._pid is None:
            return None
        return self._reply_locked()

    def _reply_locked(self) -> object:
        try:
            return marshal.loads(read_frame(self._reply_fd, REPLY_TIMEOUT_S))
        except (OSError, EOFError, ValueError, TypeError, TimeoutError):
            self.close()
            return None
        except BaseException:  # Ctrl-C mid-reply: the rest of it must never be read
            self.close()
            raise

    def _fallback_name(self) -> str:
        return str(getattr(self._in_process(), "name", "chars/4"))

    def _in_process(self) -> Encoder:
        if self._local is None:
            self._local = get_encoder(self.model)
        return self._local


class _Once:
    """A callable that calls ``call`` (if any) the first time only."""

    def __init__(self, call: Callable[[], object] | None) -> None:
        self._call = call

    def __call__(self) -> None:
        call, self._call = self._call, None
        if call is not None:
            call()


def _counts(answer: object, texts: int) -> tuple[list[int], float] | None:
    """A batch's reply, (a count per text, the worker's seconds on it), when it is one."""
    if (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], list)
            and len(answer[0]) == texts and all(type(n) is int for n in answer[0])
            and type(answer[1]) is float):
        return answer[0], answer[1]
    return None
