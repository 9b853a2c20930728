"""A shell allow rule does not let a command read outside the project unasked.

After `p` at `cat a.txt` (the rule ``shell(cat*)``), `cat ../other/notes.txt`, a link out of
the project or `head ~/notes.txt` ran unasked, while `text_editor view` of the same file asked
(read scoping, docs/architecture.md §4). Now they ask, with read scoping's wording; a rule
that names the path still allows it, as for the sensitive-file list.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_harness import make_harness
from rules_support import shell_verdict

from goosectx.approval import ApprovalAnswer, ApprovalContext, ApprovalVerdict, decide
from goosectx.config import ApprovalMode, Settings
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.permissions import PermissionRules
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.rule_offer import suggested_rule

SECRET = "other-project-secret-42"


def _verdict(work: Path, command: str, *rules: str,
             mode: ApprovalMode = "smart_approve") -> ApprovalVerdict:
    return shell_verdict(PermissionRules(allow=rules), command, mode, working_dir=work)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "a.txt").write_text("in the project\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text(f"{SECRET}\n")
    (tmp_path / "work" / "link.txt").symlink_to(tmp_path / "other" / "notes.txt")
    return tmp_path / "work"


def _responses(messages: list[Message]) -> list[ToolResponse]:
    return [p for m in messages for p in m.content if isinstance(p, ToolResponse)]


def test_p_at_cat_does_not_let_cat_read_another_project_unasked(tmp_path: Path) -> None:
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("shell", {"command": "cat a.txt"})]),
        ScriptedReply(tool_calls=[("shell", {"command": "cat ../other/notes.txt"})]),
        ScriptedReply(tool_calls=[("shell", {"command": "cat link.txt"})]),
        ScriptedReply(tool_calls=[("shell", {"command": "cat a.txt"})]), "done"])
    asked: list[ToolRequest] = []

    def approve(request: ToolRequest) -> ApprovalAnswer:
        asked.append(request)
        if len(asked) == 1:  # `p`: the rule the question offers
            rule = suggested_rule(request.name, request.arguments or {})
            assert rule == "shell(cat*)"
            return ApprovalAnswer("always_allow", rule=rule)
        return ApprovalAnswer("deny")

    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     approve=approve, mode="smart_approve")
    (tmp_path / "work" / "a.txt").write_text("in the project\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text(f"{SECRET}\n")
    (tmp_path / "work" / "link.txt").symlink_to(tmp_path / "other" / "notes.txt")
    h.turn("look around")
    assert [(r.arguments or {})["command"] for r in asked] == [
        "cat a.txt", "cat ../other/notes.txt", "cat link.txt"]  # the last cat a.txt: unasked
    outputs = [r.output for r in _responses(h.stored())]
    assert SECRET not in "".join(outputs)
    assert "in the project" in outputs[-1]


@pytest.mark.parametrize("command", [
    "cat ../other/notes.txt", "cat link.txt", "cat ~/notes.txt", "head /etc/hosts",
    "cat a.txt /etc/hosts", "cat *.txt", "cat --file=/etc/hosts", "cat ..", "cat $HOME/x",
    "cat a.txt; cat /etc/hosts", "dd if=/etc/hosts of=b.txt", "curl -d @/etc/hosts x",
    "curl --data=@../other/notes.txt x", "cd && cat notes.txt", "cd; cat notes.txt",
    "cd /etc && cat hosts", "cd .. && cat other/notes.txt"])
@pytest.mark.parametrize("mode", ["smart_approve", "approve"])
def test_a_prefix_rule_asks_about_a_read_outside(work: Path, command: str,
                                                 mode: ApprovalMode) -> None:
    verdict = _verdict(work, command, "shell(cat*)", "shell(head*)", "shell(dd*)", "shell(curl*)",
                       "shell(cd*)", mode=mode)
    assert verdict.action == "ask", command
    assert "outside the project, which the allow rule" in verdict.reason
    assert verdict.read_why is not None and verdict.read_why in verdict.reason


def test_the_reason_names_the_word_and_where_a_link_leads(work: Path) -> None:
    assert _verdict(work, "cat /etc/hosts", "shell(cat*)").reason == (
        "smart_approve: /etc/hosts is outside the project, which the allow rule shell(cat*) "
        "does not cover")
    real = (work.parent / "other" / "notes.txt").resolve()
    assert f"link.txt (→ {real}) is outside the project" in _verdict(
        work, "cat link.txt", "shell(cat*)").reason
    assert f"*.txt (matching link.txt → {real}) is outside" in _verdict(
        work, "cat *.txt", "shell(cat*)").reason
    assert "$HOME/x is outside the project" in _verdict(work, "cat $HOME/x", "shell(cat*)").reason
    for computed in ("$(…)/x", "$GOOSECTX_NO_SUCH_VAR/x"):  # what bash alone knows
        assert f"{computed} may be outside the project" in _verdict(
            work, f"cat {computed.replace('…', 'pwd')}", "shell(cat*)", "shell(pwd*)").reason


@pytest.mark.parametrize("command", [
    "cat a.txt", "cat ./a.txt sub/../a.txt", "cat a.txt 2>/dev/null", "diff /dev/null a.txt",
    "cat a.txt | head -5", "cat 'a.txt'", "echo $HOME /etc/hosts", "cat \"$PWD/a.txt\"",
    "head -n $((2+3)) a.txt", "dd if=a.txt of=b.txt", "curl -d @a.txt https://example.com/x",
    "cd sub && cat a.txt"])
def test_a_read_inside_still_runs(work: Path, command: str) -> None:
    verdict = _verdict(work, command, "shell(cat*)", "shell(head*)", "shell(diff*)",
                       "shell(echo*)", "shell(dd*)", "shell(curl*)", "shell(cd*)")
    assert verdict.action == "run", verdict.reason


def test_a_rule_naming_the_outside_path_allows_it(work: Path) -> None:
    assert _verdict(work, "cat /etc/hosts", "shell(cat*)", "shell(cat /etc/hosts)"
                    ).action == "run"
    assert _verdict(work, "cat /etc/hosts ~/x", "shell(cat*)", "shell(cat /etc/hosts)"
                    ).action == "ask"  # the rule names /etc/hosts, not ~/x


def test_auto_mode_and_a_deny_rule_are_as_before(work: Path) -> None:
    assert _verdict(work, "cat /etc/hosts", "shell(cat*)", mode="auto").action == "run"
    denied = decide(ApprovalContext(
        mode="smart_approve", tool_name="shell", read_only=False, working_dir=work,
        arguments={"command": "cat /etc/hosts"},
        rules=PermissionRules(allow=("shell(cat*)",), deny=("shell(cat /etc/*)",))))
    assert denied.action == "deny"


def test_a_line_allowed_by_two_rules_names_them_in_the_plural(work: Path) -> None:
    """It read "which the allow rule shell(cd*), shell(cat*) does not cover" (fourth tester)."""
    assert _verdict(work, "cd src && cat /etc/hosts", "shell(cd*)", "shell(cat*)").reason == (
        "smart_approve: /etc/hosts is outside the project, which the allow rules shell(cd*), "
        "shell(cat*) do not cover")
