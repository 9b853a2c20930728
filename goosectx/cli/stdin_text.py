"""Standard input decoded as UTF-8, and leniently (docs/architecture.md §1).

Every command sets :func:`utf8_stdin` up at start-up (``cli.dispatch``): this module is kept
apart from ``task_input`` (``run``'s task, its :class:`~goosectx.cli.task_input.Piped` data)
so that no other command imports that one (~0.8 ms of CPU at each start).
"""

from __future__ import annotations

import codecs
import sys
from typing import TextIO


def utf8_stdin() -> None:
    """``sys.stdin`` read as UTF-8 whatever the locale (its ``errors`` kept).

    Under ``LC_ALL=C`` without Python's UTF-8 mode stdin decodes ASCII: UTF-8 piped into the
    REPL reached the model as U+FFFD. Done before anything reads it.
    """
    stdin = sys.stdin
    if stdin is None or not hasattr(stdin, "reconfigure"):
        return
    try:
        if codecs.lookup(stdin.encoding or "ascii").name != "utf-8":
            stdin.reconfigure(encoding="utf-8", errors=stdin.errors or "strict")
    except (LookupError, ValueError, OSError):
        return  # an unknown codec, or a stream already read: left as it is


def lenient(stdin: TextIO) -> TextIO:
    """``stdin`` decoding a byte that is not UTF-8 as U+FFFD instead of raising.

    Python opens stdin with ``errors="strict"`` in most UTF-8 locales (``surrogateescape``
    only in C / C.UTF-8): a Latin-1 byte piped in then ended the REPL with a traceback, and
    one typed in an answer (``run``'s approval question, a ``[y/N]``) ended goosectx.
    """
    if getattr(stdin, "errors", None) == "strict" and hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="replace")
    return stdin
