"""A project opened through a symlinked path: ``$PWD/…`` paths are the project's paths.

fresh20c finding #15: ``cd monolink`` (``monolink -> mono``): the session's working dir is
the physical ``mono``, while ``pwd`` (and so the model) says ``monolink``. A write to
``$PWD/pkgs/a/z.py`` was not matched by ``--allow 'text_editor(write:pkgs/**)'`` (asked, so
denied in ``run``) while ``pkgs/a/y.py`` was, and its diff header named the whole absolute
path. The logical dir now counts as the working dir for rules and the diff's names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer


def write(path: str, call_id: str) -> dict:
    return {"name": "text_editor", "id": call_id,
            "arguments": {"command": "write", "path": path, "file_text": "z = 2\n"}}


@pytest.fixture
def linked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``mono/pkgs/a/`` entered as ``monolink`` (a symlink to it): the shell's ``$PWD``."""
    (tmp_path / "mono" / "pkgs" / "a").mkdir(parents=True)
    link = tmp_path / "monolink"
    link.symlink_to("mono")
    monkeypatch.chdir(link)
    monkeypatch.setenv("PWD", str(link))
    return link


def test_an_allow_rule_matches_a_path_under_the_logical_dir(
        fake_model: FakeServer, linked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"tool_calls": [write(f"{linked}/pkgs/a/z.py", "w2"),
                                   write(f"{linked}/README.md", "w3")]}, {"text": "ok"})
    out, _err = cli(capsys, "run", "-t", "go", "--output-format", "json", "--mode", "approve",
                    "--allow", "text_editor(write:pkgs/**)")
    data = json.loads(out)
    assert [c["id"] for c in data["denied_calls"]] == ["w3"]  # the rule names pkgs/ only
    assert (linked / "pkgs" / "a" / "z.py").read_text() == "z = 2\n"
    diffs = [p["diff"] for m in data["messages"] for p in m["content"]
             if p["type"] == "tool_response" and p.get("diff")]
    assert diffs == ["--- /dev/null\n+++ b/pkgs/a/z.py\n@@ -0,0 +1 @@\n+z = 2\n"]


def test_a_deny_rule_holds_under_the_logical_dir(
        fake_model: FakeServer, linked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"tool_calls": [write(f"{linked}/pkgs/a/z.py", "w")]}, {"text": "ok"})
    out, _err = cli(capsys, "run", "-t", "go", "--output-format", "json", "--mode", "auto",
                    "--deny", "text_editor(pkgs/**)")
    (call,) = json.loads(out)["denied_calls"]
    assert call["reason"] == "denied by a permission rule: text_editor(pkgs/**)"
    assert not (linked / "pkgs" / "a" / "z.py").exists()


@pytest.mark.parametrize("command", ["view", "write"])
def test_a_deny_rule_written_with_the_logical_absolute_path_still_holds(
        fake_model: FakeServer, linked: Path, capsys: pytest.CaptureFixture[str],
        command: str) -> None:
    # review21 #12: the path `pwd` shows names the file too; reading it as pkgs/a/k only
    # made text_editor(/…/monolink/pkgs/*) silently stop matching
    (linked / "pkgs" / "a" / "k").write_text("secret\n")
    call = {"name": "text_editor", "id": "c",
            "arguments": {"command": command, "path": f"{linked}/pkgs/a/k", "file_text": "x\n"}}
    fake_model.add({"tool_calls": [call]}, {"text": "ok"})
    out, _err = cli(capsys, "run", "-t", "go", "--output-format", "json", "--mode", "auto",
                    "--deny", f"text_editor({linked}/pkgs/*)")
    (denied,) = json.loads(out)["denied_calls"]
    assert denied["reason"] == f"denied by a permission rule: text_editor({linked}/pkgs/*)"
    assert (linked / "pkgs" / "a" / "k").read_text() == "secret\n"
