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



def test_an_image_given_as_a_data_uri_reads_as_its_size_not_its_base64() -> None:
    payload = "iVBORw0KGgo" + "A" * 3000
    out = drawn(f"Here: ![](data:image/png;base64,{payload}) done.", 100)
    assert "AAAAAAAAAA" not in out and "iVBORw0KGgo" not in out, out
    line = next(ln for ln in out.splitlines() if "Here:" in ln)
    assert "image (data: image/png URI, 3,033 bytes) done." in line, out


def test_an_image_target_in_angle_brackets_reads_as_written() -> None:
    out = drawn("See ![x](<foo bar.png>) and ![y](a%20b.png) here.", 100)
    assert "image: x (foo bar.png)" in out, out
    assert "%20bar" not in out
    assert "image: y (a%20b.png)" in out, out  # written quoted: shown as written


@pytest.mark.parametrize("sequence", ["\x1b[31m", "\x1b]0;title\x07", "\x1b"])
def test_an_image_whose_alt_text_holds_an_escape_reads_as_any_image(sequence: str) -> None:
    out = drawn(f"See ![x{sequence}red](pic.png) here.", 100)
    assert "\x1b" not in out and "\x07" not in out
    line = next(ln for ln in out.splitlines() if "See" in ln)
    safe = sequence.replace("\x1b", "\u241b").replace("\x07", "\u2407")
    assert f"See image: x{safe}red (pic.png) here." in line, out
    assert "![" not in out
