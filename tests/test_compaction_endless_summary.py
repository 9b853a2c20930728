"""A summary reply far over its budget is stopped, not read to its end, then refused.

A provider ignoring ``max_tokens`` sent a 276k-token summary, read for 68 s before it was
refused. The summariser's stream is now closed once its text passes twice the summary's
budget (counted in characters); the refusal is the over-budget one, as before: a manual
compaction changes nothing and says why, an automatic one falls back to the extractive summary.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from compaction_support import (
    REQUEST,
    chat,
    collect,
    make_session,
    manager,
    notices,
    replaced,
    tool_pair,
)

from goosectx.cli.transcript_text import compaction_rule_text
from goosectx.compaction.manager import ContextManager
from goosectx.compaction.summarize import stop_chars, tool_pair_notes
from goosectx.compaction.toolpairs import ToolPair
from goosectx.conversation import Message, SystemNotification
from goosectx.errors import SummaryOverBudget
from goosectx.events import Event, UsageUpdated
from goosectx.providers.base import (
    ProviderResponse,
    StreamItem,
    TextDelta,
    TokenPrices,
    complete,
)
from goosectx.providers.scripted import RecordedRequest, ScriptedProvider
from goosectx.tokens import TokenCounter
from goosectx.usage import LedgerEntry, format_cost_usd

CHUNK = "blah " * 20  # 100 characters a chunk


@dataclass
class EndlessProvider(ScriptedProvider):
    """Streams ``CHUNK`` for ever; counts what it sent and whether its stream was closed."""

    chunks: int = 0
    closed: bool = False

    def stream(self, system: str, messages: Sequence[Message], tools: Sequence[Any], *,
               max_tokens: int | None = None, **_: Any) -> Iterator[StreamItem]:
        self.requests.append(RecordedRequest(system, list(messages), list(tools), max_tokens,
                                             None))
        try:
            while True:
                self.chunks += 1
                yield TextDelta(CHUNK)
        finally:
            self.closed = True


def _session() -> tuple[ContextManager, EndlessProvider]:
    provider = EndlessProvider(context_limit_tokens=8_000)
    session = make_session([*chat(10), Message.user("continue")])
    return manager(session, provider), provider


def test_complete_stops_reading_past_max_text_chars_and_closes_the_stream() -> None:
    provider = EndlessProvider()
    response = complete(provider, "system", [Message.user("hi")], max_text_chars=1_000)
    assert isinstance(response, ProviderResponse)
    assert response.finish_reason == "stopped over budget" and response.usage is None
    assert len(response.message.text) == 1_100  # the chunk that passed 1,000 characters
    assert provider.closed and provider.chunks == 11


def test_manual_compaction_refuses_an_endless_summary_and_changes_nothing() -> None:
    cm, provider = _session()
    before = list(cm.session.conversation.messages)
    with pytest.raises(SummaryOverBudget) as err:
        collect(cm.compact(REQUEST))
    budget = provider.requests[0].max_tokens
    assert budget is not None
    assert re.fullmatch(rf"the model's summary passed {budget * 12:,} characters, twice its budget "
                        rf"of {budget:,} tokens at 6 characters a token, and was stopped there "
                        r"\([\d,]+ tokens\); nothing changed", err.value.message)
    assert err.value.hint == "try again, or use --strategy extractive"
    assert cm.session.conversation.messages == before
    assert provider.closed and len(provider.requests) == 1
    assert provider.chunks * len(CHUNK) <= stop_chars(budget) + len(CHUNK)


def test_automatic_compaction_falls_back_to_the_extractive_summary() -> None:
    cm, provider = _session()
    cm.start_turn()
    events = collect(cm.on_context_exceeded(REQUEST))
    (event,) = replaced(events)
    assert event.strategy == "extractive"
    said = [t for t in notices(events) if "stopped there" in t]
    assert len(said) == 1 and said[0].endswith("— using an extractive summary instead."), said
    assert provider.closed and len(provider.requests) == 1
    assert not any("blah blah" in m.text for m in cm.session.conversation.agent_view())


def test_tool_pair_notes_from_an_endless_reply_are_left_to_the_extractive_notes() -> None:
    provider = EndlessProvider(context_limit_tokens=8_000, token_prices=PRICES)
    main = ScriptedProvider(['["a note"]'], model="main/model")
    request, response = tool_pair("file contents")
    pair = ToolPair(request, response, request.tool_requests[0], response.tool_responses[0])
    notes, entry = tool_pair_notes([provider, main], [pair], lambda _model: TokenCounter(None))
    assert notes == [None]  # the extractive notes stand in, as for a stopped summary
    assert entry is not None and entry.purpose == "tool_pairs"  # billed, by our estimate
    _check_estimated(entry, provider)
    assert provider.closed and len(provider.requests) == 1 and not main.requests
    budget = provider.requests[0].max_tokens
    assert budget is not None
    assert provider.chunks * len(CHUNK) <= stop_chars(budget) + len(CHUNK)


# -- what a stopped summary cost ---------------------------------------------------------
PRICES = TokenPrices(input_usd_per_token=3e-6, output_usd_per_token=15e-6)


def _priced_session() -> tuple[ContextManager, EndlessProvider]:
    provider = EndlessProvider(context_limit_tokens=8_000, token_prices=PRICES)
    session = make_session([*chat(10), Message.user("continue")])
    return manager(session, provider), provider


def _events_until_raised(events: Iterator[Event]) -> tuple[list[Event], Exception | None]:
    seen: list[Event] = []
    try:
        for event in events:
            seen.append(event)
    except Exception as exc:  # noqa: BLE001 - the refusal, returned for the test to check
        return seen, exc
    return seen, None


def _check_estimated(entry: LedgerEntry, provider: EndlessProvider) -> None:
    """The stopped call's usage: our count of its request and of the text streamed."""
    counter = TokenCounter(None)
    request = provider.requests[0]
    sent = counter.count_text(request.system) + counter.count_messages(request.messages)
    streamed = counter.count_text((CHUNK * provider.chunks).strip())
    usage = entry.usage
    assert usage.estimated and usage.reported
    assert abs(usage.input_tokens - sent) <= sent // 10, (usage.input_tokens, sent)
    assert usage.output_tokens == streamed
    assert usage.cost_usd == pytest.approx(usage.input_tokens * 3e-6 + streamed * 15e-6)


def test_a_manual_refusal_of_a_stopped_summary_still_bills_its_estimated_usage() -> None:
    cm, provider = _priced_session()
    before = list(cm.session.conversation.messages)
    events, raised = _events_until_raised(iter(cm.compact(REQUEST)))
    assert isinstance(raised, SummaryOverBudget)
    assert cm.session.conversation.messages == before
    (entry,) = cm.session.ledger.entries  # the provider billed it: it is counted
    assert entry.purpose == "compaction"
    _check_estimated(entry, provider)
    (update,) = [e for e in events if isinstance(e, UsageUpdated)]  # the recorder stores it
    assert update.call == entry and update.accumulated.cost_usd == entry.usage.cost_usd


def test_an_automatic_fallback_after_a_stopped_summary_shows_its_estimated_cost() -> None:
    cm, provider = _priced_session()
    cm.start_turn()
    events = collect(cm.on_context_exceeded(REQUEST))
    (event,) = replaced(events)
    assert event.strategy == "extractive" and event.call is not None
    _check_estimated(event.call, provider)
    assert event.cost_usd == event.call.usage.cost_usd and event.cost_usd
    line = next(part.text for m in cm.session.conversation.messages for part in m.content
                if isinstance(part, SystemNotification) and "Context compacted" in part.text)
    cost = format_cost_usd(event.cost_usd)
    assert f"~{cost} (estimate)" in line, line  # the transcript, `sessions show`
    assert f"~{cost} (estimate)" in compaction_rule_text(event)  # the REPL's rule
    assert cm.session.ledger.accumulated("compaction").cost_usd == event.cost_usd


def test_usage_marks_a_ledger_holding_an_estimated_call() -> None:
    from rich.console import Console

    from goosectx.cli.reports import usage_table

    cm, _ = _priced_session()
    _events_until_raised(iter(cm.compact(REQUEST)))
    console = Console(width=200, record=True)
    console.print(usage_table(cm.session.ledger))
    out = console.export_text()
    assert "1 call stopped before its provider reported usage: our estimate of its tokens and cost is counted" in " ".join(out.split()), out
    entry = cm.session.ledger.entries[0]
    assert f"{entry.usage.input_tokens:,}" in out  # counted, not "not reported"
    exported = entry.to_dict()
    assert exported["estimated"] is True
    assert LedgerEntry.from_dict(exported).usage.estimated
