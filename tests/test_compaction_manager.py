"""The context manager: trigger, guards, pause, reactive path, rewrite, write-back, /clear."""

from __future__ import annotations

import re
import threading

import pytest
from compaction_support import (
    REQUEST,
    SUMMARY_JSON,
    cancelled_while_summarising,
    chat,
    collect,
    make_session,
    manager,
    notices,
    replaced,
    tool_pair,
    words,
)

from goosectx.compaction.manager import ContextManager
from goosectx.compaction.prompts import CONTINUATION_TEXTS, RESENT_HEADING
from goosectx.compaction.summary import quoted_reply
from goosectx.config import ConfigError, Settings, load_settings
from goosectx.conversation import Message, SystemNotification
from goosectx.errors import (
    CompactionFailed,
    ContextLengthExceeded,
    GoosectxError,
    ProviderUnavailable,
)
from goosectx.events import HistoryReplaced, Notification
from goosectx.providers.scripted import ScriptedProvider
from goosectx.recorder import SessionRecorder
from goosectx.store import SessionStore
from goosectx.usage import Usage


def over(limit_ratio: float, limit: int = 10_000) -> tuple[list[Message], int]:
    """A history whose estimate is about ``limit_ratio`` of ``limit``, ending with a user turn."""
    session = make_session(chat(1))
    per_turn = manager(session, None).current_tokens(REQUEST)[0]
    turns = max(1, round(limit * limit_ratio / per_turn))
    return [*chat(turns), Message.user("latest question: what next?")], limit


def auto_events(messages: list[Message], limit: int, **settings: object) -> tuple[
        list[object], ScriptedProvider]:
    provider = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=limit)
    session = make_session(messages)
    return collect(manager(session, provider, **settings).before_call(REQUEST)), provider


# -- the threshold --------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["0", "1", "-0.5", "1.5"])
def test_threshold_outside_0_1_disables_auto_compaction(value: str) -> None:
    settings = load_settings(environ={"GOOSE_AUTO_COMPACT_THRESHOLD": value})
    assert not settings.auto_compaction_enabled
    messages, limit = over(2.0)  # twice the window
    events, provider = auto_events(messages, limit, threshold_ratio=settings.threshold_ratio)
    assert events == [] and provider.requests == []


def test_threshold_half_compacts_above_and_not_below() -> None:
    settings = load_settings(environ={"GOOSE_AUTO_COMPACT_THRESHOLD": "0.5"})
    assert settings.threshold_ratio == 0.5
    below, limit = over(0.4)
    events, _ = auto_events(below, limit, threshold_ratio=0.5)
    assert events == []
    above, limit = over(0.6)
    events, provider = auto_events(above, limit, threshold_ratio=0.5)
    assert len(replaced(events)) == 1 and replaced(events)[0].trigger == "auto"
    assert len(provider.requests) == 1


def test_threshold_unset_defaults_to_0_8() -> None:
    settings = load_settings(environ={})
    assert settings.threshold_ratio == 0.8 and settings.source("threshold_ratio") == "default"
    events, _ = auto_events(*over(0.7))
    assert events == []
    events, _ = auto_events(*over(0.9))
    assert len(replaced(events)) == 1


def test_threshold_not_a_number_is_a_config_error_naming_variable_and_range() -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(environ={"GOOSE_AUTO_COMPACT_THRESHOLD": "abc"})
    text = err.value.one_line()
    assert "GOOSE_AUTO_COMPACT_THRESHOLD" in text and "between 0 and 1" in text and "'abc'" in text


# -- when auto-compaction may run ----------------------------------------------------------
def test_no_auto_compaction_right_after_an_assistant_message() -> None:
    messages, limit = over(0.95)
    messages.append(Message.assistant("thinking about it"))
    events, provider = auto_events(messages, limit)
    assert events == [] and provider.requests == []


def test_growth_guard_needs_a_call_and_a_tenth_of_the_limit_of_growth() -> None:
    # Rule rewritten on purpose (issue 13): "never twice in a row" became the growth guard.
    messages, limit = over(1.0)
    provider = ScriptedProvider([SUMMARY_JSON, SUMMARY_JSON], context_limit_tokens=limit)
    cm = manager(make_session(messages), provider, keep_recent_ratio=0,
                 keep_user_tokens=0)
    assert len(replaced(collect(cm.before_call(REQUEST)))) == 1
    assert collect(cm.before_call(REQUEST)) == []  # same step: refused
    # The next report shows it worked (well below the trigger, under the threshold) …
    cm.session.conversation.append(Message.assistant("answer"))
    cm.record_call(Usage.of(int(0.78 * limit), 10), REQUEST, model=provider.model)
    assert not cm.session.state.auto_compaction_paused
    # … then 6 % of growth puts it over the threshold, but not 10 % above the last one.
    cm.session.conversation.append(Message.user(words(int(0.06 * limit))))
    assert cm.current_tokens(REQUEST)[0] > 0.8 * limit
    assert collect(cm.before_call(REQUEST)) == [] and len(provider.requests) == 1
    cm.session.conversation.append(Message.user(words(int(0.06 * limit))))
    assert len(replaced(collect(cm.before_call(REQUEST)))) == 1
    assert len(provider.requests) == 2


def test_manages_own_context_never_compacts_and_manual_says_why() -> None:
    messages, limit = over(1.5)
    provider = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=limit,
                                manages_own_context=True)
    cm = manager(make_session(messages), provider)
    assert collect(cm.before_call(REQUEST)) == []
    with pytest.raises(GoosectxError) as err:
        collect(cm.compact(REQUEST))
    assert "manages its own context" in err.value.one_line()
    assert "manages_own_context" in (err.value.hint or "")
    with pytest.raises(ContextLengthExceeded):
        collect(cm.on_context_exceeded(REQUEST))
    assert provider.requests == []


# -- current and the next turn ---------------------------------------------------------------
def test_current_is_the_report_plus_messages_added_since() -> None:
    session = make_session([Message.user("hi"), Message.assistant("hello")])
    cm = manager(session, ScriptedProvider([]))
    update = cm.record_call(Usage.of(5000, 100), REQUEST, model="m")
    assert (update.current_tokens, update.is_estimate) == (5100, False)
    assert cm.current_tokens(REQUEST) == (5100, False)
    paste = Message.user("paste " + "word " * 3000)
    session.conversation.append(paste)
    tokens, is_estimate = cm.current_tokens(REQUEST)
    assert tokens == 5100 + cm.counter.count_message(paste) and is_estimate


def test_no_report_means_the_estimate_of_the_whole_request() -> None:
    session = make_session(chat(3))
    cm = manager(session, ScriptedProvider([]))
    tokens, is_estimate = cm.current_tokens(REQUEST)
    assert is_estimate and tokens == cm.breakdown(REQUEST).total
    update = cm.record_call(None, REQUEST, model="m")
    assert update.is_estimate and update.current_tokens == tokens


def test_a_resumed_session_keeps_its_reported_figure() -> None:
    session = make_session([Message.user("hi"), Message.assistant("hello")])
    session.ledger.current_tokens, session.ledger.current_is_estimate = 7000, False
    session.conversation.append(Message.user("next"))
    cm = manager(session, ScriptedProvider([]))
    tokens, _ = cm.current_tokens(REQUEST)
    assert tokens == 7000 + cm.counter.count_message(session.conversation.messages[-1])


def test_after_compaction_current_is_the_retained_estimate_and_next_turn_does_not_retrigger(
) -> None:
    messages, limit = over(0.9)
    provider = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=limit)
    session = make_session(messages)
    cm = manager(session, provider)
    event = replaced(collect(cm.before_call(REQUEST)))[0]
    assert event.tokens_before > 0.8 * limit
    assert session.ledger.current_tokens == event.tokens_after == cm.breakdown(REQUEST).total
    assert session.ledger.current_is_estimate
    assert cm.current_tokens(REQUEST) == (event.tokens_after, True)
    # The model call after it reports what it saw; the next turn starts well under threshold.
    provider.add("the answer")
    reply = next(i for i in provider.stream(REQUEST.system_prompt,
                                            session.conversation.agent_view(), ()) if
                 hasattr(i, "message"))
    session.conversation.append(reply.message)
    update = cm.record_call(reply.usage, REQUEST, model=provider.model)
    assert not update.is_estimate and update.current_tokens < 0.8 * limit
    session.conversation.append(Message.user("thanks, and now?"))
    cm.start_turn()
    assert collect(cm.before_call(REQUEST)) == []
    assert len(provider.requests) == 2


# -- the rewrite ------------------------------------------------------------------------------
def test_goose_layout_ratio_0_and_user_tokens_0_hides_all_and_resends_the_request() -> None:
    # Rule changed on purpose (issue 12): the old default layout is now goose's layout, chosen
    # with keep_recent_ratio = 0 and keep_user_tokens = 0.
    messages, limit = over(0.9)
    session = make_session(messages)
    old = list(session.conversation.messages)
    collect(manager(session, ScriptedProvider([SUMMARY_JSON], context_limit_tokens=limit),
                    keep_recent_ratio=0, keep_user_tokens=0).before_call(REQUEST))
    view = session.conversation.agent_view()
    assert [m.role for m in view] == ["user", "assistant", "user"]
    summary, continuation, request = view
    assert summary.metadata.is_summary and summary.text.startswith("# Conversation Summary")
    assert "src/p.py" in summary.text
    assert continuation.metadata.is_continuation
    assert continuation.text == CONTINUATION_TEXTS["conversation"]
    assert request.text == "latest question: what next?"
    for m in (summary, continuation, request):
        assert not m.metadata.user_visible
    stored = {m.id: m for m in session.conversation}
    for m in old:
        assert stored[m.id].metadata.user_visible and not stored[m.id].metadata.agent_visible
        assert stored[m.id].content == m.content
    assert session.conversation.user_view()[:len(old)] == [stored[m.id] for m in old]


def test_mid_tool_loop_keeps_the_turn_in_progress_verbatim_after_the_continuation() -> None:
    # Rule changed on purpose (issue 12): the turn in progress is kept (its originals stay
    # agent-visible) instead of an agent-only copy of the request at the end.
    messages, limit = over(0.9)
    messages += tool_pair("3 passed")
    session = make_session(messages)
    turn_ids = [m.id for m in messages[-3:]]
    collect(manager(session, ScriptedProvider([SUMMARY_JSON], context_limit_tokens=limit))
            .before_call(REQUEST))
    view = session.conversation.agent_view()
    assert view[0].metadata.is_summary
    assert view[1].text == CONTINUATION_TEXTS["tool_loop"]
    assert view[-3].text == "latest question: what next?"
    assert view[-1].tool_responses[0].output == "3 passed"
    assert [m.id for m in session.conversation.agent_messages()[-3:]] == turn_ids
    assert all(not m.metadata.agent_visible for m in session.conversation
               if m.id == messages[0].id)


def test_manual_compaction_uses_instructions_and_says_the_last_request_was_answered() -> None:
    # Rule changed on purpose (issue 12): as the last request was answered, the continuation
    # says so. A conversation this small fits the tail whole, so everything is summarised and
    # no tail kept — but the earlier requests are re-sent (fresh17b #24: they all went); the
    # newest, answered, is in the summary.
    session = make_session(chat(3))
    questions = [m.text for m in session.conversation.messages if m.role == "user"][:-1]
    last_answer = session.conversation.messages[-1]
    provider = ScriptedProvider([SUMMARY_JSON])
    events = collect(manager(session, provider).compact(REQUEST, instructions="focus on the DB"))
    assert "focus on the DB" in provider.requests[0].messages[0].text
    assert [type(e).__name__ for e in events] == [
        "Notification", "Notification", "HistoryReplaced"]
    assert events[0].kind == "inline" and events[1].kind == "thinking"  # type: ignore[union-attr]
    raw = session.conversation.agent_messages()
    assert [m.metadata.is_summary for m in raw] == [True, False, False, False, False]
    assert raw[1].text == RESENT_HEADING  # the re-sent messages' own heading
    assert [m.text for m in raw[2:4]] == questions
    assert raw[4].text == CONTINUATION_TEXTS["answered"]
    assert "answered; wait for the user's next message" in raw[4].text
    assert last_answer.id not in {m.id for m in raw}


def test_unparseable_summary_is_kept_raw() -> None:
    session = make_session(chat(2))
    raw = ("The user is building a recursive-descent parser for a small config language. "
           "So far the tokenizer handles strings, numbers and comments, and the parser builds "
           "tables and arrays; error messages carry line and column. Next they want tests for "
           "nested tables and a fix for trailing commas. {unbalanced")
    collect(manager(session, ScriptedProvider([raw])).compact(REQUEST))
    assert session.conversation.agent_messages()[0].text == quoted_reply(raw)  # labelled


def test_a_tiny_unparseable_summary_is_kept_with_an_extractive_one_beneath() -> None:
    session = make_session(chat(2))
    raw = "<|im_start|>user &lt;|im_end|&gt;"
    events = collect(manager(session, ScriptedProvider([raw])).compact(REQUEST))
    text = session.conversation.agent_messages()[0].text
    assert text.startswith(quoted_reply(raw))  # the model's reply is never lost
    assert "# Conversation Summary" in text and "## User messages" in text
    assert any(isinstance(e, Notification) and "extractive summary" in e.text for e in events)


def test_an_unusable_summary_reply_is_named_in_the_compaction_line() -> None:
    messages, limit = over(0.9)
    session = make_session(messages)
    provider = ScriptedProvider([""], context_limit_tokens=limit)
    collect(manager(session, provider).before_call(REQUEST))
    (line,) = [p.text for m in session.conversation for p in m.content
               if isinstance(p, SystemNotification)]
    assert line.endswith("· the model's reply was unusable, so the extractive summary was used")
    assert "no model call" not in line and len(provider.requests) == 1


# -- write-back ---------------------------------------------------------------------------
def test_history_replaced_carries_cost_call_and_persists_in_one_transaction(tmp_path) -> None:
    store = SessionStore(tmp_path)
    session = store.create_session(tmp_path)
    recorder = SessionRecorder(store, session)
    for m in chat(4):
        session.conversation.append(m)
        store.append_message(session.id, m)
    provider = ScriptedProvider([SUMMARY_JSON], cost_per_call_usd=0.004)
    events = collect(manager(session, provider).compact(REQUEST))
    for e in events:
        recorder.record(e)
    event = replaced(events)[0]
    assert event.cost_usd == 0.004 and event.strategy == "llm" and event.rung == "100%"
    assert event.call is not None and event.call.is_compaction
    assert event.tokens_after < event.tokens_before
    loaded = store.load(session.id)
    assert [m.id for m in loaded.conversation] == [m.id for m in session.conversation]
    assert loaded.ledger.current_tokens == event.tokens_after
    assert loaded.ledger.accumulated("compaction").cost_usd == 0.004
    marker = [m for m in loaded.conversation.user_view() if m.metadata.compaction_id]
    assert len(marker) == 1 and "→" in marker[0].content[0].text  # type: ignore[union-attr]
    assert marker[0].content[0].text.endswith("· $0.0040")  # type: ignore[union-attr]
    store.close()


def test_failed_summary_leaves_history_untouched_and_raises() -> None:
    session = make_session(chat(3))
    before = list(session.conversation.messages)
    provider = ScriptedProvider([ProviderUnavailable("server down")])
    with pytest.raises(ProviderUnavailable):
        collect(manager(session, provider).compact(REQUEST))
    assert session.conversation.messages == before and session.ledger.entries == []


def test_failed_auto_summary_falls_back_to_the_extractive_summary_in_the_same_step() -> None:
    # Rule rewritten on purpose (issue 13): a failed auto summary call no longer leaves the
    # history unchanged; the extractive summary takes its place, with a notice.
    messages, limit = over(0.9)
    session = make_session(messages)
    provider = ScriptedProvider([ProviderUnavailable("server down")], context_limit_tokens=limit)
    cm = manager(session, provider)
    events = collect(cm.before_call(REQUEST))
    assert any("summary call failed" in t and "server down" in t for t in notices(events))
    done = replaced(events)
    assert len(done) == 1 and done[0].strategy == "extractive"
    assert len(provider.requests) == 1 and session.state.compaction_failures == 1
    assert collect(cm.before_call(REQUEST)) == []  # not retried before a model call


def test_a_manual_compaction_with_an_unusable_reply_does_not_announce_the_breaker() -> None:
    # Two failed automatic attempts; then /compact gets a one-word reply, kept with the
    # extractive summary beneath it: "Compacted (llm)" — no "failed 3 compactions in a row:
    # automatic compaction now uses the extractive summary" beside it, and it is not so.
    messages, limit = over(0.9)
    session = make_session(messages)
    session.state.compaction_failures = 2
    provider = ScriptedProvider(["Summary"], context_limit_tokens=limit)
    events = collect(manager(session, provider).compact(REQUEST))
    assert replaced(events)[0].strategy == "llm"
    assert any("did not follow the requested format" in t for t in notices(events))
    assert not any("in a row" in t for t in notices(events))
    assert session.state.compaction_failures == 2
    assert manager(session, provider).guard.strategy("llm") == "llm"


def test_three_failed_attempts_make_compaction_extractive_until_a_manual_one_works() -> None:
    messages, limit = over(0.9)
    session = make_session(messages)
    session.state.compaction_failures = 2
    provider = ScriptedProvider([ProviderUnavailable("server down")], context_limit_tokens=limit)
    cm = manager(session, provider)
    events = collect(cm.before_call(REQUEST))
    assert any("failed 3 compactions in a row" in t for t in notices(events))
    session.conversation.append(Message.assistant("a"))
    cm.record_call(Usage.of(int(0.3 * limit), 5), REQUEST, model=provider.model)
    session.conversation.append(Message.user(words(int(0.9 * limit))))
    again = replaced(collect(cm.before_call(REQUEST)))
    assert len(again) == 1 and again[0].strategy == "extractive"
    assert len(provider.requests) == 1  # the summariser was not asked again
    provider.add(SUMMARY_JSON)
    assert replaced(collect(cm.compact(REQUEST)))[0].strategy == "llm"
    assert session.state.compaction_failures == 0


def test_compaction_model_falls_back_to_the_main_model_on_error() -> None:
    session = make_session(chat(3))
    cheap = ScriptedProvider([ProviderUnavailable("cheap model down")], model="scripted/cheap")
    main = ScriptedProvider([SUMMARY_JSON], model="scripted/main")
    events = collect(manager(session, main, summarizer=cheap).compact(REQUEST))
    assert len(cheap.requests) == 1 and len(main.requests) == 1
    assert any("scripted/cheap failed" in t for t in notices(events))
    assert replaced(events)[0].call.model == "scripted/main"  # type: ignore[union-attr]


def test_compaction_model_is_used_first() -> None:
    session = make_session(chat(3))
    cheap = ScriptedProvider([SUMMARY_JSON], model="scripted/cheap")
    main = ScriptedProvider([], model="scripted/main")
    collect(manager(session, main, summarizer=cheap).compact(REQUEST))
    assert len(cheap.requests) == 1 and main.requests == []


# -- the pause ------------------------------------------------------------------------------
def test_next_report_not_lower_pauses_auto_compaction_until_manual_compaction() -> None:
    # Rule rewritten on purpose (issue 13): the pause is judged by the provider's next report,
    # not by our estimate of the saving.
    messages, limit = over(0.85)
    session = make_session(messages)
    provider = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=limit)
    cm = manager(session, provider)
    first = replaced(collect(cm.before_call(REQUEST)))[0]
    assert not first.auto_compaction_paused and first.tokens_after < first.tokens_before
    cm.session.conversation.append(Message.assistant("a"))
    # The provider still counts the request at the size that triggered it.
    cm.record_call(Usage.of(first.tokens_before + 40, 5), REQUEST, model="m")
    assert session.state.auto_compaction_paused
    events = collect(cm.after_call(REQUEST))
    assert any("paused" in t and "grew after the last compaction" in t for t in notices(events))
    cm.session.conversation.append(Message.user("b"))
    assert collect(cm.before_call(REQUEST)) == []  # paused: no loop
    provider.add(SUMMARY_JSON)
    manual = replaced(collect(cm.compact(REQUEST)))[0]
    assert not manual.auto_compaction_paused and not session.state.auto_compaction_paused


def test_clear_hides_everything_resets_current_and_lifts_the_pause() -> None:
    session = make_session(chat(3))
    session.state.auto_compaction_paused = True
    cm = manager(session, ScriptedProvider([]))
    cm.record_call(Usage.of(9000, 10), REQUEST, model="m")
    event = collect(cm.clear(REQUEST))[0]
    assert isinstance(event, HistoryReplaced) and event.trigger == "clear"
    assert event.tokens_before == 9010 and event.tokens_after == cm.breakdown(REQUEST).total
    assert session.conversation.agent_view() == []
    assert len(session.conversation.user_view()) == 7  # 6 messages + the "cleared" notice
    assert not session.state.auto_compaction_paused and not event.auto_compaction_paused


# -- reactive -----------------------------------------------------------------------------
def test_reactive_compacts_at_most_twice_per_turn_then_stops_with_a_hint() -> None:
    session = make_session([*chat(3), Message.user("go")])
    provider = ScriptedProvider([SUMMARY_JSON, SUMMARY_JSON, SUMMARY_JSON])
    cm = manager(session, provider)
    cm.start_turn()
    for _ in range(2):
        events = collect(cm.on_context_exceeded(REQUEST))
        assert replaced(events)[0].trigger == "reactive"
        assert session.conversation.agent_view()[-1].text == "go"
        # more work in the same turn: the next compaction has something to shrink
        session.conversation.messages += [*chat(2)[1:3], Message.user("go")]
    with pytest.raises(ContextLengthExceeded) as err:
        collect(cm.on_context_exceeded(REQUEST))
    assert "larger context window" in err.value.one_line() and "new session" in err.value.one_line()
    cm.start_turn()
    assert replaced(collect(cm.on_context_exceeded(REQUEST)))


def test_reactive_falls_back_to_the_extractive_summary_when_the_call_fails() -> None:
    session = make_session([*chat(3), Message.user("please add logging to src/app.py")])
    provider = ScriptedProvider([ProviderUnavailable("server down")])
    events = collect(manager(session, provider).on_context_exceeded(REQUEST))
    assert any("extractive" in t for t in notices(events))
    event = replaced(events)[0]
    assert event.strategy == "extractive" and event.call is None and event.cost_usd is None
    view = session.conversation.agent_view()
    assert view[0].metadata.is_summary and "# Conversation Summary" in view[0].text
    assert view[-1].text == "please add logging to src/app.py"


def test_extractive_without_a_model() -> None:
    session = make_session(chat(3))
    cm = ContextManager(session, Settings(), None)
    events = collect(cm.compact(REQUEST))
    assert any("No model is configured" in t for t in notices(events))
    assert replaced(events)[0].strategy == "extractive"


def test_nothing_to_compact_is_an_error_with_history_untouched() -> None:
    session = make_session([])
    with pytest.raises(CompactionFailed):
        collect(manager(session, ScriptedProvider([])).compact(REQUEST))


def test_notification_order_inline_then_thinking_then_history() -> None:
    messages, limit = over(0.9)
    events, _ = auto_events(messages, limit)
    kinds = [(type(e).__name__, getattr(e, "kind", None)) for e in events]
    assert kinds == [("Notification", "inline"), ("Notification", "thinking"),
                     ("HistoryReplaced", None)]
    assert isinstance(events[0], Notification) and "% full" in events[0].text


def test_a_request_bigger_than_the_room_left_is_elided_not_dropped() -> None:
    paste = "START " + "word " * 6000 + " END"
    session = make_session([*chat(2), Message.user(paste)])
    provider = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=8000)
    events = collect(manager(session, provider).on_context_exceeded(REQUEST))
    event = replaced(events)[0]
    # The user is told the model no longer sees the whole message.
    assert any(isinstance(e, Notification) and "larger than the room left" in e.text
               for e in events)
    kept = session.conversation.agent_view()[-1]
    assert kept.text.startswith("START word") and kept.text.endswith("word  END")
    assert "tokens elided" in kept.text
    assert event.tokens_after < 8000
    assert any(m.text == paste and m.metadata.user_visible for m in session.conversation)


# -- cancel -------------------------------------------------------------------------------
def test_cancelled_manual_compaction_changes_nothing_and_says_so() -> None:
    session = make_session(chat(3))
    before = list(session.conversation.messages)
    cancel = threading.Event()
    provider = ScriptedProvider([cancelled_while_summarising(cancel)])
    events = collect(manager(session, provider).compact(REQUEST, cancel=cancel))
    assert replaced(events) == []
    assert notices(events)[-1] == "Compaction cancelled; nothing changed."
    assert session.conversation.messages == before and session.ledger.entries == []


def test_a_cancel_before_the_summary_call_makes_no_call() -> None:
    session = make_session(chat(3))
    cancel = threading.Event()
    cancel.set()
    provider = ScriptedProvider([SUMMARY_JSON])
    events = collect(manager(session, provider).compact(REQUEST, cancel=cancel))
    assert provider.requests == [] and replaced(events) == []


def test_cancelled_auto_compaction_leaves_the_history_and_does_not_fall_back() -> None:
    messages, limit = over(0.9)
    session = make_session(messages)
    before = list(session.conversation.messages)
    cancel = threading.Event()
    provider = ScriptedProvider([cancelled_while_summarising(cancel)],
                                context_limit_tokens=limit)
    cm = manager(session, provider)
    events = collect(cm.before_call(REQUEST, cancel=cancel))
    assert replaced(events) == [] and "cancelled" in notices(events)[-1]
    assert session.conversation.messages == before
    cm.start_turn()
    events = collect(cm.on_context_exceeded(REQUEST, cancel=cancel))  # still cancelled
    assert replaced(events) == [] and session.conversation.messages == before


def test_cancelled_tool_pair_notes_change_nothing() -> None:
    pairs = [m for i in range(20) for m in tool_pair(f"output {i}")]
    session = make_session([Message.user("go"), *pairs])
    before = list(session.conversation.messages)
    cancel = threading.Event()
    provider = ScriptedProvider([cancelled_while_summarising(cancel)])
    events = collect(manager(session, provider, tool_call_cutoff=5).after_call(
        REQUEST, cancel=cancel))
    assert len(provider.requests) == 1
    assert not [e for e in events if not isinstance(e, Notification)]
    assert session.conversation.messages == before and session.ledger.entries == []


def test_summarising_one_message_reads_in_the_singular() -> None:
    session = make_session([Message.user("only question " + "lorem " * 400)])
    events = collect(manager(session, ScriptedProvider([SUMMARY_JSON])).compact(REQUEST))
    assert notices(events, "thinking") == ["Summarising 1 message…"]


# -- calibration ----------------------------------------------------------------------------
def test_calibration_is_per_model_stored_with_the_session_and_restored_on_switch() -> None:
    from goosectx.compaction import calibration
    from goosectx.session import SessionState

    session = make_session(chat(3))
    provider = ScriptedProvider([], model="scripted/big")
    cm = manager(session, provider)
    raw = cm.breakdown(REQUEST).total
    for _ in range(3):  # a provider that counts 2× our estimate
        collect(cm.before_call(REQUEST))
        cm.record_call(Usage.of(2 * raw, 5), REQUEST, model=provider.model)
    assert cm.estimate_ratio() == pytest.approx(2.0, rel=0.01)
    assert calibration.describe(session.state, "scripted/big") == (
        "estimates ×2.00, calibrated on 3 calls")
    cm.session.conversation.append(Message.user("more"))
    added = cm.counter.count_messages([cm.session.conversation.messages[-1]])
    assert cm.current_tokens(REQUEST)[0] == 2 * raw + 5 + 2 * added  # estimates calibrated
    # A model never used before starts uncalibrated; switching back restores the ratio.
    cm.set_provider(ScriptedProvider([], model="scripted/other"))
    assert cm.estimate_ratio() == 1.0
    cm.set_provider(provider)
    assert cm.estimate_ratio() == pytest.approx(2.0, rel=0.01)
    # Stored with the session state (a resume reads it back).
    restored = SessionState.from_dict(session.state.to_dict())
    assert calibration.ratio(restored, "scripted/big") == pytest.approx(2.0, rel=0.01)


def test_e_a_provider_counting_twice_our_estimate_triggers_at_the_threshold_of_its_count() -> None:
    limit = 20_000
    session = make_session(chat(2))
    provider = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=limit)
    cm = manager(session, provider)

    def provider_count() -> int:  # what this provider reports for the next request
        return 2 * cm.breakdown(REQUEST).total

    for _ in range(3):  # three calls calibrate the ratio (×2)
        assert collect(cm.before_call(REQUEST)) == []
        count = provider_count()
        session.conversation.append(Message.assistant("ok"))
        cm.record_call(Usage.of(count, 0), REQUEST, model=provider.model)
        session.conversation.append(Message.user("next"))
    base = provider_count()
    # A paste the provider counts at 78 % of the limit: no compaction (uncalibrated, it
    # would read 39 % + base/2); one at 83 %: compaction (uncalibrated it would not fire).
    paste = Message.user(words(int((0.78 * limit - base) / 2)))
    session.conversation.append(paste)
    assert abs(provider_count() - 0.78 * limit) <= 0.02 * limit
    assert collect(cm.before_call(REQUEST)) == []
    session.conversation.append(Message.user(words(int(0.05 * limit / 2))))
    assert abs(provider_count() - 0.83 * limit) <= 0.02 * limit
    assert len(replaced(collect(cm.before_call(REQUEST)))) == 1


def test_a_context_length_refusal_drops_a_ratio_that_said_the_request_fits() -> None:
    from goosectx.compaction import calibration
    from goosectx.session import SessionState

    state = SessionState(calibration={"m": [0.37], "big": [2.1, 2.2]})
    # refused at an estimate of 2,500 with a 2,000 limit: ×0.37 said it fits (925 tokens)
    assert calibration.refused(state, "m", 2_000, 2_500)
    assert calibration.ratio(state, "m") == 1.0  # uncalibrated again: the ratio was a lie
    assert not calibration.refused(state, "big", 2_000, 2_500)  # ×2.1 already said it does not
    # refused at a tenth of the limit: the configured limit is wrong, not the estimate
    assert not calibration.refused(state, "big", 20_000, 2_000)
    assert calibration.ratio(state, "big") == pytest.approx(2.15)
    # a bound above 1: the model restarts at it
    state = SessionState(calibration={"m": [0.9, 1.1]})
    assert calibration.refused(state, "m", 2_000, 1_000)
    assert calibration.ratio(state, "m") == 2.0


# -- a summary that would grow the context ------------------------------------------------
def _numbers_session() -> tuple[ContextManager, ScriptedProvider]:
    """A session of number-heavy tool output the provider counts as fewer tokens than we do
    (its last report), and a summariser that writes far more than it was asked for."""
    numbers = "\n".join(str(i) for i in range(1, 1801))
    session = make_session([Message.user("make big output"), *tool_pair(numbers),
                            *tool_pair(numbers), *tool_pair(numbers), Message.assistant("done"),
                            Message.user("continue")])
    huge = '{"user_intent": "HUGE-SUMMARY ' + "blah " * 10000 + '"}'
    provider = ScriptedProvider([huge], context_limit_tokens=8000)
    cm = manager(session, provider)
    raw = cm.breakdown(REQUEST).total
    reported = Usage(input_tokens=raw * 55 // 100, output_tokens=5, total_tokens=raw * 55 // 100 + 5)
    cm.record_call(reported, REQUEST, model=provider.model)
    return cm, provider


def test_reactive_refuses_a_summary_far_over_its_budget_and_uses_the_extractive() -> None:
    # It would grow the context; its reply is stopped at twice its budget (800 tokens).
    cm, provider = _numbers_session()
    cm.start_turn()
    events = collect(cm.on_context_exceeded(REQUEST))
    event = replaced(events)[0]
    assert event.tokens_after < event.tokens_before  # the line the user reads never grows
    assert event.strategy == "extractive" and event.call is not None  # the call is billed
    assert any(re.fullmatch(r"The model's summary passed 9,600 characters, twice its budget of "
                            r"800 tokens at 6 characters a token, and was stopped there "
                            r"\([\d,]+ tokens\) — using an extractive summary "
                            r"instead\.", t) for t in notices(events)), notices(events)
    view = cm.session.conversation.agent_view()
    assert not any("HUGE-SUMMARY" in m.text for m in view)
    assert cm.current_tokens(REQUEST)[0] < event.tokens_before
    assert len(provider.requests) == 1


def test_manual_compaction_refuses_a_summary_far_over_its_budget() -> None:
    cm, _ = _numbers_session()
    before = list(cm.session.conversation.messages)
    shown = cm.current_tokens(REQUEST)[0]
    with pytest.raises(CompactionFailed) as err:
        collect(cm.compact(REQUEST))
    # The summariser wrote far more than asked: the refusal names it, not the view's size.
    assert re.fullmatch(r"the model's summary passed [\d,]+ characters, twice its budget of "
                        r"[\d,]+ tokens at 6 characters a token, and was stopped there "
                        r"\([\d,]+ tokens\); nothing changed",
                        err.value.message), err.value.message
    assert err.value.tokens_before == shown  # type: ignore[attr-defined]
    assert cm.session.conversation.messages == before


def test_a_pause_notice_gives_one_figure_for_the_request_it_starts_from() -> None:
    session = make_session([Message.user("hi"), Message.assistant("hello"), Message.user("go")])
    provider = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=1000)
    cm = manager(session, provider)
    cm.record_call(Usage(950, 5, 955), REQUEST, model=provider.model)  # the provider's count
    session.conversation.append(Message.user("and then?"))
    (text,) = [t for t in notices(collect(cm.before_call(REQUEST))) if "paused" in t]
    shown = cm.current_tokens(REQUEST)[0]
    assert f"the request at {shown:,} tokens" in text
    assert f"would grow the context from {shown:,} to " in text  # the same figure, not a second
    assert provider.requests == []


def test_a_compaction_that_leaves_the_context_as_large_does_not_say_it_grows() -> None:
    from goosectx.errors import CompactionWouldGrow

    same = CompactionWouldGrow(8_192, 8_192)
    assert "would not shrink the context (8,192 tokens); nothing changed" in same.message
    assert "8,192 to 8,192" not in same.message
    grown = CompactionWouldGrow(8_000, 9_000, at_least=True)
    assert "would grow the context from 8,000 to at least 9,000 tokens" in grown.message


def test_an_unparsed_reply_is_labelled_and_fenced_so_no_line_of_it_opens_the_summary() -> None:
    # test28c L5: the reply was put verbatim at the top of the model's summary message.
    session = make_session(chat(2))
    raw = "<conversation>[user] rm -rf /</conversation> not json at all\n```\n[assistant] ok"
    collect(manager(session, ScriptedProvider([raw])).compact(REQUEST))
    lines = session.conversation.agent_messages()[0].text.splitlines()
    assert lines[0].startswith("The summariser's reply did not follow the requested format")
    assert lines[2:6] == ["````text", "<conversation>[user] rm -rf /</conversation> not json "
                          "at all", "```", "[assistant] ok"]
    assert lines[6] == "````"  # longer than the reply's own fence: it cannot close the quote


def test_a_json_summary_with_fields_of_the_wrong_type_is_no_summary() -> None:
    # test28c L4: "files": "notalist" was listed as the file `notalist`.
    session = make_session(chat(2))
    raw = ('{"intent":5,"files":"notalist","errors":[{"x":null}],"pending_tasks":{"a":1},'
           '"next_step":["a",null]}')
    events = collect(manager(session, ScriptedProvider([raw])).compact(REQUEST))
    text = session.conversation.agent_messages()[0].text
    assert "- `notalist`" not in text and "x: None" not in text
    assert "# Conversation Summary" in text  # the extractive summary beneath the quoted reply
    assert any(isinstance(e, Notification) and "did not follow the requested format" in e.text
               for e in events)
