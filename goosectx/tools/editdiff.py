"""Unified diffs of text-editor edits, for the transcript and the approval question.

The model gets the editor's short result text; the user sees what changed as a unified diff
(docs/architecture.md, "Diffs of edits"). :func:`edit_diff` is pure; the text editor's
``preview`` dry run gives the diff an edit *would* make (the REPL shows it before asking).
"""

from __future__ import annotations

import difflib
import re

DIFF_CONTEXT_LINES = 3
"""Unchanged lines around each change in a diff."""
DIFF_MAX_CHARS = 100_000
"""A longer diff is cut (with a marker): it is display only, never sent to the model."""
DIFF_MAX_FILE_MB = 1
"""A file larger than this many million characters (so over as many MB) is not diffed line
by line: the diff says what changed (``1 replacement``) and the sizes instead."""
NOT_UNDOABLE = "(/undo will not be able to restore "
"""Starts the note an edit's diff ends with when ``/undo`` cannot restore the file."""
SPLIT_LINKS = "(hard links: "
"""Starts the note an edit's result ends with, and its diff starts with, when the file it
replaces has other names (``edit_target.split_links_note``)."""
SPLIT_LINKS_END = " the old text)"
"""Ends that note (the path in it may hold a newline: the note is not one line)."""
_NOT_DIFFED = re.compile(r"^\[(.*diff not shown \(file over \d+ MB\))", re.MULTILINE)
_OLD_NOT_DIFFED = re.compile(r"^\[too large to diff: ", re.MULTILINE)


def edit_diff(before: str | None, after: str | None, label: str, change: str = "") -> str:
    """A unified diff from ``before`` to ``after`` (``None`` = the file does not exist).

    Args:
        before: The file's text before the edit (``None``: it did not exist).
        after: Its text after (``None``: the edit removed it).
        label: The path the headers name.
        change: What the edit did, in a few words (``1 replacement``): said instead of the
            hunks when the file is too large to diff.

    Returns:
        ``--- a/LABEL`` / ``+++ b/LABEL`` headers and hunks (``/dev/null`` for a missing side);
        ``""`` when nothing changed. Cut past :data:`DIFF_MAX_CHARS` with a marker line.
    """
    if before == after:
        return ""
    # An absolute path (a file outside the working dir) is ``a/tmp/x``, as git writes it.
    a, b = (f"a{label}", f"b{label}") if label.startswith("/") else (f"a/{label}", f"b/{label}")
    if max(len(before or ""), len(after or "")) > DIFF_MAX_FILE_MB * 1_000_000:
        said = f"{change} · " if change else ""
        return (f"--- {a}\n+++ {b}\n[{said}diff not shown (file over {DIFF_MAX_FILE_MB} MB): "
                f"{len(before or ''):,} → {len(after or ''):,} characters]\n")
    old = (before or "").splitlines(keepends=True)
    new = (after or "").splitlines(keepends=True)
    lines = difflib.unified_diff(
        old, new, fromfile="/dev/null" if before is None else a,
        tofile="/dev/null" if after is None else b, n=DIFF_CONTEXT_LINES)
    text = "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n"
                   for ln in lines)
    if len(text) > DIFF_MAX_CHARS:
        text = text[:DIFF_MAX_CHARS].rsplit("\n", 1)[0] + "\n[diff cut by goosectx]\n"
    return text


def not_diffed(diff: str) -> str | None:
    """What the diff of a file too large to diff says instead of its hunks.

    ``1 replacement · diff not shown (file over 1 MB)``; ``None`` for an ordinary diff.
    """
    found = _NOT_DIFFED.search(diff)
    if found:
        return found.group(1)
    return "diff not shown (file too large)" if _OLD_NOT_DIFFED.search(diff) else None


def undo_note(diff: str) -> str | None:
    """The note ending an edit's diff when ``/undo`` cannot restore the file, if any."""
    at = diff.rfind("\n" + NOT_UNDOABLE)
    return diff[at + 1:].strip() if at >= 0 else None


def links_note(diff: str) -> str | None:
    """The note starting an edit's diff when the edit split the file's hard links, if any."""
    end = diff.find(SPLIT_LINKS_END + "\n") if diff.startswith(SPLIT_LINKS) else -1
    return diff[:end + len(SPLIT_LINKS_END)] if end >= 0 else None


def diff_counts(diff: str) -> tuple[int, int]:
    """``(added, removed)`` lines of a unified diff (headers not counted)."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed
