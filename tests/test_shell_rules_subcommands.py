"""A deny rule on a subcommand holds behind the program's own options (fresh21 #23).

README's own example, ``--deny 'shell(git push*)'``, let ``git -C . push`` run: the rule was
matched against ``git -C . push``, which does not start with ``git push``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_cli
from rules_support import action as verdict

from goosectx.approval import ApprovalContext, decide
from goosectx.permissions import PermissionRules

DENY_PUSH = PermissionRules(deny=("shell(git push*)", "shell(kubectl delete*)",
                                  "shell(cargo publish*)", "shell(terraform destroy*)",
                                  "shell(gh pr merge*)", "shell(rm *)"))
ALLOW_STATUS = PermissionRules(allow=("shell(git status*)",))


@pytest.mark.parametrize("command", [
    "git -C . push", "git -c k=v push origin main", "git --no-pager push", "git -P push",
    "git --git-dir=.git push", "git --work-tree . push", "git -C a -c x=y --bare push",
    "/usr/lib/git-core/git-push origin", "git -c alias.p=push p", "git -c alias.x='!rm -rf y' x",
    "kubectl -n prod delete pod x", "cargo +nightly publish", "terraform -chdir=infra destroy",
    "gh -R o/r pr merge 3", "sudo git -C . push"])
def test_a_subcommand_behind_global_options_is_denied(command: str) -> None:
    assert verdict(DENY_PUSH, command) == "deny", command


@pytest.mark.parametrize("command", [
    "git log --grep push", "git commit -m 'push it'", "git -C repo status", "git status",
    "kubectl -n prod get pods", "cargo +nightly build", "git stash push -m x"])
def test_other_subcommands_still_run(command: str) -> None:
    assert verdict(DENY_PUSH, command) == "run", command


def test_an_allow_rule_still_matches_only_the_command_as_written() -> None:
    assert decide(ApprovalContext(mode="approve", tool_name="shell", read_only=False,  # type: ignore[arg-type]
                                  working_dir=Path("/work/proj"),
                                  arguments={"command": "git -C other status"},
                                  rules=ALLOW_STATUS)).action == "ask"


def test_run_refuses_git_push_behind_an_option(fake_model, workdir: Path,  # type: ignore[no-untyped-def]
                                              capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": c}}
                                   for c in ("git -C . push", "git --no-pager push")]},
                   {"text": "done"})
    code, out, _err = run_cli(capsys, "run", "-t", "ship it", "--mode", "auto",
                              "--deny", "shell(git push*)", "--output-format", "json")
    assert code == 0
    denied = json.loads(out)["denied_calls"]
    assert [d["arguments"]["command"] for d in denied] == ["git -C . push", "git --no-pager push"]
