r"""The task of ``goosectx run``: ``-t TEXT``, ``-i FILE`` (``-`` = stdin) or piped stdin.

Standard input is read without ``-i -`` only when it is a pipe or a regular file
(``echo task | goosectx run``, ``goosectx run -t 'summarise this' < log``): never a terminal,
nor a character device such as ``/dev/null`` or the idle stdin a CI runner or a parent
process leaves open, which may never end. With no ``-t``/``-i`` it is the task; with one, it
is data the task is about (:class:`Piped`: at most :data:`PIPED_KEPT_BYTES` of each end kept
while it is read, the cap applied once the context limit is known).

A task file (or stdin) that starts with a UTF-16 byte order mark, as Windows editors save
"Unicode" text, is read as UTF-16; a UTF-8 BOM is dropped (it reached the model as U+FEFF).

A task read with ``-i`` or from stdin holds at most :data:`MAX_TASK_BYTES` (16 MB): more is
refused in one line after reading that much, not read whole (``-i /dev/zero``).

A task read with ``-i`` (a file, or stdin read as bytes) must be UTF-8 text without NUL bytes,
as an ``@FILE`` must: a binary or a file in another encoding is refused in one line (it was
sent, NULs and U+FFFD included, and stored). ``-t`` (which Python decodes with
``surrogateescape``, a byte such as Latin-1 ``\xe9`` typed in a terminal becoming a lone
surrogate no encoder or provider accepts) has its lone surrogates replaced by U+FFFD.
"""

from __future__ import annotations

import os
import stat
import sys
from collections import deque
from dataclasses import dataclass
from typing import BinaryIO, TextIO

from goosectx.errors import UsageError

MAX_TASK_BYTES = 16 * 2**20
"""The most a task read with ``-i`` or from stdin may hold: over any model's context (2M
tokens are some 8 MB of text). Read no further, so ``-i /dev/zero`` or ``yes | goosectx
run`` is one line instead of a process filling the machine's memory."""


def _read_capped(source: BinaryIO, where: str, fix: str) -> bytes:
    """At most :data:`MAX_TASK_BYTES` of ``source``; UsageError when it holds more."""
    data = source.read(MAX_TASK_BYTES + 1)
    if len(data) > MAX_TASK_BYTES:
        raise UsageError(f"{where} holds more than {MAX_TASK_BYTES // 2**20} MB, more than "
                         "any model's context", fix)
    return data


def read_stdin(stdin: TextIO) -> str:
    """``stdin``, read as bytes when it has them (:func:`task_text`), up to 16 MB.

    Raises:
        UsageError: more than :data:`MAX_TASK_BYTES`, or not UTF-8 text.
    """
    buffer = getattr(stdin, "buffer", None)
    if buffer is None:  # a text stream (tests)
        return stdin.read()
    data = _read_capped(buffer, "the task on standard input",
                        "pipe a shorter task, or save the data to a file and give it with "
                        "-t 'TASK @FILE' (a mentioned file is cut to fit)")
    return task_text(data, "the task on stdin")


def task_text(data: bytes, where: str, file: str = "task.txt") -> str:
    """``data`` as UTF-8 text (a BOM dropped), or UTF-16 text when a UTF-16 BOM starts it.

    Raises UsageError for NUL bytes or bytes that are not UTF-8 (UTF-16).
    """
    from goosectx.tools.files import UTF16_BOMS, utf16_fix  # not imported by every command

    if data.startswith(UTF16_BOMS):  # a Windows editor's "Unicode": the BOM says which
        try:
            data = data.decode("utf-16").encode("utf-8")
        except UnicodeError:
            raise UsageError(f"{where} starts as UTF-16 text but is not valid UTF-16",
                             f"convert it to UTF-8 first: {utf16_fix(file)}") from None
    data = data.removeprefix(b"\xef\xbb\xbf")
    if b"\x00" in data:
        raise UsageError(f"{where} is not text (it holds NUL bytes): a binary file?",
                         "give a UTF-8 text file with -i, or the task with -t")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = 1 + data.count(b"\n", 0, exc.start)
        raise UsageError(f"{where} is not UTF-8 text (invalid byte at line {line})",
                         "convert it first, e.g. iconv -f latin1 -t utf-8") from None


PIPED_KEPT_BYTES = 2 * 1024 * 1024
"""Bytes of piped data kept from each end while it is read (the middle of more is counted):
more than the cap of a 2M-token context's ``mention_max_tokens`` (0.1 × the limit) needs at
:data:`goosectx.mentions.READ_BYTES_PER_TOKEN`, and little enough to count quickly."""


@dataclass(frozen=True, slots=True)
class Piped:
    """Data piped to ``run`` alongside ``-t``/``-i FILE``, read but not yet capped.

    Attributes:
        head: The text, or its first part when the middle was not kept.
        tail: Its last part when the middle was not kept, else ``None``.
        skipped_bytes: Bytes of the middle not kept.
        size_bytes: Bytes piped in all.
    """

    head: str
    tail: str | None = None
    skipped_bytes: int = 0
    size_bytes: int = 0


def is_piped(stdin: TextIO | None) -> bool:
    """Whether ``stdin`` is a pipe or a regular file (a terminal, ``/dev/null``: no)."""
    try:
        mode = os.fstat(stdin.fileno()).st_mode if stdin is not None else 0
    except (AttributeError, OSError, ValueError):  # closed, or a test's StringIO
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def read_piped(stdin: TextIO) -> Piped | None:
    """The data piped on ``stdin`` (see :class:`Piped`), ``None`` when it is blank.

    Raises:
        UsageError: it is not UTF-8 text (NUL bytes, invalid bytes).
    """
    # Here, not above: this one would load the whole store package with it (~15 ms).
    from goosectx.store.replacing import replace_surrogates

    buffer = getattr(stdin, "buffer", None)
    if buffer is None:
        text = stdin.read()
        return Piped(replace_surrogates(text)) if text.strip() else None
    head = buffer.read(2 * PIPED_KEPT_BYTES)
    tail, skipped = b"", 0
    if len(head) == 2 * PIPED_KEPT_BYTES:  # more may come: keep the last part as it passes
        head, chunks = head[:PIPED_KEPT_BYTES], deque([head[PIPED_KEPT_BYTES:]])
        kept = PIPED_KEPT_BYTES
        while chunk := buffer.read(1024 * 1024):
            chunks.append(chunk)
            kept += len(chunk)
            while kept - len(chunks[0]) >= PIPED_KEPT_BYTES:  # the oldest is not needed
                kept -= len(dropped := chunks.popleft())
                skipped += len(dropped)
        tail = b"".join(chunks)
    try:
        if not skipped:
            text = task_text(head + tail, _PIPED)
            return Piped(replace_surrogates(text)) if text.strip() else None
        from goosectx.mentions import whole_characters

        size = len(head) + len(tail) + skipped
        # each end cut at a line boundary (else at a character's), as a mentioned file is
        head = head[: head.rfind(b"\n") + 1] or whole_characters(head)
        tail = tail[tail.find(b"\n") + 1:] if b"\n" in tail else whole_characters(tail,
                                                                                end=True)
        return Piped(task_text(head, _PIPED), task_text(tail, _PIPED),
                     size - len(head) - len(tail), size)
    except UsageError as exc:  # its hint is about -i and -t
        raise UsageError(exc.message, "pipe UTF-8 text to goosectx run, or nothing "
                         "(< /dev/null)") from None


_PIPED = "the data piped on standard input"


def read_task(text: str | None, input_file: str | None, stdin: TextIO | None = None) -> str:
    """The task from ``-t TEXT``, ``-i FILE`` (``-`` = stdin), or else piped stdin.

    Raises:
        UsageError: both given, or neither and nothing piped; an unreadable file, input that
            is not UTF-8 text, or an empty task.
    """
    from goosectx.store.replacing import replace_surrogates  # (as in read_piped)

    stdin = stdin or sys.stdin
    if text is not None and input_file is not None:
        raise UsageError("give the task with only one of -t TEXT and -i FILE",
                         "data piped to goosectx run -t TEXT is sent along with the task")
    if text is None and input_file is None:
        if not is_piped(stdin):
            raise UsageError("give the task with -t TEXT, -i FILE or on standard input",
                             "e.g. goosectx run -t 'fix the failing test', or "
                             "echo 'fix the failing test' | goosectx run")
        task = read_stdin(stdin)
        if not task.strip():
            raise UsageError("the task on standard input is empty",
                             "pipe some text in, or give the task with -t or -i")
        return replace_surrogates(task.rstrip())  # the pipe's closing newline is no text
    if input_file is None:
        task = text or ""
    elif input_file == "-":
        task = read_stdin(stdin).rstrip()
    else:
        try:
            with open(input_file, "rb") as source:
                data = _read_capped(source, f"task file {input_file}",
                                    "give a shorter task file, or mention the file in a "
                                    "short task: -t 'TASK @FILE' (a mentioned file is cut "
                                    "to fit)")
        except OSError as exc:
            raise UsageError(f"cannot read task file {input_file}: {exc.strerror}") from None
        task = task_text(data, f"task file {input_file}", input_file)
    if not task.strip():
        raise UsageError("the task is empty", "give some text with -t or -i")
    return replace_surrogates(task)
