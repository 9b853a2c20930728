"""Tool output and tool error lines wider than the terminal wrap inside the ``  │ `` gutter:
a continuation row at column 0 reads as goosectx's own text."""

from __future__ import annotations

import io

from rich.console import Console

from goosectx.cli.render import TranscriptRenderer
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.events import MessageCompleted, ToolCallFinished, ToolCallStarted

WIDTH = 60


def result_rows(output: str, *, is_error: bool = False) -> list[str]:
    """The rows drawn for a shell call's result at a fixed width (header first)."""
    buf = io.StringIO()
    renderer = TranscriptRenderer(Console(file=buf, width=WIDTH, color_system=None))
    req = ToolRequest("call_1", "shell", {"command": "x"})
    renderer.handle(MessageCompleted(Message("assistant", (req,))))
    renderer.handle(ToolCallStarted(req))
    renderer.handle(ToolCallFinished(ToolResponse("call_1", output, is_error)))
    rows = buf.getvalue().rstrip("\n").split("\n")
    start = next(i for i, row in enumerate(rows) if row.startswith(("  ✓", "  ✗")))
    return rows[start:]


def test_a_long_output_line_wraps_inside_the_gutter() -> None:
    rows = result_rows("0" * 300 + "\n" + "\n".join(str(i) for i in range(1, 31)))
    body = rows[1:]
    assert all(row.startswith("  │ ") for row in body), "\n".join(rows)
    assert all(len(row) <= WIDTH for row in rows)
    assert "".join(row[4:] for row in body).startswith("0" * 300 + "1")  # nothing lost
    assert "  │ … 21 lines hidden …" in body


def test_a_long_tool_error_wraps_inside_the_gutter() -> None:
    error = ("The call to shell was not run: its arguments are not valid JSON (Expecting ',' "
             "delimiter at character 95). Call the tool again with a JSON object.")
    rows = result_rows(error, is_error=True)
    assert rows[0].startswith("  ✗ shell error")
    assert len(rows) > 2 and all(row.startswith("  │ ") for row in rows[1:]), "\n".join(rows)
    assert " ".join(row[4:].strip() for row in rows[1:]) == error


def test_long_call_arguments_wrap_inside_their_indent() -> None:
    """The arguments of a call (the model's text) wrapped to column 0 under ``▶ shell``."""
    buf = io.StringIO()
    renderer = TranscriptRenderer(Console(file=buf, width=WIDTH, color_system=None))
    command = "echo " + "word " * 30
    req = ToolRequest("call_1", "shell", {"command": command.strip()})
    renderer.handle(MessageCompleted(Message("assistant", (req,))))
    rows = buf.getvalue().rstrip("\n").split("\n")
    assert rows[0] == "▶ shell", "\n".join(rows)
    assert len(rows) > 2 and all(row.startswith("    ") for row in rows[1:]), "\n".join(rows)
    assert " ".join(row.strip() for row in rows[1:]) == "command: " + command.strip()
