"""What the REPL says when a turn or a save fails, and on leaving (docs/architecture.md §1).

Split from :mod:`goosectx.cli.repl` (the read–run–render loop) to keep it small: a failed
turn's report (a ``GoosectxError`` as one line, a bug with its traceback), a turn not sent for
want of a model (its line kept for the prompt), recording an event (a failed save said once),
and the exit line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goosectx.cli import reports
from goosectx.cli.common import resume_command, session_is_kept, session_ref
from goosectx.errors import GoosectxError
from goosectx.events import Event
from goosectx.message import Message

if TYPE_CHECKING:
    from goosectx.cli.repl import Repl


def report_failure(repl: Repl, error: BaseException) -> None:
    """Draw why a turn ended early: an error's one line, a cancel, or a bug's traceback."""
    if isinstance(error, GoosectxError):
        repl.renderer.error(error.message, error.hint)
    elif isinstance(error, KeyboardInterrupt):
        repl.renderer.notice("turn cancelled", style="yellow")
    else:
        from rich.traceback import Traceback

        repl.renderer.settle()  # not inside an except block: build the traceback explicitly
        repl.io.console.print(Traceback.from_exception(type(error), error, error.__traceback__))
        repl.renderer.error(f"bug: {type(error).__name__}: {error}",
                            "the session is saved; please report this with the traceback")


def record(repl: Repl, event: Event) -> None:
    """Save ``event`` through the recorder; the first failed save is drawn as an error.

    Later events wait behind it (:class:`~goosectx.recorder.SessionRecorder`) and are not
    reported again; the exit line says what never reached the store.
    """
    failing = repl.recorder.unsaved > 0
    try:
        repl.recorder.record(event)
    except GoosectxError as exc:
        if not failing:
            repl.renderer.error(f"could not save to the session: {exc.message}",
                                f"{exc.hint or 'retry'} (goosectx tries again, in order, "
                                "with each new message)")


def take_back(repl: Repl, message: Message | None) -> None:
    """The turn was not sent after all: remove its early-saved user message again."""
    if message is None:
        return
    repl.session.conversation.messages.remove(message)
    try:
        repl.recorder.retract(message)
    except GoosectxError as exc:
        repl.renderer.error(f"could not save to the session: {exc.message}", exc.hint)


def not_sent(repl: Repl, typed: str, late: GoosectxError | None) -> None:
    """No usable model: say so; ``typed`` comes back in the prompt once ``/model`` sets one.

    ``late``: what the background check found (e.g. no API key); ``None``: no model is
    configured. The line is also in the input history, but ``/model NAME`` comes after it
    there, so the first prompt after a ``/model`` that worked holds it (:func:`unsent`),
    for Enter to send. Plain input has no prompt to fill: the user sends it again.
    """
    repl.unsent = typed
    back = ("then send it again" if repl.prompt_session is None else
            "your message then comes back in the prompt, for Enter to send")
    if late is None:
        repl.renderer.error("not sent: no model is configured",
                            f"choose one with /model NAME (e.g. /model openai/gpt-4o-mini); "
                            f"{back}")
        return
    repl.renderer.panel(reports.no_model_text(repl.settings, late),
                        title="the model is not ready", style="yellow")
    repl.renderer.notice(f"not sent — switch with /model NAME ({back}), or fix the above "
                         "and restart goosectx")


def unsent(repl: Repl) -> str:
    """The next prompt's text: the line :func:`not_sent` kept, once a model is usable; else ''."""
    loader = repl.loader
    if repl.unsent is None or loader.setup_error is not None or loader.late_error is not None:
        return ""
    text, repl.unsent = repl.unsent, None
    return text


def save_figure(repl: Repl) -> None:
    """Store the context figure the toolbar shows, for ``sessions list`` (when it changed).

    A failed write is not said: it is tried again at the next one, and until then the list
    says the figure is unknown.
    """
    try:
        repl.recorder.save_figure()
    except GoosectxError:
        pass


def is_kept(repl: Repl) -> bool:
    """False for a new session with no message yet: it is removed when the REPL closes."""
    try:
        return session_is_kept(repl.store, repl.session.id, resumed=repl.resumed)
    except GoosectxError:
        return True  # the store failed: do not claim the session is gone


def goodbye(repl: Repl) -> bool:
    """The exit line: saved (and how to resume), NOT fully saved, or nothing to save.

    Returns:
        False when the session is NOT fully saved (the REPL then exits 1).
    """
    try:
        repl.recorder.flush()  # the writes a full disk held back: one more try
        repl.recorder.save_counts(wait=True)  # a later resume does not count it again
        save_figure(repl)
    except GoosectxError as exc:
        if repl.recorder.unsaved:
            unsaved_notice(repl, exc)
            return False
    if not is_kept(repl):
        repl.renderer.notice("nothing to save · no message was sent in this session")
        return True
    ref = session_ref(repl.session)
    repl.renderer.notice(f"saved · resume with: {resume_command(ref)}")
    return True


def unsaved_notice(repl: Repl, error: GoosectxError) -> None:
    """Say the session is NOT fully saved: what is lost, why, and what the store still has."""
    ref = session_ref(repl.session)
    count = repl.recorder.unsaved_messages
    lost = ("the last change is lost" if count == 0 else "the last message is lost"
            if count == 1 else f"the last {count} messages are lost")
    fix = "free some space, then " if error.message.startswith("disk full") else ""
    repl.renderer.notice(f"session NOT fully saved: {lost} ({error.message}) · {fix}resume "
                         f"the saved part with: {resume_command(ref)}", style="bold red")
