"""``goosectx compact SESSION --undo``: walk back a saved session's last compaction.

The command's other half, :mod:`goosectx.cli.compact_cmd`, shares its cancel and save
bookkeeping (:mod:`goosectx.cli.compact_cancel`) and the request context it estimates from.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from goosectx.cli.compact_cancel import print_undo_refusal, progress
from goosectx.cli.compact_cmd import cancellable, found_id, record_saved, request_context
from goosectx.cli.sanitize import terminal_safe
from goosectx.cli.words import plural
from goosectx.compaction.manager import ContextManager
from goosectx.config import Settings
from goosectx.errors import GoosectxError, UsageError
from goosectx.session import Session

if TYPE_CHECKING:
    from goosectx.events import CompactionUndone
    from goosectx.store import SessionStore


def undo_session(settings: Settings, session_ref: str, *, as_json: bool,
                 conflicts: Sequence[str] = ()) -> int:
    """``goosectx compact SESSION --undo``: walk back the session's last compaction.

    The same :meth:`~goosectx.compaction.manager.ContextManager.undo_compaction` as the REPL's
    ``/undo-compact``, persisted by the recorder in one transaction. No model is called (nor
    litellm imported): ``current`` is re-estimated from the restored view.

    Returns:
        The exit code (0).

    Raises:
        UsageError: ``conflicts`` names options that do not go with ``--undo``.
        NothingToUndo: no compaction to walk back (exit 1, nothing changed).
        SessionNotFound, SessionAmbiguous, SessionInUse: SESSION cannot be changed now.
    """
    from goosectx.cli.common import resolve_session

    session_id: str | None = None
    progress.saved = False
    try:
        if conflicts:
            raise UsageError(f"--undo does not go with {', '.join(conflicts)}",
                             "run goosectx compact SESSION --undo alone (--json allowed)")
        store, session_id = resolve_session(settings, session_ref)
        return cancellable(lambda: _undo(settings, store, session_id, as_json=as_json), "undo")
    except GoosectxError as exc:
        if as_json:  # as a refused compaction: the outcome on stdout too
            print_undo_refusal(found_id(settings, session_ref, session_id, exc), exc)
        raise


def _undo(settings: Settings, store: SessionStore, session_id: str, *, as_json: bool) -> int:
    """Walk back the resolved session's last compaction; closes ``store``."""
    from goosectx.events import CompactionUndone
    from goosectx.recorder import SessionRecorder

    try:
        lock = store.lock(session_id)
        try:
            session = store.load(session_id)
            manager = ContextManager(session, settings, None)
            request = request_context(settings, session)
            recorder = SessionRecorder(store, session)
            recorder.fresh_token_counts = manager.take_fresh_token_counts
            for event in manager.undo_compaction(request):
                if isinstance(event, CompactionUndone):
                    record_saved(recorder, event)
                    _print_undo(session, event, as_json, _limit(settings, session))
                else:
                    recorder.record(event)
            return 0
        finally:
            lock.release()
    finally:
        store.close()


def _limit(settings: Settings, session: Session) -> int:
    """The session's context limit as ``sessions list`` knows it, without importing litellm."""
    from goosectx.cli.sessions_list import listed_limit

    return listed_limit(settings, session.model or settings.model, session.state).tokens


def _print_undo(session: Session, event: CompactionUndone, as_json: bool,
                context_limit_tokens: int) -> None:
    from goosectx.compaction.undo import over_limit_note, undo_figures

    if as_json:
        print(json.dumps({
            "session_id": session.id, "undone_compaction_id": event.compaction_id,
            "restored_messages": event.restored_count, "tokens_before": event.tokens_before,
            "tokens_after": event.tokens_after,
            "tokens_after_is_estimate": event.after_is_estimate,
            "auto_compaction_paused": event.auto_compaction_paused,
            "context_limit_tokens": context_limit_tokens,
            "fits_context_limit": event.tokens_after <= context_limit_tokens}))
        return
    figures = undo_figures(event.tokens_before, event.tokens_after, event.after_is_estimate,
                           event.after_estimate_tokens)
    print(terminal_safe(
        f"Undid the last compaction of {session.display_name}: the model sees the "
        f"{plural(event.restored_count, 'message')} it had replaced again · {figures} · "
        "auto-compaction paused until the next "
        "/compact (or a compaction a too-long request forces)"))
    over = over_limit_note(event.tokens_after, context_limit_tokens)
    if over:
        print(over)
