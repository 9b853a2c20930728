"""Resuming a session from another directory: the session keeps its own working dir (its work
lives there) and one line says so, naming both dirs and how to start a new session here."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from cli_support import cli
from conftest import FAKE_MODEL
from fakeserver import FakeServer

from goosectx.config import load_settings
from goosectx.store import SessionStore


def _projects(tmp_path: Path) -> tuple[Path, Path]:
    there, here = tmp_path / "projA", tmp_path / "projB"
    there.mkdir()
    here.mkdir()
    store = SessionStore(load_settings().data_dir)
    store.create_session(there, name="work", model=FAKE_MODEL)
    store.close()
    return there.resolve(), here.resolve()


def _said(text: str, there: Path, here: Path) -> list[str]:
    flat = " ".join(text.split())  # the console wraps a long line at its width
    return [part for part in flat.split("warning: ")[1:]
            if f"this session works in {there}, not in the current dir {here}" in part]


def test_run_resume_from_another_dir_says_where_the_session_works(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer,
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    there, here = _projects(tmp_path)
    monkeypatch.chdir(here)
    fake_model.add({"text": "ok"})
    _out, err = cli(capsys, "run", "--resume", "work", "-t", "where am I?")
    [line] = [line for line in err.splitlines() if "this session works in" in line]
    assert line.startswith("goosectx: warning: ")
    assert f"in {there}, not in the current dir {here}" in line
    assert "goosectx run -t TASK without --resume" in line  # how to work here instead
    system = fake_model.requests[-1]["messages"][0]["content"]
    assert f"Working directory: {there}" in system  # the session's work stays where it was


def test_run_resume_from_its_own_dir_says_nothing_more(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer,
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    there, _here = _projects(tmp_path)
    monkeypatch.chdir(there)
    fake_model.add({"text": "ok"})
    _out, err = cli(capsys, "run", "--resume", "work", "-t", "again")
    assert "this session works in" not in err and "warning" not in err


def test_repl_resume_from_another_dir_says_it_under_the_banner(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer,
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    there, here = _projects(tmp_path)
    monkeypatch.chdir(here)
    monkeypatch.setattr(sys, "stdin", io.StringIO("!pwd\n/exit\n"))
    out, _err = cli(capsys, "--resume", "work")
    [said] = _said(out, there, here)
    assert "/exit, then goosectx" in said  # a new session here
    assert out.index("this session works in") < out.index("! pwd")  # at resume
    assert str(there) in out[out.index("! pwd"):]  # ! commands still run in the session's dir
