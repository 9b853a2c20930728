"""A Markdown image in an answer reads as its alt text and its target, in place; no text lost."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from goosectx.cli.stream import AssistantStream

WORDS = " ".join(f"{i:03d}-abcdef" for i in range(40))


def drawn(text: str, width: int, *, terminal: bool = False) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=terminal)
    AssistantStream.print_whole(console, text, title="goosectx", plain=False)
    return buf.getvalue()


@pytest.mark.parametrize("width", [30, 47, 64, 80, 101, 120])
def test_a_line_holding_an_image_loses_no_text_at_any_width(width: int) -> None:
    out = drawn(f"![pic](https://evil.example/i.png) {WORDS}", width)
    for i in range(40):
        assert f"{i:03d}-abcdef" in out, out
    assert "ESC" not in out and "\x1b" not in out


def test_an_image_reads_as_its_alt_text_and_target_where_it_stands() -> None:
    out = drawn("See <https://auto.example> and ![diagram](https://evil.example/i.png) here.",
                200)
    line = next(ln for ln in out.splitlines() if "See" in ln)
    assert "https://auto.example" in line
    assert line.index("See") < line.index("diagram") < line.index("here.")
    assert "https://evil.example/i.png" in line

