"""One session a search found (:meth:`goosectx.store.search.SearchStore.search`).

Its own module, loaded with a search: every command opens the store, few search it
(docs/architecture.md §8).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goosectx.transcript_search import MessageHit


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One session found by :meth:`SearchStore.search`.

    Attributes:
        session_id: The session's id.
        name: Its name, or ``None``.
        title: Its title, or ``None``.
        updated: Its last change (``None`` when the stored time does not parse).
        in_title: The words are in the title.
        in_name: The words are in the name the user gave it (each word a part of it, any case).
        message_hits: How many of its messages hold every word.
        snippet: A few words around the best match, on one line (outside text: sanitise it).
        match: Where that best match is in the session (``None``: only the title matched).
    """

    session_id: str
    name: str | None
    title: str | None
    updated: datetime | None
    in_title: bool
    message_hits: int
    snippet: str
    match: MessageHit | None = None
    in_name: bool = False
