"""The extensions a session had active (migration 5): names and settings, never a secret.

Each row holds one extension's public settings (``ExtensionConfig.public()`` in
``goosectx/extensions/config.py``: names of environment variables and headers, never their
values), so a resumed session can start the same servers again (docs/architecture.md §8).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from goosectx.store.database import StoreDatabase


class ExtensionRecordStore(StoreDatabase):
    """Extension methods of :class:`goosectx.store.SessionStore`."""

    def save_extensions(self, session_id: str, records: Sequence[Mapping[str, Any]]) -> None:
        """Replace the session's extension records with ``records`` (one transaction).

        Each record needs a ``name``; it is stored as JSON, as given.
        """
        with self._transaction() as conn:
            conn.execute("DELETE FROM session_extensions WHERE session_id=?", (session_id,))
            conn.executemany(
                "INSERT INTO session_extensions (session_id, name, settings_json) VALUES (?,?,?)",
                [(session_id, str(r["name"]), json.dumps(dict(r), sort_keys=True))
                 for r in records])

    def load_extensions(self, session_id: str) -> list[dict[str, Any]]:
        """The session's extension records, sorted by name (empty when none were saved)."""
        with self._guard():
            rows = self._conn.execute(
                "SELECT settings_json FROM session_extensions WHERE session_id=? ORDER BY name",
                (session_id,)).fetchall()
        return [json.loads(r[0]) for r in rows]
