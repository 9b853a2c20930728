r"""The task of ``goosectx run``: ``-t TEXT`` or ``-i FILE`` (``-`` = stdin), as text to send.

Bytes that are not UTF-8 become U+FFFD wherever the task comes from: a task file is decoded
with ``errors="replace"``, stdin is read as bytes and decoded the same way, and ``-t`` (which
Python decodes with ``surrogateescape``, a byte such as Latin-1 ``\xe9`` becoming a lone
surrogate no encoder or provider accepts) has its lone surrogates replaced.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from goosectx.errors import UsageError
from goosectx.store.replacing import replace_surrogates


def lenient(stdin: TextIO) -> TextIO:
    """``stdin`` decoding a byte that is not UTF-8 as U+FFFD instead of raising.

    Python opens stdin with ``errors="strict"`` in most UTF-8 locales (``surrogateescape``
    only in C / C.UTF-8): a Latin-1 byte piped in then ended the REPL with a traceback, and
    one typed in an answer (``run``'s approval question, a ``[y/N]``) ended goosectx.
    """
    if getattr(stdin, "errors", None) == "strict" and hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="replace")
    return stdin


def read_stdin(stdin: TextIO) -> str:
    """All of ``stdin``; read as bytes when it has them, bytes not UTF-8 as U+FFFD."""
    buffer = getattr(stdin, "buffer", None)
    if buffer is None:  # a text stream (tests)
        return stdin.read()
    data: bytes = buffer.read()
    return data.decode("utf-8", errors="replace")


def read_task(text: str | None, input_file: str | None, stdin: TextIO | None = None) -> str:
    """The task from ``-t TEXT`` or ``-i FILE`` (``-`` = stdin), bytes not UTF-8 as U+FFFD.

    Raises:
        UsageError: both or neither given, an unreadable file, or an empty task.
    """
    if (text is None) == (input_file is None):
        raise UsageError("give the task with exactly one of -t TEXT and -i FILE",
                         "e.g. goosectx run -t 'fix the failing test' (or -i - to read stdin)")
    if input_file is None:
        task = text or ""
    elif input_file == "-":
        task = read_stdin(stdin or sys.stdin)
    else:
        try:
            task = Path(input_file).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise UsageError(f"cannot read task file {input_file}: {exc.strerror}") from None
    if not task.strip():
        raise UsageError("the task is empty", "give some text with -t or -i")
    return replace_surrogates(task)
