"""``/sessions`` and ``/resume SESSION`` in the REPL.

``/resume`` switches the REPL to another saved session the way ``goosectx --resume`` opens one:
the other session is locked first (one in use elsewhere is refused and nothing changes), then
the current one's token counts are saved and its lock released (a new session that still holds
no message is removed, as on leaving), and the REPL draws the other's tail
(:func:`goosectx.cli.resume_tail.draw_resumed`). The agent is rebuilt around the loaded session
with the model and approval mode ``goosectx --resume`` would choose for it (this launch's
``--model`` / ``--mode`` first, then the session's own); running extensions stay. Titles,
names and paths are outside text (docs/architecture.md §6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goosectx.cli import repl_agent, repl_outcome
from goosectx.cli.common import lock_and_load, ref_of, session_is_kept
from goosectx.cli.folding import plural
from goosectx.cli.mode_choice import choose_mode
from goosectx.cli.model_choice import choose_model
from goosectx.cli.resume_load import BACKGROUND_FROM
from goosectx.cli.resume_tail import draw_resumed
from goosectx.cli.sanitize import one_line_safe, terminal_safe
from goosectx.cli.sessions_list import NEWEST_IN_REPL, damaged_note, named, print_session_table
from goosectx.cli.sessions_names import names_shown
from goosectx.cli.start_warnings import start_warnings
from goosectx.errors import GoosectxError, SessionNotFound, UsageError
from goosectx.session import Session

if TYPE_CHECKING:
    from goosectx.cli.repl import Repl


def _shown(repl: Repl, session: Session) -> str:
    """``session``'s name as drawn (a key of this run in it reads ``redacted``), else its id."""
    return names_shown(repl.settings)(session.name) or session.id


def _title(repl: Repl, title: str) -> str:
    """``title`` as ``/sessions`` draws it (:func:`~goosectx.cli.sessions_list.named`).

    By the REPL's redactor: :func:`goosectx.env_secrets.tool_output_redactor`, made once.
    """
    return repl.redact_input(title)


def show_sessions(repl: Repl) -> None:
    """``/sessions``: the newest :data:`NEWEST_IN_REPL` sessions, this one marked ``*``."""
    repl_outcome.save_figure(repl)  # this session's row shows what the toolbar does
    rows = repl.store.list_sessions()
    repl.renderer.settle()
    print_session_table(repl.io.console, rows[:NEWEST_IN_REPL], current=repl.session.id,
                        settings=repl.settings)
    for row in rows[:NEWEST_IN_REPL]:
        if row.damaged:
            repl.renderer.notice(damaged_note(row))
    more = len(rows) - NEWEST_IN_REPL
    tail = f"{more} older · goosectx sessions list · " if more > 0 else ""
    repl.renderer.notice(f"{tail}/resume SESSION continues one · "
                         "goosectx sessions search WORDS finds one")


def resume_choices(repl: Repl) -> list[tuple[str, str, str]]:
    """``(what to insert, what to show, title)`` of the other sessions, for ``/resume`` + Tab.

    Newest first. Inserted: the name, or the id for a name that cannot be typed or shown as
    it is (:func:`~goosectx.cli.common.ref_of`); shown as ``sessions list`` shows it.
    """
    try:
        rows = repl.store.list_sessions()
    except GoosectxError:
        return []
    names = [r.name for r in rows]
    rows = named(rows, repl.settings)  # (a name holding a key reads redacted: the id goes in)
    return [(ref_of(r.name, r.id) if r.name == held else r.id, one_line_safe(r.name or r.id),
             r.title or "") for r, held in zip(rows, names, strict=True)
            if r.id != repl.session.id]


def resume(repl: Repl, ref: str) -> None:
    """``/resume SESSION``: save and leave this session, lock, load and draw the other one.

    Raises:
        SessionNotFound, SessionAmbiguous: ``ref`` names no single session.
        SessionInUse: another process drives it (nothing changed).
        UsageError: this REPL does not hold its session's lock (cannot hand it over).
    """
    store = repl.store
    try:
        target = store.resolve(ref)
    except SessionNotFound as exc:  # in the REPL, /sessions lists them
        hint = (f"did you mean {exc.suggestion!r}? /sessions lists them" if exc.suggestion
                else "/sessions lists them; e.g. /resume bugfix")
        raise SessionNotFound(exc.message, hint, exc.suggestion) from None
    if target == repl.session.id:
        repl.renderer.notice(f"already in session {one_line_safe(_shown(repl, repl.session))}")
        return
    opened = repl.opened
    if opened is None:
        raise UsageError("this REPL cannot switch sessions", "leave and run goosectx --resume")
    repl.recorder.flush()  # writes a full disk held back; failing, the user stays here
    repl_outcome.save_figure(repl)
    count = store.message_count(target)
    if count >= BACKGROUND_FROM:  # a long load: say so before the wait
        repl.renderer.notice(f"loading {plural(count, 'message')}…")
    session, lock = lock_and_load(store, target)
    old = repl.session
    repl.recorder.save_counts()
    repl.recorder.start_deferred()  # the old session's, held for a prompt it will not reach
    kept = session_is_kept(store, old.id, resumed=repl.resumed)
    if not kept:
        store.remove(old.id)
        opened.lock.release_removed()
    else:
        opened.lock.release()
    opened.session, opened.lock, opened.resumed = session, lock, True
    left = (f"saved {one_line_safe(_shown(repl, old))}" if kept
            else f"left {one_line_safe(_shown(repl, old))} (nothing to save)")
    # The mode `goosectx --resume` would start it in (a session left in chat mode is not
    # driven in this one's auto mode); the new agent is built with it.
    choice = choose_mode(repl.settings, repl.mode_flag, session)
    changed = choice.mode != repl.mode
    repl.mode, repl.mode_restored = choice.mode, choice.restored
    model = choose_model(repl.settings, repl.model_flag, session)  # as --resume would
    model_changed = model.model != repl.loader.model_name
    repl.model_choice, repl._model_override = model, model.model
    _switch(repl, session)
    repl.renderer.notice(terminal_safe(
        f"{left} · resumed {one_line_safe(_shown(repl, session))}"
        + (f" ({_title(repl, session.title)})" if session.title else "")
        + f" · {plural(len(session.conversation), 'message')}"
        + (f" · mode {choice.mode}" + (" (restored from this session)" if choice.restored
                                       else "") if changed else "")
        + (f" · model {model.model or 'none'}{model.note('/model')}" if model_changed
           else "")))
    for warning in start_warnings(session, resumed=True):
        repl.renderer.notice(f"warning: {warning}", style="yellow")
    if len(session.conversation):
        draw_resumed(repl.renderer, session.conversation, width=repl.io.console.width,
                     full=False)


def _switch(repl: Repl, session: Session) -> None:
    """Drive ``session`` from now on: a new recorder and agent; output numbers restart."""
    repl.session = session
    repl.resumed = True
    repl.recorder = repl.new_recorder(session)
    repl.loader.close()  # the old session's tools end with it (the shell tool's namespace)
    repl.loader = repl_agent.new_loader(repl)
    repl.renderer.seed_numbers(session.conversation, fresh=True)
    if repl._prompt is not None:  # @path completes in the new session's working dir
        from goosectx.cli.repl_extensions import completer

        repl._prompt.completer = completer(repl)
    if repl._background_checks:
        repl.loader.start(repl._on_ready)  # refreshes the meter when built
    else:
        repl._refresh_figure()
