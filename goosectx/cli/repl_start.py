"""Opening the REPL on the terminal (``goosectx``, ``goosectx session``; docs/architecture.md §1).

:func:`start_repl` checks the flags, opens (or resumes) and locks the session, starts the
extension servers and runs one :class:`~goosectx.cli.repl.Repl` on the terminal; whatever
happens, the servers stop and the session's lock is released. SIGTERM and SIGHUP end it as
Ctrl-C would, then ``/exit`` (:mod:`goosectx.cli.exit_signals`).
"""

from __future__ import annotations

from goosectx.cli import exit_signals, repl_extensions
from goosectx.cli.repl import Repl
from goosectx.cli.resume_load import BACKGROUND_FROM
from goosectx.cli.terminal import ReplIO
from goosectx.config import Settings, parse_mode
from goosectx.errors import UsageError

__all__ = ["start_repl"]


def start_repl(settings: Settings, *, name: str | None, resume: str | None, continue_: bool,
               mode: str | None = None, model: str | None = None,
               full_history: bool = False, extensions: repl_extensions.Flags = ((), ())) -> int:
    """Open (or resume) a session and run the REPL on the terminal until the user leaves.

    Returns:
        The exit code: 0 when the user leaves (``/exit``, Ctrl-D, end of piped input);
        143 / 129 after SIGTERM / SIGHUP (the turn closed out and saved first).

    Raises:
        ConfigError: a bad ``--mode``.
        UsageError: ``full_history`` without ``resume`` or ``continue_``.
        UsageError, SessionNameTaken, SessionNotFound, SessionAmbiguous, SessionInUse,
        StoreError: from opening the session (printed by ``main`` as one line).
    """
    if full_history and not (resume or continue_):  # it drew nothing, and said nothing
        raise UsageError("--history applies only with --resume or --continue (-c): a new "
                         "session has no history to draw",
                         "e.g. goosectx --resume SESSION --history")
    if mode:
        parse_mode("--mode", mode)  # a bad --mode changes no data
    servers = repl_extensions.Servers(settings, extensions)  # bad flags fail before opening
    with exit_signals.as_ctrl_c():
        return _run(settings, servers, name=name, resume=resume, continue_=continue_,
                    mode=mode, model=model, full_history=full_history)


def _run(settings: Settings, servers: repl_extensions.Servers, *, name: str | None,
         resume: str | None, continue_: bool, mode: str | None, model: str | None,
         full_history: bool) -> int:
    """:func:`start_repl` once the flags are checked: open, run, and always close."""
    from goosectx.cli.common import open_session
    from goosectx.cli.mode_choice import choose_mode
    from goosectx.cli.model_choice import choose_model

    io = ReplIO.for_terminal()
    later = not io.plain and io.is_real_terminal and not full_history
    opened = open_session(settings, name=name, resume=resume, continue_=continue_, model=model,
                          defer_from=BACKGROUND_FROM if later else None)
    repl: Repl | None = None
    try:
        choice = choose_mode(settings, mode, opened.session)
        repl = Repl(settings, opened.store, opened.session, io=io,
                    resumed=opened.resumed, mode=choice.mode, model=model,
                    mode_restored=choice.restored, full_history=full_history,
                    extensions=servers.open(opened), opened=opened, mode_flag=mode,
                    model_choice=choose_model(settings, model, opened.session))
        return exit_signals.exit_status(repl.run())
    finally:
        servers.stop(repl)  # every server stops; no child outlives the REPL
        opened.close()
