"""text_editor in a working dir that is gone: no write recreates it; subdirs inside one that
exists are still made, and a path outside it is untouched by the check."""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.tools.base import ToolContext, ToolResult
from goosectx.tools.text_editor import TextEditorTool


def _ctx(workdir: Path) -> ToolContext:
    return ToolContext(working_dir=workdir, max_output_chars=2_000,
                       overflow_dir=workdir.parent / "overflow")


def _edit(ctx: ToolContext, command: str, path: str, **arguments: object) -> ToolResult:
    return TextEditorTool().run({"command": command, "path": path, **arguments}, ctx)


@pytest.mark.parametrize(("command", "path", "arguments"), [
    ("create", "new.txt", {"file_text": "x"}),
    ("write", "sub/new.txt", {"file_text": "x"}),
    ("str_replace", "a.txt", {"old_str": "a", "new_str": "b"}),
    ("insert", "a.txt", {"insert_line": 0, "new_str": "x"}),
    ("create", "../gone/new.txt", {"file_text": "x"}),
])
def test_an_edit_in_a_gone_working_dir_is_refused_with_the_fix(
        tmp_path: Path, command: str, path: str, arguments: dict[str, object]) -> None:
    workdir = tmp_path / "gone"
    ctx = _ctx(workdir)
    result = _edit(ctx, command, path, **arguments)
    assert result.is_error and not workdir.exists()
    assert result.output == (
        f"{command} failed: the working dir {workdir} no longer exists (removed or moved); "
        f"no file in it can be read or written until it is recreated (mkdir -p {workdir})")
    assert TextEditorTool().dry_run({"command": command, "path": path, **arguments},
                                    ctx).is_error  # refused before the approval asks


def test_an_absolute_path_inside_the_gone_dir_is_refused_one_outside_is_written(
        tmp_path: Path) -> None:
    ctx = _ctx(tmp_path / "gone")
    inside = _edit(ctx, "create", str(tmp_path / "gone" / "deep" / "f.txt"), file_text="x")
    assert inside.is_error and not (tmp_path / "gone").exists()
    outside = _edit(ctx, "create", str(tmp_path / "other" / "f.txt"), file_text="x")
    assert not outside.is_error and (tmp_path / "other" / "f.txt").read_text() == "x"


def test_subdirs_inside_a_working_dir_that_exists_are_still_made(tmp_path: Path) -> None:
    result = _edit(_ctx(tmp_path), "create", "a/b/c.txt", file_text="x")
    assert not result.is_error and (tmp_path / "a" / "b" / "c.txt").read_text() == "x"
