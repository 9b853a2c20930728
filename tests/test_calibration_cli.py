"""Calibration through the real CLI (issue 13, point 2): ``goosectx run`` against the fake
server, then ``goosectx info``. The server reports ``input_scale`` × its own count of each
request, so one model's estimates run about twice another's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer

from goosectx.compaction import calibration
from goosectx.config import load_settings
from goosectx.store import SessionStore

OTHER_MODEL = "openai/other-model"


def stored_ratio(name: str, model: str) -> float:
    store = SessionStore(load_settings().data_dir)
    try:
        return calibration.ratio(store.load_header(store.resolve(name)).state, model)
    finally:
        store.close()


def calibration_row(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    out, _ = cli(capsys, "info", *args)
    (row,) = [line for line in out.splitlines() if line.startswith("calibration")]
    return row


def shown_ratio(row: str) -> float:
    found = re.search(r"estimates ×(\d+\.\d\d), calibrated on (\d+) calls?", row)
    assert found, row
    return float(found.group(1))


def test_calibration_survives_a_resume_per_model_and_is_shown_by_info(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    fake_model.default_reply = {"text": "ok", "usage": {"input_scale": 2.0}}
    cli(capsys, "run", "--name", "cal", "-t", "first")
    for turn in range(2):  # each run is a new process state: the ratio comes from the store
        cli(capsys, "run", "--resume", "cal", "-t", f"more {turn}")
    ratio = stored_ratio("cal", "openai/fake-model")
    row = calibration_row(capsys, "--session", "cal")
    assert f"estimates ×{ratio:.2f}, calibrated on 3 calls" in row
    assert "session cal, model openai/fake-model" in row
    assert calibration_row(capsys) == row  # the session last used in this directory

    # A model never used in this session starts uncalibrated.
    monkeypatch.setenv("GOOSE_MODEL", OTHER_MODEL)
    assert "uncalibrated" in calibration_row(capsys, "--session", "cal")
    fake_model.default_reply = {"text": "ok", "usage": {"input_scale": 1.0}}
    cli(capsys, "run", "--resume", "cal", "-t", "with the other model")
    other = shown_ratio(calibration_row(capsys, "--session", "cal"))
    assert "calibrated on 1 call" in calibration_row(capsys, "--session", "cal")
    assert ratio / other == pytest.approx(2.0, rel=0.1)  # this provider counts half as much

    # Switching back restores the first model's ratio, and a resume keeps adding to it.
    monkeypatch.setenv("GOOSE_MODEL", "openai/fake-model")
    assert f"estimates ×{ratio:.2f}, calibrated on 3 calls" in calibration_row(
        capsys, "--session", "cal")
    fake_model.default_reply = {"text": "ok", "usage": {"input_scale": 2.0}}
    cli(capsys, "run", "--resume", "cal", "-t", "back again")
    row = calibration_row(capsys, "--session", "cal")
    assert "calibrated on 4 calls" in row
    assert shown_ratio(row) == pytest.approx(ratio, rel=0.05)


def test_info_without_a_session_says_uncalibrated(capsys: pytest.CaptureFixture[str]) -> None:
    assert "uncalibrated" in calibration_row(capsys)
    _, err = cli(capsys, "info", "--session", "nope", code=2)
    assert "no session matches" in err


def test_a_stored_ratio_calibration_never_records_is_dropped(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A ratio only a hand-made or imported file holds (1e308 overflowed every estimate; 1e6
    made them absurd) is left out: the session compacts and runs as an uncalibrated one."""
    import json
    import sqlite3

    monkeypatch.chdir(tmp_path)
    fake_model.default_reply = {"text": "ok"}
    cli(capsys, "run", "--name", "odd", "-t", "first")
    db = load_settings().data_dir / "sessions.db"
    with sqlite3.connect(db) as conn:
        (state,) = conn.execute("SELECT state_json FROM sessions WHERE name='odd'").fetchone()
        state = {**json.loads(state), "calibration": {"openai/fake-model": [1e308, 1e6, -2]}}
        conn.execute("UPDATE sessions SET state_json=? WHERE name='odd'", (json.dumps(state),))
    _, err = cli(capsys, "compact", "odd", "--dry-run", code=1)  # too small to compact
    found = re.search(r"grow the context from ([\d,]+) to", err)
    assert found and int(found.group(1).replace(",", "")) < 5_000, err  # raw, not ×1e6
    assert "uncalibrated" in calibration_row(capsys, "--session", "odd")
    cli(capsys, "run", "--resume", "odd", "-t", "again")

