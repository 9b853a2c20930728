"""``goosectx run -r SESSION`` while auto-compaction is paused (test30 #4).

Its note wrapped the whole kept pause notice in parentheses ("…starts the model afresh.);
goosectx compact …") and said "The turn goes on without auto-compaction" before the turn
had started. It now gives the reason's sentences as they are, then its own fix, once.
"""

from __future__ import annotations

from typing import Any, cast

from compaction_support import make_session

from goosectx.cli.common import OpenSession
from goosectx.cli.run_cmd import paused_note
from goosectx.compaction.decide import PAUSE_FIX, pause_reason, storm_notice


def _note(reason: str, *, by_undo: bool = False) -> str:
    session = make_session()
    session.name = "work"
    session.state.auto_compaction_paused = True
    session.state.pause_reason = reason
    session.state.paused_by_undo = by_undo
    note = paused_note(OpenSession(cast(Any, None), session, cast(Any, None), resumed=True))
    assert note is not None
    return note


def test_a_storm_pause_is_said_as_sentences_with_the_run_fix() -> None:
    note = _note(pause_reason(storm_notice(1_500, 400, 2_000, 0.8)))
    assert note.startswith("auto-compaction is paused: each step of this "
                           "tool loop adds about 400 tokens"), note
    assert note.endswith("Running goosectx compact work compacts it and lifts the pause."), note
    assert "(" + "each step" not in note and ".)" not in note
    assert "turn goes on" not in note and PAUSE_FIX not in note  # no turn yet; the run's fix
    assert note.count("goosectx compact") == 1


def test_a_reason_kept_by_an_older_version_loses_the_turn_sentence_too() -> None:
    old = storm_notice(1_500, 400, 2_000, 0.8).removeprefix("Auto-compaction is paused for "
                                                             "this session: ")
    assert "turn goes on" in old  # as an older goosectx kept it
    assert "turn goes on" not in _note(old)


def test_an_undone_compaction_keeps_its_short_reason() -> None:
    assert _note("", by_undo=True) == ("auto-compaction is paused (a "
                                       "compaction was undone); goosectx compact work "
                                       "compacts it and lifts the pause")
