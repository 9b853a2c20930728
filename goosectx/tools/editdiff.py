"""Unified diffs of text-editor edits, for the transcript and the approval question.

The model gets the editor's short result text; the user sees what changed as a unified diff
(docs/architecture.md, "Diffs of edits"). :func:`edit_diff` is pure; the text editor's
``preview`` dry run gives the diff an edit *would* make (the REPL shows it before asking).
"""

from __future__ import annotations

import difflib

DIFF_CONTEXT_LINES = 3
"""Unchanged lines around each change in a diff."""
DIFF_MAX_CHARS = 100_000
"""A longer diff is cut (with a marker): it is display only, never sent to the model."""
DIFF_MAX_INPUT_CHARS = 2_000_000
"""Files larger than this are not diffed line by line (the diff names the sizes instead)."""


def edit_diff(before: str | None, after: str | None, label: str) -> str:
    """A unified diff from ``before`` to ``after`` (``None`` = the file does not exist).

    Returns:
        ``--- a/LABEL`` / ``+++ b/LABEL`` headers and hunks (``/dev/null`` for a missing side);
        ``""`` when nothing changed. Cut past :data:`DIFF_MAX_CHARS` with a marker line.
    """
    if before == after:
        return ""
    # An absolute path (a file outside the working dir) is ``a/tmp/x``, as git writes it.
    a, b = (f"a{label}", f"b{label}") if label.startswith("/") else (f"a/{label}", f"b/{label}")
    if len(before or "") + len(after or "") > DIFF_MAX_INPUT_CHARS:
        return (f"--- {a}\n+++ {b}\n[too large to diff: {len(before or ''):,} → "
                f"{len(after or ''):,} characters]\n")
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


def diff_counts(diff: str) -> tuple[int, int]:
    """``(added, removed)`` lines of a unified diff (headers not counted)."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed
