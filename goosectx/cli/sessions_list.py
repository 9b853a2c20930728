"""``goosectx sessions list`` and ``sessions search``, and the REPL's ``/sessions``.

Titles, names, paths and snippets are outside text: every cell passes
:func:`~goosectx.cli.sanitize.terminal_safe` before layout (docs/architecture.md §6), and a
table cell is a rich ``Text`` (never markup). ``--json`` prints the same values.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from rich.console import Console

from goosectx.cli.common import open_store
from goosectx.cli.safe_console import safe_console
from goosectx.cli.sanitize import one_line_safe, terminal_safe
from goosectx.cli.sessions_names import names_shown
from goosectx.cli.table_fit import print_table
from goosectx.config import DEFAULT_CONTEXT_LIMIT_TOKENS, Settings
from goosectx.errors import StoreError
from goosectx.session import NAME_MAX_CHARS, SessionState
from goosectx.store import SessionStore, SessionSummary
from goosectx.store.search import match_query
from goosectx.store.search_hit import SearchHit
from goosectx.transcript_search import MessageHit

if TYPE_CHECKING:
    from goosectx.providers.base import ContextLimit

NEWEST_IN_REPL = 20
"""``/sessions`` shows the most recently changed sessions only."""
NOTICE_PENDING_AT = 40_000
"""Imported messages waiting for the search index from which a search first says it indexes
them (about a second of CPU: 100k generated messages took ~2 s)."""


def source_label(source: str | None) -> str:
    """``goosectx`` for a session made here, ``imported from FORMAT`` for an import."""
    return "goosectx" if source is None else f"imported from {source}"


def _stamp(row: SessionSummary | SearchHit) -> str:
    if isinstance(row, SessionSummary) and row.damaged:
        return "?"  # a damaged row: damaged_note says so
    return local_time(row.updated)


def local_time(moment: datetime | None) -> str:
    """A stored time as the user reads it (local, to the minute); ``?`` when unknown."""
    return "?" if moment is None else moment.astimezone().strftime("%Y-%m-%d %H:%M")


def where_in_session(hit: MessageHit) -> str:
    """``message N of M, time``: where a matching message is in its session.

    No ``#``: that numbers tool outputs, for ``/show N``.
    """
    return f"message {hit.number:,} of {hit.total:,}, {local_time(hit.created)}"


def damaged_note(row: SessionSummary) -> str:
    """The one line about a listed session whose stored times do not parse, with the fix."""
    return (f"session {row.id} has a stored time that does not parse (shown as ?); "
            f"save it with: goosectx sessions export {row.id} -f json -o FILE, or remove it "
            f"with: goosectx sessions remove {row.id} (add --yes without a terminal)")


def _console() -> Console:
    return safe_console(highlight=False, soft_wrap=False)


def _read(settings: Settings, read: Any) -> Any:
    if not (settings.data_dir / "sessions.db").exists():
        return None
    store = open_store(settings, read_only=True)
    try:
        return read(store)
    finally:
        store.close()


@dataclass(frozen=True, slots=True)
class ListedContext:
    """A listed session's context: the figure ``/context`` calls current, against its limit.

    Attributes:
        tokens: The figure the displays last showed, or ``None`` when it is not known without
            loading and counting the session (never measured, or messages changed since).
        is_estimate: ``tokens`` is our estimate rather than the provider's report.
        limit_tokens: The context limit of the session's model (else the configured model's).
    """

    tokens: int | None
    is_estimate: bool
    limit_tokens: int

    def cell(self) -> str:
        """``58% 115,438`` (share of the limit, tokens), ``~`` before an estimate; else ``—``.

        Short: the table keeps its room for the titles (the limit is in ``--json``).
        """
        if self.tokens is None:
            return "—"
        percent = round(100 * self.tokens / self.limit_tokens) if self.limit_tokens else 0
        return f"{'~' if self.is_estimate else ''}{percent}% {self.tokens:,}"


def listed_limit(settings: Settings, model: str | None, state: SessionState | None,
                 limits: dict[str | None, ContextLimit] | None = None) -> ContextLimit:
    """A session's context limit as ``sessions list`` shows it, without importing litellm.

    The model's configured window (``limits``: the look-ups made so far, by model, filled as
    models are met), or one its server stated, kept in the session's ``state``.
    """
    from goosectx.compaction.stated_limit import session_limit
    from goosectx.providers.base import ContextLimit  # not at the REPL's launch

    limits = {} if limits is None else limits
    if model not in limits:
        if model is None:
            limits[model] = ContextLimit(
                settings.context_limit_tokens or DEFAULT_CONTEXT_LIMIT_TOKENS, "default")
        else:
            from goosectx.providers.litellm_provider import listed_context_limit

            limits[model] = listed_context_limit(settings, model)
    limit = limits[model]
    if model is not None and state is not None:
        limit = session_limit(state, model, limit)  # a window its server stated
    return limit


def listed_context(row: SessionSummary, settings: Settings,
                   limits: dict[str | None, ContextLimit]) -> ListedContext:
    """``row``'s context figure and limit, from its stored figures (no message is read).

    ``limits``: the configured limit by model, filled as models are met (one look-up each).
    """
    limit = listed_limit(settings, row.model or settings.model, row.state, limits)
    figure = row.context_figure
    return ListedContext(figure[0] if figure else None, bool(figure and figure[1]),
                         limit.tokens)


def list_sessions(settings: Settings, *, as_json: bool) -> None:
    """Print every session, most recently changed first (a table, or JSON with ``--json``).

    Each row: id, name, title, source, last change, messages, the context (the figure
    ``/context`` calls current, as a share of the model's limit: :func:`listed_context`) and
    the working dir (JSON adds model and creation time). A session whose stored times do not
    parse is listed with ``?`` (JSON: ``null``) and named on stderr with the fix.
    """
    rows: list[SessionSummary] = named(_read(settings, SessionStore.list_sessions) or [],
                                       settings)
    if as_json:
        limits: dict[str | None, ContextLimit] = {}
        contexts = [listed_context(r, settings, limits) for r in rows]
        print(json.dumps([
            {"id": r.id, "name": r.name, "title": r.title,
             "source": "goosectx" if r.source is None else "import", "import_format": r.source,
             "working_dir": r.working_dir, "model": r.model,
             "created": None if r.created is None else r.created.isoformat(),
             "updated": None if r.updated is None else r.updated.isoformat(),
             "message_count": r.message_count, "current_tokens": c.tokens,
             "current_is_estimate": None if c.tokens is None else c.is_estimate,
             "context_limit_tokens": c.limit_tokens}
            for r, c in zip(rows, contexts, strict=True)
        ], indent=2))
        _warn_damaged(rows)
        return
    console = _console()
    if not rows:
        console.print("No sessions yet. Start one with: goosectx")
        return
    print_session_table(console, rows, settings=settings)
    _warn_damaged(rows)


def _warn_damaged(rows: Sequence[SessionSummary]) -> None:
    for row in rows:
        if row.damaged:
            sys.stderr.write(terminal_safe(f"goosectx: warning: {damaged_note(row)}") + "\n")
    sys.stderr.flush()


def print_session_table(console: Console, rows: Sequence[SessionSummary], *,
                        settings: Settings, current: str | None = None) -> None:
    """The session table (plain columns when ``console`` is not a terminal).

    Args:
        console: Where to draw.
        rows: The sessions, in the order to show.
        settings: For each session's context limit (:func:`listed_context`).
        current: The id of the session the REPL drives (marked ``*``), if any.
    """
    header = ("id", "name", "title", "source", "updated", "messages", "context", "working dir")
    limits: dict[str | None, ContextLimit] = {}
    rows = named(rows, settings)  # (the REPL's rows too)
    table_rows = [
        tuple(one_line_safe(cell) for cell in (
            ("* " if r.id == current else "") + r.id, _listed_name(r.name), r.title or "",
            source_label(r.source), _stamp(r), f"{r.message_count:,}",
            listed_context(r, settings, limits).cell(), r.working_dir))
        for r in rows
    ]
    print_table(console, header, table_rows, right=("messages", "context"), wrap=("title",),
                paths=("working dir",), cut=("name",), whole=("id",),
                drop=("source", "context", "messages", "updated", "working dir"),
                all_columns="goosectx sessions list --json")


_Named = TypeVar("_Named", SessionSummary, SearchHit)


def named(rows: Sequence[_Named], settings: Settings) -> list[_Named]:
    """``rows`` with each name and title as drawn: a key of this run in one is redacted.

    A name stored before names were redacted reads ``redacted``
    (:func:`~goosectx.cli.sessions_names.names_shown`); a title (an import's, the first
    message's: a 13-character piece of a key was stored in it) ``[REDACTED]``, as a tool
    output would (:func:`goosectx.env_secrets.tool_output_redactor`). The table, ``--json``,
    ``search``, ``/sessions`` and ``/resume`` + Tab all draw these.
    """
    if not any(r.name or r.title for r in rows):
        return list(rows)
    from goosectx.env_secrets import tool_output_redactor

    redact = tool_output_redactor(settings)
    shown = names_shown(settings, redact)
    out = []
    for r in rows:
        name, title = shown(r.name), redact(r.title) if r.title else r.title
        out.append(r if (name, title) == (r.name, r.title) else replace(r, name=name, title=title))
    return out


def _listed_name(name: str | None) -> str:
    """``name`` for the name column: a name made before the length limit cut with ``…``."""
    if name is None or len(name) <= NAME_MAX_CHARS:
        return name or ""
    return name[:NAME_MAX_CHARS - 1] + "…"


def search_sessions(settings: Settings, text: str, *, as_json: bool, limit: int = 20) -> None:
    """Print the sessions whose name, title or message text holds every word of ``text``.

    One line per session: id (and name), title, where it matched and a short snippet.

    Raises:
        UsageError: ``text`` has no word.
        StoreError: this SQLite has no FTS5.
    """
    match_query(text)  # no words: said before anything is read or indexed
    hits: list[SearchHit] = named(_read(settings, lambda s: _search(s, text, limit)) or [],
                                  settings)
    if as_json:
        print(json.dumps([
            {"id": h.session_id, "name": h.name, "title": h.title, "in_name": h.in_name,
             "in_title": h.in_title,
             "message_hits": h.message_hits, "snippet": h.snippet,
             "match": None if h.match is None else {
                 "message": h.match.number, "of": h.match.total,
                 "created": None if h.match.created is None else h.match.created.isoformat()},
             "updated": None if h.updated is None else h.updated.isoformat()}
            for h in hits], indent=2))
        return
    from goosectx.env_secrets import tool_output_redactor

    said = tool_output_redactor(settings)(text)  # "No session mentions [REDACTED]"
    print_hits(_console(), hits, said)


def _search(store: SessionStore, text: str, limit: int) -> list[SearchHit]:
    """``store.search``, indexing imported messages first, with a line about a long wait.

    An import leaves its messages out of the full-text index until a search needs them
    (docs/architecture.md §8). When the database cannot be written here (read-only media, a
    full disk, another process holding it), the search runs without them and says so.
    """
    pending = store.pending_for_index() if store.search_available() else 0
    if pending:
        from goosectx.cli.sessions_cmd import note
        from goosectx.store.database import on_read_only_file_system

        if pending >= NOTICE_PENDING_AT and not on_read_only_file_system(store.data_dir):
            note(f"indexing {pending:,} imported messages for search…")
        try:
            store.index_pending()
        except StoreError as exc:
            note(f"{pending:,} imported messages are not searched: {exc.one_line()}")
    return store.search(text, limit=limit, index_first=False)


def print_hits(console: Console, hits: Sequence[SearchHit], text: str) -> None:
    """Search hits as a table: session, title, where it matched, best match, snippet.

    The best match is the snippet's message: its place and time in the session.
    """
    if not hits:
        console.out(terminal_safe(f"No session mentions {text!r}."), highlight=False)
        return
    rows = []
    for h in hits:
        where = ", ".join(w for w in (
            "name" if h.in_name else "", "title" if h.in_title else "",
            f"{h.message_hits} message{'s' if h.message_hits != 1 else ''}"
            if h.message_hits else "") if w)
        rows.append((*(one_line_safe(c) for c in (
            h.session_id, _listed_name(h.name), h.title or "", where,
            where_in_session(h.match) if h.match else "")),
            terminal_safe(h.snippet or h.title or "")))
    print_table(console, ("session", "name", "title", "found in", "best match", "snippet"), rows,
                wrap=("title", "snippet"), cut=("name",), whole=("session",),
                drop=("best match", "found in", "title"),
                all_columns="goosectx sessions search --json")
