"""The transcript renderer: events and stored messages as the user sees them."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from goosectx.cli import stream
from goosectx.cli.folding import fold_lines
from goosectx.cli.render import TranscriptRenderer, compaction_rule_text
from goosectx.conversation import (
    Conversation,
    Message,
    MessageMetadata,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.events import (
    HistoryReplaced,
    MessageCompleted,
    MessageDelta,
    Notification,
    ReasoningDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolPairsSummarized,
    TurnFinished,
)
from goosectx.tools.output import OutputStream
from goosectx.usage import LedgerEntry, Usage

ESC = "\x1b"


def make(plain: bool = False, terminal: bool = False, width: int = 80):
    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=terminal, color_system=None
                      if not terminal else "truecolor", no_color=plain)
    return TranscriptRenderer(console, plain=plain), buf


def tool_turn(r: TranscriptRenderer, output: str, *, is_error: bool = False) -> None:
    req = ToolRequest("call_1", "shell", {"command": "pytest -q"})
    r.handle(MessageCompleted(Message("assistant", (req,))))
    r.handle(ToolCallStarted(req))
    r.handle(ToolCallFinished(ToolResponse("call_1", output, is_error)))


def test_streamed_deltas_become_one_assistant_panel_with_markdown() -> None:
    r, buf = make()
    r.user("list two fruits")
    for chunk in ["Here are **two", "** fruits:\n\n- apple\n", "- pear\n"]:
        r.handle(MessageDelta(chunk))
    r.handle(MessageCompleted(Message.assistant("Here are **two** fruits:\n\n- apple\n- pear\n")))
    r.handle(TurnFinished("done"))
    out = buf.getvalue()
    assert "╭─ you" in out and "list two fruits" in out
    assert "╭─ goosectx" in out
    assert "Here are two fruits:" in out  # Markdown rendered: no ** left
    assert "• apple" in out and "• pear" in out
    assert out.count("apple") == 1  # streamed text is not drawn again on completion
    assert ESC not in out


def test_the_users_own_message_is_not_drawn_twice() -> None:
    r, buf = make()
    r.user("hello")
    r.handle(MessageCompleted(Message.user("hello")))
    assert buf.getvalue().count("hello") == 1


def test_tool_call_shows_arguments_and_short_result_in_full() -> None:
    r, buf = make()
    tool_turn(r, "3 passed\n")
    out = buf.getvalue()
    assert "▶ shell  command: pytest -q" in out
    assert "✓ shell output · 1 line" in out
    assert "│ 3 passed" in out


def test_long_tool_result_is_folded_with_the_hidden_line_count() -> None:
    r, buf = make()
    tool_turn(r, "\n".join(f"line {i}" for i in range(1, 101)))
    out = buf.getvalue()
    assert "shell output · 100 lines" in out
    assert "… 90 lines hidden …" in out
    assert "line 1\n" in out and "line 6\n" in out and "line 100" in out
    assert "line 7\n" not in out and "line 50\n" not in out


def test_error_result_is_marked() -> None:
    r, buf = make()
    tool_turn(r, "boom", is_error=True)
    assert "✗ shell error · 1 line" in buf.getvalue()


def test_escape_sequences_in_tool_output_never_reach_the_terminal() -> None:
    r, buf = make()
    tool_turn(r, "\x1b[31mred\x1b[0m and \x1b]0;title\x07 bell\x07")
    out = buf.getvalue()
    # colours are dropped; any other sequence is shown, so the user sees it was there
    assert "red and ␛]0;title␇ bell␇" in out
    assert ESC not in out and "\x07" not in out


def test_a_files_own_escape_codes_show_in_a_file_tools_output_and_its_show(
        tmp_path: Path) -> None:
    # tester 28b: a file's own ESC[35m vanished from `text_editor view`, and a file named
    # f ESC]0;FILEPWN BEL ESC[32m name read `f␛]0;FILEPWN␇name`, while the call line showed
    # ␛[32m: a file tool prints a file's bytes, not a program's colours, so they are shown
    from goosectx.cli.folding import clean_output

    content = "1: plain\n2: \x1b[35mmagenta\x1b[0m text\n"
    for tool in ("text_editor", "tree"):
        r, buf = make()
        req = ToolRequest("call_1", tool, {"command": "view", "path": "a.txt"})
        r.handle(MessageCompleted(Message("assistant", (req,))))
        r.handle(ToolCallStarted(req))
        r.handle(ToolCallFinished(ToolResponse("call_1", content)))
        out = buf.getvalue()
        assert "2: ␛[35mmagenta␛[0m text" in out and ESC not in out, out
    # /show N draws the stored output by the same rule
    assert clean_output(content, tool="text_editor") == content.replace(ESC, "␛")
    # an edit's diff is a file's text too: the approval view shows the code, so it needs no v
    from goosectx.cli.diffview import diff_lines, diff_shown_whole

    diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+\x1b[35mx\n"
    assert diff_lines(diff)[0][-1] == "+␛[35mx" and diff_shown_whole(diff)
    # a program's output through the shell still loses its colours (ls --color, pytest)
    r, buf = make()
    tool_turn(r, "f\x1b]0;FILEPWN\x07\x1b[32mname")
    assert "f␛]0;FILEPWN␇name" in buf.getvalue()


def test_multiline_arguments_are_listed_and_folded() -> None:
    r, buf = make()
    body = "\n".join(f"row {i}" for i in range(30))
    req = ToolRequest("c9", "text_editor", {"command": "write", "path": "a.txt", "text": body})
    r.handle(MessageCompleted(Message("assistant", (req,))))
    out = buf.getvalue()
    assert "▶ text_editor" in out
    assert "command: write" in out and "path: a.txt" in out
    assert "row 0" in out and "row 29" in out and "more lines" in out and "row 15" not in out


def test_malformed_arguments_are_shown_raw_with_the_error() -> None:
    r, buf = make()
    req = ToolRequest("c2", "shell", None, "arguments are not valid JSON (Expecting value at "
                      "character 12)", '{"command": ')
    r.handle(MessageCompleted(Message("assistant", (req,))))
    out = buf.getvalue()
    assert "(arguments are not valid JSON (Expecting value" in out and '{"command":' in out
    assert out.count("not valid JSON") == 1  # the parse error says it; not twice


def test_notifications_rule_and_tool_pair_notice() -> None:
    r, buf = make()
    r.handle(Notification("inline", "Compacting the conversation…"))
    r.handle(Notification("thinking", "summarising 40 messages"))
    call = LedgerEntry(Usage.of(100, 10, 0.004), "m", "compaction")
    r.handle(HistoryReplaced(Conversation(), "manual", 118_402, 6_911, 0.004, "llm", call))
    r.handle(ToolPairsSummarized(10, 4_321, Conversation()))
    out = buf.getvalue()
    assert "Compacting the conversation…" in out
    assert "summarising 40 messages" in out  # no terminal: a line instead of a spinner
    assert "context compacted · 118,402 → 6,911 tokens · $0.0040" in out
    assert "10 old tool calls" in out and "4,321" in out


def test_one_condensed_tool_call_reads_in_the_singular() -> None:
    r, buf = make()
    r.handle(ToolPairsSummarized(1, 321, Conversation()))
    assert "1 old tool call condensed" in buf.getvalue()


def test_rule_texts_for_each_kind_of_compaction() -> None:
    conv = Conversation()
    assert compaction_rule_text(HistoryReplaced(conv, "auto", 9000, 900, None, "llm")) == (
        "context compacted · 9,000 → 900 tokens · cost unknown · auto")
    assert compaction_rule_text(HistoryReplaced(conv, "manual", 9000, 900, None,
                                                "extractive")) == (
        "context compacted · 9,000 → 900 tokens · extractive, no model call")
    assert compaction_rule_text(HistoryReplaced(conv, "clear", 9000, 900, None, "none")) == (
        "context cleared · 9,000 → 900 tokens")
    paused = HistoryReplaced(conv, "auto", 1000, 950, 0.0, "llm", auto_compaction_paused=True)
    assert compaction_rule_text(paused).endswith("auto · auto-compaction paused")


def test_turn_endings() -> None:
    r, buf = make()
    r.handle(MessageDelta("partial ans"))
    r.handle(MessageCompleted(Message.assistant("partial ans", MessageMetadata(cancelled=True))))
    r.handle(TurnFinished("cancelled"))
    r.handle(TurnFinished("error", "the provider is unreachable"))
    r.handle(TurnFinished("max_turns"))
    out = buf.getvalue()
    assert "partial ans" in out and "cancelled" in out
    assert "turn cancelled" in out
    assert "the provider is unreachable" in out and "error" in out
    assert "GOOSE_MAX_TURNS" in out


def test_history_shows_visible_messages_and_marks_compactions() -> None:
    req = ToolRequest("c1", "shell", {"command": "ls"})
    messages = [
        Message.user("first question"),
        Message("assistant", (ThinkingContent("let me look"), TextContent("Looking."), req)),
        Message("user", (ToolResponse("c1", "a.txt\nb.txt"),)),
        Message.assistant("Two files."),
        Message.user("SUMMARY TEXT", MessageMetadata(user_visible=False, is_summary=True)),
        Message.assistant("CONTINUE", MessageMetadata(user_visible=False, is_continuation=True)),
        Message.user("second question"),
    ]
    r, buf = make()
    r.history(messages)
    out = buf.getvalue()
    for text in ("first question", "let me look", "Looking.", "▶ shell  command: ls",
                 "a.txt", "Two files.", "second question"):
        assert text in out
    assert "SUMMARY TEXT" not in out and "CONTINUE" not in out
    assert out.index("Two files.") < out.index("context compacted") < out.index("second q")


def test_plain_look_has_no_boxes_and_no_escape_codes() -> None:
    r, buf = make(plain=True)
    r.user("hi")
    r.handle(MessageDelta("Hello "))
    r.handle(MessageDelta("**there**"))
    r.handle(MessageCompleted(Message.assistant("Hello **there**")))
    tool_turn(r, "ok")
    r.handle(HistoryReplaced(Conversation(), "manual", 2000, 200, 0.001, "llm"))
    out = buf.getvalue()
    assert out.splitlines()[:2] == ["> hi", "Hello **there**"]
    assert "[tool] shell" in out and "| ok" in out
    assert "--- context compacted · 2,000 → 200 tokens · $0.0010 ---" in out
    assert ESC not in out and "╭" not in out


def test_streaming_on_a_terminal_ends_with_the_whole_answer(monkeypatch) -> None:
    monkeypatch.setattr(stream, "REFRESH_INTERVAL_S", 0.0)  # redraw on every chunk
    r, buf = make(terminal=True)
    text = "\n\n".join(f"Paragraph {i}." for i in range(30))
    for i in range(0, len(text), 7):
        r.handle(MessageDelta(text[i:i + 7]))
    r.handle(MessageCompleted(Message.assistant(text)))
    r.handle(TurnFinished("done"))
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buf.getvalue())
    for i in range(30):
        assert f"Paragraph {i}." in plain
    assert "╰" in plain


def test_fold_lines_keeps_short_texts() -> None:
    assert fold_lines("a\nb") == (["a", "b"], 0)
    lines, hidden = fold_lines("\n".join(map(str, range(20))))
    assert hidden == 10 and lines[:6] == ["0", "1", "2", "3", "4", "5"] and lines[-1] == "19"


MARKDOWN_SAMPLE = (
    "# Title\n\nPara one\nwith a lazy line.\n\n## Sub\n\n- a\n- b\n\n  more of b\n\nAfter.\n\n"
    "1. one\n\n2. two\n\n```python\nx = 1\n\n\ny = 2\n```\n\nAfter code\n\n---\n\nruled\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n\n    indented code\n\nEnd."
)


def test_a_long_streamed_answer_draws_exactly_like_the_whole_answer() -> None:
    # Finished blocks are rendered once and kept; the result must not differ from
    # rendering the whole text (what a resumed session shows).
    whole_console = Console(file=io.StringIO(), width=90)
    stream.AssistantStream.print_whole(whole_console, MARKDOWN_SAMPLE, title="t", plain=False)
    console = Console(file=io.StringIO(), width=90)
    streaming = stream.AssistantStream(console, title="t", plain=False, live=False)
    for i in range(0, len(MARKDOWN_SAMPLE), 5):
        streaming.feed(MARKDOWN_SAMPLE[i:i + 5])
        streaming._body_lines()  # what each live redraw computes
    streaming.close()
    assert console.file.getvalue() == whole_console.file.getvalue()


def test_a_resumed_tail_names_the_tool_of_a_result_whose_call_is_cut_off() -> None:
    r, buf = make()
    call = Message("assistant", (ToolRequest("e1", "text_editor", {
        "command": "str_replace", "path": "a.txt", "old_str": "a", "new_str": "b"}),))
    result = Message("user", (ToolResponse("e1", "edited a.txt", diff=(
        "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-a\n+b\n")),))
    r.seed_numbers([call, result])
    r.history([result])  # the tail starts after the call, as draw_resumed may cut it
    out = buf.getvalue()
    assert "text_editor" in out and "✓ tool" not in out


def test_escape_sequences_in_reasoning_and_tool_arguments_read_the_same_live_and_resumed() -> None:
    thinking = f"plan: {ESC}[31mred{ESC}[0m step"
    call = ToolRequest("c1", "shell", {"command": f"echo {ESC}[2Jhi"})
    message = Message("assistant", (ThinkingContent(thinking), TextContent("ok"), call))
    drawn: dict[tuple[bool, str], list[str]] = {}
    for plain in (False, True):
        live, live_buf = make(plain=plain)
        live.handle(ReasoningDelta(thinking))
        live.handle(MessageCompleted(message))
        live.handle(ToolCallStarted(call))
        live.handle(TurnFinished("done"))
        resumed, resumed_buf = make(plain=plain)
        resumed.history([message])
        for how, buf in (("live", live_buf), ("resumed", resumed_buf)):
            drawn[plain, how] = [line for line in buf.getvalue().splitlines()
                                 if "step" in line or "echo" in line]
            assert ESC not in buf.getvalue()
        assert drawn[plain, "live"] == drawn[plain, "resumed"], drawn
        assert any("␛[31mred␛[0m step" in line for line in drawn[plain, "live"]), drawn
        assert any("echo ␛[2Jhi" in line for line in drawn[plain, "live"]), drawn


def test_a_cut_output_says_so_and_where_the_rest_is_even_when_folded(tmp_path: Path) -> None:
    stream = OutputStream("stdout", 2_000, tmp_path)
    stream.feed("".join(f"{i}\n" for i in range(1, 100_001)).encode())
    stream.close()
    output = stream.text(2_000)
    r, buf = make(width=400)  # the marker's long path on one line
    tool_turn(r, output)
    out = buf.getvalue()
    assert "lines hidden" in out and "100000" in out
    assert "output cut" in out  # the header says it is not the whole output
    assert f"full stdout (588,895 characters) in {stream.path}" in out  # the marker, not hidden


def test_a_short_cut_output_is_not_marked_twice(tmp_path: Path) -> None:
    r, buf = make()
    tool_turn(r, "head\n[... output cut at 20 of 900 characters; view a smaller view_range]")
    out = buf.getvalue()
    assert "✓ shell output · 2 lines · output cut" in out
    assert out.count("output cut at 20 of 900 characters") == 1
