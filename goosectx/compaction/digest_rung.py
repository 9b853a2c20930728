"""The digest rung: a summary request for a history no rung of the ladder can hold.

Part of the summary request (docs/architecture.md §5, "summary request"). When no rung of
:class:`~goosectx.compaction.request.SummaryLadder` fits the summariser's window — a history
many times the window, where even an elided line's floor per line is over it — the request's
conversation is the extractive digest of the oldest messages (built from the transcript, no
model call, to a budget: :data:`DIGEST_TOKENS`, at most :data:`DIGEST_SHARE` of the room)
followed by the newest messages that fit, flattened as every rung flattens them. The model
writes its summary of the whole history from that. The digest is input only: the facts merged
into the summary are still gathered from the transcript, never from the digest or the reply.

Cost: the newest messages are sized from their stored counts
(:func:`~goosectx.compaction.flatten.measured_message`), walked from the newest back only
until the room is spent; the digest is built once per request (its facts scan shares the
compaction's memo); the request chosen is counted once, as every rung's is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from goosectx.compaction.flatten import Line, measured_message, quoted
from goosectx.compaction.request import SummaryLadder, SummaryRequest
from goosectx.conversation import Message, ToolResponse
from goosectx.tokens import TokenCounter

if TYPE_CHECKING:
    from goosectx.compaction.memo import ScanMemo

DIGEST_TOKENS = 30_000
"""Budget of the extractive digest in a digest request (tokens)."""
DIGEST_SHARE = 0.5
"""The digest takes at most this share of the request's room for its conversation."""
MIN_DIGEST_TOKENS = 500
"""No digest request when the digest would get fewer tokens (a window too small to hold a
digest worth summarising: the refusal, or the extractive summary, is the truthful answer)."""
DIGEST_RUNG_PREFIX = "extractive digest"
"""How the digest rung's name starts (``extractive digest + N newest messages``)."""
DIGEST_OPEN = "[extractive digest of the {count} oldest messages, built from the transcript]"
DIGEST_CLOSE = "[end of the digest]"
DIGEST_NOTE = (
    "(The whole history is too long for this request: its {count} oldest messages are given "
    "as an extractive digest — facts gathered from the transcript without a model — at the "
    "start of the conversation, followed by the {newest} newest messages. Summarise the whole "
    "history from both.)")
_ELISION_TRIES = 2
"""Times the newest messages are elided further when the counted request is still over."""

Digest = Callable[[Sequence[Message], int, TokenCounter], str]
"""Builds the digest of the given messages within the given tokens, as the counter counts."""


def extractive_digest(memo: ScanMemo | None) -> Digest:
    """The digest builder: the rendered extractive summary, its scan sharing ``memo``."""
    def build(messages: Sequence[Message], max_tokens: int, counter: TokenCounter) -> str:
        from goosectx.compaction.extractive import extractive_summary
        from goosectx.compaction.summary import render_markdown

        return render_markdown(extractive_summary(messages, max_tokens=max_tokens,
                                                  counter=counter, memo=memo))
    return build


def with_digest(ladder: SummaryLadder, digest: Digest | None) -> Iterator[SummaryRequest]:
    """The ladder's requests; when it has none and ``digest`` is given, the digest request.

    Not when the instructions alone leave no room (that refusal names its own fix).
    """
    tried = False
    for request in ladder:
        tried = True
        yield request
    if tried or digest is None or ladder.instructions_over() is not None:
        return
    last = digest_request(ladder, digest)
    if last is not None:
        yield last


def digest_rung(newest: int) -> str:
    """The digest rung's name: ``extractive digest + N newest messages``."""
    return f"{DIGEST_RUNG_PREFIX} + {newest:,} newest message{'' if newest == 1 else 's'}"


def _results_only(message: Message) -> bool:
    return bool(message.content) and all(isinstance(p, ToolResponse) for p in message.content)


def _note(count: int, newest: int) -> str:
    return DIGEST_NOTE.format(count=f"{count:,}", newest=f"{newest:,}")


@dataclass(frozen=True, slots=True)
class DigestPlan:
    """Where a digest request cuts the history, found from stored counts (no digest built).

    Attributes:
        cut: Messages digested (the oldest); the rest are the newest, flattened.
        newest: The newest messages' lines, each with its tokens.
        digest_tokens: The digest's budget.
        bound_tokens: The request's input tokens at most, when the digest keeps its budget.
    """

    cut: int
    newest: list[Line]
    digest_tokens: int
    bound_tokens: int

    def rung(self, ladder: SummaryLadder) -> str:
        """The rung's name (``extractive digest + N newest messages``)."""
        return digest_rung(len(ladder.messages) - self.cut)


def digest_plan(ladder: SummaryLadder) -> DigestPlan | None:
    """The cut of :func:`digest_request`, or ``None`` for a room too small for a digest.

    ``None`` when the room leaves the digest under :data:`MIN_DIGEST_TOKENS` (a tiny window).
    Reads stored counts only, builds no digest: the dry run plans with it alone.
    """
    counter, messages = ladder.counter, ladder.messages
    framing = counter.count_cached_text(
        f"{_note(len(messages), len(messages))}\n{DIGEST_OPEN}\n{DIGEST_CLOSE}") + 2
    room = ladder.input_budget_tokens - ladder.fixed_tokens - framing
    digest_tokens = min(DIGEST_TOKENS, int(room * DIGEST_SHARE))
    if digest_tokens < MIN_DIGEST_TOKENS:
        return None
    newest_room = room - digest_tokens
    cut, used = len(messages), 0
    kept: list[list[Line]] = []  # newest first
    while cut > 1:  # the digest holds one message at least
        message = messages[cut - 1]
        lines = ([] if message.metadata.is_continuation
                 else measured_message(message, counter, ladder.result_chars))
        tokens = sum(line.tokens for line in lines)
        if used + tokens > newest_room:
            break
        used, cut = used + tokens, cut - 1
        kept.append(lines)
    while kept and _results_only(messages[cut]):  # no result without its call: digested
        cut += 1
        used -= sum(line.tokens for line in kept.pop())
    newest = [line for lines in reversed(kept) for line in lines]
    return DigestPlan(cut, newest, digest_tokens,
                      ladder.fixed_tokens + framing + digest_tokens + used)


def digest_request(ladder: SummaryLadder, digest: Digest) -> SummaryRequest | None:
    """The request of the digest of the oldest messages and the newest that fit, or ``None``.

    ``None`` when the room leaves the digest under :data:`MIN_DIGEST_TOKENS` (a tiny window),
    or the counted request cannot be elided to fit.
    """
    planned = digest_plan(ladder)
    if planned is None:
        return None
    counter, messages, budget = ladder.counter, ladder.messages, ladder.input_budget_tokens
    newest, digested = planned.newest, messages[:planned.cut]
    text = quoted(digest(digested, planned.digest_tokens, counter))
    block = f"{DIGEST_OPEN.format(count=f'{len(digested):,}')}\n{text}\n{DIGEST_CLOSE}"
    head = Line(block, None, False, counter.count_text(block) + 1)
    total = ladder.total_results
    removed = total - sum(line.is_result for line in newest)
    note = _note(len(digested), len(messages) - planned.cut)
    rung, elided = planned.rung(ladder), False
    for attempt in range(_ELISION_TRIES + 1):
        request = ladder.build([head, *newest], 0, removed, total, elided, note=note, rung=rung)
        if request.estimate_tokens <= budget:
            return request
        if attempt == _ELISION_TRIES:
            break
        over = request.estimate_tokens - budget
        target = ladder.fixed_tokens + sum(line.tokens for line in newest) - over - 16 * (
            attempt + 1)
        squeezed = ladder.elide(newest, target)
        if squeezed is None:
            return None
        newest, elided = squeezed, True
    return None
