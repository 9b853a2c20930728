"""goosectx's own config file and data dir are protected writes, as a git hook is.

Before, in auto mode under ``--deny 'shell(rm *)'``, ``echo … > ~/.config/goosectx/config.toml``
and a text_editor write of it ran: the model could drop the user's deny rules for every later
session, or rewrite a stored session in the data dir.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM

from goosectx.approval import ApprovalContext, ApprovalVerdict, decide
from goosectx.config import user_config_path


def call(work: Path, tool: str, arguments: dict[str, str], config: Path | None = None,
         data: Path | None = None) -> ApprovalVerdict:
    return decide(ApprovalContext(mode="auto", tool_name=tool, read_only=False,
                                  working_dir=work, arguments=arguments, rules=DENY_RM,
                                  config_file=config, data_dir=data))


@pytest.mark.parametrize("command", [
    "echo 'allow = [\"shell(*)\"]' > {config}", "sed -i '/deny/d' {config}",
    "tee {config} < new.toml", "cp new.toml {config}", "echo x > {data}/sessions.db",
    "cd {data} && tee sessions.db < x",
])
def test_a_shell_write_of_goosectx_own_files_asks(
        work: Path, isolated_env: dict[str, Path], command: str) -> None:
    line = command.format(config=isolated_env["config"], data=isolated_env["home"])
    verdict = call(work, "shell", {"command": line})
    assert verdict.action == "ask", verdict.reason
    assert "goosectx's" in verdict.reason


def test_the_platform_config_file_is_protected_without_goosectx_config(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOSECTX_CONFIG")
    path = user_config_path()
    verdict = call(work, "shell", {"command": f"echo x >> {path}"})
    assert verdict.action == "ask", verdict.reason
    assert call(work, "text_editor", {"command": "write", "path": str(path)}).action == "ask"


@pytest.mark.parametrize("command", ["write", "create", "str_replace", "insert"])
def test_a_text_editor_edit_of_the_config_in_use_asks(work: Path, tmp_path: Path,
                                                      command: str) -> None:
    config = tmp_path / "elsewhere" / "my.toml"  # goosectx --config elsewhere/my.toml
    data = tmp_path / "store"
    verdict = call(work, "text_editor", {"command": command, "path": str(config)}, config, data)
    assert verdict.action == "ask", verdict.reason
    assert "goosectx's config" in verdict.reason
    edit = {"command": command, "path": str(data / "sessions.db")}
    assert call(work, "text_editor", edit, config, data).action == "ask"


def test_other_files_and_reads_of_the_config_still_run(
        work: Path, isolated_env: dict[str, Path]) -> None:
    assert call(work, "shell", {"command": "echo x > notes.toml"}).action == "run"
    assert call(work, "text_editor", {"command": "write", "path": "config.toml"}).action == "run"
    assert call(work, "shell", {"command": f"echo x > {isolated_env['root']}/other.toml"}
                ).action == "run"


def test_the_platform_config_dir_is_protected_whole(work: Path) -> None:
    commands = user_config_path().parent / "commands" / "deploy.md"
    verdict = call(work, "shell", {"command": f"echo 'rm -rf src' > {commands}"})
    assert verdict.action == "ask" and "goosectx's config dir" in verdict.reason, verdict.reason
