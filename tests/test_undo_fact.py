"""A ``/undo`` is a fact: the files it restored say so after any number of compactions.

fresh17a #16: ``/undo``, a message (the model reads the note "[I used /undo: … restored …]"),
then ``/compact``: the note was summarised away and the merged "## Files changed (from the
transcript)" still said "`a.py`: edited" — the model's view claimed edits that were no longer
on disk. The facts now record the undo on each file's line, and carry it like the others.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from compaction_support import SUMMARY_JSON
from test_repl import CTRL_D, ENTER, World
from test_repl_file_undo import _edit_two_and_create

from goosectx.providers.scripted import ScriptedReply


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.mode = "auto"
    yield w
    w.store.close()


def _files_changed(world: World) -> str:
    sent = "\n".join(m.text for m in world.provider.requests[-1].messages)
    assert "# Conversation Summary" in sent
    return sent[sent.index("## Files changed (from the transcript)"):].split("\n## ")[0]


def test_the_facts_say_which_files_undo_restored_after_later_compactions(world: World) -> None:
    _edit_two_and_create(world)
    world.provider.add("Noted.", SUMMARY_JSON, "It holds main() only.")
    world.run("/undo" + ENTER + "I undid that; wait." + ENTER + "/compact" + ENTER
              + "what is in a.py now?" + ENTER + CTRL_D, resumed=True)
    files = _files_changed(world)
    assert "[I used /undo" not in "\n".join(m.text for m in world.provider.requests[-1].messages)
    assert "- `a.py`: edited (2×), then restored by /undo" in files
    assert "- `b.txt`: written, then restored by /undo" in files
    assert "- `new.txt`: written, then removed by /undo" in files
    # Carried through the next compaction (the earlier summary is in its head).
    world.provider.add(SUMMARY_JSON, "Still main() only.")
    world.run("/compact" + ENTER + "and now?" + ENTER + CTRL_D, resumed=True)
    files = _files_changed(world)
    assert "- `a.py`: edited (2×), then restored by /undo" in files
    assert "- `new.txt`: written, then removed by /undo" in files


def test_an_edit_after_the_undo_is_listed_as_an_edit_again(world: World) -> None:
    _edit_two_and_create(world)
    world.provider.add("Noted.")
    world.run("/undo" + ENTER + "I undid that; wait." + ENTER + CTRL_D, resumed=True)
    world.provider.add(ScriptedReply(tool_calls=[
        ("text_editor", {"command": "str_replace", "path": "a.py", "old_str": "return 1",
                         "new_str": "return 5"})]), "Done.", SUMMARY_JSON, "ok")
    world.run("now set it to 5" + ENTER + "/compact" + ENTER + "and now?" + ENTER + CTRL_D,
              resumed=True)
    files = _files_changed(world)
    assert "- `a.py`: edited (3×)\n" in files + "\n"
    assert "- `new.txt`: written, then removed by /undo" in files


def test_a_summary_naming_the_undone_file_as_edited_gets_the_undo_fact(world: World) -> None:
    _edit_two_and_create(world)
    summary = ('```json\n{"user_intent": "change the files", "files": [{"path": "a.py", '
               '"summary": "return 3 now"}], "next_step": ""}\n```')
    world.provider.add("Noted.", summary, "It returns 1.")
    world.run("/undo" + ENTER + "I undid that; wait." + ENTER + "/compact" + ENTER
              + "what does a.py return?" + ENTER + CTRL_D, resumed=True)
    assert "- `a.py`: edited (2×), then restored by /undo" in _files_changed(world)
