"""Optional check against MCP servers nobody here wrote (see README, "Extensions").

``mcp-server-time`` and ``mcp-server-git`` (PyPI) and ``@modelcontextprotocol/server-everything``
(npm) are looked up on PATH and in ``$GOOSECTX_MCP_BIN`` (a directory, e.g. a separate venv's
``bin``); each test skips, with the reason shown, when its server is missing.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from fakeserver import FakeServer

from goosectx.cli.extensions_cmd import list_extensions
from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings


def find(program: str) -> str:
    extra = os.environ.get("GOOSECTX_MCP_BIN", "")
    found = shutil.which(program, path=os.pathsep.join(filter(None, [extra, os.environ.get(
        "PATH", "")])))
    if found is None:
        pytest.skip(f"{program} is not installed (optional real-server check; see README)")
    return found


def configure(isolated_env: dict[str, Path], tables: dict[str, dict[str, object]]) -> None:
    lines = []
    for name, table in tables.items():
        lines.append(f"[extensions.{name}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in table.items()]
    isolated_env["config"].write_text("\n".join(lines) + "\n")


def test_extensions_list_shows_real_servers(isolated_env: dict[str, Path]) -> None:
    configure(isolated_env, {
        "time": {"cmd": find("mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "everything": {"cmd": find("mcp-server-everything"), "args": ["stdio"]},
    })
    out, err = io.StringIO(), io.StringIO()
    code = list_extensions(load_settings(), as_json=True, stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    items = {i["name"]: i for i in json.loads(out.getvalue())["extensions"]}
    assert "time__get_current_time" in [t["name"] for t in items["time"]["tools"]]
    assert items["everything"]["resources"] and items["everything"]["prompts"]
    assert items["everything"]["instruction_tokens"] > 0


def test_run_gets_real_results_from_time_and_git(fake_model: FakeServer, work: Path,
                                                 isolated_env: dict[str, Path],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    repo = work / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "new.txt").write_text("x\n")
    configure(isolated_env, {
        "time": {"cmd": find("mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "git": {"cmd": find("mcp-server-git"), "args": ["--repository", str(repo)]},
    })
    monkeypatch.chdir(work)
    fake_model.add(
        {"tool_calls": [{"name": "time__get_current_time", "arguments": {"timezone": "UTC"},
                         "id": "t1"}]},
        {"tool_calls": [{"name": "git__git_status", "arguments": {"repo_path": str(repo)},
                         "id": "g1"}]},
        {"text": "done"})
    out, err = io.StringIO(), io.StringIO()
    code = run_task(load_settings(), text="time and status", input_file=None, name=None,
                    resume=None, continue_=False, max_turns=None, output_format="json",
                    mode="auto", model=None, stdin=io.StringIO(""), stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    results = {p["id"]: p["output"] for m in json.loads(out.getvalue())["messages"]
               for p in m["content"] if p["type"] == "tool_response"}
    assert '"timezone": "UTC"' in results["t1"]
    assert "new.txt" in results["g1"] and "Untracked" in results["g1"]
