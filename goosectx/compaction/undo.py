"""Undo a compaction: give the model back the view the last compaction replaced.

docs/architecture.md §5 ("Undo"). A compaction never deletes: :func:`~goosectx.compaction.
layout.layout` hides the head's messages with ``hidden_by=<compaction id>`` and adds its own
messages (summary, re-sent copies, continuation) with ``compaction_id``. An undo flips both
back — the compaction's messages become agent-invisible, the ones it hid agent-visible again
(``hidden_by`` cleared, so each is byte-identical to what it was) — and appends a user-only
notice marking the point in the transcript. Messages added since the compaction are not
touched, so they stay agent-visible. No schema is needed (migration 7 stays unused).

Which compaction: the newest whose summary the model still sees. A second undo therefore
walks back the one before (its summary was in the later one's head and is visible again, or
sat in its tail and stayed visible). Tool-pair notes and ``/clear`` are not compactions: an
undo never reverts them, and after ``/clear`` the model sees no summary: nothing to undo.

The usage ledger keeps the compaction's cost (it was paid). Auto-compaction pauses: after an
automatic compaction the restored view is over the threshold by construction, and it would
only compact the same messages again; ``/compact`` (or ``/clear``) lifts the pause.
Nothing here prints or touches the store: events say what changed, the recorder writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime

from goosectx.conversation import Message, MessageList
from goosectx.errors import NothingToUndo
from goosectx.events import CompactionUndone, Event, Notification
from goosectx.session import Session

NOTHING_TO_UNDO = ("nothing to undo: the model's view holds no compaction (none yet, all "
                   "undone, or hidden by /clear)")
NOTHING_TO_UNDO_HINT = "undo walks back compactions only, not /clear or tool-pair notes"


def last_compaction_id(messages: Sequence[Message]) -> str | None:
    """The id of the newest compaction whose summary the model still sees, or ``None``.

    Newest by the summary's creation time, not its place: a compaction's block goes before
    its tail, and that tail may hold an earlier compaction's summary.
    """
    summaries = [m for m in messages if m.metadata.is_summary and m.metadata.agent_visible
                 and m.metadata.compaction_id]
    if not summaries:
        return None
    return max(summaries, key=lambda m: m.created).metadata.compaction_id


def undone_messages(messages: Sequence[Message], compaction_id: str) -> tuple[MessageList, int]:
    """``messages`` with ``compaction_id`` walked back, and how many the model sees again.

    The messages the compaction hid get ``agent_visible=True`` and no ``hidden_by``; the ones
    it added get ``agent_visible=False`` (user visibility unchanged: its notice stays in the
    transcript). Order and every other message are unchanged. A :class:`MessageList`: the
    conversation takes it as it is.
    """
    out = MessageList()
    restored = 0
    for m in messages:
        meta = m.metadata
        if meta.hidden_by == compaction_id:
            out.append(m.with_metadata(agent_visible=True, hidden_by=None))
            restored += 1
        elif meta.compaction_id == compaction_id and meta.agent_visible:
            out.append(m.with_metadata(agent_visible=False))
        else:
            out.append(m)
    return out, restored


def over_limit_note(tokens_after: int, context_limit_tokens: int | None) -> str:
    """What an undo says when the view it restored does not fit the context limit, else ``""``.

    The next request will not fit: the provider refuses it and goosectx compacts again then
    (a reactive compaction, which also lifts the pause), unless the user compacts first.
    """
    if not context_limit_tokens or tokens_after <= context_limit_tokens:
        return ""
    return (f"The restored view does not fit the context limit ({tokens_after:,} of "
            f"{context_limit_tokens:,} tokens): the next request will be refused by the "
            f"provider and the history compacted again before it is retried; /compact "
            f"compacts it now.")


def undo_figures(tokens_before: int, tokens_after: int, after_is_estimate: bool,
                 after_estimate_tokens: int | None = None) -> str:
    """An undo's two figures, both our estimate: ``1,002 → 2,954 tokens, estimated``.

    Both of one kind, so undos in a row add up (one's second figure is the next one's first).
    When the restored figure (the new ``current``) is the provider's count from before the
    compaction, it follows, named: ``1,002 → 2,954 tokens, estimated; the provider counted
    2,995 for this view before the compaction``.
    """
    if after_is_estimate or after_estimate_tokens is None:
        if not after_is_estimate:  # no estimate of the restored view to set beside it
            return f"{tokens_before:,} (estimated) → {tokens_after:,} tokens"
        return f"{tokens_before:,} → {tokens_after:,} tokens, estimated"
    return (f"{tokens_before:,} → {after_estimate_tokens:,} tokens, estimated; the provider "
            f"counted {tokens_after:,} for this view before the compaction")


def undo_notice(restored_count: int, tokens_before: int, tokens_after: int, *,
                more: bool, context_limit_tokens: int | None = None,
                after_is_estimate: bool = True, after_estimate_tokens: int | None = None) -> str:
    """The transcript mark and inline notice of an undo (names the pause and how to lift it).

    ``context_limit_tokens``: the main model's limit; a restored view over it is named
    (:func:`over_limit_note`).
    """
    noun = "message" if restored_count == 1 else "messages"
    again = " /undo-compact again walks back the compaction before it." if more else ""
    over = over_limit_note(tokens_after, context_limit_tokens)
    figures = undo_figures(tokens_before, tokens_after, after_is_estimate, after_estimate_tokens)
    return (f"Compaction undone: the model sees the {restored_count:,} {noun} it had replaced "
            f"again ({figures}). "
            + (over + " " if over else "")
            + "Auto-compaction is paused, so it does not compact the same messages again (a "
            "request over the context limit still is); /compact compacts and lifts the "
            f"pause.{again}")


def undo_last(session: Session, *, reestimate: Callable[[], int],
              recount: Callable[[datetime], tuple[int, bool]] | None = None,
              context_limit_tokens: int | None = None) -> Iterator[Event]:
    """Walk back the newest compaction the model's view depends on.

    Args:
        session: Changed in memory: conversation and state (pause set, pending judgement and
            growth base forgotten). The ledger is not touched.
        reestimate: Forgets the last provider report and returns the estimate of the next
            request: called before the undo and once the restored view is in place (the new
            ``current``), so both figures are estimates of the same kind — a provider's report
            of the compacted view is not set against an estimate of the restored one.
        recount: Given when the compaction was made, the restored view's ``(current,
            is_estimate)`` in place of the second ``reestimate`` (still made: the notice's
            second figure, beside the first, with this one named): the provider's report the
            compaction replaced when no reply came since, so the view the model sees again
            gets the figure it had (``compact --dry-run`` shows the same "tokens before").
        context_limit_tokens: The main model's limit: a restored view over it is said so.

    Yields:
        One :class:`CompactionUndone` (the recorder: one transaction), then an inline
        :class:`Notification` with the same text as the transcript mark.

    Raises:
        NothingToUndo: no compaction to walk back, or the newest was made by a goosectx that
            did not record what it hid; nothing changed.
    """
    messages = session.conversation.messages
    compaction_id = last_compaction_id(messages)
    if compaction_id is None:
        raise NothingToUndo(NOTHING_TO_UNDO, NOTHING_TO_UNDO_HINT)
    new, restored = undone_messages(messages, compaction_id)
    if restored == 0:
        raise NothingToUndo(
            "cannot undo the last compaction: it was made by an older goosectx that did not "
            "record which messages it replaced", "/clear starts the model afresh instead")
    made = min((m.created for m in messages if m.metadata.compaction_id == compaction_id),
               default=None)
    before = reestimate()
    session.conversation.messages = new  # taken as it is (a MessageList): no copy
    estimate = reestimate()  # of the kind of ``before``: the notice sets the two side by side
    after, estimated = (recount(made) if recount is not None and made is not None
                        else (estimate, True))
    text = undo_notice(restored, before, after, more=last_compaction_id(new) is not None,
                       context_limit_tokens=context_limit_tokens, after_is_estimate=estimated,
                       after_estimate_tokens=estimate)
    new.append(Message.notification(text).with_metadata(
        extra={"undid_compaction": compaction_id}))
    session.note_context_figure(after, estimated)  # the notice counted (the model never sees it)
    state = session.state
    state.auto_compaction_paused = state.paused_by_undo = True
    state.pause_reason = ""  # worded after the undo (``paused_by_undo``)
    state.judge_input_tokens = None
    state.growth_base_tokens = None
    yield CompactionUndone(session.conversation.snapshot(), compaction_id, restored, before, after,
                           after_is_estimate=estimated, after_estimate_tokens=estimate)
    yield Notification("inline", text)
