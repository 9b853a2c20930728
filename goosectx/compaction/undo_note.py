"""The model's note of a ``/undo``: its wording, and the files it names read back.

:func:`goosectx.file_undo.model_note` writes the note from these pieces; the facts scan
(:mod:`goosectx.compaction.gather`) reads it back with :func:`undone_files`, so a file the
undo restored or removed says so in the facts (``edited, then restored by /undo``) after the
note itself is summarised away. All functions are pure.
"""

from __future__ import annotations

import re

from goosectx.compaction.actions import UNDO_NOTE_START
from goosectx.lazy_pattern import LazyPattern

RESTORED = " (restored to its contents before that turn)"
"""Follows the name of a file the undo wrote back."""
REMOVED = " (removed: that turn created it)"
"""Follows the name of a file the undo removed."""
FILES_START = " are undone — "
"""Comes before the files (after the quoted request, which may hold anything)."""
FILES_END = ". Those edits are gone: "
"""Comes after the files."""
_FILE = LazyPattern("(.+?)(" + re.escape(RESTORED) + "|" + re.escape(REMOVED) + ")(?:; |$)")


def undone_files(text: str) -> list[tuple[str, str]]:
    """(path, ``restored`` or ``removed``) for each file a ``/undo`` note names, in order.

    ``[]`` for any other text.
    """
    if not text.startswith(UNDO_NOTE_START):
        return []
    start, end = text.rfind(FILES_START), text.rfind(FILES_END)
    if start == -1 or end < start:
        return []
    body = text[start + len(FILES_START):end]
    return [(m.group(1), "restored" if m.group(2) == RESTORED else "removed")
            for m in _FILE.finditer(body)]
