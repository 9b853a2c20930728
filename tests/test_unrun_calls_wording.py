"""Calls a turn never ran are said not to have run, and why: a cancel, or the error that ended it.

A turn ended by an error (the spending cap) used to tell the model "The user cancelled this
tool call." for the calls of the reply it never reached, and a resumed transcript labelled every
call a cancel came before "cancelled by you", as the call a Ctrl-C stopped while it ran (which
may have run). Now the model is told the error's kind, the transcript says "not run" and why,
live and resumed alike, and the calls after the first are still one line.
"""

from __future__ import annotations

from pathlib import Path

from agent_harness import finished, make_harness
from test_render import make

from goosectx.approval import ASKED_CANCELLED_TEXT, CANCELLED_TEXT
from goosectx.config import Settings
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.errors import CostCapReached, GoosectxError, ProviderUnavailable
from goosectx.events import ToolCallFinished
from goosectx.file_journal import EditJournal
from goosectx.file_undo import plan_undo
from goosectx.providers.base import TokenPrices
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.turn import CANCELLED_NOT_STARTED_TEXT, error_not_started_text

CAP_KIND = CostCapReached.kind


def _capped_turn(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A turn the spending cap ends after a reply of three calls, none of them run.

    13 priced replies of $0.01; after the 13th the tool pairs pass the cutoff and the tool-pair
    notes call would take the session past $0.125 (as test_cost_cap's), so the cap ends the
    turn before the 13th reply's calls start.
    """
    provider = ScriptedProvider(cost_per_call_usd=0.01, token_prices=TokenPrices(1e-9, 1e-9))
    provider.add(*[ScriptedReply(tool_calls=[("tree", {})]) for _ in range(12)],
                 ScriptedReply(tool_calls=[("shell", {"command": f"touch f{i}"})
                                           for i in range(3)]), "unused")
    settings = Settings(data_dir=tmp_path / "data", max_cost_usd=0.125, tool_call_cutoff=1)
    harness = make_harness(tmp_path, settings, provider=provider)
    events = harness.turn("look around, many times")
    return harness, events


def test_the_model_is_told_the_error_ended_the_turn_not_that_the_user_cancelled(
        tmp_path: Path) -> None:
    harness, events = _capped_turn(tmp_path)
    assert finished(events).status == "error"
    stored = harness.stored()
    assert "The turn stopped: " in str(stored[-1].content)  # the user's notice, then ...
    last = [r.output for r in stored[-2].tool_responses]  # ... the model's answers
    assert last == [error_not_started_text(CAP_KIND)] * 3
    assert all("spending cap" in text and "cancel" not in text for text in last)
    assert "before this call started" in last[0]
    assert not (tmp_path / "work" / "f0").exists()  # they did not run, as they say
    # /undo leaves them out: nothing of the turn it cannot know
    plan = plan_undo(stored, EditJournal(harness.agent.settings.data_dir, harness.session.id))
    assert "shell" not in plan.untracked
    harness.store.close()


def test_the_transcript_says_they_did_not_run_and_why_live_and_resumed(tmp_path: Path) -> None:
    harness, events = _capped_turn(tmp_path)
    why = f"not run: the turn ended on an error ({CAP_KIND})"
    for plain in (False, True):
        live, live_buf = make(plain=plain, width=200)
        for event in events:
            live.handle(event)
        out = live_buf.getvalue()
        assert f"✗ shell {why}" in out and f"✗ 2 more tool calls {why}" in out, out
        assert "cancelled by you" not in out
        resumed, resumed_buf = make(plain=plain, width=200)
        resumed.history(harness.stored())
        drawn = resumed_buf.getvalue()
        assert drawn.count(f"✗ shell {why}") == 3 and "cancelled by you" not in drawn, drawn
        assert "The user cancelled" not in drawn
    harness.store.close()


def _resumed(*outputs: str) -> str:
    calls = [ToolRequest(f"c{i}", "shell", {"command": f"make {i}"}) for i in range(len(outputs))]
    answers = [ToolResponse(f"c{i}", text, is_error=True) for i, text in enumerate(outputs)]
    r, buf = make(plain=True, width=200)
    r.history([Message.user("build"), Message("assistant", tuple(calls)),
               Message("user", tuple(answers))])
    return buf.getvalue()


def test_a_resumed_cancel_tells_the_call_that_may_have_run_from_those_that_did_not() -> None:
    out = _resumed(CANCELLED_TEXT + "\nhalf the output", CANCELLED_NOT_STARTED_TEXT,
                   CANCELLED_NOT_STARTED_TEXT)
    lines = [line.strip() for line in out.splitlines()]
    assert sum(line.startswith("✗ shell cancelled by you") for line in lines) == 1, out
    assert "half the output" in out  # the call a Ctrl-C stopped: what it printed is shown
    assert lines.count("✗ shell not run: cancelled by you") == 2, out


def test_a_resumed_cancel_at_the_question_reads_not_run() -> None:
    out = _resumed(ASKED_CANCELLED_TEXT, CANCELLED_NOT_STARTED_TEXT)
    lines = [line.strip() for line in out.splitlines()]
    assert lines.count("✗ shell not run: cancelled by you") == 2, out
    assert "The user cancelled" not in out


def test_each_error_kind_is_named_and_an_imported_answer_cannot_draw_escapes() -> None:
    out = _resumed(error_not_started_text(ProviderUnavailable.kind),
                   error_not_started_text(GoosectxError.kind),
                   error_not_started_text("\x1b]0;owned\x07kind"))
    assert "✗ shell not run: the turn ended on an error (the provider could not be reached)" \
        in out
    assert "✗ shell not run: the turn ended on an error (an error)" in out
    assert "\x1b" not in out and "owned" in out  # the sanitiser's stand-ins, never the escape


def test_the_turns_end_shows_the_events_answers(tmp_path: Path) -> None:
    """What the screen is told (the events) is what the store holds."""
    harness, events = _capped_turn(tmp_path)
    shown = [e.response.output for e in events if isinstance(e, ToolCallFinished)][-3:]
    assert shown == [r.output for r in harness.stored()[-2].tool_responses]  # before the notice
    harness.store.close()

