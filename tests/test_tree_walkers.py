"""Linters, formatters, type checkers and test runners follow links below the dirs they walk
(the fresh-eyes tester's H3: ``ruff check .`` printed ~/.ssh/id_rsa through ``src/notes.py``,
``ruff format .`` rewrote a file outside through ``src/shared.py``): such a dir asks under
the tool's allow rule; a project's ``.venv`` and ``node_modules`` links, which the tools skip,
do not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_reads_names_deletes import _verdict


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    for sub in ("src", "tests", "docs", "node_modules/.bin", ".venv/bin", "env/bin"):
        (work / sub).mkdir(parents=True)
    (work / "src" / "a.py").write_text("import os\n")
    (work / "src" / "app.ts").write_text("export const x = 1\n")
    (work / "tests" / "test_a.py").write_text("def test_a(): pass\n")
    (work / "mypy.ini").write_text("[mypy]\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "shared.py").write_text("x = [1,2,    3]\n")
    (outside / "tool.js").write_text("1\n")
    os.symlink("/usr/bin/env", work / ".venv" / "bin" / "python")  # in every Python project
    os.symlink(outside / "tool.js", work / "node_modules" / ".bin" / "tool")
    (work / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")  # a venv pytest skips
    os.symlink("/usr/bin/env", work / "env" / "bin" / "python3")
    return work


def _link(project: Path, name: str, target: str = "../outside/shared.py") -> None:
    os.symlink(project.parent / target.removeprefix("../"), project / name)


@pytest.mark.parametrize("command", [
    "ruff check .", "ruff check", "ruff format .", "ruff format src", "ruff .", "black .",
    "black src", "mypy src", "mypy --config-file mypy.ini", "python -m mypy .",
    "pytest -q", "pytest src", "python -m pytest -q", "python3 -m ruff check src",
])
def test_a_link_to_a_source_file_outside_asks(project: Path, command: str) -> None:
    _link(project, "src/shared.py")
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert "src/shared.py" in reason and "outside" in reason


@pytest.mark.parametrize("command", [
    "eslint .", "eslint src", "npx eslint src", "yarn eslint .", "pnpm exec tsc", "tsc --noEmit", "prettier --check .",
    "prettier --write src", "ruff check .", "mypy src",
])
def test_a_link_to_a_dir_outside_asks(project: Path, command: str) -> None:
    _link(project, "src/lib", "../outside")
    action, reason = _verdict(project, command)
    assert action == "ask", reason


def test_a_link_to_the_secret_key_a_code_frame_would_print_asks(project: Path) -> None:
    key = project.parent / "home" / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text("KEY\n")
    os.symlink(key, project / "src" / "notes.py")
    action, reason = _verdict(project, "ruff check .")
    assert action == "ask" and "id_rsa" in reason, reason


@pytest.mark.parametrize("command", [
    "ruff check .", "ruff check", "ruff format src", "black .", "mypy src", "mypy .",
    "pytest -q", "pytest tests", "tsc --noEmit", "eslint src", "eslint .",
    "prettier --check src", "ruff check src/a.py", "pytest tests/test_a.py::test_a",
])
def test_the_everyday_lines_in_a_project_with_a_venv_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize("command", [
    "ruff check src", "ruff format docs", "eslint src", "mypy src", "pytest tests",
    "ruff rule E501",  # names no tree
    "go test ./...", "cargo test",  # compile what their packages name: not walked
])
def test_a_link_outside_the_dirs_walked_is_not_counted(project: Path, command: str) -> None:
    os.symlink(project.parent / "outside", project / "vendored")
    (project / "docs" / "notes.md").write_text("# n\n")
    action, reason = _verdict(project, command)
    assert action == "run", reason


def test_a_link_to_a_file_the_tool_does_not_read_is_not_counted(project: Path) -> None:
    _link(project, "src/model.bin", "../outside/tool.js")
    assert _verdict(project, "ruff check .")[0] == "run"
    assert _verdict(project, "mypy src")[0] == "run"
    assert _verdict(project, "prettier --check .")[0] == "ask"  # prettier reads any
    assert _verdict(project, "eslint .")[0] == "run"


def test_a_virtualenv_is_known_by_its_pyvenv_cfg(project: Path) -> None:
    os.symlink(project.parent / "outside" / "shared.py", project / "env" / "bin" / "test_x.py")
    assert _verdict(project, "pytest -q")[0] == "run"  # pytest never collects in a venv
    assert _verdict(project, "prettier --check .")[0] == "run"
    (project / "env" / "pyvenv.cfg").unlink()  # no venv: a source dir like any
    assert _verdict(project, "pytest -q")[0] == "ask"
