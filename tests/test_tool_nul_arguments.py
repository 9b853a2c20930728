"""A tool call whose command or path holds a NUL character is refused up front, in one line.

No shell command or file path can hold NUL (the system call fails, "embedded null byte"). Such
a call used to raise inside the tool (or inside the approval decision, which resolves paths):
a raw Python traceback on stderr in ``run`` and on the REPL's screen, and ``run`` ending with
exit 1 in ``smart_approve``. Now the model gets a tool error naming the argument, and the
traceback of a tool that raises goes to the ``--debug`` log only.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import FAKE_MODEL
from fakeserver import FakeServer
from test_e2e_pty import TIMEOUT_S, _env

pexpect = pytest.importorskip("pexpect")

SHELL_NUL = {"name": "shell", "arguments": {"command": "echo \u0000 nul"}}


def _run(fake_server: FakeServer, workdir: Path, call: dict[str, object], mode: str,
         *extra: str) -> subprocess.CompletedProcess[str]:
    fake_server.add({"tool_calls": [call]}, {"text": "done"})
    env = {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": fake_server.base_url,
           "OPENAI_API_KEY": "sk-dummy-key"}
    return subprocess.run(["goosectx", *extra, "run", "-t", "go", "--mode", mode], env=env,
                          cwd=workdir, capture_output=True, text=True, timeout=120)


def _tool_texts(server: FakeServer) -> list[str]:
    return [json.dumps(message.get("content")) for request in server.requests
            for message in request["messages"] if message.get("role") == "tool"]


@pytest.mark.parametrize(("call", "mode", "said"), [
    (SHELL_NUL, "auto", "its command holds a NUL character, which a shell command cannot"),
    ({"name": "text_editor", "arguments": {"command": "view", "path": "a\u0000b.txt"}},
     "smart_approve", "its path holds a NUL character, which a file path cannot contain"),
    ({"name": "text_editor", "arguments": {"command": "write", "path": "a\u0000b",
                                           "file_text": "x"}},
     "auto", "its path holds a NUL character, which a file path cannot contain"),
    ({"name": "tree", "arguments": {"path": "sub\u0000dir"}},
     "smart_approve", "its path holds a NUL character, which a file path cannot contain"),
], ids=["shell", "view-smart", "write", "tree-smart"])
def test_run_refuses_a_nul_in_a_command_or_path_without_a_traceback(
        fake_server: FakeServer, workdir: Path, call: dict[str, object], mode: str,
        said: str) -> None:
    proc = _run(fake_server, workdir, call, mode)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "embedded null byte" not in proc.stderr
    assert said in proc.stderr  # the tool error line the user sees
    assert "done" in proc.stdout
    (told,) = _tool_texts(fake_server)
    assert said in told and "not run" in told


def test_a_lone_surrogate_in_a_path_is_refused_before_the_approval_decision(
        fake_server: FakeServer, workdir: Path) -> None:
    # it crashed the run inside the decision (a symlink check resolving the path), exit 1
    call = {"name": "text_editor", "arguments": {"command": "write", "path": "g\ud800.txt",
                                                 "file_text": "x"}}
    proc = _run(fake_server, workdir, call, "auto")
    assert "Traceback" not in proc.stderr
    assert "its path holds a lone surrogate" in proc.stderr


RAISING_TREE = """
from goosectx.tools.tree import TreeTool

def _raise(self, arguments, ctx):
    raise RuntimeError("tree blew up")

TreeTool.run = _raise
"""


def test_a_tool_that_raises_leaves_its_traceback_in_the_debug_log_only(
        workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(RAISING_TREE)  # the installed tree tool raises
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
    call = {"name": "tree", "arguments": {"path": "."}}
    with FakeServer() as server:
        quiet = _run(server, workdir, call, "auto")
    assert "tree blew up" in quiet.stderr  # the tool's error line
    assert "Traceback" not in quiet.stderr and "tool tree raised" not in quiet.stderr
    with FakeServer() as server:
        debug = _run(server, workdir, call, "auto", "--debug")
    assert "Traceback" not in debug.stderr
    log = (Path(os.environ["GOOSECTX_HOME"]) / "goosectx.log").read_text()
    assert "tool tree raised" in log and "Traceback" in log


@pytest.mark.slow
def test_the_repl_shows_the_refusal_not_a_traceback(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with FakeServer([{"tool_calls": [SHELL_NUL]}, {"text": "all done"}]) as server:
        env = {**_env(tmp_path, server.base_url), "GOOSE_MODE": "auto"}
        child = pexpect.spawn("goosectx", ["session"], cwd=str(work), env=env,
                              dimensions=(40, 110), encoding="utf-8", timeout=TIMEOUT_S)
        child.logfile_read = screen = io.StringIO()
        try:
            child.expect("❯")
            child.send("go\r")
            child.expect("holds a NUL character")
            child.expect("all done")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    assert "Traceback" not in screen.getvalue()
    assert "embedded null byte" not in screen.getvalue()
