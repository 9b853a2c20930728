"""Atomic editor writes (issue 15, points 6 and 8): no file is lost, undo never clobbers.

A full disk during ``str_replace`` leaves the file byte-identical and says "disk full"; an edit
through a symlink changes the target and keeps the link; mode, owner and CRLF line endings
survive; ``undo_edit`` refuses when the file changed since the tool wrote it.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import cli
from disk_support import fill, small_tmpfs
from fakeserver import FakeServer

import goosectx.tools.files as files
from goosectx.tools.base import ToolContext, ToolResult
from goosectx.tools.text_editor import TextEditorTool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(working_dir=tmp_path, max_output_chars=2_000,
                       overflow_dir=tmp_path / "overflow")


def edit(ctx: ToolContext, command: str, path: str, **arguments: object) -> ToolResult:
    return TextEditorTool().run({"command": command, "path": path, **arguments}, ctx)


def leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".goosectx-tmp")]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KB tmpfs (root only; skipped where mounting is not permitted)."""
    with small_tmpfs(tmp_path, "64k",
                     "cannot mount a tmpfs here (the injected-error test covers this)") as mount:
        yield mount


def test_full_disk_during_str_replace_through_the_cli_leaves_the_file_intact(
    small_disk: Path, fake_model: FakeServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = small_disk / "big.py"
    original = b"".join(b"value_%05d = %d\n" % (n, n) for n in range(2_500))  # ~45 KB
    source.write_bytes(original)
    monkeypatch.chdir(small_disk)
    fake_model.add({"tool_calls": [{"name": "text_editor", "arguments": {
        "command": "str_replace", "path": "big.py", "old_str": "value_00000 = 0\n",
        "new_str": "value_00000 = 0  # changed\n"}}]}, {"text": "done"})
    cli(capsys, "run", "--mode", "auto", "-t", "edit it")
    assert source.read_bytes() == original
    assert leftovers(small_disk) == []
    tool_text = [m["content"] for m in fake_model.requests[1]["messages"] if m["role"] == "tool"]
    assert "disk full" in tool_text[0] and str(source) in tool_text[0]


def test_an_injected_write_error_leaves_the_file_byte_identical(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = tmp_path / "big.txt"
    original = "".join(f"line {n}\n" for n in range(12_000)).encode()
    source.write_bytes(original)
    real_write = os.write
    written = [0]

    def write_until_full(fd: int, data: bytes | memoryview) -> int:
        if written[0] > 4096:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = real_write(fd, bytes(data[:4096]))
        written[0] += n
        return n

    monkeypatch.setattr(files.os, "write", write_until_full)
    result = edit(ctx, "str_replace", "big.txt", old_str="line 5\n", new_str="line five\n")
    assert result.is_error
    assert f"disk full: no space left to write {source}; the file is unchanged" in result.output
    assert source.read_bytes() == original
    assert leftovers(tmp_path) == []
    assert edit(ctx, "undo_edit", "big.txt").is_error  # a failed edit leaves nothing to undo


def test_an_edit_through_a_symlink_changes_the_target_and_keeps_the_link(
    ctx: ToolContext, tmp_path: Path
) -> None:
    target = tmp_path / "real" / "conf.txt"
    target.parent.mkdir()
    target.write_text("a = 1\n")
    link = tmp_path / "conf.txt"
    link.symlink_to(target)
    assert not edit(ctx, "str_replace", "conf.txt", old_str="1", new_str="2").is_error
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "a = 2\n"
    assert not edit(ctx, "write", "conf.txt", file_text="b = 3\n").is_error
    assert link.is_symlink() and target.read_text() == "b = 3\n"


def test_mode_and_owner_are_kept(ctx: ToolContext, tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("echo one\n")
    script.chmod(0o750)
    if os.geteuid() == 0:
        os.chown(script, 1234, 2345)
    assert not edit(ctx, "str_replace", "run.sh", old_str="one", new_str="two").is_error
    st = script.stat()
    assert st.st_mode & 0o7777 == 0o750
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (1234, 2345)


def test_crlf_line_endings_survive_every_edit(ctx: ToolContext, tmp_path: Path) -> None:
    path = tmp_path / "w.txt"
    path.write_bytes(b"a\r\nb\r\n")
    edit(ctx, "insert", "w.txt", insert_line=1, new_str="x\ny")
    edit(ctx, "str_replace", "w.txt", old_str="b", new_str="b1\nb2")
    assert path.read_bytes() == b"a\r\nx\r\ny\r\nb1\r\nb2\r\n"
    edit(ctx, "write", "w.txt", file_text="new\nfile\n")
    assert path.read_bytes() == b"new\r\nfile\r\n"


def test_undo_after_an_outside_edit_refuses(ctx: ToolContext, tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_text("alpha\n")
    edit(ctx, "str_replace", "m.txt", old_str="alpha", new_str="beta")
    path.write_text("beta\nthe user's own line\n")
    result = edit(ctx, "undo_edit", "m.txt")
    assert result.is_error
    assert "changed since text_editor's last edit" in result.output
    assert path.read_text() == "beta\nthe user's own line\n"
    path.write_text("beta\n")  # back to what the tool wrote: undo works again
    assert not edit(ctx, "undo_edit", "m.txt").is_error
    assert path.read_text() == "alpha\n"


def test_undo_of_a_created_file_that_was_deleted_refuses(ctx: ToolContext,
                                                         tmp_path: Path) -> None:
    edit(ctx, "write", "new.txt", file_text="hello\n")
    (tmp_path / "new.txt").unlink()
    result = edit(ctx, "undo_edit", "new.txt")
    assert result.is_error and "was deleted" in result.output


def test_a_full_disk_for_tool_output_is_a_marker_not_a_traceback(
    small_disk: Path, tmp_path: Path
) -> None:
    from goosectx.tools.shell import ShellTool

    fill(small_disk)
    ctx = ToolContext(working_dir=tmp_path, max_output_chars=2_000,
                      overflow_dir=small_disk / "tool-output")
    result = ShellTool().run({"command": "seq 1 50000"}, ctx)
    assert result.is_error is False
    assert "could not be saved: disk full" in result.output
    assert result.output.startswith("1\n2\n") and "50000\n" in result.output
