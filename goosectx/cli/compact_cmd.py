"""``goosectx compact SESSION``: compact a saved session offline (DESIGN.md §6).

The same :meth:`~goosectx.compaction.manager.ContextManager.compact` the REPL's ``/compact``
runs, on a saved session, persisted through the session recorder (one transaction).
``--dry-run`` prints the plan — tokens before, the rung the summary request would start at
and its size, or the extractive summary's budget — without calling a model or changing
anything; where the real run would refuse before any call (nothing to compact, a view a
compaction would not shrink, a summary request that fits at no rung) it says ``would change
nothing: …`` and exits 1 as that run does. With no model configured the extractive strategy
(no model) is used, and stderr says so. ``--undo`` walks back the last compaction instead
(:mod:`goosectx.cli.compact_undo`).

Output: the result line (or ``--json`` object) on stdout; notices on stderr. A compaction
refused with nothing changed (or an ``--undo`` with nothing to undo) is the one-line error on
stderr, exit 1, and with ``--json`` also an object on stdout (``would_change``/``changed``
false, ``reason``, ``hint``); so is any other error of goosectx's (no such session, a session
in use, a broken database: ``session_id`` is null when the session was not resolved), with
the exit code it has without ``--json``.
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from goosectx.cli.common import found_session_id, load_to_resume
from goosectx.cli.compact_cancel import interrupted, print_refusal, progress
from goosectx.cli.sanitize import terminal_safe
from goosectx.cli.words import plural
from goosectx.compaction.digest_rung import DIGEST_RUNG_PREFIX
from goosectx.compaction.figures import RequestContext
from goosectx.compaction.manager import CompactionPlan, ContextManager
from goosectx.config import Settings
from goosectx.errors import (
    CompactionFailed,
    GoosectxError,
    ModelNotConfigured,
    StoreError,
)
from goosectx.providers.base import Provider
from goosectx.session import Session
from goosectx.usage import format_cost_usd

if TYPE_CHECKING:  # the events only where events are made (not in a dry run)
    from goosectx.count_saver import CountSaver
    from goosectx.events import CompactionUndone, Event, HistoryReplaced
    from goosectx.recorder import SessionRecorder
    from goosectx.store import SessionStore


def request_context(settings: Settings, session: Session) -> RequestContext:
    """The system prompt and tool schemas the session's next request would carry.

    An agent's (:attr:`~goosectx.agent.Agent.request_context`), made without one: compaction
    runs no tools, and a dry run imports none of the agent loop — nor the tools: their
    definitions are data (:mod:`goosectx.tools.definitions`).
    """
    from goosectx.compaction.figures import next_request, sends_tools
    from goosectx.prompts import load_project_instructions
    from goosectx.tools.definitions import BuiltinDefinitions

    tools = BuiltinDefinitions()
    return next_request(session, settings.mode, tools, tools,
                        tools_sent=sends_tools(session, settings.mode),
                        project_instructions=load_project_instructions(session.working_dir))


def _providers(settings: Settings, model: str) -> tuple[Provider, Provider | None]:
    from goosectx.providers.litellm_provider import make_provider

    provider = make_provider(settings, model)
    summarizer = None
    if settings.compaction_model and settings.compaction_model != model:
        summarizer = make_provider(settings, settings.compaction_model, role="summarizer")
    return provider, summarizer


def _notice(text: str) -> None:
    sys.stderr.write(f"goosectx: {terminal_safe(text)}\n")
    sys.stderr.flush()


def compact_session(
    settings: Settings,
    session_ref: str,
    *,
    instructions: str | None,
    strategy: str | None,
    dry_run: bool,
    as_json: bool,
    max_summary_tokens: int | None,
    model: str | None,
) -> int:
    """Compact SESSION (name, id or unique id prefix) and print the outcome.

    Args:
        settings: Resolved settings.
        session_ref: The session.
        instructions: Extra instructions for the summary prompt.
        strategy: ``llm``, ``extractive``, or ``None`` (``llm`` when a model is configured).
        dry_run: Print the plan only: no model call, nothing written.
        as_json: Print ``{session_id, trigger, strategy, rung, tokens_before, tokens_after,
            cost_usd}`` (plus ``dry_run``, ``request_tokens``, ``max_tokens`` for a dry run).
        max_summary_tokens: Budget of an extractive summary (tokens); ``None``: 4,000 capped
            at a quarter window, half of what it summarises and its room in the layout.
        model: ``--model``, else the configured model.

    Returns:
        The exit code (0).

    Raises:
        SessionNotFound, SessionAmbiguous, SessionInUse: SESSION cannot be compacted now.
        ModelNotConfigured: ``--strategy llm`` with no model.
        CompactionFailed, ProviderError: compaction failed (or, for a dry run, would be
            refused before any call: ``would change nothing: …``); the session is unchanged.
    """
    from goosectx.cli.common import resolve_session
    from goosectx.collector import cycle_collector_paused

    session_id: str | None = None
    progress.saved = False  # this command's (tests run several in one process)
    try:
        model_name = model or settings.model
        if strategy == "llm" and not model_name:
            raise ModelNotConfigured(
                "--strategy llm needs a model and none is configured",
                "set GOOSE_MODEL or pass --model, or use --strategy extractive")
        store, session_id = resolve_session(settings, session_ref)
        with cycle_collector_paused():
            try:
                return cancellable(lambda: _compact(
                    settings, store, session_id, instructions=instructions, strategy=strategy,
                    dry_run=dry_run, as_json=as_json, max_summary_tokens=max_summary_tokens,
                    model_name=model_name))
            finally:
                # What the command made is left alive (a cycle keeps the session) until the
                # process ends: the collector, back on, would first walk it all (0.6 s of
                # CPU at 100k messages) just before the exit.
                gc.freeze()
    except GoosectxError as exc:
        if as_json:  # the outcome on stdout too (the one-line error goes to stderr)
            print_refusal(found_id(settings, session_ref, session_id, exc), exc, dry_run)
        raise


def found_id(settings: Settings, ref: str, session_id: str | None,
           exc: GoosectxError) -> str | None:
    """The session's id for a JSON report: ``None`` only when SESSION was not found.

    A store that cannot be opened for writing (a full disk) may still resolve SESSION.
    """
    if session_id is None and isinstance(exc, StoreError):
        return found_session_id(settings, ref)
    return session_id


def cancellable(compact: Callable[[], int], what: str = "compaction") -> int:
    """``compact()``; a Ctrl-C before it saved anything becomes :class:`CompactionCancelled`.

    The compaction (or undo) is written in one transaction after the summary is made: an
    interrupt before then leaves the session as it was. One that comes once it was saved
    ends the command with the interrupt's exit status, saying nothing (it is not a cancel).
    """
    try:
        return compact()
    except KeyboardInterrupt:
        from goosectx import encoder_worker

        encoder_worker.stop()  # the worker goes before this process does
        raise interrupted(what) from None


def record_saved(recorder: SessionRecorder, event: HistoryReplaced | CompactionUndone) -> None:
    """Record the compaction (or undo) ``event``; mark :data:`progress` once it is saved.

    An interrupt during the write leaves it committed or not: the store says which (whether
    the messages it added are stored).
    """
    try:
        recorder.record(event)
    except KeyboardInterrupt:
        progress.saved = recorder.store.any_message_id_taken(_added(event))
        raise
    progress.saved = True


def _compact(settings: Settings, store: SessionStore, session_id: str, *,
             instructions: str | None, strategy: str | None, dry_run: bool, as_json: bool,
             max_summary_tokens: int | None, model_name: str | None) -> int:
    """Compact (or plan) the resolved session; closes ``store``."""
    try:
        if strategy is None:
            strategy = "llm" if model_name else "extractive"
            if not model_name:
                _notice("no model is configured: using the extractive strategy (a summary "
                        "built from the transcript, no model call)")
        lock = None if dry_run else store.lock(session_id)
        finish: list[Callable[[], None]] = []
        try:
            # Once; under the lock unless a dry run. A real run first answers the tool calls
            # a crash left open (as a resume does), so the summary tells the model about them.
            from goosectx.scan_cache import StoreScanCache

            scan = StoreScanCache.read(store, session_id, keep=dry_run)  # before the load
            if dry_run:  # from the messages' shapes: few tool results' output is read
                from goosectx.store.shapes import load_for_plan

                session, done_reading = load_for_plan(store, session_id)
                finish.append(done_reading)
            else:
                session = load_to_resume(store, session_id)
            provider, summarizer = _providers(settings, model_name) if model_name else (None,
                                                                                        None)
            manager = ContextManager(session, settings, provider, summarizer=summarizer)
            manager.scan_cache = scan  # the facts scan resumes a kept state (scan_state)
            request = request_context(settings, session)
            if dry_run:  # counts only: a dry run makes no event (nor imports them)
                from goosectx.count_saver import CountSaver

                saver = CountSaver(store, session)
                saver.fresh_token_counts = manager.take_fresh_token_counts
                return _plan_loaded(session, manager, saver, request,
                                    instructions=instructions, strategy=strategy,
                                    as_json=as_json, max_summary_tokens=max_summary_tokens)
            from goosectx.recorder import SessionRecorder

            recorder = SessionRecorder(store, session)
            recorder.fresh_token_counts = manager.take_fresh_token_counts
            return _compact_loaded(session, manager, recorder, request,
                                   instructions=instructions, strategy=strategy,
                                   as_json=as_json, max_summary_tokens=max_summary_tokens)
        finally:
            for done in finish:
                done()
            if lock is not None:
                lock.release()
    finally:
        store.close()


def _plan_loaded(session: Session, manager: ContextManager, saver: CountSaver,
                 request: RequestContext, *, instructions: str | None, strategy: str,
                 as_json: bool, max_summary_tokens: int | None) -> int:
    """Plan the compaction of a loaded session (``--dry-run``); print the plan."""
    try:
        plan = manager.plan(request, instructions=instructions, strategy=strategy,
                            max_summary_tokens=max_summary_tokens)
    except CompactionFailed as exc:  # the real run would refuse before any call
        reason = exc.message.removesuffix("; nothing changed")
        raise CompactionFailed(f"would change nothing: {reason}", exc.hint) from None
    fits = plan.strategy == "extractive" or plan.rung is not None
    if fits or not as_json:  # (--json: the refusal's object is the one on stdout)
        _print_plan(session, plan, as_json)
    saver.save_counts(wait=True)  # counts only: the next run does not recount
    if not fits:  # the real run refuses before any call
        from goosectx.compaction.request import no_rung_fits

        refusal = no_rung_fits(plan.context_limit_tokens or 0, str(plan.model))
        raise CompactionFailed(f"would change nothing: {refusal.message}", refusal.hint)
    return 0


def _compact_loaded(session: Session, manager: ContextManager, recorder: SessionRecorder,
                    request: RequestContext, *, instructions: str | None, strategy: str,
                    as_json: bool, max_summary_tokens: int | None) -> int:
    """Run the compaction of a loaded session; print the outcome."""
    from goosectx.events import HistoryReplaced

    result: HistoryReplaced | None = None
    for event in manager.compact(request, trigger="manual", instructions=instructions,
                                 strategy=strategy,
                                 max_summary_tokens=max_summary_tokens):
        if isinstance(event, HistoryReplaced):  # counted: its exit overlaps the write
            from goosectx import encoder_worker

            encoder_worker.release()
        if isinstance(event, HistoryReplaced):
            record_saved(recorder, event)
        else:
            recorder.record(event)
        result = _show(event, result)
    recorder.wait_for_counts()
    assert result is not None, "a compaction always ends with HistoryReplaced"
    _print_result(session, result, as_json)
    return 0


def _added(event: HistoryReplaced | CompactionUndone) -> list[str]:
    """The ids of the messages ``event`` added: an undo's mark, a compaction's summary, notice."""
    from goosectx.compaction.undo import last_compaction_id
    from goosectx.events import CompactionUndone

    messages = event.conversation.messages
    if isinstance(event, CompactionUndone):
        return [messages[-1].id]
    cid = last_compaction_id(messages)
    return [m.id for m in messages if cid is not None and m.metadata.compaction_id == cid]


def _show(event: Event, result: HistoryReplaced | None) -> HistoryReplaced | None:
    from goosectx.events import HistoryReplaced, Notification

    if isinstance(event, Notification) and event.kind == "inline":
        _notice(event.text)
    if isinstance(event, HistoryReplaced):
        return event
    return result


def _cost(cost_usd: float | None, strategy: str) -> str:
    return "no model call" if strategy == "extractive" else format_cost_usd(cost_usd)


def _print_result(session: Session, result: HistoryReplaced, as_json: bool) -> None:
    if as_json:
        data: dict[str, Any] = {
            "session_id": session.id, "trigger": result.trigger, "strategy": result.strategy,
            "rung": result.rung, "tokens_before": result.tokens_before,
            "tokens_after": result.tokens_after, "cost_usd": result.cost_usd,
        }
        print(json.dumps(data))
        return
    how = result.strategy + (f", rung {result.rung}" if result.rung else "")
    print(terminal_safe(f"Compacted {session.display_name} ({how}): {result.tokens_before:,} → "
                        f"{result.tokens_after:,} tokens · "
                        f"{_cost(result.cost_usd, result.strategy)}"))


def _print_plan(session: Session, plan: CompactionPlan, as_json: bool) -> None:
    if as_json:
        data: dict[str, Any] = {
            "session_id": session.id, "trigger": "manual", "strategy": plan.strategy,
            "rung": plan.rung, "tokens_before": plan.tokens_before, "tokens_after": None,
            "cost_usd": None, "dry_run": True, "request_tokens": plan.request_tokens,
            "max_tokens": plan.max_tokens, "view_messages": plan.view_count,
            "replaced_messages": plan.replaced_count,
        }
        print(json.dumps(data))
        return
    lines = [
        f"Session {session.display_name}: {plural(plan.view_count, 'message')} in the "
        f"model's view; the summary would replace {plan.replaced_count:,} of them",
        f"Tokens before: {plan.tokens_before:,}",
    ]
    if plan.strategy == "extractive":
        lines += ["Strategy: extractive (built from the transcript, no model call)",
                  f"Summary budget: {plan.max_tokens:,} tokens"]
    else:
        lines.append(f"Strategy: llm ({plan.model}, context window "
                     f"{plan.context_limit_tokens or 0:,} tokens)")
        results = (f"all {plan.total_results} tool results removed and "
                   if plan.total_results else "")
        if plan.rung is None:
            lines.append(f"Rung: none fits — even with {results}long texts elided the "
                         "request is too large")
        else:
            digest = "at most " if plan.rung.startswith(DIGEST_RUNG_PREFIX) else ""
            lines += [
                f"Rung: {plan.rung} (no rung holds the whole history: the model summarises "
                "the extractive digest of the older messages, then the newest as they are)"
                if plan.rung.startswith(DIGEST_RUNG_PREFIX) else
                (f"Rung: {plan.rung} of tool results kept ({plan.removed_results} of "
                 f"{plan.total_results} removed)") if plan.total_results else
                ("Rung: no tool results to trim"
                 + ("; the longest texts elided to fit" if "elided" in plan.rung else "")),
                f"Summary request: {digest}{plan.request_tokens:,} tokens + up to "
                f"{plan.max_tokens:,} for the summary",
            ]
    lines.append("Dry run: no model was called and nothing changed.")
    print(terminal_safe("\n".join(lines)))
