"""A text_editor edit of a file a later command runs asks as the shell's write of it does.

And a rule is matched on the command the tool runs: ``create`` is ``write``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict

from goosectx.approval import ApprovalContext, ApprovalVerdict, decide
from goosectx.config_values import ApprovalMode
from goosectx.permissions import PermissionRules

EDITS = ("write", "create", "str_replace", "insert", "undo_edit")
PROTECTED = (".git/config", ".git/hooks/pre-commit", ".venv/bin/activate",
             "node_modules/x/index.js")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    return tmp_path


def edit(work: Path, command: str, path: str, rules: PermissionRules = DENY_RM,
         mode: ApprovalMode = "auto") -> ApprovalVerdict:
    return decide(ApprovalContext(mode=mode, tool_name="text_editor",
                                  read_only=command == "view", working_dir=work,
                                  arguments={"command": command, "path": path,
                                             "file_text": "[alias] cleanup = !rm -rf src\n"},
                                  rules=rules))


@pytest.mark.parametrize("command", EDITS)
@pytest.mark.parametrize("path", PROTECTED)
def test_an_edit_of_a_protected_file_asks_under_a_deny_rule_as_the_shell_write_does(
        repo: Path, command: str, path: str) -> None:
    assert shell_verdict(DENY_RM, f"echo x > {path}", working_dir=repo).action == "ask"
    verdict = edit(repo, command, path)
    assert verdict.action == "ask", verdict.reason
    assert f"text_editor writes {path}" in verdict.reason


def test_an_absolute_or_dotted_path_to_the_git_config_asks_too(repo: Path) -> None:
    for path in (str(repo / ".git" / "config"), "src/../.git/config", " .git/config"):
        assert edit(repo, "write", path).action == "ask", path


def test_an_allow_rule_for_every_edit_does_not_cover_a_hook(repo: Path) -> None:
    rules = PermissionRules(allow=("text_editor",))
    verdict = edit(repo, "write", ".git/hooks/pre-commit", rules, "smart_approve")
    assert verdict.action == "ask"
    assert "a hook is a command a later git runs" in verdict.reason
    assert edit(repo, "write", "src/a.py", rules, "smart_approve").action == "run"


@pytest.mark.parametrize("command", EDITS)
def test_everyday_edits_and_views_still_run(repo: Path, command: str) -> None:
    assert edit(repo, command, "src/a.py").action == "run"
    assert edit(repo, "view", ".git/config").action == "run"


def test_without_rules_auto_still_runs_every_edit(repo: Path) -> None:
    assert edit(repo, "write", ".git/config", PermissionRules()).action == "run"


@pytest.mark.parametrize("kind", ["deny", "ask"])
def test_a_write_rule_holds_for_create(repo: Path, kind: str) -> None:
    rules = PermissionRules(**{kind: ("text_editor(write:src/**)",)})
    assert edit(repo, "create", "src/b.py", rules).action == kind
    assert edit(repo, "create", "docs/b.md", rules).action == "run"


def test_a_write_allow_rule_covers_create(repo: Path) -> None:
    rules = PermissionRules(allow=("text_editor(write:src/**)",))
    assert edit(repo, "create", "src/b.py", rules, "smart_approve").action == "run"
    assert edit(repo, "create", "docs/b.md", rules, "smart_approve").action == "ask"


@pytest.mark.parametrize("rule", ["text_editor(foo:src/**)", "text_editor(wirte:src/**)",
                                  "text_editor(write:)", "text_editor(C:/x)"])
def test_an_editor_rule_that_guards_nothing_is_a_one_line_configuration_error(
        rule: str, capsys: pytest.CaptureFixture[str]) -> None:
    from cli_support import run_cli

    code, _out, err = run_cli(capsys, "run", "-t", "x", "--deny", rule)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert ("names no text_editor command" in err and "write, " in err) or (
        "empty path" in err and "text_editor(write:*)" in err), err


@pytest.mark.parametrize("rule", ["text_editor(write:src/**)", "text_editor(create:src/**)",
                                  "text_editor(*:src/**)", "text_editor([sw]*:src/**)",
                                  "text_editor(*:a:b.txt)"])
def test_an_editor_rule_naming_a_command_or_a_wildcard_is_accepted(rule: str) -> None:
    from goosectx.permission_rules import parse_rule

    assert parse_rule(rule)[1] == rule[12:-1]


def test_a_create_rule_holds_for_write_too(repo: Path) -> None:
    rules = PermissionRules(deny=("text_editor(create:src/**)",))
    assert edit(repo, "write", "src/a.py", rules).action == "deny"
    assert edit(repo, "create", "src/b.py", rules).action == "deny"
    assert edit(repo, "str_replace", "src/a.py", rules).action == "run"
