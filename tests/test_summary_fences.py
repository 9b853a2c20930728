"""A summary field cannot open a block that swallows what follows it (test29b MEDIUM).

The summariser returned ``"pending_tasks": ["```\\nclose fence"]``: after ``/compact`` the
model's view read ``- ```\\nclose fence\\n\\n## Current work …`` and then the re-sent user
messages, so the user's constraint and latest request reached the model inside a code block
that never closed. A fence (or an HTML comment) a field leaves open is now escaped; a code
block a field closes itself is kept as written; a list item's later lines are indented under
it; a path is one code span, whatever backticks or line breaks it holds.
"""

from __future__ import annotations

import json
import re

from compaction_support import REQUEST, collect, make_session, manager
from markdown_it import MarkdownIt

from goosectx.compaction.blocks import contained
from goosectx.compaction.summary import FileNote, StructuredSummary, render_markdown
from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider

CONSTRAINT = "CONSTRAINT: keep python 3.8 compat"
REPLY = json.dumps({"user_intent": "port the tool", "files": [
    {"path": "a`b``c.py", "summary": "edited\n```", "key_code": "```\nx = 1"}],
    "pending_tasks": ["```\nclose fence", "run:\n```bash\npytest -q\n```\nthen report"],
    "current_work": "porting\n<!-- the rest", "next_step": "~~~ run it",
    "notes": ["```text", {"k": "```\nv"}]})


def code_texts(markdown: str) -> list[str]:
    """The text CommonMark reads as code or raw HTML blocks in ``markdown``."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [t.content for t in tokens if t.type in ("fence", "code_block", "html_block")]


def fence_left_open(markdown: str) -> bool:
    """Whether a reader pairing fences at any indentation ends ``markdown`` inside one."""
    fence = ""
    for line in markdown.splitlines():
        if not fence:
            m = re.match(r"\s*(?:[-*+]\s+)?(`{3,}(?!.*`)|~{3,})", line)
            fence = m.group(1) if m else ""
        elif re.fullmatch(rf"\s*{fence[0]}{{{len(fence)},}}\s*", line):
            fence = ""
    return bool(fence)


def test_after_a_compaction_the_users_messages_are_outside_any_code_block() -> None:
    session = make_session([Message.user(CONSTRAINT), Message.assistant("noted " * 200),
                            Message.user("second request"), Message.assistant("done " * 100),
                            Message.user("third request"), Message.assistant("done too")])
    collect(manager(session, ScriptedProvider([REPLY]), keep_recent_ratio=0)
            .compact(REQUEST))
    view = "\n\n".join(m.text for m in session.conversation.agent_view())
    assert CONSTRAINT in view and "second request" in view
    blocks = code_texts(view)
    assert not any(CONSTRAINT in b or "second request" in b or "## " in b for b in blocks), blocks
    assert blocks == ["```\nx = 1\n", "pytest -q\n"]  # the key code, the model's own block
    assert not fence_left_open(view)
    for kept in ("close fence", "then report", "the rest", "run it"):  # words kept, readable
        assert kept in view


def test_a_field_that_leaves_a_fence_open_has_it_escaped_in_place() -> None:
    text = render_markdown(StructuredSummary(pending_tasks=["```\nclose fence"],
                                             current_work="x"))
    assert "## Pending tasks\n\n- \\```\n  close fence\n\n## Current work\n\nx\n" in text


def test_a_closed_code_block_in_a_field_is_kept_as_written() -> None:
    steps = "run:\n```bash\npytest -q\n```\nthen report"
    text = render_markdown(StructuredSummary(next_step=steps, pending_tasks=[steps]))
    assert f"## Next step\n\n{steps}\n" in text
    assert "- run:\n  ```bash\n  pytest -q\n  ```\n  then report\n" in text
    assert code_texts(text) == ["pytest -q\n", "pytest -q\n"]


def test_a_fence_read_at_any_indentation_is_paired_too() -> None:
    # CommonMark takes neither for a fence (four spaces, a tab); a reader may take both.
    for text in ("    ```\nindented", "\t~~~\ntabbed", "```\ncode\n     ```"):
        out = contained(text)
        assert not fence_left_open(out), out
        assert not any("\n" in b.strip() for b in code_texts(out)), out


def test_a_path_with_backticks_or_a_line_break_is_one_code_span() -> None:
    text = render_markdown(StructuredSummary(files=[FileNote("a`b\n```.py", "edited")],
                                             next_step="y"))
    assert "- ````a`b\\n```.py````: edited\n" in text
    assert code_texts(text) == []


def test_text_without_an_open_block_is_unchanged() -> None:
    for text in ("plain", "use `x` and ``y``", "a < b and c > d", "```one line```",
                 "<!-- closed -->", "<pre>\nkept\n</pre>", "~~~\ncode\n~~~~"):
        assert contained(text) == text
