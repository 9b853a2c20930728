"""Gemini CLI prompt boxes that never close (importers/console.py).

A copy cut off under a prompt's box, or a box whose ``╰─╯`` was lost, put the prompt inside
the previous assistant message, box characters and all. An open prompt box is now read as a
prompt too: the user's message, without box characters. Hostile variants (escapes in the box,
a 1 MB box, nested and mismatched boxes, CRLF) import without a crash, and what ``sessions
show`` prints of them holds no raw escape (docs/architecture.md §6).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from cli_support import run_cli

from goosectx.importers import load_sessions

FIXTURE = Path(__file__).parent / "fixtures" / "console" / "gemini-boxed-prompts.txt"
BOX_CHARS = set("╭╮╰╯│─")
WIDE = 78


def _top(indent: str = "") -> str:
    return indent + "╭" + "─" * WIDE + "╮"


def _bottom(indent: str = "") -> str:
    return indent + "╰" + "─" * WIDE + "╯"


def _row(text: str, indent: str = "") -> str:
    return indent + "│" + text.ljust(WIDE) + "│"


def _turns(path: Path) -> list[tuple[str, str]]:
    (session,) = load_sessions(path, fmt="auto", working_dir=path.parent)
    assert session.metadata["source_tool"] == "gemini-cli"
    return [(m.role, m.text) for m in session.conversation]


def _without_bottom(text: str, nth: int) -> str:
    """The fixture with the ``nth`` prompt box's bottom border removed."""
    lines = text.split("\n")
    bottoms = [i for i, line in enumerate(lines) if line.startswith("╰")]
    del lines[bottoms[nth]]
    return "\n".join(lines)


@pytest.mark.parametrize("nth", [0, 1, 2])
def test_a_prompt_box_without_its_bottom_border_is_still_the_users_message(
        tmp_path: Path, nth: int) -> None:
    copy = tmp_path / "cut.txt"
    copy.write_text(_without_bottom(FIXTURE.read_text(), nth))
    turns = _turns(copy)
    assert [role for role, _ in turns] == ["user", "assistant"] * 3
    users = [text for role, text in turns if role == "user"]
    assert users[0] == "Why does test_parse_dates fail on the CI runner?"
    assert users[2] == "/stats"
    assert not any(BOX_CHARS & set(text) for text in users)
    assert not any("> Fix it" in text or "> /stats" in text for role, text in turns
                   if role == "assistant")


def test_a_copy_that_ends_inside_a_prompt_box_ends_with_that_prompt(tmp_path: Path) -> None:
    text = FIXTURE.read_text()
    cut = text[:text.index("│  > /stats")] + "│  > /stats"  # the copy stops mid-row
    copy = tmp_path / "ends.txt"
    copy.write_text(cut)
    turns = _turns(copy)
    assert turns[-1] == ("user", "/stats")
    assert not any(BOX_CHARS & set(t) for role, t in turns if role == "user")
    assert "│" not in turns[-2][1].splitlines()[-1]  # the reply before it ends as it did


def test_a_box_that_is_no_prompt_and_never_closes_stays_in_the_reply(tmp_path: Path) -> None:
    notice = tmp_path / "notice.txt"
    notice.write_text("\n".join([_top(), _row("  > first"), _bottom(), "", "✦ hello",
                                 _top(), _row(" Session Stats"), "", "✦ bye"]) + "\n")
    turns = _turns(notice)
    assert turns[0] == ("user", "first")
    assert [role for role, _ in turns] == ["user", "assistant"]
    assert "Session Stats" in turns[1][1]


def test_the_half_box_alone_is_a_prompt_and_its_reply(tmp_path: Path) -> None:
    half = tmp_path / "half.txt"
    half.write_text("╭────────────╮\n│  > fix it  │\n\n✦ done\n")
    assert _turns(half) == [("user", "fix it"), ("assistant", "✦ done")]


def test_escapes_inside_a_box_are_stored_but_never_printed_raw(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evil = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m \x9b31m"
    path = tmp_path / "evil.txt"
    path.write_text("\n".join([_top(), _row(f"  > fix {evil}"), "", "✦ ok \x1b]8;;http://x\x07"
                               "link\x1b]8;;\x07", _top(), _row(f"  > again {evil}")]) + "\n")
    turns = _turns(path)
    assert [role for role, _ in turns] == ["user", "assistant", "user"]
    assert all(not BOX_CHARS & set(t) for role, t in turns if role == "user")
    code, _out, err = run_cli(capsys, "sessions", "import", str(path))
    assert code == 0, err
    code, out, err = run_cli(capsys, "sessions", "list", "--json")
    (listed,) = json.loads(out)
    code, out, err = run_cli(capsys, "sessions", "show", listed["id"])
    assert code == 0, err
    assert "\x1b" not in out + err and "\x07" not in out + err and "\x9b" not in out + err
    assert "fix" in out and "again" in out and "red" in out


def test_crlf_line_ends_read_as_lf(tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(FIXTURE.read_bytes().replace(b"\n", b"\r\n"))
    lf = _turns(FIXTURE)
    assert _turns(crlf) == lf
    cut = tmp_path / "cut-crlf.txt"
    cut.write_bytes(_without_bottom(FIXTURE.read_text(), 1).encode().replace(b"\n", b"\r\n"))
    assert [role for role, _ in _turns(cut)] == ["user", "assistant"] * 3


def test_nested_and_mismatched_boxes_do_not_crash_or_leak_borders(tmp_path: Path) -> None:
    path = tmp_path / "nested.txt"
    path.write_text("\n".join([
        _top(), _top(), _row("  > inner"), _top(), _row("  > second"), "╰──╯╯╯",
        _row("  > stray row"), _bottom(), _bottom(), "✦ reply", "╭──╮", "│", "│  > x",
        "╰" * 5]) + "\n")
    turns = _turns(path)
    users = [text for role, text in turns if role == "user"]
    assert "inner" in users and "second" in users
    assert not any(BOX_CHARS & set(text) for text in users)


def test_a_one_megabyte_box_imports_in_linear_time(tmp_path: Path) -> None:
    rows = [_row("    " + "word " * 14) for _ in range(12_500)]  # ~1 MB of rows
    path = tmp_path / "big.txt"
    path.write_text("\n".join([_top(), _row("  > start"), *rows, "", "✦ done"]) + "\n")
    assert path.stat().st_size > 1_000_000
    wide = tmp_path / "wide.txt"  # one 1 MB row, "│" inside, no right border
    wide.write_text("\n".join([_top(), "│  > " + "a│ " * 350_000, "", "✦ done"]) + "\n")
    started = time.monotonic()
    big_turns, wide_turns = _turns(path), _turns(wide)
    assert time.monotonic() - started < 30  # a quadratic scan takes minutes
    assert big_turns[0][0] == "user" and big_turns[0][1].startswith("start\n")
    assert not BOX_CHARS & set(big_turns[0][1]) and big_turns[-1] == ("assistant", "✦ done")
    assert wide_turns[0][0] == "user" and wide_turns[-1] == ("assistant", "✦ done")


def test_a_row_that_lost_its_right_border_mid_box_stays_in_the_prompt(tmp_path: Path) -> None:
    path = tmp_path / "row.txt"
    path.write_text("\n".join([_top(), _row("  > first line"), "│    second line, cut",
                               _row("    third line"), _bottom(), "", "✦ ok"]) + "\n")
    assert _turns(path) == [("user", "first line\nsecond line, cut\nthird line"),
                            ("assistant", "✦ ok")]
