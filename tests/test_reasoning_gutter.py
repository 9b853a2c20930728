"""A reasoning line wider than the terminal wraps inside the ``  │ `` gutter.

Wrapped to column 0, the model's reasoning could draw a row reading like goosectx's own
("● saved · resume with: goosectx --resume other-session").
"""

from __future__ import annotations

import io

from rich.console import Console

from goosectx.cli.reasoning import ReasoningStream


def test_a_long_reasoning_line_wraps_inside_the_gutter() -> None:
    buf = io.StringIO()
    stream = ReasoningStream(Console(file=buf, width=100, color_system=None), plain=False)
    stream.feed("word " * 19 + "● saved · resume with: goosectx --resume other-session\n")
    stream.close()
    rows = buf.getvalue().rstrip("\n").split("\n")
    assert rows[0].startswith("✻ thinking")
    assert len(rows) > 2 and all(row.startswith("  │ ") for row in rows[1:]), "\n".join(rows)
    assert "resume with: goosectx --resume other-session" in buf.getvalue()  # nothing lost
