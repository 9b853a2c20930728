"""The summariser calls: the compaction summary and the tool-pair notes.

Each call goes to the ``compaction_model`` first and falls back to the main model on any
provider error (DESIGN.md §4.2(2)). The summary sends the first rung of the request ladder of
:mod:`goosectx.compaction.request` that fits; when the provider says it did not fit, one
smaller request follows — planned for the window the server stated when that is smaller than
the one the request was sized for (:class:`WindowShrank`: the caller plans the compaction
again), else the next rung down — and no more (when no rung fits, the one request is the
digest rung's: :mod:`.digest_rung`): at most :data:`SUMMARY_REQUESTS` per summariser
and attempt. The reply is parsed leniently and rendered to Markdown, or kept raw. The provider
does not retry a summariser call (:data:`SUMMARY_RETRIES`).

Every call honours the caller's ``cancel`` event (Ctrl-C in the REPL, the turn's cancel
event): the provider stops streaming at once and :class:`SummaryCancelled` is raised, so the
caller leaves the history as it was.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, replace

from goosectx.compaction.digest_rung import Digest, with_digest
from goosectx.compaction.parse import parse_note_list, parse_summary
from goosectx.compaction.prompts import TOOL_PAIRS_SYSTEM_PROMPT
from goosectx.compaction.request import TOO_LARGE, SummaryLadder, no_rung_fits
from goosectx.compaction.summary import render_markdown
from goosectx.compaction.toolpairs import TOOL_PAIRS_OUTPUT_TOKENS, ToolPair, notes_prompt
from goosectx.conversation import Message
from goosectx.errors import (
    EXTRACTIVE_HINT,
    CompactionFailed,
    ContextLengthExceeded,
    MalformedModelReply,
    ModelNotConfigured,
    ProviderError,
)
from goosectx.events import CompactionStrategy, CompactionTrigger, Event, Notification
from goosectx.providers.base import STOPPED_OVER_BUDGET, Provider, TokenPrices, complete
from goosectx.tokens import TokenCounter
from goosectx.usage import LedgerEntry, Usage, cost_text, estimated_usage

log = logging.getLogger(__name__)
SUMMARY_RETRIES = 0
"""Transient-failure retries of a summariser call: none. Each compaction attempt sends one
request per rung and model; a failure falls back (extractive summary, extractive notes) and
counts towards the 3-failure breaker instead of hammering a failing server."""

SUMMARY_REQUESTS = 2
"""Summary requests one summariser gets in one compaction attempt: the first, and one smaller
after a "too long" refusal (README: a summary call is sent once per attempt, once more
re-sized)."""

CounterFor = Callable[[str | None], TokenCounter]
"""Returns the (cached) token counter of a model."""


class SummaryCancelled(Exception):
    """The caller's cancel event was set before or during a summariser call.

    Not a :class:`~goosectx.errors.GoosectxError`: nothing failed and there is nothing to fix;
    the context manager catches it, leaves the history untouched and says so.
    """


class WindowShrank(Exception):
    """The server refused a summary request as too long and stated a smaller window.

    Smaller than the window the request was sized for: the caller plans the compaction for it
    (the main model's view too, when the summariser is the main model) and calls the
    summariser once more, ``resized``. Not a :class:`~goosectx.errors.GoosectxError`: nothing
    has failed yet.

    Attributes:
        model: The summariser's model.
        stated_tokens: The window the server stated.
        sized_tokens: The window the refused request was sized for.
        index: The summariser's place in the list :func:`model_summary` was given.
    """

    def __init__(self, model: str, stated_tokens: int, sized_tokens: int) -> None:
        super().__init__(model, stated_tokens, sized_tokens)
        self.model, self.stated_tokens, self.sized_tokens = model, stated_tokens, sized_tokens
        self.index = 0

    def notice(self) -> str:
        """The inline notice: the window stated, and that the compaction is sized for it."""
        return (f"{self.model}'s server refused the summary request and stated a "
                f"{self.stated_tokens:,}-token context window (not {self.sized_tokens:,}): "
                "compacting for that window.")


def _stop_if_cancelled(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise SummaryCancelled()


@dataclass(frozen=True, slots=True)
class SummaryResult:
    """A written summary.

    Attributes:
        text: The summary message text (Markdown, or the model's raw reply if it did not
            parse).
        call: Ledger entry of the summary call (purpose ``compaction``), ``None`` if no model
            was called.
        rung: The rung of the request that succeeded, ``None`` without a model.
        parsed: False when the model's reply did not parse and ``text`` is its raw reply.
        stopped: The reply was stopped once its text passed :func:`stop_chars` of the
            summary's budget; ``text`` is what was read (raw), never a summary to keep.
    """

    text: str
    call: LedgerEntry | None
    rung: str | None
    parsed: bool = True
    stopped: bool = False


STOP_OVER_BUDGET_RATIO = 2.0
"""A summary reply is stopped once its text is this many times the summary's budget."""
STOP_CHARS_PER_TOKEN = 6
"""Characters counted as one token for that cut: generous (English runs about 4 a token), so
a summary is cut only past twice its budget unless its tokens average more than 6."""


def stop_chars(budget_tokens: int) -> int:
    """Characters of summary text past which its reply is stopped (``budget_tokens``: budget)."""
    return int(budget_tokens * STOP_OVER_BUDGET_RATIO * STOP_CHARS_PER_TOKEN)


def summary_from(provider: Provider, messages: Sequence[Message], instructions: str | None,
                 counter: TokenCounter, *, cancel: threading.Event | None = None,
                 max_output_tokens: int | None = None, result_chars: int | None = 2_000,
                 billed: list[LedgerEntry] | None = None, resized: bool = False,
                 digest: Digest | None = None) -> SummaryResult:
    """Write the summary with one model: at most :data:`SUMMARY_REQUESTS` requests.

    The first rung that fits is sent; after a "too long" refusal, the next rung down (one
    request more), unless the server stated a window smaller than the one the request was
    sized for: then :class:`WindowShrank` is raised for the caller to plan for it and call
    again with ``resized`` (one request, no further step). When no rung fits, ``digest``
    (if given) makes the one request: the digest of the oldest messages and the newest that
    fit (:mod:`.digest_rung`).

    Raises:
        WindowShrank: the first request was refused, stating a smaller window (not ``resized``).
        SummaryCancelled: ``cancel`` was set before or during a call (the reply is dropped).
        CompactionFailed: no rung fits (by estimate), or the provider refused every request
            sent.
        MalformedModelReply: the model returned no text (nothing, or a tool call).
        ProviderError: any other provider failure.
    """
    limit = provider.context_limit().tokens
    ladder = SummaryLadder(messages, counter=counter, context_limit_tokens=limit,
                           output_limit_tokens=provider.output_limit_tokens(),
                           instructions=instructions, max_output_tokens=max_output_tokens,
                           result_chars=result_chars)
    rejected = 0
    for candidate in with_digest(ladder, digest):
        if rejected == (1 if resized else SUMMARY_REQUESTS):
            break
        _stop_if_cancelled(cancel)
        try:
            response = complete(provider, candidate.system, candidate.messages(),
                                max_tokens=candidate.max_tokens, cancel=cancel,
                                retries=SUMMARY_RETRIES, max_text_chars=stop_chars(
                                    max_output_tokens or candidate.max_tokens))
        except ContextLengthExceeded:
            rejected += 1
            log.info("summary request at rung %s rejected as too long", candidate.rung)
            stated = provider.context_limit().tokens
            if rejected == 1 and not resized and stated < limit:
                raise WindowShrank(provider.model, stated, limit) from None
            continue
        _stop_if_cancelled(cancel)
        text = response.message.text.strip()
        entry = LedgerEntry(response.usage or Usage(), response.model or provider.model,
                            "compaction")
        if not text:
            if billed is not None and response.usage is not None:
                billed.append(entry)
            raise MalformedModelReply(_no_text_reply(provider.model, response.message),
                                      f"try again, or {EXTRACTIVE_HINT}")
        if response.finish_reason == STOPPED_OVER_BUDGET:  # the caller refuses it, and bills
            entry = replace(entry, usage=stopped_usage(provider, response.usage,  # what was
                                                       candidate.estimate_tokens,  # read
                                                       counter.count_text(text)))
            return SummaryResult(text, entry, candidate.rung, parsed=False, stopped=True)
        parsed = parse_summary(text)
        return SummaryResult(render_markdown(parsed) if parsed else text, entry, candidate.rung,
                             parsed is not None)
    limit = provider.context_limit().tokens  # a window the server stated, if it did
    raise no_rung_fits(limit, provider.model,
                       rejected_text(provider.model, rejected) if rejected else TOO_LARGE,
                       instructions_tokens=None if rejected else ladder.instructions_over())


def stopped_usage(provider: Provider, reported: Usage | None, input_tokens: int,
                  output_tokens: int) -> Usage:
    """The usage of a reply stopped past twice its budget: billed, though its stream was closed.

    The provider's report when it sent one before the stop; else our estimate (marked
    :attr:`Usage.estimated`): ``input_tokens`` (the request's count) and ``output_tokens``
    (the text read), priced at the model's list prices (cost unknown without them).
    """
    if reported is not None and reported.reported:
        return reported
    method = getattr(provider, "prices", None)
    prices: TokenPrices | None = method() if callable(method) else None
    return estimated_usage(input_tokens, output_tokens,
                           prices.input_usd_per_token if prices else None,
                           prices.output_usd_per_token if prices else None)


def rejected_text(model: str, rejected: int) -> str:
    """``MODEL rejected the summary request`` (one), or how many, each smaller than the last."""
    if rejected == 1:
        return f"{model} rejected the summary request"
    return f"{model} rejected {rejected} summary requests, each smaller than the last"


def _no_text_reply(model: str, reply: Message) -> str:
    """Why a summary reply without text is no summary: a tool call, or nothing at all."""
    calls = reply.tool_requests
    if not calls:
        return f"{model} returned an empty summary"
    names = ", ".join(dict.fromkeys(call.name[:60] for call in calls))
    what = "a tool call" if len(calls) == 1 else f"{len(calls)} tool calls"
    return f"{model} replied with {what} ({names}) instead of a summary"


def model_summary(summarisers: Sequence[Provider], messages: Sequence[Message],
                  instructions: str | None, counter_for: CounterFor, *, replaced: int,
                  cancel: threading.Event | None = None, max_output_tokens: int | None = None,
                  result_chars: int | None = 2_000, billed: list[LedgerEntry] | None = None,
                  resized: bool = False, digest: Digest | None = None,
                  ) -> Generator[Event, None, SummaryResult]:
    """Write the summary with the first summariser that succeeds.

    Yields an inline notice (and a new thinking notice, "Summarising ``replaced``
    messages…": the stored messages the compaction hides, as its undo counts them) each time
    it falls back to the next summariser; returns the :class:`SummaryResult`. A failed call
    that reported usage (an empty reply) has its ledger entry appended to ``billed``.
    ``resized``: the first summariser was refused in this attempt and the request is planned
    for the window its server stated (it gets one request). ``digest``: builds the digest
    a request uses when no rung fits (:func:`summary_from`).

    Raises:
        WindowShrank: a summariser's server stated a smaller window (``index`` says which).
        SummaryCancelled: ``cancel`` was set (no further summariser is tried).
        ModelNotConfigured: ``summarisers`` is empty.
        ProviderError, CompactionFailed: the last summariser failed too.
    """
    if not summarisers:
        raise ModelNotConfigured("no model is configured to write the summary",
                                 f"set GOOSE_MODEL, or {EXTRACTIVE_HINT}")
    for i, provider in enumerate(summarisers):
        try:
            return summary_from(provider, messages, instructions, counter_for(provider.model),
                                cancel=cancel, max_output_tokens=max_output_tokens,
                                result_chars=result_chars, billed=billed,
                                resized=resized and i == 0, digest=digest)
        except WindowShrank as shrank:
            shrank.index = i
            raise
        except (ProviderError, CompactionFailed) as exc:
            if i + 1 == len(summarisers):
                raise
            nxt = summarisers[i + 1].model
            yield Notification("inline", f"The compaction model {provider.model} failed "
                                         f"({exc.one_line()}); using {nxt} instead.")
            yield Notification("thinking", summarising_text(replaced, "message"))
    raise AssertionError("unreachable")


def tool_pair_notes(summarisers: Sequence[Provider], pairs: Sequence[ToolPair],
                    counter_for: CounterFor, *, cancel: threading.Event | None = None,
                    ) -> tuple[list[str | None], LedgerEntry | None]:
    """One-line notes for ``pairs`` from one summariser call (the next one on error).

    Returns:
        (one note or ``None`` per pair, the call's ledger entry with purpose ``tool_pairs``);
        all ``None`` and no entry when every summariser fails; all ``None`` and the stopped
        call's entry (:func:`stopped_usage`: billed) when a reply passes twice the notes'
        budget (no further summariser, as for a summary) — the caller then writes extractive
        notes.

    Raises:
        SummaryCancelled: ``cancel`` was set before or during the call.
    """
    for provider in summarisers:
        _stop_if_cancelled(cancel)
        limit = provider.context_limit().tokens
        max_tokens = max(64, min(provider.output_limit_tokens(), TOOL_PAIRS_OUTPUT_TOKENS,
                                 limit // 4))
        per_pair = max(48, min(1_500, (limit - max_tokens - 600) // (2 * len(pairs))))
        prompt = notes_prompt(pairs, counter_for(provider.model), per_pair)
        try:
            response = complete(provider, TOOL_PAIRS_SYSTEM_PROMPT, [Message.user(prompt)],
                                max_tokens=max_tokens, cancel=cancel, retries=SUMMARY_RETRIES,
                                max_text_chars=stop_chars(max_tokens))
        except ProviderError as exc:
            log.info("tool-pair notes from %s failed: %s", provider.model, exc.one_line())
            continue
        _stop_if_cancelled(cancel)
        if response.finish_reason == STOPPED_OVER_BUDGET:  # billed; extractive notes instead
            log.info("tool-pair notes from %s stopped past twice their budget", provider.model)
            counter = counter_for(provider.model)
            usage = stopped_usage(provider, response.usage,
                                  counter.count_text(TOOL_PAIRS_SYSTEM_PROMPT)
                                  + counter.count_messages([Message.user(prompt)]),
                                  counter.count_text(response.message.text.strip()))
            return [None] * len(pairs), LedgerEntry(usage, provider.model, "tool_pairs")
        notes = parse_note_list(response.message.text, len(pairs))
        entry = LedgerEntry(response.usage or Usage(), response.model or provider.model,
                            "tool_pairs")
        return notes, entry
    return [None] * len(pairs), None


def summarising_text(count: int, noun: str) -> str:
    """The spinner text while a summariser works: ``Summarising 12 messages…``."""
    return f"Summarising {count:,} {noun}{'' if count == 1 else 's'}…"


def intro_text(trigger: CompactionTrigger, before: int, limit: int) -> str:
    """The inline notice that opens a compaction."""
    if trigger == "auto":
        pct = round(100 * before / limit) if limit else 0
        return (f"Context is {pct}% full ({before:,} of {limit:,} tokens): compacting the "
                "conversation…")
    if trigger == "reactive":
        return ("The model rejected the request as too long for its context window: compacting "
                "the conversation and retrying…")
    return "Compacting the conversation…"


def cancelled_text(trigger: CompactionTrigger) -> str:
    """The inline notice of a compaction the user cancelled (the history is unchanged)."""
    if trigger == "auto":
        return "Auto-compaction cancelled; nothing changed."
    return "Compaction cancelled; nothing changed."


def done_text(trigger: CompactionTrigger, before: int, after: int, cost_usd: float | None,
              strategy: CompactionStrategy, fallback: str | None = None, *,
              summarised: bool = True, estimated: bool = False) -> str:
    """The transcript's marker of a compaction.

    E.g. ``Context compacted automatically · 118,402 → 6,911 tokens · $0.0040``; an unknown
    cost is left out (the live rule says "cost unknown" once a session). ``fallback`` says why
    the model's summary was not used (the extractive summary was): its request did not fit,
    its call failed, or its reply was unusable, too long or would not shrink the view;
    ``summarised`` False: the one message kept was elided, with nothing before it to
    summarise; ``estimated``: the cost is our estimate (``~$0.0040 (estimate)``, a summary
    stopped before any usage).
    """
    how = {"auto": "automatically", "reactive": "after a context-length error",
           "manual": "at your request"}.get(trigger, "")
    cost = cost_text(cost_usd, estimated) if cost_usd is not None else ""
    if not summarised:
        price = "its middle elided, nothing before it to summarise, no model call"
    elif fallback:  # the model's summary was not to be had: the extractive one took its place
        price = f"{fallback}, so the extractive summary was used" + (f" · {cost}" if cost else "")
    else:
        price = "extractive summary, no model call" if strategy == "extractive" else cost
    text = f"Context compacted {how} · {before:,} → {after:,} tokens"
    return f"{text} · {price}" if price else text
