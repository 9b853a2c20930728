"""Ctrl-X Ctrl-E in the real REPL: the message goes to the user's editor and comes back.

The edited text lands in the prompt, not sent (Enter sends it); the editor gets no API key;
an editor that fails, or none at all, leaves the prompt as it was with one line saying so.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from test_e2e_pty import TIMEOUT_S, _env

from goosectx.isolation import namespaces_available

pexpect = pytest.importorskip("pexpect")

CTRL_X_CTRL_E = "\x18\x05"


def _editor(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "fake-editor.sh"
    script.write_text(f"#!/bin/sh\nenv > {tmp_path / 'editor-env.txt'}\n"
                      f"cp \"$1\" {tmp_path / 'editor-saw.txt'}\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _spawn(tmp_path: Path, **extra: str) -> object:
    env = _env(tmp_path, "http://127.0.0.1:9/v1")
    env.pop("GOOSE_MODEL")  # no model: the offline commands are enough
    env.pop("VISUAL", None)
    env.update(extra)
    program = shutil.which("goosectx")  # found before PATH may be emptied
    assert program is not None
    child = pexpect.spawn(program, cwd=str(tmp_path), env=env, dimensions=(40, 110),
                          encoding="utf-8", timeout=TIMEOUT_S)
    child.expect("❯")
    return child


def _leave(child: object) -> None:
    child.send("\x03")  # clears the line; the prompt stays up, so a Ctrl-D right behind it
    child.sendeof()     # is read (cli/repl.py draws the hint above it: no cooked-mode gap)
    child.expect(pexpect.EOF, timeout=15)


def _edit(child: object, typed: str, *, then: str) -> None:
    """Type ``typed``, press Ctrl-X Ctrl-E, wait for ``then`` on the screen."""
    child.send(typed)
    child.expect(typed[-3:])
    child.send(CTRL_X_CTRL_E)
    child.expect(then)


def _send_usage(child: object) -> None:
    """Enter: the prompt's /usage runs (its table says "total"); then leave."""
    child.send("\r")
    child.expect("total", timeout=15)
    child.expect("❯")
    _leave(child)


def test_the_edited_message_comes_back_into_the_prompt_unsent(tmp_path: Path) -> None:
    editor = _editor(tmp_path, 'printf "/usage\\n" > "$1"')
    child = _spawn(tmp_path, EDITOR=str(editor))
    try:
        _edit(child, "/usa", then="/usage")  # back in the prompt
        assert child.expect(["total", pexpect.TIMEOUT], timeout=1) == 1  # not sent yet
        _send_usage(child)  # Enter sends it
    finally:
        child.close(force=True)
    assert (tmp_path / "editor-saw.txt").read_text() == "/usa"  # the typed text, to edit
    seen_env = (tmp_path / "editor-env.txt").read_text()
    assert "sk-test-dummy" not in seen_env and "OPENAI_API_KEY" not in seen_env


def test_an_editor_that_fails_leaves_the_prompt_as_it_was(tmp_path: Path) -> None:
    editor = _editor(tmp_path, 'printf "changed" > "$1"; exit 3')
    child = _spawn(tmp_path, EDITOR=str(editor))
    try:
        _edit(child, "/usage", then="exited with status 3: the prompt is as it was")
        _send_usage(child)  # the typed /usage runs, not the editor's "changed"
    finally:
        child.close(force=True)


def test_no_editor_says_how_to_set_one(tmp_path: Path) -> None:
    child = _spawn(tmp_path, EDITOR="", PATH=str(tmp_path / "empty-bin"))
    try:
        _edit(child, "draft", then=r"no editor found: set \$VISUAL or \$EDITOR")
        _leave(child)
    finally:
        child.close(force=True)


@pytest.mark.skipif(os.geteuid() != 0 or not namespaces_available(),
                    reason="as root, the PID namespace is what hides goosectx's /proc")
def test_as_root_the_editor_cannot_read_the_key_from_goosectx_proc(tmp_path: Path) -> None:
    # fresh20b #15: the editor's own environment was clean, but as root it (or a plugin, a
    # :!command in it) read OPENAI_API_KEY from /proc/$PPID/environ, where the shell tool and
    # a !command run in a PID namespace that shows no goosectx.
    probe = (f"n=0; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f 2>/dev/null"
             f" | grep -q '^OPENAI_API_KEY=' && n=$((n+1)); done; echo \"$n\" > "
             f"{tmp_path / 'editor-proc.txt'}; printf '/usage\\n' > \"$1\"")
    child = _spawn(tmp_path, EDITOR=str(_editor(tmp_path, probe)))
    try:
        _edit(child, "/usa", then="/usage")
        _send_usage(child)
    finally:
        child.close(force=True)
    assert (tmp_path / "editor-proc.txt").read_text() == "0\n"
