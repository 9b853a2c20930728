"""The session store's files read as bytes: what the secret tests search (a key is in none)."""

from __future__ import annotations

from pathlib import Path


def store_files(data_dir: Path) -> dict[str, bytes]:
    """Each file of the session store in ``data_dir`` by name: ``sessions.db`` and its WAL,
    shared memory and journal (a file gone meanwhile, as SQLite removes a journal, is left out)."""
    found: dict[str, bytes] = {}
    for path in sorted(data_dir.glob("sessions.db*")):
        try:
            found[path.name] = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            continue
    return found


def store_bytes(data_dir: Path) -> bytes:
    """All of :func:`store_files` joined, in name order."""
    return b"".join(store_files(data_dir).values())


def assert_not_in_sessions_db(secret: str | bytes, data_dir: Path | None = None) -> None:
    """``secret`` is in none of the session store's files (WAL and journal too; none there
    holds none: a refused import may make no store).

    ``data_dir``: the store's directory; by default the one the settings name now.
    """
    if data_dir is None:
        from goosectx.config import load_settings

        data_dir = load_settings().data_dir
    needle = secret.encode() if isinstance(secret, str) else secret
    for name, data in store_files(data_dir).items():
        assert needle not in data, name
