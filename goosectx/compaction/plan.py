"""Planning a compaction: what it summarises, its budgets, the refusals before any call.

Shared by :func:`goosectx.compaction.execute.execute` and the dry run :func:`plan`
(``goosectx compact --dry-run``), so a dry run refuses exactly where a real run would
(docs/architecture.md §5). Nothing here calls a model or changes the conversation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from goosectx.compaction.budget import Budget
from goosectx.compaction.digest_rung import digest_plan
from goosectx.compaction.layout import laid_out_tokens, plan_split
from goosectx.compaction.prompts import RESENT_HEADING_KIND
from goosectx.compaction.request import SummaryLadder, no_rung_fits, reserved_output_tokens
from goosectx.compaction.tail import Split
from goosectx.conversation import Conversation, Message, repair
from goosectx.errors import CompactionFailed, CompactionWouldGrow
from goosectx.plain_record import compared_record
from goosectx.providers.base import Provider
from goosectx.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

if TYPE_CHECKING:  # types only: a dry run never imports the events
    from goosectx.compaction.scan_state import ScanCache
    from goosectx.events import CompactionStrategy, CompactionTrigger

DEFAULT_EXTRACTIVE_SUMMARY_TOKENS = 4_000
"""Budget of an extractive summary when the caller names none (``--max-summary-tokens``)."""
MIN_BENEATH_TOKENS = 64
"""The extractive summary beneath a raw reply gets at least this many tokens."""
_JOIN_SLACK_TOKENS = 32
"""Tokens the summary's parts may gain where they are joined (line breaks, headings)."""


@compared_record  # read-only to mypy; printed nowhere (a test)
class CompactionPlan:
    """What a compaction would do (``goosectx compact --dry-run``); no model is called.

    Attributes:
        tokens_before: ``current`` now (tokens).
        strategy: ``llm`` or ``extractive``.
        message_count: Agent-visible messages that would be summarised.
        model: The summariser model, or ``None`` for the extractive strategy.
        context_limit_tokens: The summariser's context window; ``None`` for extractive.
        rung: The summary-input rung tried first (``extractive digest + N newest messages``
            when no rung of the ladder fits: :mod:`.digest_rung`), or ``None`` (extractive,
            or nothing fits).
        request_tokens: Estimated input tokens of that summary request (at most that, for
            the digest rung: its digest is built only by the run), or ``None``.
        max_tokens: The summary's output budget (tokens).
        removed_results: Tool results that rung leaves out.
        total_results: Tool results in the agent view.
        view_count: Agent-visible messages now, as stored.
        replaced_count: Those the compaction would hide (summarised, or kept as an elided
            copy): the count an undo of it reports as seen again.
    """

    tokens_before: int
    strategy: CompactionStrategy
    message_count: int
    model: str | None
    context_limit_tokens: int | None
    rung: str | None = None
    request_tokens: int | None = None
    max_tokens: int = 0
    removed_results: int = 0
    total_results: int = 0
    view_count: int = 0
    replaced_count: int = 0


def extractive_budget(max_summary_tokens: int | None, context_limit_tokens: int,
                      head_tokens: int | None = None) -> int:
    """Budget of an extractive summary: the caller's, else 4,000 capped at a quarter window.

    With ``head_tokens`` (what it summarises) and no caller's budget, also at most half of
    that (at least :data:`MIN_BENEATH_TOKENS`): a summary is smaller than what it replaces.
    """
    if max_summary_tokens:
        return max_summary_tokens
    cap = max(100, min(DEFAULT_EXTRACTIVE_SUMMARY_TOKENS, context_limit_tokens // 4))
    return cap if head_tokens is None else max(MIN_BENEATH_TOKENS, min(cap, head_tokens // 2))


def plan(
    conversation: Conversation, summarisers: Sequence[Provider], counter: TokenCounter,
    budget: Budget, *, tokens_before: int, counter_for: Callable[[str | None], TokenCounter],
    instructions: str | None, strategy: str, max_summary_tokens: int | None,
    scan_cache: ScanCache | None = None,
) -> CompactionPlan:
    """What a manual :func:`execute` would do with ``conversation``, calling no model.

    ``scan_cache``: where the facts scan resumes and keeps its state (:mod:`.facts_scan`).

    Raises:
        CompactionFailed: the refusal :func:`execute` would raise before any call (nothing to
            compact; :class:`CompactionWouldGrow` when even an empty summary would not shrink
            the view).
    """
    working, messages, old_tokens, empty_tokens = prepare(
        conversation, budget, counter, trigger="manual", before=tokens_before,
        instructions=instructions, scan_cache=scan_cache)
    view_count = len(conversation.agent_messages())
    replaced_count = working.hidden_count()
    if strategy != "llm" or not summarisers:
        head_tokens = counter.count_messages(messages)
        tokens = standalone_extractive_tokens(max_summary_tokens, budget, working, head_tokens)
        growth = _extractive_growth(conversation, messages, working, budget, counter,
                                    before=tokens_before, old_tokens=old_tokens,
                                    empty_tokens=empty_tokens, summary_tokens=tokens,
                                    max_summary_tokens=max_summary_tokens,
                                    head_tokens=head_tokens)
        if growth is not None:
            raise growth
        return CompactionPlan(tokens_before, "extractive", len(messages), None, None,
                              max_tokens=tokens, view_count=view_count,
                              replaced_count=replaced_count)
    provider = summarisers[0]
    limit = provider.context_limit().tokens
    output = provider.output_limit_tokens()
    ladder = SummaryLadder(messages, counter=counter_for(provider.model),
                           context_limit_tokens=limit, output_limit_tokens=output,
                           instructions=instructions, max_output_tokens=budget.summary_max_tokens,
                           result_chars=budget.result_chars)
    first = ladder.first()
    if first is None and (over := ladder.instructions_over()) is not None:
        raise no_rung_fits(limit, provider.model, instructions_tokens=over)
    digested = digest_plan(ladder) if first is None else None
    if digested is not None:  # the digest is built by the run: its budget bounds the request
        total = ladder.total_results
        return CompactionPlan(tokens_before, "llm", len(messages), provider.model, limit,
                              digested.rung(ladder), digested.bound_tokens, ladder.reserve,
                              total - sum(line.is_result for line in digested.newest), total,
                              view_count, replaced_count)
    if first is None:
        return CompactionPlan(tokens_before, "llm", len(messages), provider.model, limit,
                              max_tokens=reserved_output_tokens(limit, output,
                                                                budget.summary_max_tokens),
                              total_results=ladder.total_results,
                              view_count=view_count, replaced_count=replaced_count)
    return CompactionPlan(tokens_before, "llm", len(messages), provider.model, limit,
                          first.rung, first.estimate_tokens, first.max_tokens,
                          first.removed_results, first.total_results, view_count,
                          replaced_count)


def prepare(conversation: Conversation, budget: Budget, counter: TokenCounter, *,
             trigger: CompactionTrigger, before: int, instructions: str | None = None,
             scan_cache: ScanCache | None = None) -> tuple[Split, list[Message], int, int]:
    """Head, working set, head messages, old view's raw tokens, new view's with no summary.

    Raises the refusals that come before any summary call (shared by :func:`execute` and
    :func:`plan`, so a dry run refuses exactly where a real run would). A manual compaction
    with nothing new since the last one, itself manual, is refused (a repeat by accident costs
    no call) unless it has ``instructions``: then it summarises the messages that one kept
    verbatim too (goose's layout), as asked.
    """
    agent = conversation.agent_messages()  # once: the split does not change the conversation
    if not agent:
        raise CompactionFailed("nothing to compact: the model sees no messages")
    kept = _kept_since_last_compaction(conversation, agent) if trigger == "manual" else None
    if kept and not (instructions or "").strip():
        raise CompactionFailed(
            f"nothing to compact: nothing is new since the last compaction (the model sees "
            f"its summary and the {kept} newest message{'' if kept == 1 else 's'} it kept "
            "verbatim)", hint="to summarise those too, say what to keep: /compact TEXT, or "
                              "goosectx compact SESSION --instructions TEXT")
    if kept:
        budget = replace(budget, tail_tokens=0, user_tokens=0)
    working = plan_split(conversation, budget, counter, trigger=trigger, scan_cache=scan_cache)
    messages = (working.head_view if working.head_view is not None
                else repair(working.head, for_sending=False))
    if not messages:
        raise CompactionFailed("nothing to compact: the model keeps every message it sees")
    if trigger == "manual" and _only_a_summary(working.head):
        after = len(working.tail)
        raise CompactionFailed(
            "nothing to compact: the model sees only the last summary; nothing is new since it"
            if not after else
            f"nothing to compact: the model sees only the last summary and {after} message"
            f"{'' if after == 1 else 's'} after it, all in the recent part kept verbatim "
            "(keep_recent_ratio); only the summary would be summarised")
    old_tokens = counter.count_messages(agent)
    empty_tokens = laid_out_tokens(conversation, "", working, trigger=trigger, counter=counter)
    growth = growth_refusal(before, old_tokens, empty_tokens, budget, at_least=True,
                            reactive=trigger == "reactive")
    if growth is not None:  # even an empty summary would not help: no call is made
        raise growth
    return working, messages, old_tokens, empty_tokens


def _kept_since_last_compaction(conversation: Conversation,
                                agent: Sequence[Message]) -> int | None:
    """How many messages the last manual compaction kept verbatim, if nothing came after it.

    The compaction is the newest whose summary the model still sees; what it kept verbatim
    follows its summary, and "after it" is after its notice (the last of its messages).
    ``None`` when there is no such compaction, it was automatic (a ``/compact`` after it is
    no repeat: after an extractive one, say, it asks for the model's summary), or the model
    sees a message before its summary or after its notice.
    """
    first = agent[0].metadata  # the summary must be the first: else no pass over the view
    if not (first.is_summary and first.compaction_id):
        return None
    summaries = [m for m in agent if m.metadata.is_summary and m.metadata.compaction_id]
    summary = max(summaries, key=lambda m: m.created)
    newest = summary.metadata.compaction_id
    if agent[0] is not summary or summary.metadata.extra.get("trigger", "manual") != "manual":
        return None
    messages = conversation.messages
    last = next(i for i in range(len(messages) - 1, -1, -1)
                if messages[i].metadata.compaction_id == newest)
    seen = {m.id for m in agent}
    if any(m.id in seen for m in messages[last + 1:]):
        return None
    return sum(m.metadata.compaction_id != newest or "elided_from_tokens" in m.metadata.extra
               for m in agent)


def _only_a_summary(head: Sequence[Message]) -> bool:
    """True when ``head`` is an earlier compaction's summary, its continuation and copies.

    The copies are of the user messages it re-sent (after their heading); an elided copy of a
    long message (its middle cut to fit) is content a summary may still shrink.
    """
    return all(  # first: it stops at the first message no compaction made (any() cannot)
        m.metadata.compaction_id is not None
        and (m.metadata.is_summary or m.metadata.is_continuation
             or m.metadata.extra.get("source_kind") == RESENT_HEADING_KIND
             or ("copy_of" in m.metadata.extra and "elided_from_tokens" not in m.metadata.extra))
        for m in head) and any(m.metadata.is_summary for m in head)


def standalone_extractive_tokens(max_summary_tokens: int | None, budget: Budget,
                                  working: Split, head_tokens: int) -> int:
    """Budget of an extractive summary that stands alone (strategy or fallback).

    :func:`extractive_budget` with the half-of-the-head cap; with no budget named, also what
    the summary's room in the layout leaves (its facts included).
    """
    tokens = extractive_budget(max_summary_tokens, budget.context_limit_tokens, head_tokens)
    if not max_summary_tokens:  # the room is the summary message's: its overhead comes off
        tokens = min(tokens, int((budget.summary_max_tokens + working.facts_tokens)
                                 / budget.ratio) - MESSAGE_OVERHEAD_TOKENS)
    return tokens


def standalone_extractive_text(messages: list[Message], working: Split, budget: Budget,
                               counter: TokenCounter, max_summary_tokens: int | None,
                               head_tokens: int) -> str:
    """The rendered extractive summary that stands alone (strategy or fallback).

    The facts merged into it later (as into a model's summary) come out of the same room.
    """
    from goosectx.compaction.extractive import extractive_summary
    from goosectx.compaction.summary import render_markdown

    tokens = standalone_extractive_tokens(max_summary_tokens, budget, working, head_tokens)
    return render_markdown(extractive_summary(
        messages, max_tokens=max(MIN_BENEATH_TOKENS, tokens - _facts_raw_tokens(working, budget)),
        counter=counter, memo=working.scan_memo, answered=working.answered, tail=working.tail,
        copied=working.copied()))


def _facts_raw_tokens(working: Split, budget: Budget) -> int:
    return math.ceil(working.facts_tokens / budget.ratio)


def _extractive_growth(conversation: Conversation, messages: list[Message], working: Split,
                       budget: Budget, counter: TokenCounter, *, before: int, old_tokens: int,
                       empty_tokens: int, summary_tokens: int, max_summary_tokens: int | None,
                       head_tokens: int) -> CompactionWouldGrow | None:
    """The refusal a real extractive run would raise once its summary is built, or ``None``.

    A dry run builds no summary where even the largest one could not grow the view: the
    summary is at most its budget plus the facts merged into it (their reserve), so that
    bound is checked first, against ``empty_tokens`` (the view with an empty summary, as
    :func:`prepare` measured it), without counting anything new. Only a view so small that the
    bound is not enough (a few messages) has its summary built and counted as the real run
    would. ``summary_tokens``: the summary's budget (:func:`standalone_extractive_tokens`).
    """
    facts_raw = _facts_raw_tokens(working, budget)
    largest = (max(MIN_BENEATH_TOKENS, summary_tokens - facts_raw) + facts_raw
               + _JOIN_SLACK_TOKENS)
    if growth_refusal(before, old_tokens, empty_tokens + largest, budget) is None:
        return None
    from goosectx.compaction.facts import merge_facts

    text = merge_facts(standalone_extractive_text(messages, working, budget, counter,
                                                  max_summary_tokens, head_tokens),
                       messages, counter=counter, max_tokens=budget.facts_tokens,
                       memo=working.scan_memo, resent=working.whole_copies(), tail=working.tail)
    return growth_refusal(before, old_tokens, laid_out_tokens(
        conversation, text, working, trigger="manual", counter=counter), budget)


def growth_refusal(before: int, old_tokens: int, new_tokens: int, budget: Budget, *,
            at_least: bool = False, reactive: bool = False) -> CompactionWouldGrow | None:
    """The refusal when the new view would not be smaller, else ``None``.

    Smaller means both: fewer raw tokens than the old view, and a calibrated estimate of the
    next request below ``before`` — ``current``, the figure the compaction line starts from
    (a provider's report when there is one: a view our tokenizer finds smaller may not be
    smaller to the provider). The refusal's figures read as the compaction line would: from
    ``before`` (the figure the trigger and the pause notice give) to the larger of that
    estimate and ``before`` plus the estimated change — never a second "before" in one notice;
    ``reactive``: ``before`` may be the context limit the refused request passed, no size of
    the context; when the model's messages would not get smaller the refusal gives their
    figures, now and after, instead.
    """
    after = budget.prefix_tokens + budget.scaled(new_tokens)
    if new_tokens < old_tokens and after < before:
        return None
    change = budget.scaled(new_tokens) - budget.scaled(old_tokens)
    messages = ((budget.scaled(old_tokens), budget.scaled(new_tokens))
                if new_tokens >= old_tokens and reactive else None)
    return CompactionWouldGrow(before, max(after, before + change), at_least=at_least,
                               messages=messages)
