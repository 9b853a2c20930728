"""What a kept scan state must never do: be resumed by a build, a shape or a view it is not of.

(``compaction/scan_build.py``, ``scan_state.py``, ``gather_state.py``, ``facts_scan.py``,
migration 11.) A state kept by one build and resumed by another whose scan differs, a state
of another shape, a boundary whose prefix the view's repair changed and a metadata row
deleted before the boundary: each would make the summary differ from a scan from scratch.
What the tests observe: the stored session after a real compaction compared with the same
session compacted with no state, the ``scan_state`` row, the modules a scan imports and the digest of another build.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from cli_support import cli

import goosectx
from goosectx.compaction import actions, scan_state
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse
from goosectx.store import SessionStore

_ROOT = Path(goosectx.__file__).resolve().parent.parent


def _turns(store: SessionStore, sid: str, count: int) -> None:
    for i in range(count):
        rule = " You must keep lines under 80 columns." if i % 7 == 0 else ""
        store.append_message(sid, Message.user(f"step {i}: write part {i}.{rule}"))
        calls = (ToolRequest(f"w{i}", "shell", {"command": f"echo {i} > src/part{i % 9}.py"}),
                 ToolRequest(f"t{i}", "shell", {"command": "pytest -q tests"}))
        store.append_message(sid, Message("assistant", (TextContent(f"Doing {i}."), *calls)))
        failing = i % 5 == 2
        store.append_message(sid, Message("user", (
            ToolResponse(f"w{i}", "[exit code: 0]"),
            ToolResponse(f"t{i}", "E   AssertionError: part broke\n[exit code: 1]"
                         if failing else "3 passed\n[exit code: 0]", is_error=failing))))
        store.append_message(sid, Message("assistant", (TextContent(
            f"Part {i} is written. Next I will write part {i + 1}."),)))


@pytest.fixture
def home(isolated_env: dict[str, Path], work: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data dir with a long session "long" (a head and a tail at a 4000-token limit)."""
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "4000")
    store = SessionStore(isolated_env["home"])
    _turns(store, store.create_session(work, name="long").id, 60)
    store.close()
    return isolated_env["home"]


def _rows(home: Path, sql: str, args: Iterable[object] = ()) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(home / "sessions.db")
    try:
        with conn:
            return conn.execute(sql, tuple(args)).fetchall()
    finally:
        conn.close()


def _dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "compact", "long", "--dry-run", "--strategy", "extractive", "--json")


def _compacted(home: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], int]:
    """A real extractive compaction of "long" in ``home``: the agent view's text, tokens."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GOOSECTX_HOME", str(home))
        out, _ = cli(capsys, "compact", "long", "--strategy", "extractive", "--json")
    store = SessionStore(home)
    try:
        session = store.load(store.resolve("long"))
    finally:
        store.close()
    return ([p.text for m in session.conversation.agent_messages() for p in m.content
             if isinstance(p, TextContent)], json.loads(out)["tokens_after"])


def _same_as_without_state(home: Path, tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    """The real compaction with the kept state gives what it gives with none."""
    fresh = tmp_path / "fresh"
    shutil.copytree(home, fresh)
    _rows(fresh, "DELETE FROM scan_state")
    assert _compacted(home, capsys) == _compacted(fresh, capsys)


_SCAN = """
import json, sys
import goosectx.compaction.facts_scan  # the scan's entry point (compaction/layout.py)
from goosectx.compaction.facts import merge_facts
from goosectx.compaction.scan_build import build_digest, scan_modules
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse
from goosectx.tokens import TokenCounter
calls = [ToolRequest("a", "shell", {"command": "cd x && rm -f a.txt; pytest -q"}),
         ToolRequest("b", "text_editor", {"command": "write", "path": "b.py", "file_text": "x"}),
         ToolRequest("c", "todo_write", {"todos": [{"content": "t", "status": "pending"}]})]
merge_facts("", [Message.user("do it. You must not use tabs."),
                 Message("assistant", (TextContent("ok"), *calls)),
                 Message("user", tuple(ToolResponse(c.id, "Traceback\\nValueError: x",
                                                     is_error=True) for c in calls))],
            max_tokens=500, counter=TokenCounter())
loaded = sorted(m for m in sys.modules if m == "goosectx" or m.startswith("goosectx."))
print(json.dumps([loaded, sorted(set(loaded) - set(scan_modules())), build_digest()]))
"""
"""A scan in a fresh interpreter (a command that changes a file: the shell modules load):
the goosectx modules it loaded, those the build digest does not cover, the digest."""


def _scan(root: Path) -> tuple[list[str], list[str], str]:
    """:data:`_SCAN` run with the goosectx package under ``root``."""
    out = subprocess.run([sys.executable, "-c", _SCAN], capture_output=True, text=True,
                         check=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root),
                                                    "PYTHONDONTWRITEBYTECODE": "1"}).stdout
    loaded, missed, digest = json.loads(out)
    return loaded, missed, digest


def _copy(tmp_path: Path) -> Path:
    """A copy of this build's package under ``tmp_path`` (another build to change)."""
    shutil.copytree(_ROOT / "goosectx", tmp_path / "goosectx",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_the_build_digest_covers_every_module_a_scan_imports() -> None:
    loaded, missed, digest = _scan(_ROOT)
    assert missed == []  # a module the scan imports whose change would not change the digest
    assert {"goosectx.compaction.facts_scan", "goosectx.shell_program"} <= set(loaded)
    assert digest


def test_a_module_the_scan_loads_unseen_fails_the_guard(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "goosectx" / "shell_hidden.py").write_text("X = 1\n")
    with open(root / "goosectx" / "compaction" / "shell_files.py", "a") as f:
        f.write("\nimport importlib\nimportlib.import_module('goosectx.' + 'shell_hidden')\n")
    assert _scan(root)[1] == ["goosectx.shell_hidden"]  # a computed import is not read


def test_a_module_added_to_the_scan_is_in_the_digest(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "goosectx" / "shell_new.py").write_text("def changes() -> list[str]:\n"
                                                   "    return []\n")
    with open(root / "goosectx" / "compaction" / "shell_files.py", "a") as f:
        f.write("\n\ndef _new() -> list[str]:\n"
                "    from goosectx import shell_new  # imported at its first use\n"
                "    return shell_new.changes()\n")
    loaded, missed, before = _scan(root)
    assert missed == [] and "goosectx.shell_new" not in loaded
    with open(root / "goosectx" / "shell_new.py", "a") as f:
        f.write("# another build\n")
    assert _scan(root)[2] not in ("", before)


def test_the_build_digest_changes_with_a_scan_module(tmp_path: Path) -> None:
    def digest(root: Path) -> str:
        return subprocess.run(
            [sys.executable, "-c", "from goosectx.compaction.scan_build import build_digest;"
             "print(build_digest())"], capture_output=True, text=True, check=True, cwd=root,
            env={**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"},
        ).stdout.strip()

    root = _copy(tmp_path)
    before = digest(root)
    with open(root / "goosectx" / "compaction" / "shell_files.py", "a") as f:
        f.write("\n# another build\n")
    assert before and digest(root) not in ("", before)
    assert before == digest(_ROOT)


def _kept_digest(root: Path, *, walk: bool) -> str:
    """The build digest of the package under ``root`` in a fresh interpreter.

    ``walk=False``: with the walk over the scan's files made to fail, so only a digest an
    earlier process kept can be given.
    """
    code = ("import goosectx.compaction.scan_build as b\n"
            + ("" if walk else "b._sources = None  # calling it fails\n")
            + "print(b.build_digest())")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root),
                                                     "PYTHONDONTWRITEBYTECODE": "1"},
                          ).stdout.strip()


def test_a_kept_build_digest_is_taken_only_while_the_files_it_read_are_unchanged(
        tmp_path: Path) -> None:
    root = _copy(tmp_path)
    first = _kept_digest(root, walk=True)
    assert first and _kept_digest(root, walk=False) == first  # the next process reads none
    scan_file = root / "goosectx" / "compaction" / "shell_files.py"
    os.utime(scan_file, ns=(scan_file.stat().st_atime_ns, scan_file.stat().st_mtime_ns + 10**9))
    with pytest.raises(subprocess.CalledProcessError):  # touched: the files are read again
        _kept_digest(root, walk=False)
    assert _kept_digest(root, walk=True) == first  # (the same text: the same digest)
    assert _kept_digest(root, walk=False) == first
    (root / "goosectx" / "compaction" / "shell_files").mkdir()  # where the walk found nothing
    with pytest.raises(subprocess.CalledProcessError):
        _kept_digest(root, walk=False)
    scan_file.write_text(scan_file.read_text().replace("def ", "def  ", 1))  # another build
    assert _kept_digest(root, walk=True) not in ("", first)


def test_a_state_kept_by_another_build_is_not_resumed(
        home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.MonkeyPatch.context() as old_build:  # its scan reads no file from commands
        old_build.setattr(actions, "shell_file_changes", lambda script: [])
        old_build.setattr(scan_state, "build_digest", lambda: "0" * 32, raising=False)
        _dry_run(capsys)
    assert _rows(home, "SELECT count(*) FROM scan_state") == [(1,)]
    _same_as_without_state(home, tmp_path, capsys)


def _rewrite(home: Path, change: Callable[[list[Any]], None]) -> None:
    """Change the kept state's JSON record in place (its version and digests kept)."""
    (data,) = _rows(home, "SELECT state FROM scan_state")[0]
    record = json.loads(zlib.decompress(data))
    change(record)
    _rows(home, "UPDATE scan_state SET state=?",
          (zlib.compress(json.dumps(record).encode()),))


def _set(path: tuple[Any, ...], value: Any) -> Callable[[list[Any]], None]:
    def change(record: list[Any]) -> None:
        target: Any = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


@pytest.mark.parametrize("change", [
    _set((3, "facts", 0), [[[0, 0]], "x"]),  # a request's place as a list in a list
    _set((3, "facts", 7), [["earlier"]]),
    _set((3, "facts", 9), [["pytest"]]),
    _set((3, "facts", 10), [{"a": 1}]),
    _set((3, "facts", 4), {"x": ["y"]}),
    _set((3, "facts", 3), [[1, 2]]),
    _set((3, "cut", ), [["x"]]),
    _set((3, "pending", ), [-1]),
    _set((5, ), [["pytest -q tests"]]),  # the newest commands
    _set((4, ), [[0, [["x"]]]]),  # the constraint lines
])
def test_a_state_of_another_shape_reads_as_none(
        home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        change: Callable[[list[Any]], None]) -> None:
    _dry_run(capsys)
    _rewrite(home, change)
    _same_as_without_state(home, tmp_path, capsys)  # no traceback, the same outcome


def test_a_result_the_repair_moved_before_the_boundary_is_watched(
        isolated_env: dict[str, Path], work: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "4000")
    home = isolated_env["home"]
    store = SessionStore(home)
    sid = store.create_session(work, name="long").id
    store.append_message(sid, Message.user("task: make gen.py"))
    store.append_message(sid, Message("assistant", (TextContent("Generating."), ToolRequest(
        "x", "shell", {"command": "echo 1 > gen.py && python gen.py"}))))
    store.append_message(sid, Message.user("by the way, keep it short"))
    store.append_message(sid, Message("assistant", (TextContent("Noted."),)))
    _turns(store, sid, 60)
    late = Message("user", (ToolResponse(
        "x", "Traceback (most recent call last):\nValueError: gen broke\n[exit code: 1]",
        is_error=True),))
    store.append_message(sid, late)
    store.append_message(sid, Message("user", (ToolResponse("x", "[exit code: 0]"),)))
    store.append_message(sid, Message("assistant", (TextContent("All done."),)))
    _dry_run(capsys)
    store.retract_message(sid, late.id)  # the repair took this result into the prefix
    store.close()
    _same_as_without_state(home, tmp_path, capsys)


def test_a_metadata_row_deleted_before_the_boundary_drops_the_state(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ((rowid, metadata),) = _rows(home, "SELECT rowid, metadata_json FROM messages"
                                 " ORDER BY position LIMIT 1")
    _rows(home, "INSERT OR REPLACE INTO message_state (message_rowid, metadata_json)"
          " VALUES (?, ?)", (rowid, metadata or "{}"))
    _dry_run(capsys)
    assert _rows(home, "SELECT count(*) FROM scan_state") == [(1,)]
    _rows(home, "DELETE FROM message_state WHERE message_rowid=?", (rowid,))
    assert _rows(home, "SELECT count(*) FROM scan_state") == [(0,)]
