"""Finding a session: by id, name or id prefix, the last one of a directory, earlier imports.

Part of the session store (:class:`goosectx.store.sessions.SessionStore` inherits
:class:`SessionLookup`); reads only, each under the store's guard. See docs/architecture.md §8.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from goosectx.blank_chars import quoted
from goosectx.errors import SessionAmbiguous, SessionNotFound
from goosectx.store.database import StoreDatabase


class SessionLookup(StoreDatabase):
    """Which stored session a reference, a directory or an import's source names."""

    def resolve(self, ref: str) -> str:
        """Resolve SESSION: an exact id, else an exact name, else a unique id prefix.

        Raises:
            SessionNotFound: nothing matches; its ``suggestion`` is the one name or id close
                to ``ref`` (a typo: ``lonsg`` for ``longs``), named in its hint.
            SessionAmbiguous: the prefix matches several ids.
        """
        with self._guard():
            row = self._conn.execute("SELECT id FROM sessions WHERE id=?", (ref,)).fetchone()
            if row:  # an id first: it names one session for good (a name can be anything)
                return str(row[0])
            row = self._conn.execute("SELECT id FROM sessions WHERE name=?", (ref,)).fetchone()
            if row:
                return str(row[0])
            # a ref longer than every id (a mis-paste) is no prefix of one: not looked up, as
            # sqlite refuses a LIKE pattern of 50,000 bytes ("pattern too complex")
            longest = self._conn.execute("SELECT MAX(LENGTH(id)) FROM sessions").fetchone()[0]
            escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            rows = [] if len(ref) > (longest or 0) else self._conn.execute(
                "SELECT id, COUNT(*) OVER () FROM sessions WHERE id LIKE ? ESCAPE '\\'"
                " ORDER BY id LIMIT 5",
                (escaped + "%",),
            ).fetchall()
        if not rows or not ref:
            close = self._close_to(ref)
            raise SessionNotFound(
                f"no session matches {quoted(ref[:60])}" + ("…" if len(ref) > 60 else ""),
                (f"did you mean {close!r}? " if close else "")
                + "list them with: goosectx sessions list", suggestion=close)
        matching = int(rows[0][1])
        if matching > 1:
            shown = ", ".join(r[0] for r in rows)
            more = matching - len(rows)
            if more:
                shown += f" and {more} more"
            raise SessionAmbiguous(
                f"{quoted(ref)} matches {matching} sessions ({shown})",
                "type more of the id (goosectx sessions list shows every id)",
            )
        return str(rows[0][0])

    def _close_to(self, ref: str) -> str | None:
        """The session name (else id) nearest ``ref`` when it is close (difflib), else ``None``.

        Read only when a lookup failed: one pass over the names and ids.
        """
        if not ref:
            return None
        with self._guard():
            rows = self._conn.execute("SELECT name, id FROM sessions").fetchall()
        for candidates in ([str(r[0]) for r in rows if r[0]], [str(r[1]) for r in rows]):
            folded = {c.casefold(): c for c in candidates}  # `S1` is close to `s1`
            if close := difflib.get_close_matches(ref.casefold(), folded, n=1, cutoff=0.75):
                return folded[close[0]]
        return None

    def most_recent(self, working_dir: Path) -> str | None:
        """Id of the session last worked in in ``working_dir`` (``--continue``), or ``None``.

        The most recently updated one; an imported session counts only once the user has sent
        a message in it (a user-visible user message newer than the import).
        """
        with self._guard():
            row = self._conn.execute(
                "SELECT s.id FROM sessions s WHERE s.working_dir=? AND (s.import_hash IS NULL"
                " OR EXISTS (SELECT 1 FROM messages m WHERE m.session_id=s.id AND m.role='user'"
                " AND json_extract(m.metadata_json, '$.user_visible')"
                " AND m.created > json_extract(s.metadata_json, '$.imported_at')))"
                " ORDER BY s.updated DESC, s.id DESC LIMIT 1",
                (str(working_dir.resolve()),),
            ).fetchone()
        return str(row[0]) if row else None

    def find_imports(self, import_hash: str) -> list[tuple[str, str | None]]:
        """(id, name) of every session imported from content with this SHA-256, first saved first.

        A file of several sessions (a goose ``sessions.db``) became several. Saving order, not
        the sessions' dates: two imports racing agree which one came first.
        """
        with self._guard():
            rows = self._conn.execute(
                "SELECT id, name FROM sessions WHERE import_hash=? ORDER BY rowid",
                (import_hash,),
            ).fetchall()
        return [(str(row[0]), row[1]) for row in rows]

    def find_source_imports(self, sources: tuple[str, ...],
                            source_session_id: str) -> list[tuple[str, str | None]]:
        """(id, name) of every session imported from another agent's session, oldest first.

        Its format is one of ``sources`` and its ``metadata.source_session_id`` is
        ``source_session_id``.
        """
        marks = ",".join("?" * len(sources))
        with self._guard():
            rows = self._conn.execute(
                f"SELECT id, name FROM sessions WHERE source IN ({marks}) AND import_hash IS NOT"
                " NULL AND CAST(json_extract(metadata_json, '$.source_session_id') AS TEXT)=?"
                " ORDER BY created, id", (*sources, source_session_id),
            ).fetchall()
        return [(str(row[0]), row[1]) for row in rows]
