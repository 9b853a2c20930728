r"""The store's connection class: text SQLite cannot take is stored with U+FFFD instead.

SQLite stores UTF-8, and a Python ``str`` may hold lone surrogates, which UTF-8 cannot encode:
the ``surrogateescape`` decoding of a byte that is not UTF-8 (typed on a Latin-1 terminal,
piped in, in ``argv``, a file name) or a ``\udXXX`` escape in JSON (an MCP tool's output, an
imported transcript, a model reply). Binding such a text raises ``UnicodeEncodeError``; this
connection then binds the same values again with each lone surrogate replaced by U+FFFD, so a
write never fails on text. Only the failing call pays: the first binding is SQLite's own.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from goosectx.lazy_pattern import LazyPattern

_SURROGATE = LazyPattern("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def replace_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (each UTF-8 cannot encode) replaced by U+FFFD."""
    return _SURROGATE.sub(REPLACEMENT, text)


def _replaced(value: Any) -> Any:
    return replace_surrogates(value) if isinstance(value, str) else value


def _replaced_row(row: Any) -> Any:
    if isinstance(row, Mapping):
        return {key: _replaced(value) for key, value in row.items()}
    return tuple(_replaced(value) for value in row)


def _encodable(row: Any) -> bool:
    values = row.values() if isinstance(row, Mapping) else row
    return not any(isinstance(v, str) and _SURROGATE.search(v) for v in values)


class ReplacingConnection(sqlite3.Connection):
    """A connection whose ``execute``/``executemany`` store lone surrogates as U+FFFD."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        """``sqlite3.Connection.execute``; on unencodable text, again with U+FFFD in it."""
        try:
            return super().execute(sql, parameters)
        except UnicodeEncodeError:  # binding fails before the statement runs
            return super().execute(replace_surrogates(sql), _replaced_row(parameters))

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> sqlite3.Cursor:
        """``sqlite3.Connection.executemany``; from a row of unencodable text, with U+FFFD.

        The cursor's ``rowcount`` then counts only the rows from that one on.
        """
        if isinstance(seq_of_parameters, (list, tuple)):
            rows = seq_of_parameters
            try:
                return super().executemany(sql, rows)
            except UnicodeEncodeError:
                # The rows before the first unencodable one ran; that one failed while
                # binding, before it ran: go on from it.
                first = next((i for i, row in enumerate(rows) if not _encodable(row)), 0)
                rest: Iterable[Any] = rows[first:]
        else:  # rows made one at a time (an import): keep the one being bound
            current: list[Any] = []
            pending = _remembering(seq_of_parameters, current)
            try:
                return super().executemany(sql, pending)
            except UnicodeEncodeError:
                rest = itertools.chain(current, pending)
        return super().executemany(replace_surrogates(sql), map(_replaced_row, rest))


def _remembering(rows: Iterable[Any], current: list[Any]) -> Iterator[Any]:
    """``rows``, the one last given out kept as ``current[0]`` (and only it)."""
    current.append(None)
    for row in rows:
        current[0] = row
        yield row
