"""The ``text_editor`` ``view`` command: a file's lines, numbered, or a directory's entries.

Reads go through :mod:`goosectx.tools.files` (regular files only, only as far as the asked
range). When the call's approval judged the path (``ToolContext.read_target``), the file or
directory is opened once and the opened descriptor is checked to be the one judged
(:func:`goosectx.read_target.opened_elsewhere`) before a byte of it is read: a path swapped
for a symlink to ``~/.ssh/id_rsa`` after the decision is refused, not read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from goosectx.read_target import JudgedFile, opened_elsewhere
from goosectx.tools.base import ToolContext
from goosectx.tools.edit_text import numbered
from goosectx.tools.files import MAX_SCAN_BYTES, FileError, listed_name, read_lines

MAX_DIR_ENTRIES = 200
"""Entries shown when ``view`` is given a directory."""


def view(path: Path, arguments: dict[str, Any], ctx: ToolContext) -> str:
    """``path``'s lines in ``view_range`` (numbered), or its entries when it is a directory.

    Raises:
        FileError: a bad range, a file that is not text, or a path that no longer leads to
            the file its approval judged (nothing is read then).
    """
    judged = ctx.read_target if ctx.read_target and ctx.read_target.path == path else None
    if path.is_dir():
        return _list_dir(path, judged)
    view_range = arguments.get("view_range")
    first, last = 1, -1
    if view_range is not None:
        if (not isinstance(view_range, list) or len(view_range) != 2
                or not all(isinstance(n, int) and not isinstance(n, bool)
                           for n in view_range)):
            raise FileError("view_range must be two integers [first, last]")
        first, last = view_range
        if first < 1 or (last != -1 and last < first):
            raise FileError(f"view_range {view_range} is not a range of lines: first "
                            "must be 1 or more and last -1 or at least first")
    got = read_lines(path, first, None if last == -1 else last,
                     keep_bytes=4 * ctx.max_output_chars, judged=judged)
    if not got.lines:
        if got.total_lines == 0:
            return f"{path} is empty"
        if got.total_lines is not None:
            raise FileError(f"view_range {view_range} is outside {path}, which has "
                            f"{got.total_lines} lines")
        raise FileError(f"line {first} of {path} is beyond the first "
                        f"{MAX_SCAN_BYTES:,} bytes view reads; use the shell tool "
                        f"(sed -n '{first},{first + 50}p' {path})")
    # Redacted before numbering, so a secret split over lines is still caught (the
    # redactor keeps the line count).
    text = numbered(ctx.redact("\n".join(got.lines)).split("\n"), first)
    end = first + len(got.lines) - 1
    if got.cut == "keep":
        text += (f"\n[... output stops in line {end} of a {got.size_bytes:,}-byte file; "
                 "view a later view_range to see more]")
    elif got.cut == "scan":
        text += (f"\n[... view stopped reading after {MAX_SCAN_BYTES:,} bytes at line "
                 f"{end}; use the shell tool (sed -n) for later lines]")
    return text


def _list_dir(path: Path, judged: JudgedFile | None) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if judged is not None and (why := opened_elsewhere(fd, judged)) is not None:
            raise FileError(why)
        with os.scandir(fd) as found:
            entries = sorted(found, key=lambda e: (not e.is_dir(), e.name))
    finally:
        os.close(fd)
    shown = [listed_name(e.name) + ("/" if e.is_dir() else "")
             for e in entries[:MAX_DIR_ENTRIES]]
    text = f"{path}/ ({len(entries)} entries)\n" + "\n".join(shown)
    if len(entries) > MAX_DIR_ENTRIES:
        text += (f"\n[... {len(entries) - MAX_DIR_ENTRIES} more entries not shown; "
                 "use the tree or shell tool]")
    return text
