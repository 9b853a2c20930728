"""Project instructions: which files are read, and /context names them.

A tester found AGENTS.md and .goosehints read but documented nowhere, CLAUDE.md not read, and
/context showing "project instructions 0" without saying which files it looks for.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, World

from goosectx.prompts import load_project_instructions

README = Path(__file__).resolve().parents[1] / "README.md"
EXAMPLE = Path(__file__).resolve().parents[1] / "config.example.toml"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_claude_md_is_read_after_agents_md(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("agents: run pytest")
    (tmp_path / "CLAUDE.md").write_text("claude: never push")
    text = load_project_instructions(tmp_path)
    assert "claude: never push" in text
    assert text.index("agents: run pytest") < text.index("claude: never push")


def test_a_claude_md_that_repeats_agents_md_is_read_once(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("same rules")
    (tmp_path / "CLAUDE.md").symlink_to(tmp_path / "AGENTS.md")
    assert load_project_instructions(tmp_path).count("same rules") == 1


def test_context_names_the_instruction_files_it_found(world: World) -> None:
    (world.workdir / "AGENTS.md").write_text("run the tests with pytest -q " * 20)
    (world.workdir / "CLAUDE.md").write_text("never push " * 20)
    out = world.run("/context" + ENTER + CTRL_D)
    line = next(ln for ln in out.splitlines() if "project instructions" in ln)
    assert "AGENTS.md" in line and "CLAUDE.md" in line, line


def test_context_at_80_columns_keeps_each_files_name_and_where_it_starts(world: World,
                                                                        tmp_path: Path) -> None:
    # Files above the working dir are named by their full path, longer than the note column
    # of an 80-column /context: each is shortened in the middle, its start and name kept.
    root = tmp_path / "clients" / "a-rather-long-client-directory-name" / "monorepo"
    deep = root / "packages" / "billing-service-with-a-long-name" / "src"
    deep.mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "AGENTS.md").write_text("run the tests " * 20)
    (root / "packages" / "CLAUDE.md").write_text("never push " * 20)
    (deep / "AGENTS.md").write_text("billing rules " * 20)
    world.session.working_dir = deep
    out = world.run("/context" + ENTER + CTRL_D, width=80)
    table = out[out.index("project instructions"):out.index("tool schemas")]
    lines = [ln.strip() for ln in table.splitlines()]
    start = str(tmp_path)[:12]
    for tail in ("monorepo/AGENTS.md", "packages/CLAUDE.md"):
        assert any(ln.startswith(start) and ln.endswith(tail) for ln in lines), (tail, table)
    assert "AGENTS.md" in lines, table  # the one in the working dir, named as it is


def test_context_names_the_files_it_looks_for_when_none(world: World) -> None:
    out = world.run("/context" + ENTER + CTRL_D)
    text = " ".join(out.split())
    assert "none found" in text
    for name in (".goosehints", "AGENTS.md", "CLAUDE.md"):
        assert name in text, name


def test_the_files_read_are_documented() -> None:
    for doc in (README.read_text(), EXAMPLE.read_text()):
        for name in (".goosehints", "AGENTS.md", "CLAUDE.md"):
            assert name in doc, name


def test_help_names_the_instruction_files() -> None:
    from typer.testing import CliRunner

    from goosectx.cli.app import app

    out = CliRunner().invoke(app, ["--help"], terminal_width=200).output
    for name in (".goosehints", "AGENTS.md", "CLAUDE.md"):
        assert name in out, name
