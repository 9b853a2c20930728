"""The compaction's internal records are compared and printed nowhere (so they are plain).

``gather_state.Resumed`` (a resumed scan's variables), ``scan_state.Checkpoint`` (the kept
state), ``fixed_errors._Failure`` (a failing test run's entry), ``carry.Facts`` (what the
summary is made from), ``file_record.FileRecord`` (one file's changes) and ``tail.Split`` (the
working set) are dataclasses without a generated ``__eq__`` or ``__repr__``: each generated
method costs every ``compact --dry-run`` its compile at import; the frozen values a plan is made
of (``CompactionPlan``, ``Budget``, ``SummaryRequest``, ``flatten.Line``, ``FileAction``,
``TestRun``, ``PermissionRules``: ``plain_record.compared_record``) keep their ``__eq__`` and
hash but have no generated ``__repr__``, nor the frozen ``__setattr__``/``__delattr__`` (read-only
to mypy only: nothing assigns to one at run time either). This proves the compaction that uses
them — a dry run that keeps the state, a grown session that resumes it with failing test
runs and file writes, the same outcome as a fresh scan, then the real compaction — never
compares or prints one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import cli
from test_scan_state import _dry_run, _dry_run_in, _write, long_session, scanned
from test_settings_plain_records import _set_once

from goosectx.compaction import (
    actions,
    budget,
    carry,
    file_record,
    fixed_errors,
    flatten,
    gather_state,
    plan,
    request,
    scan_state,
    tail,
)
from goosectx.conversation import Message, TextContent
from goosectx.permission_rules import PermissionRules
from goosectx.store import SessionStore

__all__ = ["long_session", "scanned"]  # the fixtures, shared


def _refused(*_args: object) -> object:
    raise AssertionError("a scan record was compared or printed")


def test_a_resumed_scan_never_compares_or_prints_its_records(
        long_session: Path, scanned: list[int], capsys: pytest.CaptureFixture[str],
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = (gather_state.Resumed, scan_state.Checkpoint, fixed_errors._Failure, carry.Facts,
               file_record.FileRecord, tail.Split)
    for record in records:
        assert record.__eq__ is object.__eq__ and record.__repr__ is object.__repr__
        monkeypatch.setattr(record, "__eq__", _refused)
        monkeypatch.setattr(record, "__repr__", _refused)
    for value in (plan.CompactionPlan, budget.Budget, request.SummaryRequest, flatten.Line,
                  actions.FileAction, fixed_errors.TestRun, PermissionRules):  # compared
        assert value.__repr__ is object.__repr__ and value.__setattr__ is object.__setattr__
        assert value.__hash__ is not None  # hashable, as mypy reads a frozen dataclass
        monkeypatch.setattr(value, "__repr__", _refused)
        monkeypatch.setattr(value, "__setattr__", _set_once)
    first = _dry_run(capsys)  # keeps the state (failing test runs in it)
    store = SessionStore(long_session)
    sid = store.resolve("long")
    for i in range(4):
        store.append_message(sid, Message.user(f"and then {i}: never use tabs."))
        store.append_message(sid, Message("assistant", (TextContent(f"Noted {i}."),)))
    store.close()
    fresh = tmp_path / "fresh"
    shutil.copytree(long_session, fresh)
    _write(fresh, "DELETE FROM scan_state")
    scanned.clear()
    grown = _dry_run(capsys)  # resumes the kept state
    assert 0 < sum(scanned) and grown != first
    assert grown == _dry_run_in(fresh, capsys)
    out, _ = cli(capsys, "compact", "long", "--strategy", "extractive", "--json")
    assert json.loads(out)["tokens_after"] < json.loads(out)["tokens_before"]  # it compacted
