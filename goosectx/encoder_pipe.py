"""The encoder worker's pipe: its framing, and the forked worker's whole life.

Part of token counting (docs/architecture.md §5; :mod:`goosectx.encoder_worker` forks the
worker and asks it). Each message is a little-endian 8-byte length, then that many bytes of
:mod:`marshal` data: a request is ``(op, payload, limit)`` (:data:`WHOLE`: one text counted
whole, up to ``limit``; :data:`MANY`: a batch of texts), a reply its answer. The worker
(:func:`serve`) loads the encoding, answers until its request pipe closes and exits with
``os._exit``; it never touches the database, never prints and ignores SIGINT.
"""

from __future__ import annotations

import marshal
import os
import select
import signal
import struct
import time

from goosectx.encoding import get_encoder
from goosectx.token_pieces import token_len, token_len_whole

HEADER = struct.Struct("<Q")
"""A frame's length prefix."""
WHOLE, MANY = 0, 1
"""The two requests: one text counted whole (up to a limit), a batch counted text by text."""


def write_frame(fd: int, data: bytes, timeout: float | None = None) -> None:
    """``data``, framed, on ``fd``.

    With ``timeout`` (``fd`` non-blocking): TimeoutError once the reader took nothing that long.
    """
    view = memoryview(HEADER.pack(len(data)) + data)
    while view:
        if timeout is not None and not select.select([], [fd], [], timeout)[1]:
            raise TimeoutError
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            continue


def read_frame(fd: int, timeout: float | None) -> bytes:
    """One framed message from ``fd``; EOFError when it closes, TimeoutError past ``timeout``."""
    header = _read_exactly(fd, HEADER.size, timeout)
    return _read_exactly(fd, HEADER.unpack(header)[0], timeout)


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


def serve(model: str | None, request_fd: int, reply_fd: int) -> None:
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
        encoder = get_encoder(model)
        write_frame(reply_fd, marshal.dumps(str(getattr(encoder, "name", "chars/4"))))
        while True:
            try:
                header = _read_exactly(request_fd, HEADER.size, None)
            except EOFError:
                break
            started = time.perf_counter()
            op, payload, limit = marshal.loads(
                _read_exactly(request_fd, HEADER.unpack(header)[0], None))
            if op == WHOLE:
                answer: tuple[int, bool] | tuple[list[int], float] = token_len_whole(
                    encoder, payload, limit)
            else:  # one text after the other: this process counts the rest of the batch
                answer = ([token_len(encoder, text) for text in payload],
                          time.perf_counter() - started)
            write_frame(reply_fd, marshal.dumps(answer))
    except BaseException:  # noqa: BLE001 - the parent sees the pipe close and counts itself
        code = 1
    finally:
        os._exit(code)
