"""Diffs of edits and numbered outputs (/show N), driven through the REPL over pipe input.

Issue 17 items 2 and 3: an edit's diff is drawn before its approval question and in the
transcript; folded outputs carry a number that ``/show N`` prints whole, the same number
``sessions show`` prints.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, World

from goosectx.export_markdown import transcript_markdown
from goosectx.providers.scripted import ScriptedReply
from goosectx.tools.base import ToolContext
from goosectx.tools.text_editor import TextEditorTool


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_the_approval_question_shows_the_diff_of_the_edit_first(world: World) -> None:
    target = world.workdir / "app.py"
    target.write_text("def main():\n    return 1\n")
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
        "command": "str_replace", "path": "app.py", "old_str": "return 1",
        "new_str": "return 2"})]), "Changed it.")
    out = world.run("make main return 2" + ENTER + "y" + CTRL_D)
    preview = out.index("text_editor wants to change app.py · +1 −1 lines")
    answer = out.index("text_editor: allow once")
    assert preview < answer
    between = out[preview:answer]
    assert "--- a/app.py" in between and "+++ b/app.py" in between
    assert "-    return 1" in between and "+    return 2" in between
    assert target.read_text() == "def main():\n    return 2\n"
    # After the run: the counts, not the same diff a second time.
    after = out[answer:]
    assert "✓ text_editor · +1 −1 lines · #1" in after and "+    return 2" not in after
    # The model got the short result text, never the diff.
    sent = world.provider.requests[-1].messages
    outputs = [r.output for m in sent for r in m.tool_responses]
    assert outputs and "Edited" in outputs[0] and "+++ b/app.py" not in outputs[0]


def test_a_denied_edit_changes_nothing_and_its_diff_was_shown(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
        "command": "write", "path": "new.txt", "file_text": "hello\n"})]), "ok")
    out = world.run("create it" + ENTER + "n" + ENTER + CTRL_D)
    assert "text_editor wants to change new.txt · +1 −0 lines" in out
    assert "+++ b/new.txt" in out and "+hello" in out
    assert not (world.workdir / "new.txt").exists()


def test_an_edit_in_auto_mode_shows_its_diff_in_the_transcript(world: World) -> None:
    world.mode = "auto"
    (world.workdir / "notes.txt").write_text("a\nb\n")
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
        "command": "insert", "path": "notes.txt", "insert_line": 1, "new_str": "inserted"})]),
        ScriptedReply(tool_calls=[("text_editor", {"command": "undo_edit",
                                                   "path": "notes.txt"})]), "done")
    out = world.run("edit and undo" + ENTER + CTRL_D)
    assert "wants to change" not in out  # auto mode asks nothing
    assert "✓ text_editor · +1 −0 lines" in out and "│ +inserted" in out
    assert "✓ text_editor · +0 −1 lines" in out and "│ -inserted" in out
    assert (world.workdir / "notes.txt").read_text() == "a\nb\n"


def test_preview_writes_nothing_and_is_none_for_a_failing_edit(tmp_path: Path) -> None:
    tool = TextEditorTool()
    ctx = ToolContext(working_dir=tmp_path)
    (tmp_path / "f.txt").write_text("x\n")
    diff = tool.preview({"command": "write", "path": "f.txt", "file_text": "y\n"}, ctx)
    assert diff is not None and "-x" in diff and "+y" in diff
    assert (tmp_path / "f.txt").read_text() == "x\n" and not ctx.undo
    assert tool.preview({"command": "str_replace", "path": "f.txt", "old_str": "zzz",
                         "new_str": "q"}, ctx) is None
    assert tool.preview({"command": "view", "path": "f.txt"}, ctx) is None
    # undo_edit: the preview shows what undo would restore, and leaves the undo stack alone.
    assert not tool.run({"command": "write", "path": "f.txt", "file_text": "z\n"}, ctx).is_error
    diff = tool.preview({"command": "undo_edit", "path": "f.txt"}, ctx)
    assert diff is not None and "-z" in diff and "+x" in diff
    assert (tmp_path / "f.txt").read_text() == "z\n" and len(ctx.undo[str(tmp_path / "f.txt")]) == 1


def test_the_diff_of_a_file_outside_the_working_dir_names_it_as_git_does(tmp_path: Path
                                                                         ) -> None:
    work = tmp_path / "work"
    work.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("x\n")
    diff = TextEditorTool().preview({"command": "write", "path": str(outside),
                                     "file_text": "y\n"}, ToolContext(working_dir=work))
    assert diff is not None
    assert f"--- a{outside}\n+++ b{outside}\n" in diff  # not "b//tmp/…"


def test_show_n_prints_a_folded_tool_result_whole(world: World) -> None:
    world.mode = "auto"
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "seq 1 40"})]),
                       ScriptedReply(tool_calls=[("shell", {"command": "echo short"})]), "ok")
    out = world.run("count" + ENTER + "/show 1" + ENTER + "/show" + ENTER + "/show 9" + ENTER
                    + "/show x" + ENTER + CTRL_D)
    assert "shell output · 41 lines · #1 (/show 1)" in out
    assert "shell output · 2 lines" in out and "#2 (/show 2)" not in out  # not folded
    shown = out[out.index("❯ /show 1"):out.index("❯ /show" + "\n")]
    assert "#1 shell output" in shown
    assert all(f"\n{n}\n" in shown for n in range(1, 41))  # every line, none folded
    last = out[out.index("❯ /show\n"):out.index("❯ /show 9")]
    assert "#1 shell output" in last  # /show alone: the last folded output
    assert "there is no output #9 — outputs are #1 to #2" in out
    assert "/show takes the number of an output; got 'x'" in out
    # sessions show prints the same numbers.
    markdown = transcript_markdown(world.stored())
    assert "**tool result** #1" in markdown and "**tool result** #2" in markdown


def test_a_result_with_a_line_too_long_to_show_says_how_to_see_it_whole(world: World) -> None:
    world.mode = "auto"
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "printf '%0900d' 7"})]),
                       ScriptedReply(tool_calls=[("shell", {"command": "echo short"})]), "ok")
    out = world.run("print" + ENTER + "/show" + ENTER + CTRL_D)
    assert "shell output · 2 lines · #1 (/show 1)" in out  # its one line is cut with …
    drawn, shown = out.split("❯ /show", 1)
    assert "0" * 899 + "7" not in drawn.replace("\n", "")
    assert "#2 (/show 2)" not in out  # short: shown whole, no number drawn
    assert "#1 shell output" in shown  # /show alone: that one, whole
    assert "0" * 899 + "7" in shown.replace("\n", "")


def test_numbers_survive_a_resume(world: World) -> None:
    world.mode = "auto"
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "seq 1 30"})]), "ok")
    world.run("count" + ENTER + CTRL_D)
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "seq 1 20"})]), "ok")
    world.session = world.stored()
    out = world.run("again" + ENTER + "/show 2" + ENTER + CTRL_D, resumed=True)
    assert "shell output · 31 lines · #1 (/show 1)" in out  # the resumed transcript
    assert "shell output · 21 lines · #2 (/show 2)" in out
    assert "#2 shell output · 21 lines" in out


def test_an_edit_that_would_fail_is_answered_without_asking(world: World) -> None:
    (world.workdir / "app.py").write_text("def main():\n    return 1\n")
    (world.workdir / "blob.bin").write_bytes(b"\x00\x01\xff\xfe" * 50)
    world.provider.add(
        ScriptedReply(tool_calls=[("text_editor", {
            "command": "str_replace", "path": "app.py", "old_str": "return 9",
            "new_str": "return 2"})]),
        ScriptedReply(tool_calls=[("text_editor", {
            "command": "str_replace", "path": "blob.bin", "old_str": "a", "new_str": "b"})]),
        "Both failed.")
    out = world.run("edit them" + ENTER + CTRL_D)  # no key pressed: no question may wait
    assert "wants to change" not in out and "allow once" not in out
    sent = world.provider.requests[-1].messages
    errors = [r for m in sent for r in m.tool_responses]
    assert len(errors) == 2 and all(r.is_error for r in errors)
    assert "old_str was not found" in errors[0].output  # the tool's own error, as a run gives
    assert out.count("✗ text_editor") == 2, out  # the user sees both failures
    assert (world.workdir / "app.py").read_text() == "def main():\n    return 1\n"
    assert "Both failed." in out


def _big_file(world: World) -> Path:
    """A 5 MB file: over the 1 MB diffed line by line and the 4 MB /undo keeps."""
    target = world.workdir / "big.txt"
    target.write_text("MARKER\n" + ("x" * 100 + "\n") * 50_000)
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
        "command": "str_replace", "path": "big.txt", "old_str": "MARKER",
        "new_str": "CHANGED"})]), "done")
    return target


def test_an_edit_of_a_file_too_large_to_diff_says_what_changed_not_zero_lines(
        world: World) -> None:
    world.mode = "auto"
    target = _big_file(world)
    # the result's lines wrap inside the "  │ " gutter: read them as the words they are
    out = " ".join(world.run("edit" + ENTER + CTRL_D).replace("│", " ").split())
    assert "+0 −0" not in out
    header = out.index("✓ text_editor · 1 replacement · diff not shown (file over 1 MB) · "
                       "/undo cannot restore it · #1")
    # Why /undo cannot restore it comes with the result line, before what the edit says.
    warning = out.index("(/undo will not be able to restore")
    assert header < warning < out.index(f"Edited {target}: replaced 1 match")
    assert target.read_text().startswith("CHANGED\n")


def test_the_approval_of_an_edit_too_large_to_keep_says_undo_cannot_restore_it(
        world: World) -> None:
    target = _big_file(world)
    out = " ".join(world.run("edit" + ENTER + "n" + ENTER + CTRL_D).split())
    preview = out.index("text_editor wants to change big.txt · 1 replacement · diff not shown "
                        "(file over 1 MB) · /undo cannot restore it")
    assert preview < out.index("(/undo will not be able to restore") < out.index("goosectx asks")
    assert target.read_text().startswith("MARKER\n")
