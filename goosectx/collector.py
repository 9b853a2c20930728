"""Python's cycle collector around goosectx's long-lived objects (docs/architecture.md §8).

The command line's start-up imports, a one-shot command over a whole session and the compile
of a long regex (:func:`goosectx.lazy_pattern.compile_long`) pause it
(:func:`cycle_collector_paused`); a long
resumed session is frozen out of its walks and full collections stay off for the process
(:func:`keep_out_of_collections`); each turn's cycles are then freed when it ends
(:func:`after_turn`).
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goosectx.session import Session


@contextlib.contextmanager
def cycle_collector_paused(*, frozen_after: bool = False) -> Iterator[None]:
    """Pause Python's cycle collector for a one-shot command over a whole session.

    ``sessions import`` and ``compact`` make millions of objects that live until the command
    ends and form no cycles worth freeing; each full collection walked them all (5-15 % of
    the CPU at 10k-100k messages). A resumed session's load is the same: its messages live as
    long as the REPL or ``run`` (5 full collections while loading 100k messages, ~20 % of the
    load's CPU). The collector is back on afterwards (tests run in-process).

    ``frozen_after``: what was made meanwhile is frozen (``gc.freeze``) before the collector is
    back on, for the command line's start-up imports (``cli/app.py``): what an import makes
    (modules, classes, functions, typer's option objects) lives as long as the process, and
    the young collections walked it again and again while typer and the commands' modules
    loaded (~20 of them, ~4 ms of CPU at every start); back on without a freeze, the first
    collection walked all of it once more.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if frozen_after:
                gc.freeze()
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


NEVER = 1_000_000_000
"""The oldest generation's threshold that means "no full collection by itself"."""


class _Turns:
    modules = -1
    """``len(sys.modules)`` at the last turn's end (:func:`after_turn`); -1 before one."""


def keep_out_of_collections(session: Session) -> None:
    """After a resume's load: keep a long session out of the cycle collector's walks.

    A session of :data:`FREEZE_FROM` messages or more is frozen, and full collections stay
    off for the process.
    """
    if len(session.conversation.messages) >= FREEZE_FROM:
        gc.freeze()  # what is alive now lives as long as the process: never walked again
        _full_collections_off()
        _Turns.modules = -1


def after_turn() -> None:
    """At the end of a REPL turn: free the cycles it left, where full collections are off.

    A turn leaves its model call's objects in reference cycles (litellm's logging object with
    every streamed chunk, the request and its JSON body: ~0.3 MB a turn at 10k messages),
    old enough by its end to sit in the oldest generation, which no collection walks once
    full collections are off (:data:`FREEZE_FROM`): the REPL grew 16 MB over 60 turns. A
    full collection now frees them, and what survives it is frozen, so the next one walks
    only what the next turn makes (1-2 ms). A turn that imported modules (the first model
    call imports litellm) only freezes: walking what the imports made took 0.3-0.7 s, and
    that turn's cycles stay (a few hundred KB, once).
    """
    if gc.get_threshold()[2] < NEVER:
        return  # the collector's own full collections free them
    if len(sys.modules) == _Turns.modules:
        gc.collect()
    _Turns.modules = len(sys.modules)
    gc.freeze()


def _full_collections_off() -> None:
    """No automatic full (generation 2) collection for the rest of the process (FREEZE_FROM).

    The oldest generation's threshold counts younger collections: a billion of them is never.
    """
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, NEVER)
