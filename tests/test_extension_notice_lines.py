"""An extension's notice is one line: a line break in a server-given name (a tool called
``x\\nnl: ready``) is drawn as a stand-in, so it cannot forge a line of its own."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from goosectx.cli.repl_extensions import _draw_notices


def test_a_line_break_in_a_notice_is_drawn_as_a_stand_in() -> None:
    drawn: list[str] = []
    repl: Any = SimpleNamespace(renderer=SimpleNamespace(
        notice=lambda text, style=None: drawn.append(text)))
    _draw_notices(repl, ["extension d: tool x\nd: ready (server trusted); skipped",
                         "extension e \x1b[2J started"])
    assert drawn == ["extension d: tool x\u240ad: ready (server trusted); skipped",
                     "extension e \u241b[2J started"]
    assert all("\n" not in text for text in drawn)
