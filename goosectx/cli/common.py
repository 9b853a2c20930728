"""Helpers shared by the commands: opening the store and the session a command drives."""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from goosectx.blank_chars import quoted
from goosectx.cli.sanitize import one_line_safe
from goosectx.collector import cycle_collector_paused, keep_out_of_collections
from goosectx.config import Settings
from goosectx.errors import GoosectxError, SessionNotFound, UsageError
from goosectx.plain_record import mutable_record
from goosectx.session import NAME_MAX_CHARS, Session, name_problem
from goosectx.store import SessionStore

if TYPE_CHECKING:
    from collections.abc import Callable

    from goosectx.agent import Agent
    from goosectx.recorder import SessionRecorder
    from goosectx.store import SessionLock

CWD_GONE = ("the current directory no longer exists", "cd to a directory that exists")
"""The error (message, fix) of a command started in a directory that was deleted since."""


def current_dir() -> Path:
    """The current directory, for a command that needs it (a new session's working dir).

    Raises:
        UsageError: it was deleted (``cd /tmp/x; rmdir /tmp/x``); ``os.getcwd`` fails then.
    """
    try:
        return Path.cwd()
    except FileNotFoundError:
        raise UsageError(*CWD_GONE) from None


def resume_command(ref: str, *, command: str = "") -> str:
    """How to resume a session, worded the same everywhere: ``goosectx --resume demo``.

    Args:
        ref: The session's name, else its id (quoted for the shell when needed).
        command: ``"run"`` for ``goosectx run --resume REF -t ...``; empty for the REPL.
    """
    if command:
        return f"goosectx {command} --resume {shlex.quote(ref)} -t ..."
    return f"goosectx --resume {shlex.quote(ref)}"


def session_ref(session: Session) -> str:
    """What to type to name ``session`` in a command: its name, else its id.

    The id also when the name could not be typed or shown on one line
    (:func:`~goosectx.session.name_problem`: a newline, a leading ``-``).
    """
    return ref_of(session.name, session.id)


def ref_of(name: str | None, session_id: str) -> str:
    """:func:`session_ref` of a session's name and id (a listed row, a loaded session).

    The id for a name that holds a secret the process knows (stored before names were
    redacted): a hint would show it.
    """
    from goosectx.env_secrets import tool_output_redactor

    if (name and name_problem(name) is None and one_line_safe(name) == name
            and tool_output_redactor()(name) == name):
        return name
    return session_id


def missing_working_dir(session: Session) -> str | None:
    """The warning for a resumed session whose working dir is gone, else ``None``.

    One line (sanitised) naming the dir and the fix. The dir is not replaced by another:
    approval rules, ``@`` mentions and the model's view of paths all rest on it. The fix's
    command recreates the very path (:func:`~goosectx.cli.paste_command.pasteable`), not
    the stand-ins the sanitiser draws for its control characters.
    """
    path = session.working_dir
    if path.is_dir():
        return None
    from goosectx.cli.paste_command import pasteable  # here: a working dir is nearly always there

    word = pasteable(str(path))
    how = "recreate it" + (f" (mkdir -p {word})" if word is not None else "")
    return one_line_safe(
        f"this session's working dir {path} no longer exists — shell commands and file edits "
        f"cannot run and @ mentions find nothing; {how} or start a new session in another dir")


def check_utf8_dir(path: Path) -> None:
    """Refuse a working directory whose path is not UTF-8 (a session, a prompt need it as text).

    Raises:
        UsageError: the path holds a byte that is not UTF-8 (a Latin-1 name).
    """
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        shown = one_line_safe(os.fsencode(path).decode("utf-8", "backslashreplace"))
        raise UsageError(f"the working directory {shown} is not valid UTF-8",
                         "rename it to a UTF-8 name (e.g. convmv -f latin1 -t utf8 --notest),"
                         " or cd to another directory") from None


def check_new_name(name: str | None, option: str = "--name") -> None:
    """Refuse a new session name :func:`~goosectx.session.name_problem` rejects.

    Raises:
        UsageError: one line naming the problem and the fix (exit 2); nothing is written.
    """
    problem = None if name is None else name_problem(name)
    if problem:
        raise UsageError(f"the session name {quoted_name(name or '')} {problem}",
                         f"give {option} a name on one line that starts with a letter or "
                         f"digit, at most {NAME_MAX_CHARS} characters, e.g. {option} fix-login")


def quoted_name(name: str) -> str:
    """``name`` quoted for a one-line message, cut after 32 characters with ``…``.

    The rest of the line (the problem, the fix) stays on screen for a name too long to take.
    Characters that draw as blank or nothing are shown as ``<U+00A0>`` (as in tool calls), so
    the name the error is about is visible.
    """
    return quoted(name if len(name) <= 32 else name[:31] + "…")


def open_store(settings: Settings, *, read_only: bool = False) -> SessionStore:
    """The session store in ``settings.data_dir`` (raises StoreError / StoreCorrupt).

    ``read_only``: the caller only reads, so a full disk does not stop it (see
    :class:`~goosectx.store.database.StoreDatabase`). A write that waits about a second for
    another goosectx (an import, a turn) says so on stderr, once (:func:`waiting_notice`).
    """
    return SessionStore(settings.data_dir, read_only=read_only, on_wait=waiting_notice)


def waiting_notice(text: str) -> None:
    """One stderr line while the store waits for another writer.

    Any thread may call it; a terminal that went away leaves it unsaid.
    """
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"goosectx: {one_line_safe(text)}\n")
        sys.stderr.flush()


@mutable_record  # compared, printed nowhere (a test)
class OpenSession:
    """A session opened for driving: the store, the loaded session and its lock."""

    store: SessionStore
    session: Session
    lock: SessionLock
    resumed: bool
    deferred: int = 0
    """Messages not loaded yet: ``session`` is the header only (``open_session(defer_from=)``)."""
    nothing_to_continue: bool = False
    """``--continue`` found no session of this directory: ``session`` is a new one."""

    def close(self) -> bool:
        """Release the lock and close the store.

        A session this command created that still holds no message (the user left without
        typing anything) is removed, so ``sessions list`` shows only real sessions (see
        :func:`session_is_kept`).

        Returns:
            True when the session stays in the store, False when it was removed.
        """
        kept = True
        try:
            kept = session_is_kept(self.store, self.session.id, resumed=self.resumed)
            if not kept:
                self.store.remove(self.session.id)
        finally:
            if kept:
                self.lock.release()
            else:
                self.lock.release_removed()
            self.store.close()
        return kept


def session_is_kept(store: SessionStore, session_id: str, *, resumed: bool) -> bool:
    """Whether the session survives when its command ends (one SQLite read).

    A resumed session is always kept; one the command created is kept only once it holds a
    message. :meth:`OpenSession.close` removes the others, so a goodbye line must not offer
    to resume them.
    """
    return resumed or store.message_count(session_id) > 0


def lock_and_load(store: SessionStore, session_id: str, *, header_only: bool = False,
                  on_locked: Callable[[], None] | None = None) -> tuple[Session, SessionLock]:
    """Lock a stored session, then load it; the lock is released if the load fails.

    ``header_only`` loads it without its messages (:meth:`SessionStore.load_header`).
    ``on_locked`` is called once the lock is held, before the load (``run --resume`` starts
    its key check there: a session in use is refused without waiting for it).

    Raises:
        SessionInUse: another goosectx holds it. StoreError / SessionNotFound: from the load.
    """
    lock = store.lock(session_id)
    try:
        if on_locked is not None:
            on_locked()
        if header_only:
            return store.load_header(session_id), lock
        return load_to_resume(store, session_id), lock
    except BaseException:
        lock.release()
        raise


def load_to_resume(store: SessionStore, session_id: str) -> Session:
    """Load a session to drive it again: every resume path loads through here.

    The REPL's ``--resume`` / ``--continue`` / ``/resume`` (also a long session's load after
    the prompt, ``cli.resume_load``) and ``run --resume``. Tool calls that goosectx died
    during, left unanswered at the end of the history, get their stored "interrupted" answer
    first (:func:`goosectx.turn.answer_interrupted`; one appended row, through the recorder),
    so the transcript and the model both learn the call was started. The caller holds the
    session's lock.

    Raises:
        StoreError / SessionNotFound: from the load or the write.
    """
    from goosectx.events import MessageCompleted
    from goosectx.recorder import SessionRecorder
    from goosectx.turn import answer_interrupted

    with cycle_collector_paused():
        session = store.load(session_id)
    keep_out_of_collections(session)
    answer = answer_interrupted(session.conversation, _imported_at(session))
    if answer is not None:
        session.conversation.append(answer)
        SessionRecorder(store, session).record(MessageCompleted(answer))
    return session


def save_listed_figure(agent: Agent, recorder: SessionRecorder) -> None:
    """Note the session's context figure (``/context``'s current) and store it, with counts.

    For ``sessions list``, at the end of a ``run`` (a turn that stopped may have added tool
    results since the last report). A failure is not said: the list then says it is unknown.
    """
    try:
        agent.context.note_figure(agent.request_context)
        recorder.save_figure()
        recorder.save_counts()  # those the figure made: the next resume does not count again
    except GoosectxError:
        pass


def _imported_at(session: Session) -> datetime | None:
    """When an imported session was imported (``None`` for one made here or an unknown time)."""
    when = session.metadata.get("imported_at") if session.source is not None else None
    try:
        return datetime.fromisoformat(when) if isinstance(when, str) else None
    except ValueError:
        return None


def open_session(
    settings: Settings,
    *,
    name: str | None,
    resume: str | None,
    continue_: bool,
    model: str | None = None,
    working_dir: Path | None = None,
    defer_from: int | None = None,
    on_locked: Callable[[], None] | None = None,
) -> OpenSession:
    """Create or resume the session a REPL or ``run`` drives, and lock it.

    ``--name`` creates a new named session; ``--resume SESSION`` resumes by exact name, id or
    unique id prefix; ``--continue`` resumes the most recently updated session in the working
    directory (a new one when there is none). With ``defer_from``, a resumed session of more
    messages than that is opened as its header only (``OpenSession.deferred``; the REPL loads
    the messages after its prompt is up, see ``cli.resume_load``). ``on_locked``: called once
    the session is locked, before a resumed one loads.

    Raises:
        UsageError: conflicting options; a name :func:`check_new_name` refuses.
        SessionNameTaken, SessionNotFound, SessionAmbiguous, SessionInUse, StoreError.
    """
    if name is not None:  # a key in it reads "redacted" (README, "Security")
        from goosectx.cli.sessions_names import secret_free_name

        name = secret_free_name(settings, name)
    check_new_name(name)
    if sum(bool(x) for x in (name, resume, continue_)) > 1:
        raise UsageError("use only one of --name, --resume and --continue")
    cwd = working_dir or Path("/")  # a resumed session runs in its own working dir
    if not resume:  # the new or continued session is this directory's
        cwd = (working_dir or current_dir()).resolve()
        check_utf8_dir(cwd)
    store = open_store(settings)
    try:
        session_id: str | None = None
        if resume:
            session_id = store.resolve(resume)
        elif continue_:
            session_id = store.most_recent(cwd)
        if session_id is not None:
            if defer_from is not None and (count := store.message_count(session_id)) > defer_from:
                session, lock = lock_and_load(store, session_id, header_only=True,
                                              on_locked=on_locked)
                return OpenSession(store, session, lock, resumed=True, deferred=count)
            session, lock = lock_and_load(store, session_id, on_locked=on_locked)
            return OpenSession(store, session, lock, resumed=True)
        session = store.create_session(cwd, name=name, model=model or settings.model)
        try:
            lock = store.lock(session.id)
        except BaseException:
            store.remove(session.id)  # no empty session row left behind
            raise
        if on_locked is not None:
            on_locked()
        return OpenSession(store, session, lock, resumed=False, nothing_to_continue=continue_)
    except BaseException:
        store.close()
        raise


def load_session(settings: Settings, ref: str) -> tuple[SessionStore, Session]:
    """Open the store and load SESSION (name, id or unique id prefix) without locking it.

    Raises:
        SessionNotFound: including when the data dir has no database yet.
    """
    store, session_id = resolve_session(settings, ref)
    try:
        return store, store.load(session_id)
    except BaseException:
        store.close()
        raise


def resolve_session(settings: Settings, ref: str, *, read_only: bool = False
                    ) -> tuple[SessionStore, str]:
    """Open the store and resolve SESSION to its id, loading nothing.

    ``read_only``: see :func:`open_store`.

    Raises:
        SessionNotFound: including when the data dir has no database yet.
        SessionAmbiguous: the id prefix matches several sessions.
    """
    if not (settings.data_dir / "sessions.db").exists():
        raise SessionNotFound(
            f"no session matches {quoted(ref)} (no sessions saved yet in {settings.data_dir})",
            "start one with: goosectx",
        )
    store = open_store(settings, read_only=read_only)
    try:
        return store, store.resolve(ref)
    except BaseException:
        store.close()
        raise


def found_session_id(settings: Settings, ref: str) -> str | None:
    """SESSION's id, read without writing anything, or ``None`` when it cannot be resolved.

    For a report after a failure: a full disk stops the store opening for writing, yet the
    session it names exists (JSON's ``"session_id": null`` means not found).
    """
    try:
        store, session_id = resolve_session(settings, ref, read_only=True)
    except GoosectxError:
        return None
    store.close()
    return session_id
