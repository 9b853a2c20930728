"""End to end: ``/show N`` through ``less`` when neither PAGER nor LESS is set — the pager
shows the header's colours, not ``ESC[36m`` as text (the real binary in a pseudo-terminal)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_e2e_pty import TIMEOUT_S, _env

pexpect = pytest.importorskip("pexpect")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("less") is None, reason="needs less")
def test_show_pages_through_less_without_raw_colour_codes(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = _env(tmp_path, "http://127.0.0.1:9")
    for name in ("PAGER", "MANPAGER", "LESS"):
        env.pop(name, None)
    child = pexpect.spawn("goosectx", ["session", "--name", "pager"], cwd=str(work), env=env,
                          dimensions=(30, 100), encoding="utf-8", timeout=TIMEOUT_S)
    try:
        child.expect("❯")
        child.send("!seq 1 80\r")
        child.expect(r"#1 \(/show 1\)")
        child.expect("❯")
        child.send("/show 1\r")
        child.expect("#1 ")  # the header, in less
        child.expect(r"\b20\b")
        paged = child.before + child.after
        child.send("q")
        child.expect("❯")
        child.send("/exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    shown = re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]", "", paged)  # the text, as the screen shows it
    assert "ESC[" not in shown and "seq 1 80 · 81 lines" in shown  # the header, paged
