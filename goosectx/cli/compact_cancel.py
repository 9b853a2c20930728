"""``goosectx compact``'s failures before its work: Ctrl-C, a bad ``--max-summary-tokens``.

One line, the exit code, and ``--json``'s object (see docs/architecture.md).

Kept apart from :mod:`goosectx.cli.compact_cmd` (whose import may be what was interrupted):
the command marks :data:`progress` once it saved its change, so an interrupt after that is
not called a cancel.
"""

from __future__ import annotations

import json
from typing import NoReturn

import typer

from goosectx.cli.exit_signals import exit_status, received_name
from goosectx.errors import CompactionCancelled, GoosectxError
from goosectx.plain_record import mutable_record


@mutable_record  # compared, printed nowhere (a test)
class Progress:
    """What ``goosectx compact`` did so far in this process."""

    saved: bool = False
    """True once the compaction (or undo) was saved: an interrupt then is not a cancel."""


progress = Progress()
"""The command's progress: :mod:`goosectx.cli.compact_cmd` sets ``saved``."""


def print_refusal(session_id: str | None, exc: GoosectxError, dry_run: bool) -> None:
    """``--json``: a refusal or failure as an object (the one-line error goes to stderr).

    ``session_id`` is ``None`` when the session could not be resolved (no such session, a
    broken database); the session is unchanged either way.
    """
    reason = exc.message.removeprefix("would change nothing: ").removesuffix("; nothing changed")
    outcome = {"would_change": False} if dry_run else {"changed": False}
    print(json.dumps({"session_id": session_id, "dry_run": dry_run, **outcome,
                      "reason": reason, "hint": exc.hint}))


def print_undo_refusal(session_id: str | None, exc: GoosectxError) -> None:
    """``--undo --json``: a refusal or failure as an object, as a refused compaction's."""
    print(json.dumps({"session_id": session_id, "undone_compaction_id": None,
                      "changed": False, "reason": exc.message, "hint": exc.hint}))


def interrupted(what: str) -> CompactionCancelled:
    """The error an interrupt of the ``what`` (``compaction``, ``undo``) becomes.

    Raises:
        typer.Exit: the change was already saved: nothing is said, the exit status is the
            interrupt's (130; 143 / 129 for SIGTERM / SIGHUP).
    """
    if progress.saved:
        raise typer.Exit(exit_status(130))
    return CompactionCancelled(exit_status(130), received_name(), what)


def cancelled_compaction(*, as_json: bool, dry_run: bool, undo: bool) -> NoReturn:
    """An interrupt while the command loads: see :func:`interrupted`."""
    error = interrupted("undo" if undo else "compaction")
    _json_refusal(error, as_json=as_json, dry_run=dry_run, undo=undo)
    raise error from None


def _json_refusal(error: GoosectxError, *, as_json: bool, dry_run: bool, undo: bool) -> None:
    """Under ``--json``, the refusal object of an error before the session was resolved."""
    if as_json:
        if undo:
            print_undo_refusal(None, error)
        else:
            print_refusal(None, error, dry_run)


SUMMARY_TOKENS_RANGE = (100, 100_000_000)
"""What ``--max-summary-tokens`` takes."""


def summary_tokens_option(text: str | None, *, as_json: bool, dry_run: bool,
                          undo: bool) -> int | None:
    """``--max-summary-tokens`` as a number (``None`` when not given).

    Read by the command, not by typer: a bad value is a failure like any other, with its
    object on stdout under ``--json`` (README: any failure with ``--json`` prints one).

    Raises:
        UsageError: not a whole number in :data:`SUMMARY_TOKENS_RANGE` (exit 2).
    """
    from goosectx.cli.typer_params import whole_number

    if text is None:
        return None
    try:
        return whole_number(text, "--max-summary-tokens", *SUMMARY_TOKENS_RANGE)
    except GoosectxError as exc:
        _json_refusal(exc, as_json=as_json, dry_run=dry_run, undo=undo)
        raise
