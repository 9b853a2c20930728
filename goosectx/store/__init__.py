"""SQLite session store: sessions, messages, usage ledger, numbered migrations, locks.

One concept per module (docs/architecture.md §8): :mod:`.migrations` (schema and numbered
migrations), :mod:`.database` (the connection), :mod:`.sessions` (:class:`SessionStore`),
:mod:`.listing` (the rows of ``sessions list``),
:mod:`.messages`, :mod:`.ledger` (usage), :mod:`.locks`. Import the names from here.
"""

from typing import TYPE_CHECKING, Any

from goosectx.session import TokenCount
from goosectx.store.database import BUSY_TIMEOUT_MS, DB_NAME
from goosectx.store.sessions import SessionStore

if TYPE_CHECKING:
    from goosectx.store.listing import SessionSummary
    from goosectx.store.locks import SessionLock
    from goosectx.store.migrations import MIGRATIONS, Migration

_LAZY = {"SessionSummary": "listing", "SessionLock": "locks", "MIGRATIONS": "migrations",
         "Migration": "migrations"}


def __getattr__(name: str) -> Any:
    """``SessionSummary``, ``SessionLock``, ``MIGRATIONS``, ``Migration``: imported at first use.

    The listing (a dataclass, its queries) is ``sessions list``'s, the lock a command's that
    changes a session, the migrations those of a database not at this build's schema
    (:func:`goosectx.store.database._migrate`): ``compact --dry-run`` imports none of them.
    """
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"goosectx.store.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
