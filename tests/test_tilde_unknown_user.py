"""``~name/…`` for a user that does not exist: a path as written, never a crash.

review21 #10: a model's ``text_editor view ~nosuchuser9/x`` (or ``tree``, or an edit) made
the approval step raise ``RuntimeError`` from ``Path.expanduser``, so ``goosectx run`` died
with a traceback; a user's ``@~nosuchuser9/x.py`` did the same. Bash leaves ``~unknown`` as
written: so does goosectx (a relative path that names nothing here).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer

NOBODY = "~nosuchuser9"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("arguments", [
    {"command": "view", "path": f"{NOBODY}/x"},
    {"command": "write", "path": f"{NOBODY}/x", "file_text": "y\n"},
])
def test_a_model_call_on_an_unknown_users_path_is_a_tool_result(
        fake_model: FakeServer, project: Path, capsys: pytest.CaptureFixture[str],
        arguments: dict[str, str]) -> None:
    fake_model.add({"tool_calls": [{"name": "text_editor", "id": "c", "arguments": arguments}]},
                   {"text": "done"})
    out, err = cli(capsys, "run", "-t", "go", "--output-format", "json", "--mode", "auto")
    assert "Traceback" not in err
    data = json.loads(out)
    results = [p for m in data["messages"] for p in m["content"] if p["type"] == "tool_response"]
    assert len(results) == 1 and data["messages"][-1]["content"][0]["text"] == "done"


def test_a_tree_call_on_an_unknown_users_dir_is_a_tool_result(
        fake_model: FakeServer, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"tool_calls": [{"name": "tree", "id": "t", "arguments": {"path": NOBODY}}]},
                   {"text": "done"})
    out, err = cli(capsys, "run", "-t", "go", "--output-format", "json", "--mode", "auto")
    assert "Traceback" not in err and json.loads(out)["messages"][-1]["content"][0]["text"] == "done"


def test_a_mention_of_an_unknown_users_file_is_a_notice(
        fake_model: FakeServer, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"text": "ok"})
    out, err = cli(capsys, "run", "-t", f"look at @{NOBODY}/x.py")
    assert out == "ok\n" and "Traceback" not in err
