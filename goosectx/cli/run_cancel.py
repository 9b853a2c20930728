"""``run`` cancelled (Ctrl-C, SIGTERM, SIGHUP) before its turn began: the lines, the exit code.

Start-up takes seconds (litellm's import, the session, extension servers). A cancel then ends
``run`` as one later does: ``goosectx: cancelled (SIGTERM)``, exit 130 / 143 / 129. The task is
saved as the user's message when the session was open by then (the resume line follows), else
the user is told it was not saved. Kept apart from :mod:`goosectx.cli.run_cmd` (whose import
may be what was interrupted).
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, TextIO

from goosectx.cli.early_cancel import NOT_SAVED, cancelled_result
from goosectx.cli.exit_signals import exit_status, received_name

if TYPE_CHECKING:
    from goosectx.cli.common import OpenSession
    from goosectx.conversation import Message


def cancelled_at_start(output_format: str, *, stdout: TextIO | None = None,
                       stderr: TextIO | None = None, opened: OpenSession | None = None,
                       task: str | None = None, saved: Message | None = None,
                       close: bool = False) -> int:
    """Say the run was cancelled, save ``task`` in ``opened`` if it is not yet; the exit code.

    Args:
        output_format: ``text``, ``json`` or ``stream-json`` (the last two get their result).
        stdout: Where the result goes (default ``sys.stdout``).
        stderr: Where the lines go (default ``sys.stderr``).
        opened: The session, when it was open by then.
        task: The task, to save as the user's message unless ``saved`` is.
        saved: The task's message when it was saved already (``run --resume``).
        close: Close ``opened`` here (the caller does not).
    """
    out, err = stdout or sys.stdout, stderr or sys.stderr
    message = saved
    if opened is not None:
        if message is None and task is not None:
            message = _save(opened, task)
        if close:
            with contextlib.suppress(Exception):
                opened.close()
    code = exit_status(130)
    saved_in = opened if message is not None else None
    if output_format in ("json", "stream-json"):
        _result(out, output_format, code, saved_in, message)
    _say(err, saved_in)
    return code


def cancelled_after_turn(stderr: TextIO, opened: OpenSession) -> int:
    """A cancel that landed once the turn had ended, as it was reported: the lines, the code.

    The turn is recorded by then; its result may be written already, so none is added.
    """
    _say(stderr, opened)
    return exit_status(130)


def _say(err: TextIO, saved_in: OpenSession | None) -> None:
    """``goosectx: cancelled (SIGTERM)``, then the resume line (or that nothing was saved)."""
    by = received_name()
    lines = f"goosectx: cancelled{f' ({by})' if by else ''}\n"
    if saved_in is not None:
        from goosectx.cli.common import resume_command, session_ref
        from goosectx.cli.sanitize import one_line_safe, terminal_safe

        lines += terminal_safe(
            f"goosectx: session {one_line_safe(saved_in.session.display_name)} saved · resume "
            f"with: {resume_command(session_ref(saved_in.session), command='run')}\n")
    else:
        lines += NOT_SAVED
    with contextlib.suppress(OSError, ValueError):
        err.write(lines)
        err.flush()


def _save(opened: OpenSession, task: str) -> Message | None:
    """``task`` recorded as the user's message in ``opened`` (``None``: the store refused)."""
    from goosectx.conversation import Message
    from goosectx.events import MessageCompleted
    from goosectx.recorder import SessionRecorder

    message = Message.user(task)
    try:
        SessionRecorder(opened.store, opened.session).record(MessageCompleted(message))
    except Exception:  # noqa: BLE001 - closed or failing store: said "not saved"
        return None
    opened.session.conversation.append(message)
    return message


def _result(out: TextIO, output_format: str, code: int, opened: OpenSession | None,
            message: Message | None) -> None:
    """The ``json`` object / ``stream-json`` last lines of a run cancelled at start-up."""
    from goosectx.cli.run_failed import write_start_result

    session = opened.session if opened is not None else None
    write_start_result(output_format, out, cancelled_result(
        code, session_id=session.id if session else None,
        session_name=session.display_name if session and session.name else None,
        messages=[message.to_dict()] if message is not None else None))
