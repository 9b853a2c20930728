"""How the approval reads the path in a shell word under an allow rule (the second tester's
findings): a short option's attached value, ``..`` after a symlink, bash's ``~+``/``~N`` and a
``cd`` earlier on the line (docs/architecture.md §4, permission rules)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules


@pytest.fixture
def project(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "shadow").write_text("root:$6$hash\n")
    work = tmp_path / "proj"
    (work / "sub").mkdir(parents=True)
    (work / "sub" / "link").symlink_to(outside / "sub-target", target_is_directory=True)
    (outside / "sub-target").mkdir()
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text("[remote]\nurl = https://tok@host/x\n")
    (work / ".env").write_text("API_KEY=hunter2\n")
    (work / "notes.txt").write_text("notes\n")
    return work


def _action(work: Path, command: str, *rules: str) -> str:
    return shell_verdict(PermissionRules(allow=rules), command, "smart_approve",
                         working_dir=work).action


@pytest.mark.parametrize("command", [
    "hexdump -f.env /dev/null",  # printed `bad format {API_KEY=…}` to the model
    "hexdump -f.git/config /dev/null", "hexdump -f/etc/shadow /dev/null"])
def test_a_file_glued_to_a_short_option_is_judged(project: Path, command: str) -> None:
    assert _action(project, command, "shell(hexdump*)") == "ask"


def test_dot_dot_after_a_symlink_is_judged_where_it_leads(project: Path) -> None:
    # sub/link → outside/sub-target, so sub/link/../shadow is outside/shadow, not sub/shadow
    assert _action(project, "cat sub/link/../shadow", "shell(cat*)") == "ask"


@pytest.mark.parametrize("command", ["cat ~+/../outside/shadow", "ls ~+/..", "cat ~0/x",
                                     "cat ~+1/x", "cat ~-/x"])
def test_bash_tilde_forms_are_not_taken_as_inside(project: Path, command: str) -> None:
    assert _action(project, command, f"shell({command.split()[0]}*)") == "ask"


def test_tilde_plus_inside_the_project_still_runs(project: Path) -> None:
    assert _action(project, "cat ~+/notes.txt", "shell(cat*)") == "run"


def test_a_file_named_after_cd_is_judged_in_that_dir(project: Path) -> None:
    assert _action(project, "cd .git && cat config", "shell(cd*)", "shell(cat*)") == "ask"
    assert _action(project, "cd sub && cat notes.txt", "shell(cd*)", "shell(cat*)") == "run"


@pytest.mark.parametrize("command", ["cat notes.txt", "ls -la", "head -n5 notes.txt",
                                     "cat --number notes.txt"])
def test_plain_reads_inside_still_run(project: Path, command: str) -> None:
    assert _action(project, command, f"shell({command.split()[0]}*)") == "run"
