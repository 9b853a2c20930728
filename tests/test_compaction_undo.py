"""Undo a compaction (issue 12 point 7): the model gets back the view the compaction replaced.

Through the context manager (once, twice, after new messages, not tool-pair notes or
``/clear``), through ``goosectx compact SESSION --undo`` (byte-identical projection, a one-line
error when there is nothing to undo) and through the REPL on pipe input (``/undo-compact``, the
transcript mark, ``/context`` with the restored figure and the pause, ``/usage`` keeping the
compaction's cost).
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from cli_support import cli, run_cli
from compaction_support import (
    REQUEST,
    SUMMARY_JSON,
    chat,
    collect,
    make_session,
    manager,
    notices,
    tool_pair,
    words,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console
from test_compaction_properties import conversations

from goosectx.agent import Agent
from goosectx.approval import ApprovalFn
from goosectx.cli.repl import Repl, ReplIO
from goosectx.compaction.toolpairs import apply_notes, select_pairs
from goosectx.config import Settings, load_settings
from goosectx.conversation import Message
from goosectx.errors import (
    CompactionFailed,
    CompactionWouldGrow,
    ContextLengthExceeded,
    NothingToUndo,
)
from goosectx.events import CompactionUndone, HistoryReplaced
from goosectx.providers.scripted import ScriptedProvider
from goosectx.session import Session
from goosectx.store import SessionStore
from goosectx.tools.builtin import default_registry, make_tool_context
from goosectx.usage import Usage

ENTER = "\r"
CTRL_D = "\x04"


def projection(session: Session) -> list[dict[str, Any]]:
    """What the model is sent, as JSON (ids, roles, content, metadata)."""
    return [m.to_dict() for m in session.conversation.agent_view(for_sending=False)]


def compact(session: Session) -> HistoryReplaced:
    events = collect(manager(session, None).compact(REQUEST, strategy="extractive"))
    return next(e for e in events if isinstance(e, HistoryReplaced))


def undo(session: Session) -> list[Any]:
    return collect(manager(session, None).undo_compaction(REQUEST))


def long_session() -> Session:
    return make_session([*chat(6, 300), *tool_pair(words(600)), Message.assistant("read it"),
                         *chat(2, 300)], model="openai/gpt-4o-mini")


# -- the core ------------------------------------------------------------------------------------
def test_undo_once_restores_the_view_the_compaction_replaced_and_pauses() -> None:
    session = long_session()
    before = projection(session)
    compact(session)
    assert projection(session) != before
    ledger = list(session.ledger.entries)
    events = undo(session)
    assert projection(session) == before  # byte-identical: ids, content and metadata
    done = next(e for e in events if isinstance(e, CompactionUndone))
    assert done.restored_count > 0 and done.auto_compaction_paused
    assert session.state.auto_compaction_paused and session.state.paused_by_undo
    # `current` is re-estimated from the restored view
    m = manager(session, None)
    assert session.ledger.current_tokens == m.breakdown(REQUEST).total == done.tokens_after
    assert done.tokens_after > done.tokens_before
    assert session.ledger.entries == ledger  # nothing billed, nothing taken back
    # the transcript marks it (user-only) and the notice names the pause and its way out
    mark = session.conversation.messages[-1]
    assert mark.metadata.user_visible and not mark.metadata.agent_visible
    assert "Compaction undone" in mark.content[0].text  # type: ignore[union-attr]
    assert any("paused" in n and "/compact" in n for n in notices(events))


def test_undo_measures_before_and_after_alike_so_a_restore_never_reads_as_a_shrink() -> None:
    session = long_session()
    compact(session)
    m = manager(session, None)
    reported = 3 * m.breakdown(REQUEST).total  # a provider counting 3x our estimate reported
    m.record_call(Usage(reported, 5, reported + 5), REQUEST, model="openai/gpt-4o-mini")
    events = undo(session)
    done = next(e for e in events if isinstance(e, CompactionUndone))
    assert done.tokens_after > done.tokens_before  # more messages: more tokens
    assert f"({done.tokens_before:,} → {done.tokens_after:,} tokens, estimated)" in notices(
        events)[0]


def test_a_second_undo_walks_back_the_compaction_before() -> None:
    session = long_session()
    original = projection(session)
    compact(session)
    session.conversation.append(Message.user("next question " + words(2000)))
    session.conversation.append(Message.assistant("next answer " + words(2000)))
    between = projection(session)
    compact(session)
    undo(session)
    assert projection(session) == between
    undo(session)
    added = between[-2:]  # the messages added after the first compaction stay visible
    assert projection(session) == original + added
    with pytest.raises(NothingToUndo, match="nothing to undo"):
        undo(session)


def test_undo_after_new_messages_keeps_them_visible_to_the_model() -> None:
    session = long_session()
    original = projection(session)
    compact(session)
    session.conversation.append(Message.user("one more thing"))
    session.conversation.append(Message.assistant("sure"))
    undo(session)
    texts = [m.text for m in session.conversation.agent_view(for_sending=False)]
    assert projection(session)[:len(original)] == original
    assert texts[-2:] == ["one more thing", "sure"]
    assert not any(m.metadata.is_summary for m in session.conversation.agent_view())


def test_undo_does_not_walk_back_clear() -> None:
    session = long_session()
    compact(session)
    collect(manager(session, None).clear(REQUEST))
    messages = list(session.conversation.messages)
    with pytest.raises(NothingToUndo) as info:
        undo(session)
    assert "/clear" in info.value.message
    assert session.conversation.messages == messages  # nothing changed


def test_undo_keeps_tool_pair_notes_made_after_the_compaction() -> None:
    session = long_session()
    compact(session)
    for i in range(14):
        for m in tool_pair(f"output {i}"):
            session.conversation.append(m)
    pairs = select_pairs(session.conversation.agent_messages(), 1)
    assert pairs
    session.conversation.messages, hidden, notes = apply_notes(
        session.conversation.messages, pairs, [None] * len(pairs))
    undo(session)
    view = session.conversation.agent_messages()
    ids = {m.id for m in view}
    assert all(n.id in ids for n in notes) and not any(h.id in ids for h in hidden)
    assert not any(m.metadata.is_summary for m in view)
    # notes alone are not a compaction: nothing more to undo
    with pytest.raises(NothingToUndo):
        undo(session)


def test_compact_after_an_undo_lifts_the_pause() -> None:
    session = long_session()
    compact(session)
    undo(session)
    event = compact(session)
    assert not event.auto_compaction_paused
    assert not session.state.auto_compaction_paused and not session.state.paused_by_undo


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=conversations, triggers=st.lists(st.sampled_from(["auto", "reactive", "manual"]),
                                                 min_size=1, max_size=3))
def test_each_undo_restores_exactly_the_view_before_its_compaction(
        messages: list[Message], triggers: list[str]) -> None:
    session = make_session(messages)
    views = []
    for trigger in triggers:
        if not session.conversation.agent_view(for_sending=False):
            break
        views.append([m.to_dict() for m in session.conversation.agent_messages()])
        cm = manager(session, ScriptedProvider([SUMMARY_JSON]))
        try:
            if trigger == "reactive":
                collect(cm.on_context_exceeded(REQUEST))
            else:
                collect(cm.compact(REQUEST, trigger=trigger))  # type: ignore[arg-type]
        except (CompactionWouldGrow, ContextLengthExceeded):
            views.pop()  # a compaction that would not shrink the view changed nothing
        except CompactionFailed as exc:  # nor one with nothing new since the last summary
            assert str(exc).startswith(("nothing to compact: the model sees only the last",
                                        "nothing to compact: nothing is new since the last"))
            views.pop()
    for view in reversed(views):
        undo(session)
        assert [m.to_dict() for m in session.conversation.agent_messages()] == view
    users = [m.id for m in messages if m.metadata.user_visible]
    assert [m.id for m in session.conversation.user_view() if m.id in set(users)] == users


# -- goosectx compact SESSION --undo ---------------------------------------------------------
def saved(name: str = "work") -> tuple[str, list[dict[str, Any]]]:
    store = SessionStore(load_settings().data_dir)
    try:
        session = store.create_session(Path.cwd(), name=name)
        for m in long_session().conversation.messages:
            store.append_message(session.id, m)
        return session.id, projection(store.load(session.id))
    finally:
        store.close()


def load(session_id: str) -> Session:
    store = SessionStore(load_settings().data_dir)
    try:
        return store.load(session_id)
    finally:
        store.close()


def test_offline_compact_then_undo_restores_a_byte_identical_projection(
        capsys: pytest.CaptureFixture[str]) -> None:
    sid, before = saved()
    cli(capsys, "compact", "work", "--strategy", "extractive")
    compacted = load(sid)
    assert projection(compacted) != before
    out, _ = cli(capsys, "compact", "work", "--undo")
    assert out.startswith("Undid the last compaction of work: the model sees ")
    assert "auto-compaction paused" in out and len(out.strip().splitlines()) == 1
    # what lifts the pause: a /compact, or a reactive compaction (a too-long request)
    assert "until the next /compact (or a compaction a too-long request forces)" in out
    after = load(sid)
    assert projection(after) == before
    assert after.state.auto_compaction_paused and after.state.paused_by_undo
    assert after.ledger.current_is_estimate and after.ledger.current_tokens > 0
    shown, _ = cli(capsys, "sessions", "show", "work")
    assert "Compaction undone" in shown  # the transcript marks it


def test_undo_with_nothing_to_undo_is_one_line_and_exits_non_zero(
        capsys: pytest.CaptureFixture[str]) -> None:
    sid, before = saved()
    code, out, err = run_cli(capsys, "compact", "work", "--undo")
    assert code != 0 and out == ""
    assert len(err.strip().splitlines()) == 1 and "nothing to undo" in err
    code, out, json_err = run_cli(capsys, "compact", "work", "--undo", "--json")
    said = json.loads(out)  # --json says so on stdout too, as a refused compaction does
    assert code == 1 and json_err == err
    assert said == {"session_id": sid, "undone_compaction_id": None, "changed": False,
                    "reason": said["reason"], "hint": said["hint"]}
    assert said["reason"].startswith("nothing to undo") and said["reason"] in err
    assert projection(load(sid)) == before
    code, _, err = run_cli(capsys, "compact", "work", "--undo", "--dry-run")
    assert code == 2 and "--undo does not go with --dry-run" in err


def test_undo_twice_through_the_cli_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    sid, original = saved()
    cli(capsys, "compact", "work", "--strategy", "extractive")
    # more work, so that a second compaction can shrink the view (it never grows it)
    added = [Message.user("next question " + words(2000)),
             Message.assistant("next answer " + words(2000))]
    store = SessionStore(load_settings().data_dir)
    try:
        for m in added:
            store.append_message(sid, m)
    finally:
        store.close()
    cli(capsys, "compact", "work", "--strategy", "extractive", "--instructions", "again")
    out, _ = cli(capsys, "compact", "work", "--undo", "--json")
    data = json.loads(out)
    assert data["session_id"] == sid and data["auto_compaction_paused"] is True
    assert data["restored_messages"] > 0 and data["undone_compaction_id"].startswith("cmp_")
    cli(capsys, "compact", "work", "--undo")
    assert projection(load(sid)) == original + [m.to_dict() for m in added]
    code, _, err = run_cli(capsys, "compact", "work", "--undo")
    assert code == 1 and "nothing to undo" in err


# -- the REPL on pipe input --------------------------------------------------------------------
def run_repl(tmp_path: Path, provider: ScriptedProvider, keys: str) -> tuple[str, SessionStore,
                                                                             Session]:
    settings = Settings(data_dir=tmp_path / "data", threshold_ratio=0.8)
    workdir = tmp_path / "work"
    workdir.mkdir(exist_ok=True)
    store = SessionStore(settings.data_dir)
    session = store.create_session(workdir, name="demo", model="scripted/test-model")

    def build(approve: ApprovalFn) -> Agent:
        return Agent(session, settings, provider=provider, tools=default_registry(),
                     approve=approve, mode="auto",
                     tool_context=make_tool_context(settings, workdir))

    buf = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        repl = Repl(settings, store, session,
                    io=ReplIO(Console(file=buf, width=120), input=pipe, output=DummyOutput(),
                              history=False),
                    resumed=False, mode="auto", agent_factory=build, background_checks=False)
        assert repl.run() == 0
    return buf.getvalue(), store, session


def test_repl_undo_compact_context_usage_and_the_next_request(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.context_limit_tokens = 20_000
    provider.cost_per_call_usd = 0.002
    first, second = "first question " + words(1500), "second question " + words(1500)
    provider.add("first answer", "second answer", '{"user_intent": "answer questions"}',
                 "third answer", "fourth answer")
    keys = ENTER.join([first, second, "/compact", "third question", "/undo-compact",
                       "/context", "/usage", "fourth question", "/undo-compact", ""]) + CTRL_D
    out, store, session = run_repl(tmp_path, provider, keys)
    assert "compaction undone" in out
    # the next request holds the original messages and the one added after the compaction
    sent = " ".join(m.text for m in provider.requests[-1].messages)
    assert first in sent and second in sent and "third question" in sent
    assert "answer questions" not in sent  # the summary is gone from the model's view
    # /context: the restored figure (the one the undo notice names) and the pause
    context = out[out.index("compaction undone"):]
    after = context.split("Compaction undone:")[1].split(" → ")[1].split(" tokens")[0]
    current = next(line for line in context.splitlines() if "what the trigger uses" in line)
    assert current.split()[-2] == after
    assert "paused: a compaction was undone" in " ".join(context.split())
    # /usage still bills the compaction
    usage = out[out.index("usage (tokens)"):]
    assert "$0.0020" in next(line for line in usage.splitlines() if "compaction" in line)
    # a second /undo-compact: nothing left (one compaction only), said in one line
    assert "nothing to undo" in out
    stored = store.load(session.id)
    marks = [m for m in stored.conversation.user_view()
             if "Compaction undone" in " ".join(str(getattr(p, "text", "")) for p in m.content)]
    assert len(marks) == 1
    store.close()


def test_dry_run_and_undo_count_the_same_messages(capsys: pytest.CaptureFixture[str]) -> None:
    sid, _ = saved()
    view = len(load(sid).conversation.agent_messages())
    dry, _ = cli(capsys, "compact", "work", "--dry-run", "--strategy", "extractive")
    replaced = re.search(r"(\d+) messages in the model's view; the summary would replace (\d+)",
                         dry)
    assert replaced is not None and int(replaced.group(1)) == view, dry
    cli(capsys, "compact", "work", "--strategy", "extractive")
    out, _ = cli(capsys, "compact", "work", "--undo")
    assert f"the model sees the {replaced.group(2)} messages it had replaced again" in out
    again, _ = cli(capsys, "compact", "work", "--dry-run", "--strategy", "extractive")
    assert again.splitlines()[0] == dry.splitlines()[0]  # the same view, counted the same way
    data = json.loads(cli(capsys, "compact", "work", "--dry-run", "--json")[0])
    assert (data["view_messages"], data["replaced_messages"]) == (
        view, int(replaced.group(2)))


def test_an_undo_that_restores_more_than_the_context_limit_says_so_and_what_comes_next() -> None:
    session = long_session()
    compact(session)
    small = manager(session, None, context_limit_tokens=1500)
    events = collect(small.undo_compaction(REQUEST))
    done = next(e for e in events if isinstance(e, CompactionUndone))
    assert done.tokens_after > 1500
    text = " ".join(notices(events))
    assert (f"does not fit the context limit ({done.tokens_after:,} of 1,500 tokens)"
            in text)
    assert "/compact" in text and "next request" in text
    mark = session.conversation.messages[-1].content[0].text  # type: ignore[union-attr]
    assert "does not fit the context limit" in mark
    # one that fits says nothing of the kind
    session = long_session()
    compact(session)
    assert not any("does not fit" in n for n in notices(undo(session)))


def test_a_reactive_compaction_after_an_undo_lifts_the_pause() -> None:
    session = long_session()
    compact(session)
    undo(session)
    session.conversation.append(Message.user("go on"))
    cm = manager(session, None)
    cm.start_turn()
    event = next(e for e in collect(cm.on_context_exceeded(REQUEST))
                 if isinstance(e, HistoryReplaced))
    assert event.trigger == "reactive" and not event.auto_compaction_paused
    assert not session.state.auto_compaction_paused and not session.state.paused_by_undo


def test_compact_undo_in_the_cli_says_the_restored_view_is_over_the_context_limit(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    saved()
    cli(capsys, "compact", "work", "--strategy", "extractive")
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "2000")
    out, _ = cli(capsys, "compact", "work", "--undo")
    assert "does not fit the context limit (" in out and "of 2,000 tokens)" in out
    assert "next request will be refused" in out


def test_compact_undo_json_names_the_models_configured_limit(
        capsys: pytest.CaptureFixture[str]) -> None:
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(
        'model = "openai/gpt-4o-mini"\n[models."openai/gpt-4o-mini"]\ncontext_limit = 200000\n')
    saved()
    cli(capsys, "compact", "work", "--strategy", "extractive")
    out, _ = cli(capsys, "compact", "work", "--undo", "--json")
    assert json.loads(out)["context_limit_tokens"] == 200_000  # not the 128,000 default


def test_an_undo_before_any_new_reply_gives_back_the_counted_figure_dry_runs_agree(
        capsys: pytest.CaptureFixture[str]) -> None:
    # tester 28b: `compact --dry-run --json` said tokens_before 2711, then 2955 after an
    # extractive compaction and its undo, for the same byte-identical model view (the undo
    # stored an estimate where the provider's count had been)
    from goosectx.usage import LedgerEntry

    sid, before = saved()
    counted = 6789  # the provider's count: above our estimate of the view (about 3,000)
    store = SessionStore(load_settings().data_dir)
    try:
        store.add_usage(sid, LedgerEntry(Usage(counted - 34, 34, counted), "openai/gpt-4o-mini"),
                        current_tokens=counted, is_estimate=False)
    finally:
        store.close()
    first = json.loads(cli(capsys, "compact", "work", "--dry-run", "--json")[0])
    assert first["tokens_before"] == counted
    cli(capsys, "compact", "work", "--strategy", "extractive")
    out, _ = cli(capsys, "compact", "work", "--undo")
    assert (f"tokens, estimated; the provider counted {counted:,} for this view before the "
            "compaction ·") in out
    again = json.loads(cli(capsys, "compact", "work", "--dry-run", "--json")[0])
    assert again == first and projection(load(sid)) == before
    # a second round through --json says the figure is counted
    cli(capsys, "compact", "work", "--strategy", "extractive")
    data = json.loads(cli(capsys, "compact", "work", "--undo", "--json")[0])
    assert (data["tokens_after"], data["tokens_after_is_estimate"]) == (counted, False)


def test_two_undos_in_a_row_add_up(capsys: pytest.CaptureFixture[str]) -> None:
    # test29b LOW 3: the first undo ended "1,240 (estimated) → 2,895 tokens" (the provider's
    # count), the second started "2,851 → 4,465" (our estimate): two kinds of figure. Both
    # figures are now our estimate, the provider's count named beside them.
    from goosectx.usage import LedgerEntry

    sid, _before = saved()
    store = SessionStore(load_settings().data_dir)
    try:
        store.add_usage(sid, LedgerEntry(Usage(6755, 34, 6789), "openai/gpt-4o-mini"),
                        current_tokens=6789, is_estimate=False)
    finally:
        store.close()
    cli(capsys, "compact", "work", "--strategy", "extractive")
    store = SessionStore(load_settings().data_dir)
    try:
        for m in [Message.user("and the docs " * 300), Message.assistant("written " * 300)]:
            store.append_message(sid, m)
    finally:
        store.close()
    cli(capsys, "compact", "work", "--strategy", "extractive")
    figures = []
    for _ in range(2):
        out, _ = cli(capsys, "compact", "work", "--undo")
        m = re.search(r"· ([\d,]+) → ([\d,]+) tokens, estimated", out)
        assert m is not None, out
        figures.append([int(g.replace(",", "")) for g in m.groups()])
    assert figures[0][1] == figures[1][0], figures  # the first undo's end is the second's start
    assert "the provider counted 6,789 for this view before the compaction" in out
