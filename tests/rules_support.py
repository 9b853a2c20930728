"""What the shell-rule tests share: the verdict of the one approval decision on a command."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from goosectx.approval import ApprovalContext, ApprovalVerdict, decide
from goosectx.config_values import ApprovalMode
from goosectx.permissions import PermissionRules

DENY_RM = PermissionRules(deny=("shell(rm *)",))
"""The rules of ``goosectx run --mode auto --deny 'shell(rm *)'``."""

ALLOW_ALL_DENY_RM = PermissionRules(allow=("shell(*)",), deny=("shell(rm *)",))
"""A hand-made ``shell(*)`` allow rule beside ``--deny 'shell(rm *)'``: what only asks or denies."""


def shell_verdict(rules: PermissionRules, command: str, mode: ApprovalMode = "auto", *,
                  working_dir: Path = Path("/work/proj")) -> ApprovalVerdict:
    """The approval decision on a ``shell`` call of ``command`` in a project at ``working_dir``."""
    return decide(ApprovalContext(mode=mode, tool_name="shell", read_only=False,
                                  working_dir=working_dir,
                                  arguments={"command": command}, rules=rules))


def action(rules: PermissionRules, command: str, mode: ApprovalMode = "auto") -> str:
    """``run``, ``ask`` or ``deny``: :func:`shell_verdict`'s action."""
    return shell_verdict(rules, command, mode).action


def action_under_deny_rm(command: str) -> str:
    """:func:`action` under :data:`DENY_RM` in auto mode."""
    return action(DENY_RM, command)


def deny_rm_cases(denied: Iterable[str], asked: Iterable[str],
                  still_run: Iterable[str]) -> list[Any]:
    """``(command, action)`` parameters for :func:`check_under_deny_rm`, named by both."""
    return [pytest.param(command, expected, id=f"{expected}: {command}")
            for expected, commands in (("deny", denied), ("ask", asked), ("run", still_run))
            for command in commands]


def check_under_deny_rm(command: str, expected: str) -> None:
    """``command``'s action under :data:`DENY_RM` in auto mode is ``expected``.

    One asked about is asked about beside a ``shell(*)`` allow rule too
    (:data:`ALLOW_ALL_DENY_RM`): the allow rule never makes it run.
    """
    assert action(DENY_RM, command) == expected, command
    if expected == "ask":
        assert action(ALLOW_ALL_DENY_RM, command) == "ask", command


def asks_under_deny_rm(work: Path, command: str, said: str) -> None:
    """``command``, run in the project ``work`` in auto mode under :data:`DENY_RM`, asks, saying ``said``."""
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=work)
    assert verdict.action == "ask", verdict.reason
    assert said in verdict.reason, verdict.reason
