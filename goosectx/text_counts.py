"""Token counts of fixed texts, kept between processes (docs/architecture.md §5).

A request's fixed texts — the system prompt, the tool schemas, the facts a compaction merges
into a summary — are the same from one process to the next, and counting them is what makes
a process load the tiktoken encoding (a good part of a second) when every message's count is
already stored. :class:`TextCounts` keeps their counts in one small JSON file in the user cache
dir, so a later process finds them without loading the encoding.

The file can never give a wrong count: an entry is found by a SHA-256 of the format version,
the encoding's name and the text itself (a changed text is a miss), and the whole file carries
a SHA-256 of its entries, checked when it is read. A file that is missing, unreadable, not
ours, of another version or whose checksum does not match is ignored (counts are made afresh
and the file is written anew); writing it is best effort and atomic (a temporary file renamed
over it), and a failure to write is ignored too. At most :data:`MAX_ENTRIES` counts are kept,
the most recently added (a count made again is added again).

The cache dir is 0700 and its files 0600, like the data dir's: one made before with a wider
mode (a umask of 022, an older version) is made private again when it is first read or
written (:func:`goosectx.private_mode.make_private_dir`).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

from goosectx.digests import sha256
from goosectx.private_mode import make_private, make_private_dir

FORMAT = "goosectx-text-token-counts"
VERSION = 1
"""Bump when the way a text is counted changes (``token_pieces.token_len``): old files
are ignored."""
MAX_ENTRIES = 512
"""Counts kept in the file: the most recently added."""
FILE_NAME = "text-token-counts.json"


def default_path() -> Path:
    """``<user cache dir>/goosectx/text-token-counts.json``."""
    return user_cache_dir() / FILE_NAME


def user_cache_dir() -> Path:
    """The user cache dir of goosectx, as ``platformdirs.user_cache_dir("goosectx")``.

    On Linux with an absolute ``$XDG_CACHE_HOME`` that is ``$XDG_CACHE_HOME/goosectx``, made
    here without importing platformdirs (and the tempfile, random it imports: ~2.5 ms).
    """
    base = os.environ.get("XDG_CACHE_HOME", "")
    if sys.platform.startswith("linux") and os.path.isabs(base):
        return Path(base, "goosectx")
    import platformdirs

    return Path(platformdirs.user_cache_dir("goosectx"))


def text_key(encoding: str, text: str) -> str:
    """The entry key of ``text`` counted with ``encoding`` (SHA-256, hex)."""
    digest = sha256(f"{VERSION}\0{encoding}\0".encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _checksum(entries: dict[str, int]) -> str:
    return sha256(json.dumps(entries, separators=(",", ":")).encode()).hexdigest()


def _read(path: Path) -> dict[str, int]:
    """The entries of the file at ``path``; empty when it is missing or cannot be trusted."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if (not isinstance(data, dict) or data.get("format") != FORMAT
            or data.get("version") != VERSION):
        return {}
    entries = data.get("entries")
    if not isinstance(entries, dict) or data.get("checksum") != _checksum(entries):
        return {}
    if not all(type(v) is int and v >= 0 for v in entries.values()):
        return {}
    return entries


class TextCounts:
    """The persistent counts of one file (one object per path: :func:`for_path`).

    Read at the first look-up; :meth:`save` writes it back when a count was added.
    Thread-safe (the REPL counts on more than one thread).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: dict[str, int] | None = None
        self._dirty = False
        self._lock = threading.Lock()

    def _loaded(self) -> dict[str, int]:
        if self._entries is None:
            make_private_dir(self.path.parent)
            self._entries = _read(self.path)
        return self._entries

    def get(self, encoding: str, text: str) -> int | None:
        """The stored count of ``text`` with ``encoding``, or ``None``."""
        key = text_key(encoding, text)
        with self._lock:
            return self._loaded().get(key)

    def put(self, encoding: str, text: str, count: int) -> None:
        """Keep ``count`` for ``text`` with ``encoding`` (written by :meth:`save`)."""
        key = text_key(encoding, text)
        with self._lock:
            entries = self._loaded()
            if entries.get(key) == count:
                return
            entries.pop(key, None)
            entries[key] = count  # newest last: the oldest go first past MAX_ENTRIES
            self._dirty = True

    def save(self) -> None:
        """Write the file if a count was added (atomically; a failure is ignored)."""
        with self._lock:
            if not self._dirty or self._entries is None:
                return
            keep = dict(list(self._entries.items())[-MAX_ENTRIES:])
            self._entries, self._dirty = keep, False
            data = json.dumps({"format": FORMAT, "version": VERSION, "entries": keep,
                               "checksum": _checksum(keep)}, separators=(",", ":")).encode()
        write_cache_file(self.path, data)


def write_cache_file(path: Path, data: bytes) -> None:
    """Replace the cache file ``path`` with ``data`` through a temporary file; errors ignored.

    Not fsynced: a cache file a crash leaves empty or short fails its checksum and is ignored
    (its readers check one). The file is 0600 (``mkstemp``'s), its directory made 0700.
    """
    import tempfile  # (here: a command that writes no cache file does not import it)

    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        make_private(path.parent)  # one made before with a wider mode: 0700 again
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


_BY_PATH: dict[Path, TextCounts] = {}
_BY_PATH_LOCK = threading.Lock()


def for_path(path: Path | None = None) -> TextCounts:
    """The one :class:`TextCounts` of ``path`` in this process (default: :func:`default_path`)."""
    path = default_path() if path is None else path
    with _BY_PATH_LOCK:
        counts = _BY_PATH.get(path)
        if counts is None:
            counts = _BY_PATH[path] = TextCounts(path)
        return counts
