"""Read scoping (issue 15, point 3): what smart_approve reads without asking, and what view reads.

``smart_approve`` auto-runs ``text_editor view`` / ``tree`` only inside the working dir and
never on the sensitive list; ``view`` refuses devices, FIFOs and sockets and reads only as far
as the asked range.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer

from goosectx.approval import NON_INTERACTIVE_DENIED_TEXT, ApprovalContext, decide
from goosectx.sensitive import is_sensitive
from goosectx.tools.base import ToolContext, ToolResult
from goosectx.tools.text_editor import TextEditorTool


def view_verdict(path: str, work: Path, *, data_dir: Path | None = None, tool: str = "text_editor",
                 always: frozenset[str] = frozenset()) -> str:
    arguments = {"command": "view", "path": path} if tool == "text_editor" else {"path": path}
    return decide(ApprovalContext(mode="smart_approve", tool_name=tool, read_only=True,
                                  working_dir=work, arguments=arguments, data_dir=data_dir,
                                  always_allowed=always)).action


def test_smart_approve_reads_inside_the_working_dir_only(work: Path, tmp_path: Path) -> None:
    (work / "src").mkdir()
    (tmp_path / "outside.txt").write_text("x")
    (work / "link").symlink_to(tmp_path / "outside.txt")
    assert view_verdict("src/app.py", work) == "run"
    assert view_verdict(str(work / "README.md"), work) == "run"
    assert view_verdict("../outside.txt", work) == "ask"
    assert view_verdict("/etc/passwd", work) == "ask"
    assert view_verdict("link", work) == "ask"  # symlinks are followed
    assert view_verdict("..", work, tool="tree") == "ask"
    assert view_verdict(".", work, tool="tree") == "run"
    # "always allow" for the tool lets reads outside run, never sensitive ones.
    assert view_verdict("/etc/passwd", work, always=frozenset({"text_editor"})) == "run"
    assert view_verdict("~/.ssh/id_ed25519", work, always=frozenset({"text_editor"})) == "ask"


@pytest.mark.parametrize("name", [".ssh/config", ".aws/credentials", ".gnupg/x", ".env",
                                  ".env.local", "certs/server.pem", "keys/id_rsa"])
def test_sensitive_files_inside_the_working_dir_still_ask(work: Path, name: str) -> None:
    assert view_verdict(name, work) == "ask"
    assert is_sensitive(work / name)


def test_the_data_dir_and_links_into_it_are_sensitive(work: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (work / "notes.txt").symlink_to(data / "sessions.db")
    assert view_verdict("notes.txt", work, data_dir=data) == "ask"
    assert view_verdict(str(data / "sessions.db"), work / "..", data_dir=data) == "ask"
    assert view_verdict("notes.md", work, data_dir=data) == "run"


def test_other_modes_are_unchanged_by_read_scoping(work: Path) -> None:
    for mode, action in (("auto", "run"), ("approve", "ask"), ("chat", "deny")):
        verdict = decide(ApprovalContext(mode=mode, tool_name="text_editor", read_only=True,
                                         working_dir=work,
                                         arguments={"command": "view", "path": "~/.ssh/x"}))
        assert verdict.action == action


def test_run_denies_reads_outside_and_of_sensitive_files(
    fake_model: FakeServer, work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "x").write_text("PRIVATE KEY MATERIAL\n")
    (tmp_path / "outside").write_text("OUTSIDE SECRET\n")
    (work / "inside.txt").write_text("inside text\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    views = ["~/.ssh/x", "../outside", "inside.txt"]
    fake_model.add({"tool_calls": [{"name": "text_editor",
                                    "arguments": {"command": "view", "path": p}}
                                   for p in views]}, {"text": "done"})
    cli(capsys, "run", "-t", "look around")
    sent = str(fake_model.requests[1]["messages"])
    assert "PRIVATE KEY MATERIAL" not in sent and "OUTSIDE SECRET" not in sent
    assert "inside text" in sent
    tool_texts = [m["content"] for m in fake_model.requests[1]["messages"] if m["role"] == "tool"]
    denied = [t for t in tool_texts if t.startswith(NON_INTERACTIVE_DENIED_TEXT)]
    assert len(denied) == 2 and all("It needs approval because " in t for t in denied)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(working_dir=tmp_path, max_output_chars=2_000,
                       overflow_dir=tmp_path / "overflow")


def view(ctx: ToolContext, path: str, **arguments: object) -> ToolResult:
    return TextEditorTool().run({"command": "view", "path": path, **arguments}, ctx)


def test_view_refuses_a_fifo_without_blocking(ctx: ToolContext, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    result = view(ctx, "pipe")
    assert result.is_error and "FIFO" in result.output and "not a regular file" in result.output


def test_view_refuses_devices_and_sockets(ctx: ToolContext, tmp_path: Path) -> None:
    result = view(ctx, "/dev/zero")
    assert result.is_error and "character device" in result.output
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "s.sock"))
        result = view(ctx, "s.sock")
    assert result.is_error and "socket" in result.output
    edit = TextEditorTool().run({"command": "str_replace", "path": "/dev/zero",
                                 "old_str": "a", "new_str": "b"}, ctx)
    assert edit.is_error and "character device" in edit.output


def test_view_of_a_300_mb_file_reads_only_the_range(ctx: ToolContext, tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    with big.open("wb") as fh:  # 16 KB of text lines, then a sparse 300 MB tail
        fh.write(b"".join(b"line %d\n" % n for n in range(1, 2001)))
        fh.truncate(300 * 1024 * 1024)
    result = view(ctx, "big.log", view_range=[2, 3])
    assert result.output == "     2\tline 2\n     3\tline 3"
    whole = view(ctx, "big.log")
    assert not whole.is_error and whole.output.startswith("     1\tline 1\n")
    assert len(whole.output) <= ctx.max_output_chars


def test_view_numbers_lines_like_edits_do(ctx: ToolContext, tmp_path: Path) -> None:
    # A form feed or U+2028 inside a line does not start a new line in view (str.splitlines
    # would), so view's numbers match str_replace's "at lines ..." messages.
    (tmp_path / "f.txt").write_bytes("a\x0cb\nc\u2028d\r\ne\n".encode())
    assert view(ctx, "f.txt").output == "     1\ta\x0cb\n     2\tc\u2028d\n     3\te"
    result = TextEditorTool().run({"command": "str_replace", "path": "f.txt", "old_str": "e",
                                   "new_str": "E"}, ctx)
    assert "     3\tE" in result.output
