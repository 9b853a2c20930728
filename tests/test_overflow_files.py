"""Tool-output overflow files are bounded: per file, in total, in age, and per session.

A command that prints without end (``yes``) wrote ~70 MB/s to ``<data dir>/tool-output/``,
kept for ever: one call of the default 120 s timeout left ~8 GB. Now one file keeps the first
``MAX_FILE_BYTES`` of a stream and its end, old files are pruned after each write, and
``sessions remove`` removes a session's files (``goosectx/tools/overflow_files.py``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from fakeserver import FakeServer
from reliability_support import cli, model_env

from goosectx.config import Settings
from goosectx.tools import overflow_files
from goosectx.tools.base import ToolContext
from goosectx.tools.builtin import make_tool_context
from goosectx.tools.shell import ShellTool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    work = tmp_path / "work"
    work.mkdir()
    return make_tool_context(Settings(data_dir=tmp_path / "data", tool_output_max_chars=2_000),
                             work)


def test_an_overflow_file_keeps_its_head_and_its_end_within_the_cap(
        ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overflow_files, "MAX_FILE_BYTES", 100_000)
    result = ShellTool().run({"command": "seq 1 300000; echo last-line"}, ctx)  # 2 MB
    (kept,) = ctx.overflow_dir.iterdir()
    text = kept.read_text()
    assert kept.stat().st_size < 100_000 + 2_000 + 300
    assert text.startswith("1\n2\n3\n")
    assert text.endswith("299999\n300000\nlast-line\n")
    assert "characters of stdout dropped here: an overflow file keeps the first 100,000 bytes" \
        in text
    assert "its first 100,000 bytes and its end (" in result.output
    assert str(kept) in result.output and "last-line" in result.output


def test_a_stream_under_the_cap_is_kept_whole(ctx: ToolContext,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overflow_files, "MAX_FILE_BYTES", 100_000)
    result = ShellTool().run({"command": "seq 1 15000"}, ctx)  # 78,894 bytes
    (kept,) = ctx.overflow_dir.iterdir()
    assert kept.read_text() == "".join(f"{i}\n" for i in range(1, 15001))
    assert "full stdout" in result.output


def test_old_overflow_files_go_first_past_the_total_cap(
        ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overflow_files, "MAX_TOTAL_BYTES", 100_000)
    now = time.time()
    names = {"ancient": ("20200101-000000-00000001.shell.stdout.txt", 10, now - 40 * 86400),
             "older": ("20250101-000000-00000002.shell.stdout.txt", 45_000, now - 3600),
             "newer": ("20250101-000001-00000003.shell.stdout.txt", 45_000, now - 60),
             "user": ("notes.txt", 500_000, now - 50 * 86400)}
    for name, size, mtime in names.values():
        path = ctx.overflow_dir / name
        path.write_bytes(b"x" * size)
        os.utime(path, (mtime, mtime))
    result = ShellTool().run({"command": "seq 1 5000"}, ctx)  # a 23,893-byte overflow file
    left = {p.name for p in ctx.overflow_dir.iterdir()}
    new = [n for n in left if n not in {v[0] for v in names.values()}]
    assert len(new) == 1 and new[0] in result.output
    assert left == {new[0], names["newer"][0], names["user"][0]}  # the ancient by age, the
    # older past 100,000 bytes; a file not named like an overflow file is never touched


def test_sessions_remove_removes_its_overflow_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": "seq 1 30000"}}]},
              {"text": "one"},
              {"tool_calls": [{"name": "shell", "arguments": {"command": "seq 1 30001"}}]},
              {"text": "two"}]
    with FakeServer(script) as server:
        env = model_env(home, server.base_url)
        for name in ("gone", "kept"):
            proc = cli(env, "run", "--name", name, "-t", "go", "--mode", "auto", cwd=tmp_path)
            assert proc.returncode == 0, proc.stderr
    outputs = home / "tool-output"
    (gone,), (kept,) = ([p for p in outputs.iterdir() if p.read_text().endswith(f"{n}\n")]
                        for n in (30000, 30001))
    proc = cli(env, "sessions", "remove", "gone", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert not gone.exists() and kept.exists()
