"""``/history user`` and ``--history`` draw exactly what rich's own wrapping and parsing draw.

The transcript's drawing skips work rich would do for nothing (a tool result's rows wrapped a
second time, a Markdown parser built for every answer: ``bench/history_draw.py``). These
tests draw a varied session both ways, the fast one and rich doing all of it, and compare
the bytes: same lines, same folding, same ``/show`` numbers, same colours and stand-ins.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest

from goosectx.cli import result_view, stream
from goosectx.cli.render import TranscriptRenderer
from goosectx.cli.safe_console import safe_console
from goosectx.conversation import (
    Conversation,
    Message,
    MessageMetadata,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.shell_escape import escape_message

ANSWER = """Here is the plan, with **bold**, *em*, `code` and ~~struck~~ words:

1. read `src/app.py`
2. fix the bug

| file | lines |
|------|------:|
| app.py | 120 |

```python
def f(x):
    return x * 2  # a comment long enough to be wrapped inside a narrow panel, surely
```

    indented code block
    second line

> a quote with a [link](https://example.com/a?b=c) and ![an image](https://example.com/i.png)

# A heading
---
日本語のテキスト、幅の広い文字が折り返される。 🎉 emoji too
"""

OUTPUTS = [
    "",
    "one line",
    "tab\tseparated\tcolumns",
    "trailing spaces   \n  leading\n\n\nblank lines above",
    "x" * 300,  # one line wider than any terminal here
    "word " * 60,
    "\n".join(f"line {i}: " + "abc " * (i % 30) for i in range(80)),  # folded
    "\x1b[31mred\x1b[0m text, a bell \x07 and a CR\r\nnext",
    "日本語の出力 " * 30 + "\nçà et là\n" + "🎉" * 70,
    "\u202eright-to-left override\u202c and zero\u200bwidth",
    "[... 12000 characters cut: the whole output is in /tmp/out.txt ...]",
    "\n".join(["head"] * 7 + ["[... 5 lines cut ...]"] + ["more"] * 30),
]


def _session() -> Conversation:
    when = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
    both = MessageMetadata.both()
    messages = [Message.user("fix the bug in `app.py`, please\nsecond line \x1b[2J of the prompt")]
    for i, output in enumerate(OUTPUTS):
        call = ToolRequest(f"c{i}", "shell" if i % 3 else "a_very_long_tool_name_" * (i % 4),
                           {"command": f"grep -rn thing{i} src/", "extra": "v " * (i * 9)})
        content: tuple = (ThinkingContent("pondering\n" * (i % 5 + 1)), TextContent(ANSWER),
                          call) if i % 4 == 0 else (TextContent(f"step {i}"), call)
        messages.append(Message("assistant", content, both, created=when))
        messages.append(Message("user", (ToolResponse(f"c{i}", output, is_error=i % 5 == 1),),
                                both, created=when))
    messages.append(escape_message("ls -la", "\n".join(f"file{i}" for i in range(40)),
                                   is_error=False, to_model=True))
    messages.append(Message("assistant", (SystemNotification("inline", "a notice"),), both))
    messages.append(Message.assistant(ANSWER.replace("plan", "answer")))
    return Conversation(messages)


def _drawn(width: int) -> str:
    out = io.StringIO()
    console = safe_console(file=out, width=width, force_terminal=True,
                           color_system="truecolor", highlight=False)
    renderer = TranscriptRenderer(console)
    conversation = _session()
    renderer.seed_numbers(conversation)
    renderer.history(conversation)
    return out.getvalue()


@pytest.mark.parametrize("width", [10, 20, 40, 80, 110, 200])
def test_history_draws_what_rich_draws_doing_all_the_work(
        width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _drawn(width)
    # rich doing everything: every row wrapped by rich, twice, and a parser for every text
    monkeypatch.setattr(result_view, "_fits", lambda line, room: False)
    monkeypatch.setattr(result_view, "_prewrapped", lambda header, room: False)
    fresh_class = stream.markdown_class.__wrapped__  # a new class: rich's __init__ every time
    monkeypatch.setattr(stream, "markdown_class", lambda: fresh_class())
    slow = _drawn(width)
    assert fast == slow
    if width >= 80:  # (narrower, these wrap)
        assert "#9 (/show 9)" in fast and "70 lines hidden" in fast  # folded, numbered
    assert "\x1b[2J" not in fast and "\x07" not in fast  # outside text made safe


def test_one_parser_parses_as_riches_own_for_every_text() -> None:
    cls = stream.markdown_class()
    cls("warm the settings up", hyperlinks=False)
    for text in (ANSWER, "", "plain", "[a](b) ![c](d)", "| a |\n|---|\n| b |", "~~x~~"):
        fresh = stream.markdown_class.__wrapped__()(text, hyperlinks=False)
        shared = cls(text, hyperlinks=False)
        assert vars(shared).keys() == vars(fresh).keys()
        assert [t.as_dict() for t in shared.parsed] == [t.as_dict() for t in fresh.parsed]
        assert {k: v for k, v in vars(shared).items() if k != "parsed"} == {
            k: v for k, v in vars(fresh).items() if k != "parsed"}
