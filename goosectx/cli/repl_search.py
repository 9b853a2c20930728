"""``/search WORDS`` in the REPL: where in this session's transcript every word is.

One line per matching message — its place in the session (``#N of M``), its time, who wrote
it and a short excerpt — the newest :data:`SHOWN` in transcript order, then how many matched.
The full-text index answers (:meth:`goosectx.store.SessionStore.search_session`) where it holds
the whole session; otherwise (a SQLite without FTS5, an import the index has not taken yet)
the transcript in memory is scanned (:func:`goosectx.transcript_search.scan_messages`).
Excerpts are outside text: they pass the terminal cleaner (docs/architecture.md §6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goosectx.cli import slash
from goosectx.cli.sanitize import one_line_safe, terminal_safe
from goosectx.cli.sessions_list import local_time
from goosectx.cli.table_fit import print_table
from goosectx.transcript_search import SessionMatches, scan_messages

if TYPE_CHECKING:
    from goosectx.cli.repl import Repl

SHOWN = 20
"""Matches shown: the newest ones."""


def search_transcript(repl: Repl, text: str) -> None:
    """``/search WORDS``: the session's messages holding every word, where they are."""
    if not text:
        repl.renderer.notice(f"/search needs words to find — {slash.SEARCH_HINT}", style="yellow")
        return
    session = repl.session
    if repl.store.session_indexed(session.id):
        found: SessionMatches = repl.store.search_session(session.id, text, limit=SHOWN)
    else:
        found = scan_messages(session.conversation.messages, text, limit=SHOWN)
    quoted = one_line_safe(repr(repl.redact_input(text)))  # a key reads [REDACTED]
    if not found.count:
        repl.renderer.notice(f"No message of this session mentions {quoted}.")
        return
    rows = [(f"{h.number:,} of {h.total:,}", local_time(h.created),
             "you" if h.role == "user" else "goosectx", terminal_safe(h.excerpt))
            for h in found.hits]
    repl.renderer.settle()
    print_table(repl.io.console, ("message", "time", "from", "excerpt"), rows, right=("message",),
           wrap=("excerpt",))
    matches = ("1 message of this session matches" if found.count == 1 else
               f"{found.count:,} messages of this session match")
    more = f"; the newest {len(found.hits)} are shown" if found.count > len(found.hits) else ""
    repl.renderer.notice(f"{matches} {quoted}{more} · goosectx sessions search WORDS "
                         "searches every session", style="dim")
