"""The most of a shell command line the approval checks read: past it, the call is asked about.

docs/architecture.md §4, the approval decision's size bound. The checks of a shell line (its
forms for the permission rules, its sensitive and outside paths, where each part runs) cost
about linear time in its simple commands and characters, a fraction of a millisecond each;
a line a model writes with thousands of commands, or a megabyte of text, would still keep
the question waiting for seconds. :func:`over_budget` says why a line is past the bound,
read before any other check: its length first (no reading at all), then its simple
commands and their words (one :func:`~goosectx.shell_lexer.lex`). A quoted here-document's
body counts as characters only: ``cat <<'EOF'`` writing a file of a thousand lines stays
inside.

Core module: no printing.
"""

from __future__ import annotations

from goosectx.shell_lexer import lex

__all__ = ["MAX_CHARS", "MAX_PARTS", "MAX_WORDS", "over_budget"]

MAX_CHARS = 100_000
"""Characters of a shell line the checks read, at most."""
MAX_PARTS = 500
"""Simple commands (redirections and the commands of substitutions included) they read, at
most."""
MAX_WORDS = 2_000
"""Words of those commands they read, at most (each may be a glob matched on disk)."""


def over_budget(command: str) -> str | None:
    """Why ``command`` is too long for the approval checks to read, or ``None``.

    ``it has 1,204 commands, more than the 500 the checks read``.
    """
    if len(command) > MAX_CHARS:
        return (f"it has {len(command):,} characters, more than the {MAX_CHARS:,} the checks "
                "read")
    parts = [part for part in lex(command) if part.words or part.unreadable]
    if len(parts) > MAX_PARTS:
        return f"it has {len(parts):,} commands, more than the {MAX_PARTS:,} the checks read"
    words = sum(len(part.words) for part in parts)
    if words > MAX_WORDS:
        return f"it has {words:,} words, more than the {MAX_WORDS:,} the checks read"
    return None
