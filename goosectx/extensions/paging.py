"""A server's whole listing, read page by page: each entry once, a looping cursor stopped.

docs/architecture.md §1 (extensions). ``tools/list``, ``resources/list`` and ``prompts/list``
come in pages linked by ``nextCursor``. A server that gives back a cursor it gave before
(``"again"`` forever) was paged 100 times: every tool listed 100 times, each counted in the
schema tokens and a skipped one's notice said 100 times. Paging stops at a cursor already
seen and after :data:`MAX_PAGES` pages, with one note saying so. An entry listed again as it
was is dropped (the note says the listing repeated itself); another entry under a name (a
resource: a URI) already listed is skipped, named with why — the first keeps the name, so a
call of it reaches the tool the listing showed first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_PAGES = 100
"""Most pages read of one listing (a server's cursors may never end)."""


@dataclass(slots=True)
class Listed:
    """One listing read whole.

    Attributes:
        items: The entries kept, in the server's order, each key once.
        skipped: ``"KEY: why"`` for each other entry under a key already kept.
        notes: What was wrong with the paging itself (one line each, at most two).
    """

    items: list[Any] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _key(kind: str, item: Any) -> str:
    return str(getattr(item, "uri" if kind == "resource" else "name", ""))


def _same(a: Any, b: Any) -> bool:
    dump = getattr(a, "model_dump", None)
    return bool(dump() == b.model_dump()) if dump is not None else bool(a == b)


async def all_pages(fetch: Callable[..., Any], attr: str, kind: str) -> Listed:
    """Every entry of the listing ``fetch`` pages through (``attr``: the result's list).

    Args:
        fetch: The client's ``list_tools``/``list_resources``/``list_prompts``.
        attr: ``tools``, ``resources`` or ``prompts``.
        kind: ``tool``, ``resource`` or ``prompt`` (for the notes and the skipped entries).
    """
    listed = Listed()
    first: dict[str, Any] = {}
    seen: set[str] = set()
    repeated, looped = 0, False
    cursor: str | None = None
    for page in range(MAX_PAGES):
        result = await fetch(cursor=cursor) if cursor else await fetch()
        for item in getattr(result, attr, None) or []:
            key = _key(kind, item)
            if key not in first:
                first[key] = item
                listed.items.append(item)
            elif _same(first[key], item):
                repeated += 1
            else:
                why = f"a second resource with URI {key}" if kind == "resource" \
                    else f"a second {kind} named {key}"
                listed.skipped.append(f"{key}: {why}")
        cursor = getattr(result, "next_cursor", None)
        if not cursor:
            break
        if cursor in seen:
            looped = True
            break
        seen.add(cursor)
        if page == MAX_PAGES - 1:
            listed.notes.append(f"its {attr} listing went on past {MAX_PAGES} pages; only "
                                "those are listed")
    if looped or repeated:
        why = ("a page cursor (nextCursor) came again; paging stopped there" if looped
               else f"{repeated} entries listed again")
        listed.notes.append(f"its {attr} listing repeated itself ({why}); each {kind} is "
                            "listed once")
    return listed
