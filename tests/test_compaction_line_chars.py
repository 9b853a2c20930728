"""The plan sizes lines and messages without building them: the lengths it uses are those of
the lines :func:`flatten` makes and of the text token counting counts."""

from __future__ import annotations

import pytest

from goosectx.attachment import Attachment
from goosectx.compaction.flatten import _lines_and_counted_chars, flatten, kept_and_counted_chars
from goosectx.conversation import (
    Message,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.message_text import message_chars_for_count, message_text_for_count

MESSAGES = [
    Message.user("  fix the parser  \n"),
    Message.user("   "),
    Message("assistant", (TextContent("Looking."), ToolRequest("c1", "shell", {"command": "ls é"}),
                          ToolRequest("c2", "tree", None, "bad json", "{not json"))),
    Message("user", (ToolResponse("c1", "a\nb\n" * 50),)),
    Message("user", (TextContent("and this"), ToolResponse("c2", "out", True))),
    Message("assistant", (ThinkingContent("hmm", signature="sig"), ThinkingContent("no sig"),
                          TextContent("done"), TextContent(""), TextContent("again"))),
    Message("user", (TextContent("see"), Attachment("file", "src/a.py", "text/x-python",
                                                    text="print(1)\n", token_estimate=3),
                     Attachment("image", "s.png", "image/png", data=b"x" * 99,
                                token_estimate=765))),
    Message("assistant", (SystemNotification("inline", "note"), TextContent("after"))),
]


@pytest.mark.parametrize("message", MESSAGES, ids=range(len(MESSAGES)))
def test_the_lengths_are_those_of_the_lines_and_the_counted_text(message: Message) -> None:
    counted = len(message_text_for_count(message))
    assert message_chars_for_count(message) == counted
    kept = [len(line.text) for line in flatten([message]) if not line.is_result]
    assert kept_and_counted_chars(message) == (kept, counted if kept else 0)
    lines = [(line.text, line.tool_id, line.is_result) for line in flatten([message], 20)]
    assert _lines_and_counted_chars(message, 20) == (lines, counted)


def test_a_summarys_first_text_has_the_summary_label() -> None:
    summary = Message.assistant("# Summary\n\nall of it").with_metadata(is_summary=True)
    merged = Message("assistant", (*summary.content, TextContent("continue")),
                     summary.metadata)
    lines = [line.text for line in flatten([merged])]
    assert lines[0].startswith("[summary of the earlier conversation]")
    assert kept_and_counted_chars(merged)[0] == [len(line) for line in lines]


def test_a_long_result_is_cut_the_same_from_its_line_breaks_alone() -> None:
    # A result with "\n" its only line break is cut from the positions of those (no list of
    # its lines): the same head, tail and count of lines cut as from the list, for texts
    # with empty lines, long lines, a last "\n", at every size around the limit.
    import random

    from goosectx.compaction.flatten import _cut_at_newlines, _cut_split, cut_lines

    rnd = random.Random(7)
    compared = cut = 0
    for _ in range(20_000):
        alphabet = rnd.choice(["ab\n", "a\n\n\n", "abcdef \n", "xyz", "é—\n"])
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 60)))
        max_chars = rnd.randint(0, 40)
        if len(text) <= max_chars:
            continue
        fast = _cut_at_newlines(text, max_chars // 2)
        assert fast == _cut_split(text, max_chars // 2), (text, max_chars)
        assert cut_lines(text, max_chars) == fast
        compared += 1
        cut += "lines cut" in fast
    assert compared > 10_000 and cut > 1_000
    # Any other line break: cut from the list, as splitlines breaks it.
    assert cut_lines("a\r\nb\rc\x0bd\u2028" + "e" * 9, 8) == _cut_split(
        "a\r\nb\rc\x0bd\u2028" + "e" * 9, 4) == "a\nb\n[… 3 lines cut …]"


def test_the_floor_of_the_kept_lines_is_that_of_their_lengths() -> None:
    # The "none fits" test of a long session sums each kept line's floor, quoting a line
    # only when its unquoted length leaves it under the cap: the same sum as from the
    # lengths of the lines themselves, for texts quoting lengthens across the cap too.
    import math

    from goosectx.compaction.flatten import kept_floor_tokens
    from goosectx.session import TokenCount
    from goosectx.tokens import TokenCounter

    quoting = [Message.user("x" * n + "\n[user]: y" * k + "<conversation>" * j)
               for n in (1, 20, 40) for k in (0, 1, 3) for j in (0, 2)]
    messages = [*MESSAGES, *quoting]
    for count in (1, 7, 30, 400):
        stored = {m.id: TokenCount(count, "cl100k_base") for m in messages}
        counter = TokenCounter("gpt-4", stored=stored)
        for m in messages:
            lengths, chars = kept_and_counted_chars(m)
            ratio = count / max(1, message_chars_for_count(m))
            for cap in (1, 5, 24, 60):
                expected = sum(min(math.ceil(n * ratio) + 1, cap) for n in lengths)
                assert kept_floor_tokens(m, counter, cap) == expected, (m, count, cap)
    assert kept_floor_tokens(MESSAGES[3], TokenCounter("gpt-4"), 24) == 0  # results only
    assert kept_floor_tokens(MESSAGES[0], TokenCounter("gpt-4"), 24) is None  # no count
