"""jq's ``env`` / ``$ENV`` print the environment as ``env`` and ``printenv`` do, and are judged
the same way: an allow rule runs them, and what they print is the shell tool's scrubbed
environment, with no credential in it (docs/architecture.md, the tools' scrubbed environment).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.config import Settings
from goosectx.permissions import PermissionRules
from goosectx.tools.builtin import make_tool_context
from goosectx.tools.shell import ShellTool

SECRET = "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX"


@pytest.mark.parametrize(("command", "rule"), [
    ("printenv", "shell(printenv*)"), ("env", "shell(env*)"), ("jq -n env", "shell(jq*)"),
    ("jq -n '$ENV.HOME'", "shell(jq*)"), ("jq -rn 'env | keys[]'", "shell(jq*)"),
])
def test_printing_the_environment_is_judged_alike(tmp_path: Path, command: str,
                                                  rule: str) -> None:
    verdict = shell_verdict(PermissionRules(allow=(rule,)), command, "smart_approve",
                            working_dir=tmp_path)
    assert verdict.action == "run", verdict.reason


@pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq")
@pytest.mark.parametrize("command", ["printenv", "jq -n env", "jq -n '$ENV'"])
def test_what_they_print_holds_no_credential(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             command: str) -> None:
    monkeypatch.setenv("SLACK_WEBHOOK", SECRET)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ann Author")
    ctx = make_tool_context(Settings(data_dir=tmp_path / "data"), tmp_path)
    output = ShellTool().run({"command": command}, ctx).output
    assert "Ann Author" in output  # the environment is printed
    assert "SLACK_WEBHOOK" not in output and SECRET not in output
