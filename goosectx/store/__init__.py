"""SQLite session store: sessions, messages, usage ledger, numbered migrations, locks.

One concept per module (docs/architecture.md §8): :mod:`.migrations` (schema and numbered
migrations), :mod:`.database` (the connection), :mod:`.sessions` (:class:`SessionStore`),
:mod:`.listing` (the rows of ``sessions list``),
:mod:`.messages`, :mod:`.ledger` (usage), :mod:`.locks`. Import the names from here.
"""

from goosectx.session import TokenCount
from goosectx.store.database import BUSY_TIMEOUT_MS, DB_NAME
from goosectx.store.listing import SessionSummary
from goosectx.store.locks import SessionLock
from goosectx.store.migrations import MIGRATIONS, Migration
from goosectx.store.sessions import SessionStore

__all__ = [
    "BUSY_TIMEOUT_MS",
    "DB_NAME",
    "MIGRATIONS",
    "Migration",
    "SessionLock",
    "SessionStore",
    "SessionSummary",
    "TokenCount",
]
