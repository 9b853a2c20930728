"""SQLite session store: sessions, messages, usage ledger, numbered migrations, locks.

One concept per module (docs/architecture.md §8): :mod:`.migrations` (schema and numbered
migrations), :mod:`.database` (the connection), :mod:`.sessions` (:class:`SessionStore`),
:mod:`.listing` (the rows of ``sessions list``),
:mod:`.messages`, :mod:`.ledger` (usage), :mod:`.locks`. Import the names from here.
"""

from typing import TYPE_CHECKING, Any

from goosectx.session import TokenCount
from goosectx.store.database import BUSY_TIMEOUT_MS, DB_NAME
from goosectx.store.locks import SessionLock
from goosectx.store.migrations import MIGRATIONS, Migration
from goosectx.store.sessions import SessionStore

if TYPE_CHECKING:
    from goosectx.store.listing import SessionSummary


def __getattr__(name: str) -> Any:
    """``SessionSummary`` from :mod:`.listing`, imported when first asked for.

    The listing (a dataclass, its queries) is ``sessions list``'s: a command that opens one
    session does not import it.
    """
    if name == "SessionSummary":
        from goosectx.store.listing import SessionSummary

        return SessionSummary
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
