"""Tab in the real REPL in a pseudo-terminal: a unique ``@path`` prefix is inserted.

Typed in one write (as a paste or a fast typist gives it), ``@src/ap`` + Tab opened the menu
and inserted nothing, so Enter sent ``@src/ap`` (cli/prompt.complete_now).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_e2e_pty import TIMEOUT_S, _env

pexpect = pytest.importorskip("pexpect")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_tab_inserts_a_unique_mention_typed_in_one_write(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\n")
    (tmp_path / "src" / "main.py").write_text("y = 2\n")
    env = _env(tmp_path, "http://127.0.0.1:9/v1")
    env.pop("GOOSE_MODEL")  # no model: the message is drawn, then "not sent"
    child = pexpect.spawn("goosectx", cwd=str(tmp_path), env=env, dimensions=(40, 110),
                          encoding="utf-8", timeout=TIMEOUT_S)
    seen: list[str] = []
    child.logfile_read = type("Log", (), {"write": lambda _s, t: seen.append(t),
                                          "flush": lambda _s: None})()
    try:
        child.expect("❯")
        child.send("see @src/ap\t")
        child.send("\r")  # (read in order: Enter comes after what Tab did)
        child.expect("not sent")
        child.expect("❯")
        child.sendeof()
        child.expect(pexpect.EOF, timeout=15)
    finally:
        child.close(force=True)
    shown = _ANSI.sub("", "".join(seen))
    assert re.search(r"│ see @src/app\.py +│", shown), shown[-2000:]  # the message sent
