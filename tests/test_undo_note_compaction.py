"""The model's note of a ``/undo`` survives a compaction made before the next message.

fresh16c #06: ``/undo`` then ``/compact`` (or an auto-compaction) before the next message: the
note ("[I used /undo: …]") was summarised with the head and the model was never told — the
summary still listed the undone edit. The note now stays after the summary, like a message
the model has yet to read. (``/clear`` starts the model afresh: the files are as they are, and
the note is moot there.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from compaction_support import REQUEST, SUMMARY_JSON, chat, collect, make_session, manager
from test_repl import CTRL_D, ENTER, World
from test_repl_file_undo import _edit_two_and_create

from goosectx.conversation import Message, MessageMetadata
from goosectx.providers.scripted import ScriptedProvider

NOTE = ('[I used /undo: the file edits you made for my message "write a.txt" are undone — a.txt '
        "(restored to its contents before that turn). Those edits are gone: read these files "
        "again before relying on or building on them.]")


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.mode = "auto"
    yield w
    w.store.close()


@pytest.mark.parametrize("compact", ["/compact", "/compact\n/compact"])
def test_the_request_after_undo_and_compact_tells_the_model_which_files_were_undone(
        world: World, compact: str) -> None:
    _edit_two_and_create(world)
    world.provider.add(*[SUMMARY_JSON] * compact.count("/compact"), "I see.")
    out = world.run("/undo" + ENTER + compact.replace("\n", ENTER) + ENTER + "what now?"
                    + ENTER + CTRL_D, resumed=True)
    assert "compacted" in out
    sent = "\n".join(m.text for m in world.provider.requests[-1].messages)
    assert "# Conversation Summary" in sent
    assert '[I used /undo: the file edits you made for my message "change the files"' in sent
    assert "new.txt (removed: that turn created it)" in sent
    assert sent.index("# Conversation Summary") < sent.index("[I used /undo")
    assert sent.rstrip().endswith("what now?")


def test_an_auto_compaction_at_the_next_message_keeps_the_undo_note_before_it() -> None:
    note = Message.user(NOTE, MessageMetadata(user_visible=False, agent_visible=True,
                                              extra={"source_kind": "command",
                                                     "file_undo": "m1"}))
    session = make_session([*chat(8, 400), note, Message.user("what is in a.txt now?")])
    summariser = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=8_000)
    collect(manager(session, summariser).compact(REQUEST, trigger="auto"))
    sent = [m.text for m in session.conversation.agent_view()]
    assert sent[0].startswith("# Conversation Summary")
    assert sum(NOTE in text for text in sent) == 1
    whole = "\n".join(sent)
    assert whole.index(NOTE) < whole.index("what is in a.txt now?")
