"""How much of its file an import has read: a figure for the progress line, never printed.

Importers do not print (docs/architecture.md, "The core never prints"); the readers that go
through a file bit by bit — JSON lines (:func:`~goosectx.importers.builder.read_jsonl`), a
streamed export (:mod:`~goosectx.importers.json_stream`), a document read whole — add what
they read to :data:`reading`, and ``sessions import`` shows it
(:mod:`goosectx.cli.import_progress`). One import per process: a plain counter.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Reading:
    """What the readers have read so far."""

    done: int = 0
    """Bytes (characters of a streamed export: the same for its ASCII JSON) read."""


reading = Reading()
"""The one counter; ``sessions import`` sets ``done`` to 0 before it loads the file."""
