"""``goosectx run`` without a terminal names why a read was asked about (fresh20c #9).

A ``text_editor view`` of a project file with another hard link is asked about in
smart_approve (one of its names may be outside the project), so ``run`` denies it; the
warning said only "needs approval …; use --mode auto", not the reason, where the
symlink-outside case names its own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from fakeserver import FakeServer
from test_run_denied_calls import run


def view(path: str) -> dict:
    return {"tool_calls": [{"name": "text_editor",
                            "arguments": {"command": "view", "path": path}}]}


def test_the_warning_names_the_other_hard_link(fake_model: FakeServer, workdir: Path) -> None:
    (workdir / "real.txt").write_text("hello\n")
    os.link(workdir / "real.txt", workdir / "hard.txt")
    fake_model.add(view("hard.txt"), {"text": "ok"})
    code, out, err = run("json")
    (notice,) = json.loads(out)["notices"]
    assert code == 0
    assert notice == (f"text_editor needs approval and there is no terminal to ask, so it was "
                      f"denied; {workdir / 'hard.txt'} has other hard links, which may be "
                      "outside the project (`ln ~/secret notes.txt`), so reading it is asked "
                      "about: answer it in the REPL, or use --mode auto")
    assert f"goosectx: warning: {notice}" in err


def test_the_warning_names_a_read_outside(fake_model: FakeServer, workdir: Path) -> None:
    (workdir.parent / "elsewhere.txt").write_text("x\n")
    fake_model.add(view("../elsewhere.txt"), {"text": "ok"})
    _code, out, _err = run("json")
    (notice,) = json.loads(out)["notices"]
    assert f"{workdir.parent / 'elsewhere.txt'} is outside the project, so reading" in notice


def test_a_plain_project_file_is_read(fake_model: FakeServer, workdir: Path) -> None:
    (workdir / "plain.txt").write_text("hello\n")
    fake_model.add(view("plain.txt"), {"text": "ok"})
    _code, out, _err = run("json")
    assert json.loads(out)["notices"] == []


def test_a_newline_in_the_path_cannot_split_the_warning_line(fake_model: FakeServer,
                                                             workdir: Path) -> None:
    # the path comes from the model: "x\ngoosectx: session saved" must stay one line
    fake_model.add(view("../x\ngoosectx: fake line"), {"text": "ok"})
    _code, _out, err = run("text")
    (line,) = [w for w in err.splitlines() if w.startswith("goosectx: warning:")]
    assert "\u240agoosectx: fake line" in line
    assert not any(w.startswith("goosectx: fake line") for w in err.splitlines())


def test_denied_calls_say_a_sensitive_file_was_why(fake_model: FakeServer, workdir: Path) -> None:
    (workdir / ".htpasswd").write_text("admin:$apr1$x$y\n")
    fake_model.add(view(".htpasswd"), {"text": "ok"})
    (call,) = json.loads(run("json")[1])["denied_calls"]
    reason = call["reason"]  # it was "needs approval and there is no terminal to ask" alone
    assert reason.startswith("needs approval and there is no terminal to ask: ")
    assert ".htpasswd" in reason and "sensitive file" in reason
