"""A session's title is its first request's first line that says something.

fresh17b #26: imported sessions were titled by boilerplate — a Codex rollout "# Context from my
IDE setup:" (the request is under "## My request for Codex:"), a Claude Code console copy
"/hi is running…" (a custom command's echo).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_import_corpus import RAW

from goosectx.session import title_from_text


@pytest.mark.parametrize(("text", "title"), [
    ("# Context from my IDE setup:\n\n## My request for Codex:\nBump go.mod to 1.24",
     "Bump go.mod to 1.24"),
    ("/hi is running…\n\nhello, review the parser", "hello, review the parser"),
    ("fix the bug in io.py\nthen run the tests", "fix the bug in io.py"),
    ("## Plan without a colon\nstep one", "## Plan without a colon"),
    ("# Notes:", "# Notes:"),  # nothing else: the label is the title
    ("   \n\t\n", None),
])
def test_a_title_skips_label_headings_and_command_echoes(text: str, title: str | None) -> None:
    assert title_from_text(text) == title


def test_an_imported_codex_rollout_is_titled_by_its_request(tmp_path: Path) -> None:
    path = RAW / "codex_rollout" / "vct-codex-rollout.jsonl"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found (set GOOSECTX_CORPUS to the corpus dir)")
    env = {**os.environ, "GOOSECTX_HOME": str(tmp_path / "home")}
    subprocess.run([sys.executable, "-m", "goosectx", "sessions", "import", str(path)],
                   env=env, check=True, capture_output=True, timeout=120)
    listed = json.loads(subprocess.run(
        [sys.executable, "-m", "goosectx", "sessions", "list", "--json"], env=env, check=True,
        capture_output=True, text=True, timeout=60).stdout)
    assert listed[0]["title"].startswith("幫我檢查一下 go.mod")


def _imported_titles(tmp_path: Path, *paths: Path) -> list[str]:
    env = {**os.environ, "GOOSECTX_HOME": str(tmp_path / "home")}
    for path in paths:
        subprocess.run([sys.executable, "-m", "goosectx", "sessions", "import", str(path)],
                       env=env, check=True, capture_output=True, timeout=120)
    listed = json.loads(subprocess.run(
        [sys.executable, "-m", "goosectx", "sessions", "list", "--json"], env=env, check=True,
        capture_output=True, text=True, timeout=60).stdout)
    return [row["title"] for row in listed]


def test_a_console_copy_whose_first_prompt_is_an_echo_is_titled_by_the_next(
        tmp_path: Path) -> None:
    """fresh18b #03: the echo was the whole first prompt, so it was the title."""
    files = []
    for n, space in enumerate(("", " ")):
        files.append(tmp_path / f"t{n}.md")
        files[-1].write_text(f"> /hi is running…{space}\n\n⏺ Hello.\n\n"
                             "> fix the parser please\n\n⏺ Done.\n")
    assert _imported_titles(tmp_path, *files) == ["fix the parser please"] * 2


def test_a_console_copy_of_only_an_echo_keeps_it_as_its_title(tmp_path: Path) -> None:
    path = tmp_path / "echo.md"
    path.write_text("> /hi is running…\n\n⏺ Hello.\n")
    assert _imported_titles(tmp_path, path) == ["/hi is running…"]


def test_the_corpus_console_copy_is_titled_by_its_first_real_prompt(tmp_path: Path) -> None:
    path = RAW / "console_transcript" / "bookminder-day-009-claude-code.md"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found (set GOOSECTX_CORPUS to the corpus dir)")
    [title] = _imported_titles(tmp_path, path)
    assert title.startswith("I have created the uncommited fixture files"), title
