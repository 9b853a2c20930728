"""The one approval decision function: every mode x read-only or not x "always allow" answer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from agent_harness import Approvals, EchoTool, WriteTool, make_harness

import goosectx.approval as approval
from goosectx.approval import (
    CHAT_MODE_TEXT,
    DENIED_TEXT,
    ApprovalContext,
    ApprovalVerdict,
    PermissionRules,
    decide,
)
from goosectx.config import ApprovalMode, Settings
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.tools.base import ToolRegistry

WORK = Path("/work/project")

# mode, read_only, always_allowed -> action, words of the reason
TABLE: list[tuple[ApprovalMode, bool, bool, str, str]] = [
    ("chat", False, False, "deny", "chat mode"),
    ("chat", False, True, "deny", "chat mode"),
    ("chat", True, False, "deny", "chat mode"),
    ("chat", True, True, "deny", "chat mode"),
    ("auto", False, False, "run", "auto mode"),
    ("auto", False, True, "run", "always allowed"),
    ("auto", True, False, "run", "auto mode"),
    ("auto", True, True, "run", "always allowed"),
    ("approve", False, False, "ask", "approve mode"),
    ("approve", False, True, "run", "always allowed"),
    ("approve", True, False, "ask", "approve mode"),
    ("approve", True, True, "run", "always allowed"),
    ("smart_approve", False, False, "ask", "approval needed"),
    ("smart_approve", False, True, "run", "always allowed"),
    ("smart_approve", True, False, "run", "read-only"),
    ("smart_approve", True, True, "run", "always allowed"),
]


def context(mode: ApprovalMode, *, read_only: bool = False, tool: str = "shell",
            always: frozenset[str] = frozenset()) -> ApprovalContext:
    return ApprovalContext(mode=mode, tool_name=tool, read_only=read_only, working_dir=WORK,
                           arguments={"command": "ls"}, always_allowed=always)


@pytest.mark.parametrize(("mode", "read_only", "always", "action", "reason"), TABLE)
def test_decision_table(mode: ApprovalMode, read_only: bool, always: bool, action: str,
                        reason: str) -> None:
    verdict = decide(context(mode, read_only=read_only,
                             always=frozenset({"shell"}) if always else frozenset()))
    assert verdict.action == action
    assert reason in verdict.reason


def test_the_table_covers_every_mode_and_combination() -> None:
    rows = {(mode, read_only, always) for mode, read_only, always, _a, _r in TABLE}
    assert rows == {(mode, read_only, always) for mode in ("chat", "auto", "approve",
                                                            "smart_approve")
                    for read_only in (False, True) for always in (False, True)}


def test_chat_mode_tells_the_model_tools_are_disabled() -> None:
    verdict = decide(context("chat", always=frozenset({"shell"})))
    assert verdict == ApprovalVerdict("deny", verdict.reason, CHAT_MODE_TEXT)


def test_always_allow_applies_to_that_tool_only() -> None:
    verdict = decide(context("approve", tool="text_editor", always=frozenset({"shell"})))
    assert verdict.action == "ask"


def test_a_verdict_defaults_to_the_user_denial_text_and_rules_default_to_none() -> None:
    assert ApprovalVerdict("deny", "x").tool_text == DENIED_TEXT
    assert context("auto").rules == PermissionRules((), (), ())


def test_the_decision_is_core_it_imports_no_front_end() -> None:
    tree = ast.parse(Path(approval.__file__).read_text(encoding="utf-8"))
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
    front_ends = ("goosectx.cli", "goosectx.extensions", "goosectx.importers", "rich",
                  "prompt_toolkit", "typer", "litellm")
    assert not [m for m in imported if m.startswith(front_ends)]


@pytest.mark.parametrize(("mode", "expected"), [
    ("chat", CHAT_MODE_TEXT),
    ("approve", "There is no tool named 'nope'"),
])
def test_the_agent_loop_denies_before_validating_and_asks_after(
    tmp_path: Path, mode: ApprovalMode, expected: str,
) -> None:
    provider = ScriptedProvider([ScriptedReply(tool_calls=[("nope", {})]), "ok"])
    approvals = Approvals()
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     tools=ToolRegistry([EchoTool(), WriteTool()]), approve=approvals, mode=mode)
    h.turn("x")
    assert h.stored()[2].tool_responses[0].output.startswith(expected)
    assert approvals.asked == []  # nobody is asked about a call that cannot run
