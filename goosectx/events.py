"""The typed events the core yields (DESIGN.md §5).

The agent loop and compaction never print and never touch the store: they yield these
events. The REPL, ``run``, ``compact``, the session recorder and the tests consume them the
same way. ``--output-format stream-json`` writes :func:`event_to_json` of each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, Literal, TypeAlias

from goosectx.conversation import Conversation, Message, ToolRequest, ToolResponse, part_to_dict
from goosectx.usage import LedgerEntry, Usage, summed_to_dict

CompactionTrigger = Literal["auto", "reactive", "manual", "clear"]
CompactionStrategy = Literal["llm", "extractive", "none"]
TurnStatus = Literal["done", "max_turns", "cancelled", "error"]


@dataclass(frozen=True, slots=True)
class MessageDelta:
    """A chunk of streamed assistant text."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A chunk of the model's streamed reasoning (shown to the user, never re-sent as text).

    The whole reasoning also arrives in the reply's ``thinking`` part (``MessageCompleted``);
    these chunks exist so a front end can draw it as it streams (docs/architecture.md §6).
    """

    text: str


@dataclass(frozen=True, slots=True)
class MessageCompleted:
    """A message is final and joins the conversation (the recorder appends it: one row)."""

    message: Message


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """A tool call is about to run (after approval)."""

    request: ToolRequest


@dataclass(frozen=True, slots=True)
class ToolCallFinished:
    """A tool call finished (or was denied or cancelled)."""

    response: ToolResponse


@dataclass(frozen=True, slots=True)
class Notification:
    """A notice for the user; ``thinking`` shows a spinner until the next event."""

    kind: Literal["inline", "thinking"]
    text: str


@dataclass(frozen=True, slots=True)
class UsageUpdated:
    """A model call was billed.

    Attributes:
        call: The ledger entry of the call (usage, model, purpose); the recorder stores it.
        current_tokens: The session's ``current`` figure after the call.
        accumulated: Sum of every billed call of the session, this one included.
        context_limit_tokens: The context limit the trigger compares against.
        is_estimate: True when ``current_tokens`` is our estimate, not a provider report.
        unreported_calls: How many calls of the session (this one included) reported no
            usage: stream-json counts them in ``accumulated``
            (:func:`~goosectx.usage.summed_to_dict`).
    """

    call: LedgerEntry
    current_tokens: int
    accumulated: Usage
    context_limit_tokens: int
    is_estimate: bool
    unreported_calls: int = 0


@dataclass(frozen=True, slots=True)
class HistoryReplaced:
    """A compaction swapped the agent-visible history (the recorder: one transaction).

    Attributes:
        conversation: The whole new conversation (old messages with flipped flags + new ones).
        trigger: ``auto``, ``reactive``, ``manual``, or ``clear`` (/clear: everything hidden).
        tokens_before: ``current`` before the compaction.
        tokens_after: Estimate of the next full request; the new ``current``.
        cost_usd: Cost of the summary call; ``None`` if unknown or no model was called.
        strategy: ``llm``, ``extractive``, or ``none`` (``/clear``: no summary).
        call: Ledger entry of the summary call, if a model was called.
        auto_compaction_paused: The session's pause flag after this compaction: True when
            auto-compaction is paused (a compaction saved under 10 %); the recorder stores it.
        rung: Summary-input rung used (``"100%"`` … ``"0%"``, ``"0% + elided"``), or ``None``
            when no model was called.
    """

    conversation: Conversation
    trigger: CompactionTrigger
    tokens_before: int
    tokens_after: int
    cost_usd: float | None
    strategy: CompactionStrategy
    call: LedgerEntry | None = None
    auto_compaction_paused: bool = False
    rung: str | None = None


@dataclass(frozen=True, slots=True)
class CompactionUndone:
    """An undo gave the model back the view the last compaction replaced (one transaction).

    Attributes:
        conversation: The whole new conversation (the compaction's messages hidden from the
            model, the ones it hid shown again, a user-only notice at the end).
        compaction_id: The compaction walked back.
        restored_count: Messages the model sees again.
        tokens_before: ``current`` before the undo.
        tokens_after: The next full request's figure; the new ``current``.
        auto_compaction_paused: Always True: the restored view is over the threshold by
            construction, so auto-compaction pauses until ``/compact``.
        after_is_estimate: False when ``tokens_after`` is the provider's count the
            compaction had replaced (no reply since), so the figure is the one shown before it.
        after_estimate_tokens: Our estimate of the restored view, of the same kind as
            ``tokens_before`` (the undo's notice sets the two side by side); ``None``: as
            ``tokens_after``.
    """

    conversation: Conversation
    compaction_id: str
    restored_count: int
    tokens_before: int
    tokens_after: int
    auto_compaction_paused: bool = True
    after_is_estimate: bool = True
    after_estimate_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ToolPairsSummarized:
    """Old tool pairs were replaced in the model's view by one-line notes.

    Attributes:
        count: Number of tool pairs summarised.
        tokens_saved: Estimated tokens removed from the next request.
        conversation: The whole new conversation (the recorder: one transaction).
        call: Ledger entry of the summariser call, if a model was called.
    """

    count: int
    tokens_saved: int
    conversation: Conversation
    call: LedgerEntry | None = None


@dataclass(frozen=True, slots=True)
class TurnFinished:
    """The turn ended.

    Attributes:
        status: ``done``, ``max_turns``, ``cancelled`` or ``error``.
        error: One-line reason when ``status`` is ``error``.
    """

    status: TurnStatus
    error: str | None = None


Event: TypeAlias = (
    MessageDelta
    | ReasoningDelta
    | MessageCompleted
    | ToolCallStarted
    | ToolCallFinished
    | Notification
    | UsageUpdated
    | HistoryReplaced
    | CompactionUndone
    | ToolPairsSummarized
    | TurnFinished
)


def event_type_name(event: Event) -> str:
    """The snake_case name of an event class, e.g. ``message_delta``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()


def _jsonable(value: Any) -> Any:
    if isinstance(value, Message | Usage | LedgerEntry):
        return value.to_dict()
    if isinstance(value, Conversation):
        return value.to_list()
    if isinstance(value, ToolRequest | ToolResponse):
        return part_to_dict(value)
    return value


def event_to_json(event: Event) -> dict[str, Any]:
    """Return ``{"type": <snake_case name>, **payload}`` for stream-json output."""
    data: dict[str, Any] = {"type": event_type_name(event)}
    for f in fields(event):
        data[f.name] = _jsonable(getattr(event, f.name))
    if isinstance(event, UsageUpdated):  # as run's result counts its usage
        del data["unreported_calls"]
        data["accumulated"] = summed_to_dict(event.accumulated, event.unreported_calls)
    return data
