"""A Ctrl-C, SIGTERM or SIGHUP while ``goosectx`` is still importing its modules.

For its first ~0.1 s (typer and the command modules loading) a Ctrl-C gave a
``KeyboardInterrupt`` traceback (exit -2) and SIGTERM a silent death (-15): no ``cancelled``
line and no result object, which README promises for every ``run`` that ends before its turn.

The signal is sent by the process itself at an exact point: a ``sitecustomize`` (on
``PYTHONPATH``) sends it as Python starts to import the module the test names, so no sleep
decides where it lands.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HOOK = '''\
import os, signal, sys

class _SignalAtImport:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["GOOSECTX_TEST_SIGNAL_AT"]:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), getattr(signal, os.environ["GOOSECTX_TEST_SIGNAL"]))
        return None

sys.meta_path.insert(0, _SignalAtImport())

_install = signal.signal


def _signal_once_installed(signum, handler):  # the signal right after its handler changes
    old = _install(signum, handler)
    if os.environ["GOOSECTX_TEST_SIGNAL_AT"] == "handler " + getattr(handler, "__name__", ""):
        signal.signal = _install
        os.kill(os.getpid(), signum)
    return old


signal.signal = _signal_once_installed
'''

CODES = {"SIGINT": 130, "SIGTERM": 143, "SIGHUP": 129}


def signalled_at(module: str, name: str, tmp_path: Path, *args: str,
                 entry: tuple[str, ...] = ("goosectx",)) -> subprocess.CompletedProcess[str]:
    """``goosectx ARGS``, sent signal ``name`` as it starts importing ``module``.

    ``module`` ``handler NAME``: as soon as the handler of that name is installed for it.
    """
    hook = tmp_path / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(HOOK)
    env = {**os.environ, "GOOSECTX_TEST_SIGNAL_AT": module, "GOOSECTX_TEST_SIGNAL": name,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(hook),
                                                       os.environ.get("PYTHONPATH")]))}
    return subprocess.run([*entry, *args], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)


CANCELLED = {"type": "result", "session_id": None, "status": "cancelled", "error": None,
             "usage": None, "cost_usd": None, "compactions": 0, "denied_calls": []}


@pytest.mark.parametrize("module", ["typer", "goosectx.cli.argv", "goosectx.cli.run_cmd"])
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_cancel_while_run_imports_ends_with_the_line_and_the_result(
        tmp_path: Path, module: str, name: str) -> None:
    # typer: the first heavy import; argv: dispatching; run_cmd: the command's own handling
    proc = signalled_at(module, name, tmp_path, "run", "-t", "hi",
                        "--output-format", "stream-json")
    code = CODES[name]
    by = "" if name == "SIGINT" else f" ({name})"
    assert (proc.returncode, proc.stderr) == (code, (
        f"goosectx: cancelled{by}\n"
        "goosectx: the task was not saved (cancelled before its session was open)\n"))
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [
        {**CANCELLED, "exit_code": code}]


@pytest.mark.parametrize("module", ["typer", "goosectx.cli.run_cmd"])
def test_json_gets_the_object_a_later_cancel_writes(tmp_path: Path, module: str) -> None:
    proc = signalled_at(module, "SIGHUP", tmp_path, "run", "-t", "hi", "--output-format", "json")
    assert proc.returncode == 129, proc.stderr
    assert json.loads(proc.stdout) == {
        "session_id": None, "session_name": None, "status": "cancelled", "exit_code": 129,
        "error": None, "answer": "", "messages": [], "usage": None, "cost_usd": None,
        "compactions": 0, "denied_calls": []}


def test_python_dash_m_is_guarded_too(tmp_path: Path) -> None:
    proc = signalled_at("typer", "SIGTERM", tmp_path, "run", "-t", "hi",
                        entry=(sys.executable, "-m", "goosectx"))
    assert (proc.returncode, proc.stdout) == (143, "")
    assert proc.stderr.startswith("goosectx: cancelled (SIGTERM)\n")


def test_a_root_option_valued_run_is_not_the_run_command(tmp_path: Path) -> None:
    """``goosectx --name run``: the REPL on a session named run, ended quietly."""
    proc = signalled_at("typer", "SIGTERM", tmp_path, "--name", "run")
    assert (proc.returncode, proc.stdout, proc.stderr) == (143, "", "")


def test_another_command_cancelled_while_importing_ends_quietly(tmp_path: Path) -> None:
    """As its Ctrl-C later does: the exit status, no traceback, no run's lines."""
    for name in ("SIGINT", "SIGTERM"):
        proc = signalled_at("typer", name, tmp_path, "sessions", "list")
        assert (proc.returncode, proc.stdout, proc.stderr) == (CODES[name], "", ""), name


def test_the_early_list_of_root_options_taking_a_value_is_typers() -> None:
    """It finds ``run`` and its format before typer loads; a new root option must join it."""
    import typer

    from goosectx.cli.app import app
    from goosectx.cli.early_cancel import ROOT_VALUED_OPTIONS

    root = typer.main.get_command(app)
    assert {name for param in root.params
            if param.param_type_name == "option" and not getattr(param, "is_flag", False)
            and not getattr(param, "count", False)
            for name in (*param.opts, *param.secondary_opts)} == ROOT_VALUED_OPTIONS


@pytest.mark.parametrize("output_format", ["json", "stream-json"])
def test_the_guard_writes_the_result_line_a_later_cancel_writes(output_format: str) -> None:
    """One object (``early_cancel.cancelled_result``), the same bytes from either path."""
    import io

    from goosectx.cli import early_cancel, run_cancel
    from goosectx.cli.run_output import RESULT_FIELDS

    assert early_cancel.STREAM_RESULT_FIELDS == RESULT_FIELDS
    later = io.StringIO()
    code = run_cancel.cancelled_at_start(output_format, stdout=later, stderr=io.StringIO())
    early = early_cancel._result_line(output_format, early_cancel.cancelled_result(code))
    assert early == later.getvalue()
