"""``run``'s result object when it ends with an error before its turn, for a script to read.

``--output-format json`` writes one object and ``stream-json`` ends with exactly one
``result`` line (README, docs/architecture.md §3), errors included: ``{"status": "error",
"exit_code": 2, "error": "…"}``. An error ``run`` meets once started (the session is in use,
the name taken, the key refused) is written by :mod:`goosectx.cli.run_cmd`; one met before
(a task on stdin that is not UTF-8 or empty, a bad option value such as ``--max-turns 0``,
a bad ``GOOSE_CONTEXT_LIMIT``) by ``cli.dispatch``'s error handling through :func:`after_error`,
which reads the format from the command line: a bad option stops the command before its
body runs. Kept apart (and light) so the error path imports nothing heavy.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Sequence
from typing import Any, TextIO

from goosectx.cli import early_cancel
from goosectx.cli.early_cancel import RESULT_FORMATS

__all__ = ["RESULT_FORMATS", "after_error", "requested_format", "result_written",
           "write_failed", "write_start_result"]


class _Written:
    """Whether this command wrote its result object already (:func:`result_written`)."""

    done = False


def result_written(done: bool = True) -> None:
    """Note that the result object was written (``done``), or not yet (a command starts).

    ``run``'s outputs call it as they write their result, so an error after that (a store
    that fails to close) does not add a second one.
    """
    _Written.done = done


def write_failed(output_format: str, out: TextIO, error: str, exit_code: int) -> None:
    """Write the result of a run that failed before its turn (nothing for ``text``).

    ``json``: one object (``session_id`` null, ``status`` ``error``, ``error``,
    ``exit_code``, …); ``stream-json``: the ``result`` line alone (no turn started).
    A stdout that cannot be written is left as it is (the error line on stderr still comes).
    """
    failed: dict[str, Any] = {
        "session_id": None, "status": "error", "error": error, "exit_code": exit_code,
        "usage": None, "cost_usd": None, "compactions": 0, "denied_calls": []}
    write_start_result(output_format, out, failed)


def write_start_result(output_format: str, out: TextIO, result: dict[str, Any]) -> None:
    """Write ``result``, the outcome of a run that ended before its turn (failed or cancelled).

    ``json``: the object; ``stream-json``: the ``result`` line alone — no turn started, so
    no ``turn_finished`` (nor ``session_started``) precedes it; ``text``: nothing. Marks the
    result written; a stdout that cannot be written is left as it is.
    """
    if output_format not in RESULT_FORMATS:
        return
    from goosectx.cli.ascii_output import json_text
    from goosectx.cli.run_output import result_fields

    _Written.done = True
    with contextlib.suppress(OSError, ValueError):
        if output_format == "json":
            out.write(json_text(result, out) + "\n")
        else:
            out.write(json_text({"type": "result", **result_fields(result)}, out) + "\n")
        out.flush()


def requested_format(args: Sequence[str], valued: Collection[str]) -> str | None:
    """``json`` / ``stream-json`` when ``args`` are the ``run`` command asking for it.

    Read as :func:`goosectx.cli.early_cancel.requested_format` reads it (``valued``: the
    options that take a value).
    """
    found = early_cancel.requested_format(list(args), set(valued))
    return found if found in RESULT_FORMATS else None


def after_error(args: Sequence[str], valued: Collection[str], out: TextIO, error: str,
                exit_code: int) -> None:
    """The result of a ``run`` in a JSON format that ended with ``error``, unless written.

    Called by ``cli.dispatch`` for every error it reports, before its one line on stderr;
    ``valued``: as :func:`requested_format` takes it.
    """
    written, _Written.done = _Written.done, False
    output_format = requested_format(args, valued)
    if output_format is not None and not written:
        write_failed(output_format, out, error, exit_code)
        _Written.done = False
