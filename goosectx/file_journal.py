"""The journal of file edits ``/undo`` can walk back (files under the data dir, per session).

Before the text editor changes a file it records the file's earlier bytes (or that it did not
exist) and the SHA-256 the new bytes will have; once the file is written the record is marked
written. ``/undo`` (:mod:`goosectx.file_undo`) reads the records of one user turn back.

Layout: ``<data_dir>/file-undo/<session id>/`` holds, per edit, ``NNNNNNNN.json`` (the
record) and ``NNNNNNNN.before`` (the earlier bytes, when the file existed and was kept). Every
file is written atomically (a temporary file, fsync, rename) and made 0600; the session id
becomes a path only after :func:`~goosectx.session.valid_session_id`. The journal is capped:
a file over :data:`MAX_KEPT_FILE_BYTES` is not kept (the edit says so when it is made), and
when a session's kept bytes pass :data:`MAX_SESSION_BYTES` the oldest are dropped first
(their records stay, marked dropped, so ``/undo`` can say why it cannot restore them).

Migration 10 stays reserved and unused: files keep the tool's worker thread off the store's
connection, and removing a session's directory is all a cleanup needs.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from goosectx.private_mode import make_private_dirs
from goosectx.session import valid_session_id

SUBDIR = "file-undo"
MAX_KEPT_FILE_BYTES = 4 * 1024 * 1024
"""A file larger than this is not kept for ``/undo`` (the edit names it as not undoable)."""
MAX_SESSION_BYTES = 64 * 1024 * 1024
"""Earlier contents kept per session; past it the oldest are dropped first."""
SECRET_WHY = "it holds a secret value (an API key or token), which goosectx never stores"
ABSENT = "absent"
"""The hash recorded for "no file" (an edit that removed it, or before one created it)."""


@dataclass(frozen=True, slots=True)
class EditRecord:
    """One edit of one file by a goosectx tool.

    Attributes:
        number: Its order in the session's journal (1, 2, …).
        turn_id: Id of the user's message whose turn made the edit.
        call_id: Id of the tool call that made it.
        path: The absolute path edited.
        before_sha256: Hash of the file before (:data:`ABSENT`: it did not exist).
        after_sha256: Hash of what the edit writes (:data:`ABSENT`: it removes the file).
        size: Bytes of the earlier contents.
        kept: The earlier contents are kept (``False``: too large, or dropped for the cap).
        dropped: They were dropped to keep the session under the cap.
        written: The write finished (``False``: it failed, or the process died during it).
        undone: ``/undo`` restored it.
        secret: Not kept because the earlier contents hold a secret value (an API key, a
            token): goosectx never stores one.
        real: The file the edit wrote, every symlink on the way followed (``path`` may be a
            link to it): edits of one file through different names chain by it, and
            ``/undo`` refuses a path that no longer leads to it. ``""`` in older records.
        dir_dev, dir_ino: Device and inode of the directory holding ``real`` once written
            (``0``: unknown). The file's own inode is not kept: every atomic write, ``/undo``'s
            too, makes a new one, while the directory stays; a directory swapped or mounted
            over since is refused.
        made_dirs: The directories the edit created for the file, deepest first (``/undo``
            removes them again when they are empty).
    """

    number: int
    turn_id: str
    call_id: str
    path: str
    before_sha256: str
    after_sha256: str
    size: int
    kept: bool
    dropped: bool = False
    written: bool = False
    undone: bool = False
    secret: bool = False
    real: str = ""
    dir_dev: int = 0
    dir_ino: int = 0
    made_dirs: tuple[str, ...] = ()

    @property
    def file(self) -> str:
        """The file to check and restore: :attr:`real`, or ``path`` in an older record."""
        return self.real or self.path

    def to_dict(self) -> dict[str, Any]:
        """The JSON form stored."""
        return {name: getattr(self, name) for name in self.__slots__}


_LATER_FIELDS = {"secret": False, "real": "", "dir_dev": 0, "dir_ino": 0, "made_dirs": ()}
"""Fields added after the first records were written, with the value an older record has."""


def _record(data: Any) -> EditRecord | None:
    """A record read back, or ``None`` for a damaged file (skipped)."""
    try:
        fields = {k: data[k] for k in EditRecord.__slots__ if k not in _LATER_FIELDS}
        later = {k: data.get(k, default) for k, default in _LATER_FIELDS.items()}
        later["made_dirs"] = tuple(str(d) for d in later["made_dirs"])
        return EditRecord(**fields, **later)
    except (KeyError, TypeError):
        return None


def too_large_why(size: int) -> str | None:
    """Why earlier contents of ``size`` bytes are not kept for ``/undo`` (``None``: they are)."""
    if size <= MAX_KEPT_FILE_BYTES:
        return None
    return (f"its earlier {size:,} bytes are over the {MAX_KEPT_FILE_BYTES:,} bytes "
            f"({MAX_KEPT_FILE_BYTES // 2**20} MB) "
            "kept for /undo")


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, mode 0600 (raises OSError)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def remove_journal(data_dir: Path, session_id: str) -> None:
    """Delete a removed session's journal and the contents it kept (best effort)."""
    if valid_session_id(session_id):
        shutil.rmtree(data_dir / SUBDIR / session_id, ignore_errors=True)


class EditJournal:
    """The edits of one session that ``/undo`` can restore.

    Args:
        data_dir: The data dir (``settings.data_dir``).
        session_id: The session's id; an invalid one keeps nothing (every edit is then named
            as not undoable).
    """

    def __init__(self, data_dir: Path, session_id: str) -> None:
        self.session_id = session_id
        self.dir = data_dir / SUBDIR / session_id if valid_session_id(session_id) else None
        self._lock = threading.Lock()
        self._last = -1
        """The newest record's number (-1: not read yet; this instance adds every later one)."""
        self._kept: list[EditRecord] = []
        """The records whose earlier contents are kept, oldest first (for the cap)."""

    # -- writing (the text editor) ------------------------------------------------------------
    def begin(self, turn_id: str, call_id: str, path: Path, before: bytes | None,
              after_sha256: str, before_sha256: str, *, secret: bool = False,
              made_dirs: tuple[str, ...] = ()) -> tuple[EditRecord | None, str | None]:
        """Record an edit about to be made; returns it and why it cannot be undone, if so.

        ``secret``: the earlier contents hold a secret value; they are not kept.
        ``made_dirs``: the directories the write will create for the file, deepest first.
        Raises nothing: a journal that cannot be written names the edit as not undoable.
        """
        size = len(before) if before is not None else 0
        if self.dir is None:
            return None, "this session keeps no undo record"
        why = None
        if secret:
            why = SECRET_WHY
        else:
            why = too_large_why(size)
        with self._lock:
            try:
                make_private_dirs(self.dir, self.dir.parent.parent)  # 0700 whatever the umask
                if self._last < 0:  # once: a long session's journal is not read per edit
                    known = self.records()
                    self._last = max((r.number for r in known), default=0)
                    self._kept = [r for r in known if r.kept and r.before_sha256 != ABSENT]
                number = self._last + 1
                record = EditRecord(number, turn_id, call_id, str(path), before_sha256,
                                    after_sha256, size, kept=why is None, secret=secret,
                                    real=os.path.realpath(path), made_dirs=made_dirs)
                if before is not None and why is None:
                    write_private(self._before_path(number), before)
                self._save(record)
                self._last = number
                if before is not None and why is None:
                    self._kept.append(record)
                    self._cap()
            except OSError as exc:
                return None, f"its undo record could not be saved ({exc.strerror or exc})"
        return record, why

    def finish(self, record: EditRecord | None) -> None:
        """The edit's write finished: marked written, with its directory's identity."""
        if record is None:
            return
        with self._lock, contextlib.suppress(OSError):
            try:
                held = os.stat(Path(record.file).parent)
                record = replace(record, dir_dev=held.st_dev, dir_ino=held.st_ino)
            except OSError:
                pass
            self._save(replace(record, written=True))

    # -- reading and marking (/undo) ----------------------------------------------------------
    def records(self) -> list[EditRecord]:
        """Every record, oldest first (damaged files skipped)."""
        if self.dir is None or not self.dir.is_dir():
            return []
        out = []
        for entry in self.dir.glob("*.json"):
            try:
                record = _record(json.loads(entry.read_bytes()))
            except (OSError, ValueError):
                continue
            if record is not None and entry.stem == f"{record.number:08d}":
                out.append(record)
        return sorted(out, key=lambda r: r.number)

    def _read(self, number: int) -> EditRecord | None:
        """The record as stored now (``/undo`` may have marked it since)."""
        assert self.dir is not None
        try:
            return _record(json.loads((self.dir / f"{number:08d}.json").read_bytes()))
        except (OSError, ValueError):
            return None

    def before_bytes(self, record: EditRecord) -> bytes | None:
        """The earlier contents of a kept edit (``None`` when the file did not exist)."""
        if record.before_sha256 == ABSENT:
            return None
        return self._before_path(record.number).read_bytes()

    def mark_undone(self, records: list[EditRecord]) -> None:
        """Mark ``records`` restored, so the next ``/undo`` goes one turn further back."""
        with self._lock:
            for record in records:
                self._save(replace(record, undone=True))

    # -- inside --------------------------------------------------------------------------------
    def _before_path(self, number: int) -> Path:
        assert self.dir is not None
        return self.dir / f"{number:08d}.before"

    def _save(self, record: EditRecord) -> None:
        assert self.dir is not None
        write_private(self.dir / f"{record.number:08d}.json",
                      json.dumps(record.to_dict()).encode())

    def _cap(self) -> None:
        """Drop the oldest kept contents while the session keeps more than the cap."""
        total = sum(r.size for r in self._kept)
        while total > MAX_SESSION_BYTES and len(self._kept) > 1:  # the newest stays undoable
            record = self._kept.pop(0)
            self._save(replace(self._read(record.number) or record, kept=False, dropped=True))
            with contextlib.suppress(OSError):
                self._before_path(record.number).unlink()
            total -= record.size
