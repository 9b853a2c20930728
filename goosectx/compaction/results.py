"""The summary request's tool-result lines: measured at need, removed from the middle out.

Part of step 2 of the compaction pipeline (docs/architecture.md §5), beside the flattening
(:mod:`.flatten`) and the ladder (:mod:`.request`). A message of tool results only becomes a
:class:`ResultLines`: one line per result, with its call's id, measured (its outputs read)
only when a rung needs its tokens. A rung removes results from the middle of the list outward
(:func:`middle_out_removal`, goose's middle-out tool-response removal).

What measuring a results message finds — its counted characters and each line's length, for
one ``summary_result_chars`` — is a pure function of its outputs and of this build's
flattening rules. Where the session's stored counts offer somewhere to keep it
(:class:`KeptResultLines`: the store keeps it with the message's shape, migration 14), a later
process sizes the line from it and its stored token count, as :func:`.flatten.measured_message`
would, without reading the outputs; the key names the flattening code's digest, so another
build's figures are not used.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Protocol

from goosectx.compaction import flatten
from goosectx.compaction.flatten import Line, measured_lines_and_chars, measured_message
from goosectx.conversation import Message, ToolResponse
from goosectx.tokens import TokenCounter

REMOVED_CALL_TOKENS = 5
"""What `` → (result omitted)`` adds to a call line whose result is removed (estimate)."""


class KeptResultLines(Protocol):
    """Where a session's stored counts keep what measuring its results messages found.

    An adapter's (the store's), found as the ``result_lines`` attribute of the counts mapping
    (``Session.token_counts``) when it has one. ``figures``: the message's counted characters,
    then each line's length.
    """

    def get(self, message_id: str, key: str) -> list[int] | None:
        """The figures kept for ``message_id`` under ``key``, if any."""

    def put(self, message_id: str, key: str, figures: list[int]) -> None:
        """Keep ``figures`` for ``message_id`` under ``key`` (best effort, saved later)."""


@cache
def _rules_digest() -> str:
    """A digest of :mod:`.flatten`'s source (``""``: unreadable, nothing is kept)."""
    from goosectx.digests import sha256

    try:
        return sha256(Path(flatten.__file__).read_bytes()).hexdigest()[:16]
    except (OSError, TypeError):
        return ""


def kept_key(result_chars: int | None) -> str:
    """The key of the figures this build measures with ``result_chars``."""
    digest = _rules_digest()
    return f"{digest}:{result_chars}" if digest else ""


class ResultLines:
    """The lines of a message of tool results only, measured when first needed.

    Each result is one line, with its call's id, whatever its output: the ladder knows which
    results a rung removes without reading one, and reads (and measures) only those whose
    tokens decide whether a rung fits (:meth:`SummaryLadder._over_budget`). A message's lines
    are measured together (their tokens come from the message's count and characters); their
    tokens alone come from kept figures where there are some (:meth:`tokens`).
    """

    __slots__ = ("message", "ids", "_lines", "_kept", "_tokens")

    def __init__(self, message: Message, kept: KeptResultLines | None = None) -> None:
        self.message = message
        self.ids = [p.id for p in message.content if isinstance(p, ToolResponse)]
        self._lines: list[Line] | None = None
        self._kept = kept
        self._tokens: list[tuple[str | None, int]] | None = None

    def lines(self, counter: TokenCounter, result_chars: int | None) -> list[Line]:
        """:func:`~.flatten.measured_message` of the message (made once; its figures kept)."""
        if self._lines is None:
            if self._kept is None:
                self._lines = measured_message(self.message, counter, result_chars)
            else:
                self._lines, chars = measured_lines_and_chars(self.message, counter,
                                                              result_chars)
                key = self._key(result_chars)
                if key:
                    self._kept.put(self.message.id, key,
                                   [chars, *(len(line.text) for line in self._lines)])
        return self._lines

    def _key(self, result_chars: int | None) -> str:
        """:func:`kept_key` with the message's result ids, in order.

        A copy of the message under its id (a repair moves parts between messages) finds no
        figures but its own.
        """
        key = kept_key(result_chars)
        ids = "\0".join(self.ids).encode("utf-8", "surrogatepass")
        return f"{key}:{zlib.crc32(ids):08x}" if key else ""

    def tokens(self, counter: TokenCounter, result_chars: int | None
               ) -> list[tuple[str | None, int]]:
        """Each line's (tool id, tokens), as :meth:`lines` gives them.

        From the kept figures and the message's stored count when both are there (no output
        read), else from :meth:`lines` (made once: a ladder has one counter and result size).
        """
        if self._tokens is None:
            if self._lines is None and self._kept is not None:
                key = self._key(result_chars)
                figures = self._kept.get(self.message.id, key) if key else None
                if figures is not None and len(figures) == len(self.ids) + 1:
                    ratio = counter.stored_tokens_per_char(self.message, figures[0])
                    if ratio is not None:
                        self._tokens = [(i, math.ceil(n * ratio) + 1)
                                        for i, n in zip(self.ids, figures[1:], strict=True)]
            if self._tokens is None:
                self._tokens = [(line.tool_id, line.tokens)
                                for line in self.lines(counter, result_chars)]
        return self._tokens


def kept_result_lines(counter: TokenCounter) -> KeptResultLines | None:
    """The place the counter's stored counts offer to keep results' figures, if any."""
    kept: KeptResultLines | None = getattr(counter.stored, "result_lines", None)
    return kept


def head_entries(messages: Sequence[Message], counter: TokenCounter,
                 result_chars: int | None) -> list[Line | ResultLines]:
    """:func:`~.flatten.measured_message` of each message; one of results only, a ResultLines.

    Its lines (``ids``: a result line each, in order) are measured at first need.
    """
    kept = kept_result_lines(counter)
    out: list[Line | ResultLines] = []
    for m in messages:
        if m.metadata.is_continuation:
            continue  # no line (flatten's)
        content = m.content
        if content and (isinstance(content[0], ToolResponse) if len(content) == 1  # (most)
                        else all(isinstance(p, ToolResponse) for p in content)):
            out.append(ResultLines(m, kept))
        else:
            out += measured_message(m, counter, result_chars)
    return out


def stand_in_lines(entries: Sequence[Line | ResultLines]) -> list[Line]:
    """The lines of ``entries``, an unmeasured result's a stand-in (its id, no text, 0 tokens).

    As good as the measured lines for a rung that removes every result (0 %).
    """
    return [line for entry in entries for line in (
        [Line("", i, True) for i in entry.ids] if isinstance(entry, ResultLines) else (entry,))]


def middle_out_removal(lines: Sequence[Line], keep_percent: int) -> tuple[list[Line], int, int]:
    """Drop tool results from the middle of the list outward; their call lines stay.

    Of ``n`` results, ``ceil(n × (100 − keep_percent) / 100)`` are removed, those nearest the
    centre first (goose: middle-out tool-response removal); 0 % removes all, even a lone one.
    The call line of a removed result becomes ``[tool] NAME {ARGS} → (result omitted)``.

    Returns:
        (kept lines, removed result count, total result count).
    """
    removed, k, n = removed_of([line.tool_id for line in lines if line.is_result], keep_percent)
    kept: list[Line] = []
    for line in lines:
        if line.tool_id not in removed:
            kept.append(line)
        elif not line.is_result:
            text = line.text.replace("[assistant tool call] ", "[tool] ", 1)
            kept.append(Line(f"{text} → (result omitted)", line.tool_id, False,
                             line.tokens + REMOVED_CALL_TOKENS))
    return kept, k, n


def removed_of(results: Sequence[str | None], keep_percent: int
               ) -> tuple[set[str | None], int, int]:
    """The tool ids :func:`middle_out_removal` removes of result lines ``results``; (k, n).

    The ``k`` nearest the centre (the lower first of two as near): those from ``(n - k) // 2``.
    """
    n = len(results)
    k = -(-n * (100 - keep_percent) // 100)
    start = (n - k) // 2
    return set(results[start:start + k]), k, n
