"""Fitting the facts merged into a summary to their budget (``summary_facts_tokens``).

Part of step 3 of the compaction pipeline (docs/architecture.md §5): :mod:`.facts` gathers the
facts sections, this module renders them and, past the budget, drops the oldest lines —
the user's constraints last (:data:`CONSTRAINTS_LAST`) — counting each line once where the
encoding allows (:func:`rounds_by_lines`).
"""

from __future__ import annotations

from collections.abc import Sequence

from goosectx.compaction.carry import FACTS_MARK
from goosectx.tokens import TokenCounter

TITLES = ("Files changed", "Errors", "Commands run", "User constraints", "Open to-do items")
"""The facts sections' titles, in the order they are rendered."""
CONSTRAINTS_LAST = (2,)
"""The lists (errors, commands, constraints, to-do items) a first pass of rounds keeps whole:
the user's constraints, dropped only once the others are gone. The model can run a command
again, see an error again or read a file, but a constraint lives only in the user's words,
which the compaction hid: dropped from one summary's facts, it is gone from every later one."""


def after_rounds(lists: list[list[str]], rounds: int, keep: Sequence[int]) -> list[list[str]]:
    """``lists`` after ``rounds`` rounds, each dropping the oldest line of each list not kept."""
    return [lines if n in keep else lines[rounds:] for n, lines in enumerate(lists)]


def titled(*lines: list[str]) -> list[tuple[str, list[str]]]:
    """The facts sections in order: (title, its ``- …`` lines)."""
    return list(zip(TITLES, lines, strict=True))


def render(sections: list[tuple[str, list[str]]]) -> str:
    """The facts text: each section with lines, its heading, a blank line and the lines."""
    return "\n\n".join(f"## {title} {FACTS_MARK}\n\n" + "\n".join(lines)
                       for title, lines in sections if lines)


def pieces(sections: list[tuple[str, list[str]]]) -> list[str]:
    """:func:`render`'s text cut before each line that starts with ``-`` or ``#``.

    ``"".join(pieces(s)) == render(s)``: a heading with its blank line, each line with its
    line break, a section's last line with the blank line after it (none after the last).
    """
    present = [(title, lines) for title, lines in sections if lines]
    out: list[str] = []
    for n, (title, lines) in enumerate(present):
        out.append(f"## {title} {FACTS_MARK}\n\n")
        out += [line + "\n" for line in lines[:-1]]
        out.append(lines[-1] + ("\n\n" if n < len(present) - 1 else ""))
    return out


def rounds_by_texts(path_lines: list[str], dropped: list[list[str]], max_tokens: int,
                    counter: TokenCounter, keep: Sequence[int] = ()) -> int:
    """Rounds of dropping after which the facts fit, or after which nothing is left to drop.

    ``dropped``: the errors, commands, constraints and to-do items, oldest first; each round
    drops the oldest of each but the lists ``keep`` names (indexes), which stay whole. The
    whole text is counted after each round.
    """
    rounds = 0
    while any(len(lines) > rounds for n, lines in enumerate(dropped) if n not in keep):
        rounds += 1
        text = render(titled(path_lines, *after_rounds(dropped, rounds, keep)))
        if counter.count_kept_text(text, max_tokens) <= max_tokens:
            break
    return rounds


ADDITIVE_ENCODINGS = frozenset({"o200k_base", "cl100k_base"})
"""Encodings in which a facts text counts as the sum of its :func:`pieces` (see below)."""
MAX_LINE_CHARS = 1_000
"""Longest facts line for which :func:`rounds_by_lines` applies (pieces within one count)."""


def rounds_by_lines(path_lines: list[str], dropped: list[list[str]], max_tokens: int,
                    counter: TokenCounter, keep: Sequence[int] = ()) -> int | None:
    """:func:`rounds_by_texts` from each line's own count: the same rounds, or None.

    Each line is counted once, newest first, and only as far back as the budget reaches,
    instead of the whole text after every round. The figure is the same: with the
    pre-tokenizer of :data:`ADDITIVE_ENCODINGS` no pre-token spans a line break followed by
    ``-`` or ``#`` (a word or number never holds a line break, a run of punctuation ends
    with line breaks and slashes only, whitespace runs hold whitespace only; an ending at
    such a place is matched as in the whole text, the pattern looking neither behind nor, for
    a run ending with a line break, ahead), so BPE, which works within pre-tokens, counts the
    text as the sum of its :func:`pieces`. :func:`goosectx.token_pieces.token_len` counts a
    text over 4,096 characters in parts cut after a line break followed by a non-space,
    which in a facts text whose lines hold no line break and are at most
    :data:`MAX_LINE_CHARS` long is always such a place, so its parts add up the same way.
    None (count text by text) for another encoding, or a line that breaks either condition.
    """
    if counter.encoding not in ADDITIVE_ENCODINGS or any(
            "\n" in line or len(line) > MAX_LINE_CHARS
            for lines in (path_lines, *dropped) for line in lines):
        return None
    encoding = counter.encoding
    counts: dict[str, int] = {}

    def count(piece: str) -> int:
        hit = counts.get(piece)
        if hit is None:
            hit = counts[piece] = counter.count_kept_text(piece)
        return hit

    # What every text keeps: the path lines and the lists kept whole, each but its last line
    # (each piece is at least a token).
    kept_tokens = sum(count(f"## {TITLES[n]} {FACTS_MARK}\n\n")
                      + sum(count(line + "\n") for line in lines[:-1])
                      for n, lines in enumerate([path_lines, *dropped]) if lines and (
                          n == 0 or n - 1 in keep))
    cut = [lines for n, lines in enumerate(dropped) if n not in keep]
    last_round = max(map(len, cut), default=0)
    if not last_round:
        return 0
    start = 1
    for at in range(last_round - 1, 0, -1):  # each list's line ``at`` but its last: dropped
        kept_tokens += sum(count(lines[at] + "\n") for lines in cut  # after round ``at``
                           if at < len(lines) - 1)
        if kept_tokens > max_tokens:  # so do the texts of every earlier round
            start = at + 1
            break
    rounds = start
    while rounds < last_round and sum(map(count, pieces(titled(
            path_lines, *after_rounds(dropped, rounds, keep))))) > max_tokens:
        rounds += 1
    if counter.encoding != encoding:  # the encoding did not load: counts of another kind
        return None
    return rounds


def fit_facts(path_lines: list[str], lists: list[list[str]], max_tokens: int,
              counter: TokenCounter) -> str:
    """The facts text of ``path_lines`` (always kept) and ``lists`` cut to ``max_tokens``.

    ``lists``: the errors, commands, constraints and to-do items, oldest first. Rounds drop
    the oldest line of each but the constraints (:data:`CONSTRAINTS_LAST`) until the text
    fits; only when none of the others is left are the oldest constraints dropped.
    """
    text = render(titled(path_lines, *lists))
    for keep in (CONSTRAINTS_LAST, ()):  # the user's constraints go after the rest
        if counter.count_kept_text(text, max_tokens) <= max_tokens:
            break
        cut = [lines for n, lines in enumerate(lists) if n not in keep]
        if not any(cut):
            continue
        rounds = rounds_by_lines(path_lines, lists, max_tokens, counter, keep)
        if rounds is None:  # counted text by text
            rounds = rounds_by_texts(path_lines, lists, max_tokens, counter, keep)
        lists = after_rounds(lists, rounds, keep)
        text = render(titled(path_lines, *lists))
        if rounds < max(map(len, cut)):  # it fits with lines of them left
            break
    return text
