"""A link's target reads as written, escape sequences as their stand-ins (fresh27 B2).

The answer's text is made safe before it is parsed (ESC → ``␛``), and a bracket after ``␛`` is
held out of the parse as a private-use stand-in; markdown-it percent-encodes a link target, so
``(http://x.y/␛]0;T␇)`` was drawn as ``(http://x.y/%E2%90%9B%EE%80%810;T%E2%90%87)``: the
stand-in leaked, encoded. The target is drawn as the text reads, and a target written encoded
stays as written (a ``%1B`` in it never becomes a raw escape).
"""

from __future__ import annotations

import io

from rich.console import Console

from goosectx.cli.stream import AssistantStream


def drawn(text: str, *, terminal: bool = False) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=160, color_system=None, force_terminal=terminal)
    AssistantStream.print_whole(console, text, title="goosectx", plain=False)
    return buf.getvalue()


def test_an_escape_in_a_link_target_reads_as_its_stand_in_not_a_placeholder() -> None:
    out = drawn("F [lnk](http://x.y/\x1b]0;T\x07) G <https://a.b/\x1b[31m> end")
    assert "\ue000" not in out and "\ue001" not in out and "%EE%80" not in out, out
    assert "%E2%90" not in out, out
    assert "lnk (http://x.y/\u241b]0;T\u2407)" in out, out
    assert "https://a.b/\u241b[31m" in out, out
    assert "\x1b" not in out


def test_a_target_written_encoded_stays_as_written_and_never_draws_an_escape() -> None:
    out = drawn("See [a](http://x.y/a%20b) and [b](http://x.y/%1B[2J) and [c](<p q.md>).",
                terminal=False)
    assert "a (http://x.y/a%20b)" in out, out
    assert "b (http://x.y/\u241b[2J)" in out, out  # decoded: shown safe, as text is
    assert "c (p q.md)" in out, out
    assert "\x1b" not in out


def test_a_plain_link_is_unchanged() -> None:
    out = drawn("Docs: [guide](https://example.com/guide?x=1&y=2#top) end")
    assert "guide (https://example.com/guide?x=1&y=2#top)" in out, out
