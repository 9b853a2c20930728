"""A tool that runs only as an MCP task (``execution.taskSupport`` "required") is not offered.

server-everything's simulate-research-query declares it: goosectx listed it as any tool,
offered it to the model, and every call failed "requires task augmentation".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from extension_support import demo_spec
from fakeserver import FakeServer
from test_extensions_run import call, run, stored_pairs


def test_a_task_only_tool_is_skipped_with_the_reason(
        work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    from cli_support import cli

    monkeypatch.chdir(work)
    listed, _err = cli(capsys, "extensions", "list", "--with-extension",
                       demo_spec("--task-required"))
    skipped = [line for line in listed.splitlines() if "research" in line]
    assert skipped == ['    skipped: research: it runs only as a task (execution.taskSupport '
                       '"required"), which goosectx does not call'], listed


def test_a_task_only_tool_is_not_sent_to_the_model(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add(call("demo__research", {"topic": "x"}, "c1"), {"text": "done"})
    code, _out, err = run(demo_spec("--task-required"))
    assert code == 0, err
    tools = [t["function"]["name"] for t in fake_model.requests[0]["tools"]]
    assert "demo__echo" in tools and "demo__research" not in tools
    assert "tool research: it runs only as a task" in err
    # Called all the same (a name from an older session): why, not "no tool named".
    [(_request, response)] = stored_pairs()
    assert response.output == (
        'extension demo does not offer its tool research: it runs only as a task '
        '(execution.taskSupport "required"), which goosectx does not call; this call was not '
        'run.')
