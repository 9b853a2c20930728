"""``goosectx sessions import``: another agent's transcript (or a goosectx export) as new sessions.

Names, ids and paths of the file are outside text: every line printed passes
:mod:`goosectx.cli.sanitize` (docs/architecture.md, "The print path"); the checks of what an
import may keep are :mod:`goosectx.cli.import_checks`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from goosectx.cli.common import open_store
from goosectx.cli.sanitize import one_line_safe, terminal_safe
from goosectx.cli.sessions_cmd import ask_line
from goosectx.cli.sessions_cmd import note as print_note

if TYPE_CHECKING:
    from goosectx.cli.import_progress import ImportProgress
    from goosectx.config import Settings
    from goosectx.conversation import Message
    from goosectx.session import Session
    from goosectx.store import SessionStore
    from goosectx.stored_message import StoredMessage


def import_sessions(
    settings: Settings, path: Path, *, fmt: str, name: str | None, source_session: str | None,
    force: bool = False, use_source_dir: bool = False,
) -> None:
    """Import a transcript (or every session of a goose ``sessions.db``) as new sessions.

    The whole file is converted before anything is written (parsed, not tokenised: token
    counts are made at first need), and each session is saved in one transaction; if saving
    a later session fails, the ones saved before it are removed again,
    so a failed import leaves nothing behind. ``--name`` names a single session; several get
    ``NAME-1``, ``NAME-2``... Prints one line per imported session, with the source's
    working dir (see :mod:`goosectx.cli.import_checks`: the same content twice is refused
    unless ``force``; tools run in the source's directory only with ``use_source_dir`` or the
    user's ``y`` on a terminal). ``path`` may be ``-`` (stdin) or a pipe (``<(…)``,
    ``/dev/fd/N``): it is read into a private temporary copy first
    (:mod:`goosectx.cli.import_pipe`), then imported like a file.

    Python's cycle collector is paused meanwhile
    (:func:`~goosectx.collector.cycle_collector_paused`). An error's line shows a secret of
    this environment it quotes from the file as ``[REDACTED]``
    (:func:`~goosectx.cli.import_secrets.error_without_secrets`).

    Raises:
        ImportFormatError: unknown or broken file (the line or record is named); a pipe over
            its cap.
        SessionNameTaken: a requested name is taken (nothing is imported).
        UsageError: the file, or every source session in it, was imported already (without
            ``force``; :mod:`goosectx.cli.import_checks`).
        ImportStopped: Ctrl-C (SIGTERM / SIGHUP under ``as_ctrl_c``): nothing of the file is
            left in the store, unless it came once every session was saved. A terminal's
            stderr shows a progress line meanwhile (:mod:`goosectx.cli.import_progress`).
    """
    from goosectx.cli.import_secrets import error_without_secrets
    from goosectx.errors import GoosectxError

    try:
        _import_path(settings, path, fmt=fmt, name=name, source_session=source_session,
                     force=force, use_source_dir=use_source_dir)
    except GoosectxError as exc:  # it may quote the file: a secret there reads [REDACTED]
        raise error_without_secrets(exc, settings) from None


def _import_path(
    settings: Settings, path: Path, *, fmt: str, name: str | None, source_session: str | None,
    force: bool, use_source_dir: bool,
) -> None:
    """:func:`import_sessions`, its errors as raised (a secret of the file unredacted)."""
    from goosectx.cli.common import check_new_name, current_dir
    from goosectx.cli.import_pipe import readable_path, shown_as_given
    from goosectx.cli.import_progress import ImportProgress
    from goosectx.collector import cycle_collector_paused
    from goosectx.errors import ImportFormatError

    check_new_name(name)  # before anything is read
    current_dir()  # the sessions' working dir (a deleted one: one line, exit 2)
    saved: list[str] = []
    try:
        with (readable_path(path) as readable, cycle_collector_paused(),
              ImportProgress(path.name if readable == path else str(path),
                             _size(readable)) as progress):
            try:
                _import_file(settings, readable, fmt=fmt, name=name,
                             source_session=source_session, force=force,
                             use_source_dir=use_source_dir, saved=saved, progress=progress,
                             shown_path=None if readable == path else str(path))
            except ImportFormatError as exc:
                raise shown_as_given(exc, path, readable) from None
    except KeyboardInterrupt:  # (SIGTERM / SIGHUP too: the command runs under as_ctrl_c)
        from goosectx.cli.exit_signals import exit_status, received_name
        from goosectx.errors import ImportStopped

        shown = "stdin" if str(path) == "-" else str(path)
        raise ImportStopped(exit_status(130), received_name(), shown, saved) from None


def _import_file(
    settings: Settings, path: Path, *, fmt: str, name: str | None, source_session: str | None,
    force: bool, use_source_dir: bool, shown_path: str | None, saved: list[str],
    progress: ImportProgress,
) -> None:
    """:func:`import_sessions` of a readable file (``shown_path``: what a pipe was called).

    ``saved`` gets the ids of the new sessions once every one of them is saved; ``progress``
    is told what is being saved.
    """
    from goosectx.cli.import_checks import content_hash_started
    from goosectx.errors import ImportFormatError, SessionNameTaken
    from goosectx.importers import load_sessions
    from goosectx.importers.builder import CHECK_HINT
    from goosectx.session import NAME_MAX_CHARS, new_session_id, valid_session_id
    from goosectx.testhooks import pause_point

    import_hash_of_file = content_hash_started(path, source_session)  # while it is parsed
    given = fmt != "auto"
    if given:  # import -f openai empty.jsonl: "the JSON ends before it is complete" said less
        from goosectx.importers.detect import empty_file, is_blank

        if is_blank(path):
            raise empty_file(path)
    if not given and path.is_file():
        from goosectx.importers.detect import detect_format

        fmt = detect_format(path)
    try:
        sessions = load_sessions(path, fmt=fmt, source_session=source_session,
                                 working_dir=Path.cwd(), stored=True,
                                 own=(settings.config_file, settings.data_dir))
    except ImportFormatError as exc:  # --format given: "or name its format" is no way out
        if given and exc.hint and exc.hint.startswith(f"{CHECK_HINT}, or name its format"):
            exc.hint = CHECK_HINT
        raise
    for session in sessions:
        if shown_path is not None and session.metadata.get("source_path") == str(path):
            session.metadata["source_path"] = shown_path  # not the temporary copy's path
    if name is not None:
        for i, session in enumerate(sessions, start=1):
            suffix = "" if len(sessions) == 1 else f"-{i}"  # the name cut to fit it
            session.name = name[:NAME_MAX_CHARS - len(suffix)] + suffix
    for session in sessions:
        rough = _rough_count(session)
        if (session.ledger.current_tokens or 0) < rough:
            # No request was made here yet: a rough estimate of the model's view (import does
            # not tokenise; the counts are made and stored at first need) — also over a figure
            # the file states that its messages cannot fit in (a hand-edited export's header
            # would otherwise skip the compaction the first request needs).
            session.ledger.current_tokens = rough
            session.ledger.current_is_estimate = True
            session.note_context_figure(rough, True)  # listed as ~
    from goosectx.cli.import_checks import (
        ID_PLACEHOLDER,
        already_imported,
        drop_unfit_state,
        mark_imported,
        refuse_second_import,
    )
    from goosectx.cli.import_secrets import numbered_name, redact_secrets
    from goosectx.cli.words import plural
    from goosectx.importers.builder import IMPORT_NOTES

    # what the import mended (printed, not stored), then a name --name refuses
    names = [session.name for session in sessions]
    secrets = redact_secrets(sessions, settings)
    secret_names = {id(s) for s, n in zip(sessions, names, strict=True) if s.name != n}
    dropped = [[*session.metadata.pop(IMPORT_NOTES, ()), *([s] if s else []),
                *drop_unfit_state(session)] for session, s in zip(sessions, secrets, strict=True)]

    import_hash = import_hash_of_file()
    store = open_store(settings)
    notes: list[str] = []
    try:
        left_out: list[str] = []
        if not force:
            refuse_second_import(store, path, import_hash)
            kept = list(sessions)
            left_out = already_imported(store, kept, Path(shown_path or path), fmt)
            dropped = [d for s, d in zip(sessions, dropped, strict=True)
                       if any(s is k for k in kept)]
            sessions = kept
        existing = store.list_sessions()
        taken = {r.name for r in existing if r.name}
        ids = {r.id for r in existing}  # a name may not be another session's id either
        renamed: dict[int, str] = {}
        for session, notes_of in zip(sessions, dropped, strict=True):
            if session.name and id(session) in secret_names:  # redacted-1, redacted-2, …
                session.name = numbered_name(session.name, taken | ids)
            if session.name in taken and name is not None:  # the user chose it: say so
                raise SessionNameTaken(f"a session named {session.name!r} already exists",
                                       "pick another --name")
            if name is None and (session.name in taken or session.name in ids):
                # the file's own name: import the session unnamed
                notes_of.append(f"its name {session.name!r} is taken by another session, so "
                                f"it was imported without a name: resume it by its id, "
                                f"{ID_PLACEHOLDER}, or name it: goosectx sessions rename "
                                f"{ID_PLACEHOLDER} NEW_NAME")
                session.name = None
            if session.name:
                taken.add(session.name)  # two sessions of one file cannot share it either
            if not valid_session_id(session.id):
                # An id becomes a file name (the session lock): one that could leave the
                # data dir ("../../x/poetry") is replaced, and the user is told.
                renamed[id(session)] = session.id
                session.id = new_session_id(session.created)
            if (session.id in ids or id(session) in renamed
                    or store.any_message_id_taken(m.id for m in _messages(session))):
                # A goosectx export of a session still in this store (or a source imported
                # before, with --force): its message ids are taken too, so the copy gets
                # fresh ones (everything else stays as it was).
                _renew_message_ids(session)
        confirm = use_source_dir or _ask_source_dir
        progress.hide()  # (the question of _ask_source_dir)
        notes = [mark_imported(session, fmt=fmt, import_hash=import_hash, here=Path.cwd(),
                               use_source_dir=confirm) for session in sessions]
        asked = {id(session): session.id for session in sessions}
        try:
            for number, session in enumerate(sessions, start=1):
                progress.saving(number, len(sessions), len(_messages(session)))
                store.save_new_session(session)  # draws a new id when this one is taken
                pause_point("import:session-saved")
            if not force and _saved_second(store, sessions, import_hash):
                _take_back(store, sessions, import_hash, before=ids)  # another import was first
                refuse_second_import(store, path, import_hash)
        except BaseException:  # a failure, or Ctrl-C: what was saved is taken back
            _take_back(store, sessions, import_hash, before=ids)
            raise
        saved.extend(session.id for session in sessions)
    finally:
        store.close()
    progress.stop()
    for session, note in zip(sessions, notes, strict=True):
        conversation = _messages(session)
        calls = sum(len(m.tool_requests) for m in conversation)
        source = session.metadata.get("source", fmt)
        origin = session.metadata.get("source_session_id")
        print(one_line_safe(
            f"imported {session.id}" + (f" ({session.name})" if session.name else "")
            + f": {plural(len(conversation), 'message')}, {plural(calls, 'tool call')}"
            + f" from {source}" + (f" session {origin}" if origin else "")
            + (f"; its id {renamed[id(session)]!r} is not a valid session id, so it got "
               "a new one" if id(session) in renamed else "")
            + (f"; its id {asked[id(session)]} is taken by a session here, so the copy got "
               "a new one" if id(session) not in renamed and session.id != asked[id(session)]
               else "")
            + (f" · {note}" if note else "")))
        for line in dropped.pop(0):
            print_note("note: " + line.replace(ID_PLACEHOLDER, session.id))
    for line in left_out:
        print_note("note: " + line)


def _size(path: Path) -> int:
    """``path``'s size in bytes (0 when it cannot be told: the import says why it fails)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _saved_second(store: SessionStore, sessions: list[Session], import_hash: str) -> bool:
    """True when another import of the same content saved a session before these were saved.

    Its check ran while this one's did (two ``sessions import`` of one file at once): both
    passed it. The later one takes its sessions back and is refused as a second import.
    """
    found = store.find_imports(import_hash)
    return bool(found) and found[0][0] not in {session.id for session in sessions}


def _take_back(store: SessionStore, sessions: list[Session], import_hash: str, *,
               before: set[str]) -> None:
    """Remove every session of this import that is saved, so a stopped import leaves none.

    A session counts when its id (drawn as it was saved) was not in the store ``before`` and
    the store has it with this ``import_hash`` (also one whose commit came just before a
    Ctrl-C). A second Ctrl-C (or SIGTERM) meanwhile is ignored: the removals finish.
    """
    import signal
    import threading

    ours = {session.id for session in sessions} - before
    main = threading.current_thread() is threading.main_thread()
    handler = signal.signal(signal.SIGINT, lambda *_: None) if main else None
    try:
        for session_id, _ in store.find_imports(import_hash):
            if session_id in ours:
                store.remove(session_id)
    finally:
        if main and handler is not None:
            signal.signal(signal.SIGINT, handler)


def _messages(session: Session) -> Sequence[Message | StoredMessage]:
    """An imported session's messages: its stored-form list when it has one."""
    if session.stored_messages is not None:
        return session.stored_messages
    return session.conversation.messages


def _rough_count(session: Session) -> int:
    """:func:`~goosectx.tokens.rough_count_messages` of the agent messages of an import.

    A message in its stored form has only text and tool parts: it is one of
    ``agent_messages()`` exactly when ``agent_visible``, with the same text.
    """
    from goosectx.conversation import Conversation
    from goosectx.stored_message import StoredMessage
    from goosectx.tokens import MESSAGE_OVERHEAD_TOKENS, rough_count_messages

    if session.stored_messages is None:
        return rough_count_messages(session.conversation.agent_messages())
    total = 0
    for m in session.stored_messages:
        if isinstance(m, StoredMessage):
            if m.metadata.agent_visible:
                total += (m.count_chars() + 3) // 4 + MESSAGE_OVERHEAD_TOKENS
        else:
            total += rough_count_messages(Conversation([m]).agent_messages())
    return total


def _renew_message_ids(session: Session) -> None:
    """Give every message of an imported, not yet saved ``session`` a fresh id."""
    from dataclasses import replace

    from goosectx.conversation import Conversation, Message, new_message_id

    if session.stored_messages is None:
        session.conversation = Conversation(
            [replace(m, id=new_message_id()) for m in session.conversation])
    else:
        session.stored_messages = [
            replace(m, id=new_message_id()) if isinstance(m, Message)
            else m._replace(id=new_message_id()) for m in session.stored_messages]


def _ask_source_dir(directory: str) -> bool:
    """On a terminal, ask whether the imported session's tools may run in ``directory``."""
    if not sys.stdin.isatty():
        return False
    answer = ask_line(terminal_safe(f"The imported session worked in {directory}, which exists "
                                 "here. Run its tools there? [y/N] "))
    return answer.strip().lower() in ("y", "yes")
