"""The text_editor tool: every command, its errors, and undo."""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.tools.base import ToolContext, ToolResult
from goosectx.tools.text_editor import TextEditorTool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(working_dir=tmp_path, max_output_chars=2_000,
                       overflow_dir=tmp_path / "overflow")


def edit(ctx: ToolContext, command: str, path: str, **arguments: object) -> ToolResult:
    return TextEditorTool().run({"command": command, "path": path, **arguments}, ctx)


def test_view_numbers_lines_and_honours_view_range(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\nfour\n")
    assert edit(ctx, "view", "a.txt").output == (
        "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour")
    assert edit(ctx, "view", "a.txt", view_range=[2, 3]).output == "     2\ttwo\n     3\tthree"
    assert edit(ctx, "view", "a.txt", view_range=[3, -1]).output == (
        "     3\tthree\n     4\tfour")


def test_view_range_outside_the_file_is_an_error(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    result = edit(ctx, "view", "a.txt", view_range=[5, 9])
    assert result.is_error
    assert "has 2 lines" in result.output
    assert edit(ctx, "view", "a.txt", view_range="1-2").is_error


def test_a_path_that_is_not_text_says_so(ctx: ToolContext) -> None:
    result = TextEditorTool().run({"command": "view", "path": 123}, ctx)
    assert result.is_error
    assert result.output == "'path' must be text (the file's path as a JSON string), not a number"
    assert edit(ctx, "view", "").output == "view needs a 'path'"


def test_view_of_a_directory_lists_it(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "b.py").write_text("")
    result = edit(ctx, "view", ".")
    assert not result.is_error
    assert result.output.splitlines()[1:] == ["src/", "b.py"]
    (tmp_path / "c\n  forged.py").write_text("")
    assert edit(ctx, "view", ".").output.splitlines()[1:] == ["src/", "b.py",
                                                              "c\\n  forged.py"]


def test_view_of_a_binary_file_is_a_clear_error(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\x89PNG\x00\x01\x02")
    result = edit(ctx, "view", "blob.bin")
    assert result.is_error
    assert "binary file" in result.output


def test_view_of_a_missing_file_is_an_error(ctx: ToolContext) -> None:
    result = edit(ctx, "view", "nope.txt")
    assert result.is_error
    assert "does not exist" in result.output


def test_view_output_is_capped(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x" * 100 + "\n" * 1000)
    result = edit(ctx, "view", "big.txt")
    assert len(result.output) <= ctx.max_output_chars
    assert "view a smaller view_range" in result.output


def test_write_creates_parents_and_undo_removes_the_new_file(
    ctx: ToolContext, tmp_path: Path
) -> None:
    result = edit(ctx, "write", "deep/er/new.txt", file_text="hello\n")
    assert not result.is_error
    assert (tmp_path / "deep/er/new.txt").read_text() == "hello\n"
    undo = edit(ctx, "undo_edit", "deep/er/new.txt")
    assert not undo.is_error
    assert not (tmp_path / "deep/er/new.txt").exists()


def test_write_says_how_many_lines_and_characters_in_words_that_agree(
        ctx: ToolContext, tmp_path: Path) -> None:
    """The transcript read "Created hello.py (1 lines, 12 characters)"."""
    assert edit(ctx, "write", "one.py", file_text="print('hi')\n").output == (
        f"Created {tmp_path / 'one.py'} (1 line, 12 characters)")
    assert edit(ctx, "write", "one.py", file_text="a\nb").output == (
        f"Overwrote {tmp_path / 'one.py'} (2 lines, 3 characters)")
    assert edit(ctx, "write", "x.txt", file_text="x").output.endswith("(1 line, 1 character)")


def test_write_over_a_file_then_undo_restores_it(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old\n")
    edit(ctx, "write", "a.txt", file_text="new\n")
    assert (tmp_path / "a.txt").read_text() == "new\n"
    edit(ctx, "undo_edit", "a.txt")
    assert (tmp_path / "a.txt").read_text() == "old\n"


def test_undo_restores_a_binary_file_byte_for_byte(ctx: ToolContext, tmp_path: Path) -> None:
    original = bytes(range(256))
    (tmp_path / "blob.bin").write_bytes(original)
    edit(ctx, "write", "blob.bin", file_text="text now")
    edit(ctx, "undo_edit", "blob.bin")
    assert (tmp_path / "blob.bin").read_bytes() == original


def test_str_replace_unique_match(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    result = edit(ctx, "str_replace", "m.py", old_str="    return 2", new_str="    return 3")
    assert not result.is_error
    assert "     5\t    return 3" in result.output
    assert (tmp_path / "m.py").read_text() == "def f():\n    return 1\n\ndef g():\n    return 3\n"


def test_str_replace_with_several_matches_names_the_count(
    ctx: ToolContext, tmp_path: Path
) -> None:
    (tmp_path / "m.py").write_text("x = 1\ny = 2\nx = 1\nx = 1\n")
    result = edit(ctx, "str_replace", "m.py", old_str="x = 1", new_str="x = 9")
    assert result.is_error
    assert "matches 3 times" in result.output
    assert "lines 1, 3, 4" in result.output
    assert (tmp_path / "m.py").read_text() == "x = 1\ny = 2\nx = 1\nx = 1\n"


def test_str_replace_without_a_match_says_zero(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    result = edit(ctx, "str_replace", "m.py", old_str="x  = 1", new_str="x = 2")
    assert result.is_error
    assert "0 matches" in result.output
    assert edit(ctx, "str_replace", "m.py", old_str="", new_str="x").is_error


def test_str_replace_keeps_crlf_line_endings(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    result = edit(ctx, "str_replace", "w.txt", old_str="a\nb", new_str="A\nB")
    assert not result.is_error
    assert (tmp_path / "w.txt").read_bytes() == b"A\r\nB\r\nc\r\n"


def test_edits_follow_the_line_ending_most_lines_use(ctx: ToolContext, tmp_path: Path) -> None:
    lines = [f"line {i}\n".encode() for i in range(20)]
    lines[10] = b"line 10 windows\r\n"  # one stray CRLF line in an LF file
    (tmp_path / "lf.txt").write_bytes(b"".join(lines))
    assert not edit(ctx, "str_replace", "lf.txt", old_str="line 3\n",
                    new_str="line three\nand more\n").is_error
    assert not edit(ctx, "insert", "lf.txt", insert_line=1, new_str="inserted").is_error
    data = (tmp_path / "lf.txt").read_bytes()
    assert b"line three\nand more\n" in data and b"inserted\n" in data
    assert data.count(b"\r\n") == 1  # only the stray line's own
    crlf = [f"row {i}\r\n".encode() for i in range(20)]
    crlf[5] = b"row 5 unix\n"  # and the other way round
    (tmp_path / "crlf.txt").write_bytes(b"".join(crlf))
    assert not edit(ctx, "str_replace", "crlf.txt", old_str="row 2", new_str="row 2\nnew").is_error
    assert b"row 2\r\nnew\r\n" in (tmp_path / "crlf.txt").read_bytes()


def test_str_replace_then_undo(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text("alpha\nbeta\n")
    edit(ctx, "str_replace", "m.txt", old_str="beta", new_str="gamma")
    edit(ctx, "str_replace", "m.txt", old_str="alpha", new_str="delta")
    edit(ctx, "undo_edit", "m.txt")
    assert (tmp_path / "m.txt").read_text() == "alpha\ngamma\n"
    edit(ctx, "undo_edit", "m.txt")
    assert (tmp_path / "m.txt").read_text() == "alpha\nbeta\n"
    result = edit(ctx, "undo_edit", "m.txt")
    assert result.is_error
    assert "no edit" in result.output


def test_insert_at_top_middle_and_after_a_last_line_without_newline(
    ctx: ToolContext, tmp_path: Path
) -> None:
    (tmp_path / "i.txt").write_text("one\ntwo")
    edit(ctx, "insert", "i.txt", insert_line=0, new_str="zero")
    edit(ctx, "insert", "i.txt", insert_line=2, new_str="one and a half\n")
    result = edit(ctx, "insert", "i.txt", insert_line=4, text="three")
    assert not result.is_error
    assert (tmp_path / "i.txt").read_text() == "zero\none\none and a half\ntwo\nthree\n"


def test_insert_outside_the_file_is_an_error(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "i.txt").write_text("one\n")
    result = edit(ctx, "insert", "i.txt", insert_line=5, new_str="x")
    assert result.is_error
    assert "has 1 lines" in result.output
    assert edit(ctx, "insert", "i.txt", new_str="x").is_error


def test_insert_then_undo(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "i.txt").write_text("one\n")
    edit(ctx, "insert", "i.txt", insert_line=1, new_str="two")
    edit(ctx, "undo_edit", "i.txt")
    assert (tmp_path / "i.txt").read_text() == "one\n"


def test_absolute_paths_work_and_share_the_undo_stack(ctx: ToolContext, tmp_path: Path) -> None:
    edit(ctx, "write", str(tmp_path / "abs.txt"), file_text="v1\n")
    edit(ctx, "write", "abs.txt", file_text="v2\n")
    edit(ctx, "undo_edit", str(tmp_path / "sub" / ".." / "abs.txt"))
    assert (tmp_path / "abs.txt").read_text() == "v1\n"


def test_bad_calls_are_error_results(ctx: ToolContext) -> None:
    assert edit(ctx, "delete", "a.txt").is_error
    assert TextEditorTool().run({"command": "view"}, ctx).is_error
    assert edit(ctx, "write", "a.txt").is_error  # no file_text
    assert edit(ctx, "write", ".", file_text="x").is_error  # a directory
    assert edit(ctx, "str_replace", "missing.txt", old_str="a", new_str="b").is_error


def test_only_view_is_read_only() -> None:
    tool = TextEditorTool()
    assert tool.is_read_only({"command": "view", "path": "x"})
    for command in ("write", "str_replace", "insert", "undo_edit"):
        assert not tool.is_read_only({"command": command, "path": "x"})


def test_viewed_secrets_are_redacted(tmp_path: Path) -> None:
    ctx = ToolContext(working_dir=tmp_path, redact=lambda t: t.replace("hunter22", "[REDACTED]"))
    (tmp_path / ".env").write_text("PASSWORD=hunter22\n")
    assert edit(ctx, "view", ".env").output == "     1\tPASSWORD=[REDACTED]"


def test_undo_with_no_edit_in_this_process_says_undo_does_not_outlive_it(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x\n")
    result = TextEditorTool().run({"command": "undo_edit", "path": "f.txt"},
                                  ToolContext(working_dir=tmp_path))  # e.g. after a resume
    assert result.is_error and "since goosectx started" in result.output
    assert "since goosectx started" in TextEditorTool.description  # the model is told first


def test_a_path_that_reads_like_the_undo_note_adds_no_note_to_the_diff(
        ctx: ToolContext, tmp_path: Path) -> None:
    # the note comes from the edit's journal answer, not from finding its words in the output
    name = "notes\n(/undo will not be able to restore it).txt"
    result = edit(ctx, "write", name, file_text="hi\n")
    assert (tmp_path / name).read_text() == "hi\n"
    assert result.diff == f"--- /dev/null\n+++ b/{name}\n@@ -0,0 +1 @@\n+hi\n"
