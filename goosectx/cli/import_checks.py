"""What ``sessions import`` checks and records beyond converting the transcript.

* **Content hash.** An import records the SHA-256 of the file (with ``--session`` for a goose
  database), so a second import of the same content is refused unless ``--force``
  (migration 3's ``import_hash``).
* **Import stamp.** ``metadata["imported_at"]``: ``--continue`` counts an imported session
  only once the user has sent a message in it after that time
  (:meth:`goosectx.store.SessionStore.most_recent`).
* **The source's working dir** is recorded (``metadata["source_working_dir"]``) and shown;
  tools run there only after the user confirms it (``--use-source-dir``, or ``y`` to the
  question on a terminal) and only if it exists on this machine. Otherwise they run in the
  directory the import was started from.

See docs/architecture.md §8 (storage) for the columns.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from goosectx.errors import UsageError
from goosectx.session import Session
from goosectx.store import SessionStore

HASH_CHUNK_BYTES = 1 << 20
ID_PLACEHOLDER = "\0id\0"
"""Where a note of :func:`drop_unfit_state` names the id the session is saved under (no text
from the file holds a raw NUL: such a name is the one dropped, and shown escaped)."""


def content_hash(path: Path, source_session: str | None = None) -> str:
    """SHA-256 (hex) of the file's bytes, and of ``source_session`` when one is picked."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(HASH_CHUNK_BYTES), b""):
            digest.update(chunk)
    if source_session is not None:
        digest.update(b"\0--session\0" + source_session.encode("utf-8", "replace"))
    return digest.hexdigest()


def content_hash_started(path: Path, source_session: str | None = None) -> Callable[[], str]:
    """Start :func:`content_hash` on a thread; the function returned waits for its digest.

    File reads and SHA-256 release the GIL, so the digest is made on another core while the
    file is parsed (~0.14 s of a 210 MB export). The function returned gives the hex digest,
    or raises what :func:`content_hash` raised, when it is called.
    """
    outcome: list[str | BaseException] = []

    def run() -> None:
        try:
            outcome.append(content_hash(path, source_session))
        except BaseException as exc:  # noqa: BLE001 - given to the caller by wait()
            outcome.append(exc)

    thread = threading.Thread(target=run, name="goosectx-import-hash", daemon=True)
    thread.start()

    def wait() -> str:
        thread.join()
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    return wait


def refuse_second_import(store: SessionStore, path: Path, import_hash: str) -> None:
    """Raise when a session imported from the same content is still in the store.

    Raises:
        UsageError: it names the earlier session and the fix (``--force``).
    """
    found = store.find_imports(import_hash)
    if not found:
        return
    earlier, name = found[0]
    if len(found) == 1:
        what, it = f"session {f'{earlier} ({name})' if name else earlier}", "it"
    else:  # each by the name it is resumed with; a long list ends in "and N more"
        shown = [n or i for i, n in found[:_NAMED]]
        more = f", and {len(found) - _NAMED} more" if len(found) > _NAMED else ""
        what, it = f"{len(found)} sessions: {', '.join(shown)}{more}", "one"
    raise UsageError(
        f"{path.name} was already imported as {what} (same content)",
        f"resume {it} with: goosectx --resume {name or earlier} — or pass --force to import "
        "another copy",
    )


_NAMED = 6
"""How many earlier sessions a refused second import names before "and N more"."""

SOURCE_AGENTS = {"goose-db": "goose", "goose-json": "goose"}
"""The agent behind a format whose name is not the agent's own: one goose session may come
from goose's ``sessions.db`` or from its JSON export."""


def already_imported(store: SessionStore, sessions: list[Session], path: Path,
                     fmt: str) -> list[str]:
    """Leave out of ``sessions`` (in place) each one whose source conversation is in the store.

    The same conversation of the same agent (``metadata.source_session_id``), whatever file
    it comes in (goose's database, its JSON export, a copy under another name), was imported
    already when a session of the store records it. A goosectx export is a copy of a session
    of ours, and is left to :func:`refuse_second_import`.

    Returns:
        One line per session left out, naming the session it became.

    Raises:
        UsageError: every session of the file was imported already (nothing is imported).
    """
    if fmt == "goosectx":
        return []
    agent = SOURCE_AGENTS.get(fmt, fmt)
    formats = tuple(f for f in (*SOURCE_AGENTS, fmt) if SOURCE_AGENTS.get(f, f) == agent)
    left_out: list[tuple[str, str, str]] = []  # (the source's id, our id, how to resume it)
    for session in list(sessions):
        origin = session.metadata.get("source_session_id")
        found = store.find_source_imports(formats, str(origin)) if origin else []
        if found:
            sid, name = found[-1]  # the newest copy
            left_out.append((str(origin), f"{sid} ({name})" if name else sid, name or sid))
            sessions.remove(session)
    again = "or pass --force to import another copy"
    if left_out and not sessions:
        if len(left_out) == 1:
            origin, became, resume = left_out[0]
            raise UsageError(f"{path.name} holds {agent} session {origin}, already imported "
                             f"as session {became}",
                             f"resume it with: goosectx --resume {resume} — {again}")
        shown = [resume for _, _, resume in left_out[:_NAMED]]
        more = f", and {len(left_out) - _NAMED} more" if len(left_out) > _NAMED else ""
        raise UsageError(f"every session of {path.name} was already imported: "
                         f"{', '.join(shown)}{more}",
                         f"resume one with: goosectx --resume {shown[0]} — {again}")
    return [f"{agent} session {origin} was already imported as session {became}: left out "
            f"(resume it with: goosectx --resume {resume} — {again})"
            for origin, became, resume in left_out]


def source_working_dir(session: Session, fmt: str) -> str | None:
    """The directory the source agent worked in, as it recorded it, or ``None``.

    A goosectx export carries it as the session's own working dir; other formats put it in
    ``metadata["source_working_dir"]`` when they record one.
    """
    if fmt == "goosectx":
        return str(session.working_dir)
    value = session.metadata.get("source_working_dir")
    return str(value) if value else None


def mark_imported(session: Session, *, fmt: str, import_hash: str, here: Path,
                  use_source_dir: bool | Callable[[str], bool]) -> str:
    """Record the import on ``session`` and choose its working dir; return the note to show.

    Args:
        session: A loaded, not yet saved session (changed in place).
        fmt: The detected format.
        import_hash: :func:`content_hash` of the file.
        here: The directory the import runs in (the working dir unless the user confirms the
            source's).
        use_source_dir: True (``--use-source-dir``), False, or a question to ask the user
            (called only when the source's directory exists here).

    Returns:
        ``source working dir /x (exists here; tools run there)``-style text, or ``""`` when
        the source recorded none.
    """
    session.source = str(session.metadata.get("source") or fmt)
    session.import_hash = import_hash
    session.metadata["imported_at"] = datetime.now(UTC).isoformat()
    source_dir = source_working_dir(session, fmt)
    session.working_dir = here
    if not source_dir:
        return ""
    session.metadata["source_working_dir"] = source_dir
    candidate = Path(source_dir)
    if not candidate.is_absolute() or not candidate.is_dir():
        return f"source working dir {source_dir} (not on this machine; tools run in {here})"
    if candidate.resolve() == here.resolve():
        return f"source working dir {source_dir} (this directory)"
    confirmed = use_source_dir(source_dir) if callable(use_source_dir) else use_source_dir
    if confirmed:
        session.working_dir = candidate.resolve()
        return f"source working dir {source_dir} (exists here; tools run there)"
    return (f"source working dir {source_dir} (exists here; tools run in {here} — "
            "import with --use-source-dir to run them there)")


def drop_unfit_state(session: Session) -> list[str]:
    """Drop what an imported session carries that this goosectx would never have made.

    * **Its name**, when :func:`~goosectx.session.name_problem` refuses it (an escape
      sequence, a newline, a bidi override, a leading ``-``): the session is imported
      unnamed, as ``--name`` would have refused that name. Not the whole import.

    Returns:
        One note per thing dropped (what and why, for one line each, :data:`ID_PLACEHOLDER`
        standing for the id the session is saved under). ``session`` is changed in place.
    """
    from goosectx.cli.common import quoted_name
    from goosectx.session import name_problem

    notes = []
    problem = name_problem(session.name) if session.name is not None else None
    if problem:
        notes.append(f"its name {quoted_name(session.name or '')} {problem}, so it was "
                     f"imported without a name: resume it by its id, {ID_PLACEHOLDER}, or "
                     f"name it: "
                     f"goosectx sessions rename {ID_PLACEHOLDER} NEW_NAME")
        session.name = None
    return notes
