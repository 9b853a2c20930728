"""An imported Codex ``!command`` is judged as a live ``!command`` is, and for what it printed.

A live ``!cat`` of goosectx's config file or a file of its data dir keeps its output from the
model; the Codex importer did not know either (no config file, no data dir given to the
check), so ``cat ~/.config/goosectx/config.toml`` imported reached the model. And a live
``!env`` runs without the secrets (the shell tool's environment has none): an imported
``env``, ``printenv``, ``cat /proc/self/environ`` or ``gh auth token`` printed another
process's, maybe another machine's, which this one cannot know to redact.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli

PRINTED = "SVC_AUTH_HEADER=opaque-Zk48Qw19Lp73\n"  # a value no redactor here knows


def _rollout(path: Path, script: str, cwd: str) -> Path:
    def event(call_id: str, command: str, output: str, second: int) -> dict:
        return {"timestamp": f"2025-10-19T09:09:{second:02d}.000Z", "type": "event_msg",
                "payload": {"type": "exec_command_end", "call_id": call_id,
                            "source": "user_shell", "command": ["/bin/bash", "-lc", command],
                            "cwd": cwd, "exit_code": 0, "aggregated_output": output}}
    records = [{"timestamp": "2025-10-19T09:09:00.000Z", "type": "session_meta",
                "payload": {"id": "r9", "cwd": cwd}},
               event("9f1e2f3a-0000-4000-8000-000000000009", script, PRINTED, 1),
               event("9f1e2f3a-0000-4000-8000-00000000000a", "ls src", "main.go\n", 2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _agent_view(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[str, str]:
    cli(capsys, "sessions", "import", str(path))
    session_id = json.loads(cli(capsys, "sessions", "list", "--json")[0])[0]["id"]
    shown, _ = cli(capsys, "sessions", "show", session_id)
    agent, _ = cli(capsys, "sessions", "show", session_id, "--agent")
    return shown, agent


@pytest.mark.parametrize("script", [
    "cat {config}", "grep -n api {config}", "sqlite3 {home}/sessions.db .dump",
    "cat {home}/goosectx.log", "tail -n 50 {home}/*.log",
    "env", "env | grep -i auth", "sudo env", "printenv", "printenv SVC_AUTH_HEADER",
    "cat /proc/self/environ", "tr '\\0' '\\n' < /proc/1/environ", "gh auth token",
    "/usr/bin/gh auth token", "gh auth status --show-token", "export -p", "declare -x",
    # a glob, its files not here: * matches no dotfile, but may match a key (id_rsa, x.pem)
    "cat *", "head -n 5 certs/*", "cat .*", "cat ~/.terraform.d/*.json",
])
def test_an_imported_command_a_live_one_would_keep_from_the_model_is_kept_from_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated_env: dict,
        script: str) -> None:
    command = script.format(config=isolated_env["config"], home=isolated_env["home"])
    shown, agent = _agent_view(capsys, _rollout(tmp_path / "r.jsonl", command, str(tmp_path)))
    assert f"**!command** `{command}`" in shown and "opaque-Zk48Qw19Lp73" in shown
    assert "opaque-Zk48Qw19Lp73" not in agent and command not in agent
    assert "ls src" in agent and "main.go" in agent  # the other command reaches the model


@pytest.mark.parametrize("script", [
    "printenv PATH", "env CI=1 make test", "set -e", "gh auth status", "cat src/*.go",
    "cat *.md", "cat *env", "grep -rn TODO src",
    "cat *.json",  # credentials.tfrc.json lives in ~/.terraform.d, not in a project
])
def test_an_ordinary_imported_command_still_reaches_the_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated_env: dict,
        script: str) -> None:
    _shown, agent = _agent_view(capsys, _rollout(tmp_path / "r.jsonl", script, str(tmp_path)))
    assert script in agent and "opaque-Zk48Qw19Lp73" in agent
