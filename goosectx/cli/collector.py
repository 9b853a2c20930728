"""Python's cycle collector around goosectx's long-lived objects (docs/architecture.md §8).

A one-shot command over a whole session pauses it (:func:`cycle_collector_paused`); a long
resumed session is frozen out of its walks and full collections stay off for the process
(:func:`keep_out_of_collections`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goosectx.session import Session


@contextlib.contextmanager
def cycle_collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector for a one-shot command over a whole session.

    ``sessions import`` and ``compact`` make millions of objects that live until the command
    ends and form no cycles worth freeing; each full collection walked them all (5-15 % of
    the CPU at 10k-100k messages). A resumed session's load is the same: its messages live as
    long as the REPL or ``run`` (5 full collections while loading 100k messages, ~20 % of the
    load's CPU). The collector is back on afterwards (tests run in-process).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


FREEZE_FROM = 5_000
"""A resumed session of this many messages is moved out of the cycle collector's sight
(``gc.freeze``) once loaded: it lives as long as the REPL or ``run``, and the first full
collection after the load walked all of it (100k messages: 0.17 s) at whatever moment it came
— an answer's last chunk, a keystroke. Smaller sessions are left to the collector.

Full collections stay off after that (:func:`_full_collections_off`): what such a session
makes later and keeps (litellm's modules, the token counts, a compaction's new history, the
next request) was walked by every full collection, and there were many — a REPL resuming 100k
messages stalled 0.2-0.7 s a dozen times (while the user typed, during a turn, after its last
chunk). The young generations still free the short-lived cycles a turn makes."""


def keep_out_of_collections(session: Session) -> None:
    """After a resume's load: keep a long session out of the cycle collector's walks.

    A session of :data:`FREEZE_FROM` messages or more is frozen, and full collections stay
    off for the process.
    """
    if len(session.conversation.messages) >= FREEZE_FROM:
        gc.freeze()  # what is alive now lives as long as the process: never walked again
        _full_collections_off()


def _full_collections_off() -> None:
    """No automatic full (generation 2) collection for the rest of the process (FREEZE_FROM).

    The oldest generation's threshold counts younger collections: a billion of them is never.
    """
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 1_000_000_000)
