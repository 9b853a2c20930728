"""aider chat histories, imported and exported as a user would (``sessions import/export``).

The fixture ``fixtures/aider/edit-blocks.aider.chat.history.md`` is written the way aider's
``InputOutput`` appends to the file (``> `` notes and ``#### `` user lines ending in two
spaces, each reply as a blank line, the reply, two blank lines) in aider's default ``diff``
edit format: SEARCH/REPLACE blocks in fenced code, one block quoting Markdown with a ``####``
heading and a ``>`` quote, and a reply cut off by the output limit inside its fence.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli

FIXTURE = Path(__file__).parent / "fixtures" / "aider" / "edit-blocks.aider.chat.history.md"


def exported(capsys: pytest.CaptureFixture[str], path: Path) -> list[dict]:
    out, _ = cli(capsys, "sessions", "import", str(path))
    session_id = out.split()[1].rstrip(":")
    out, _ = cli(capsys, "sessions", "export", session_id, "-f", "json")
    return list(json.loads(out)["messages"])


def test_search_replace_blocks_stay_in_the_reply_the_model_sees(
        capsys: pytest.CaptureFixture[str]) -> None:
    messages = exported(capsys, FIXTURE)
    seen = [(m["role"], m["content"][0]["text"]) for m in messages
            if m.get("metadata", {}).get("agent_visible", True)]
    assert [role for role, _ in seen] == ["user", "assistant"] * 3
    first_reply = seen[1][1]
    assert first_reply.startswith("I'll fix the typo and add a usage section.\n\napp.py\n")
    assert first_reply.endswith("Then run it:\n\n```bash\npython app.py\n```")
    assert first_reply.count(">>>>>>> REPLACE") == 2
    assert "\n#### Usage\n\n> Run it with `python app.py`.\n>>>>>>> REPLACE\n```\n" in first_reply
    assert first_reply.count("```") % 2 == 0  # every fence the model sees is closed
    # a reply cut off inside its fence does not swallow aider's notes or the next user line
    assert seen[3][1] == 'main.py\n```python\n<<<<<<< SEARCH\n=======\nprint("hello")'
    assert [text for role, text in seen if role == "user"] == [
        "fix the greeting in app.py\nand document it", "now rename it to main.py", "thanks"]
    notes = [m["content"][0]["text"].splitlines()[0] for m in messages
             if not m.get("metadata", {}).get("agent_visible", True)]
    assert notes == ["Aider v0.85.2", "Tokens: 2.1k sent, 95 received. Cost: $0.01 message, "
                     "$0.01 session.", "Model gpt-4o has hit a token limit!"]


def test_the_testers_file_keeps_its_replace_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "plain.aider.chat.history.md"
    path.write_text("# aider chat started at 2024-01-02 10:00:00\n\n#### fix the bug\n\n"
                    "Sure, edit:\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\nold\n=======\nnew\n"
                    ">>>>>>> REPLACE\n```\n\n> Applied edit to src/app.py\n\n#### thanks\n\nok\n")
    messages = exported(capsys, path)
    assert [(m["role"], m["content"][0].get("text")) for m in messages] == [
        ("user", "fix the bug"),
        ("assistant", "Sure, edit:\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\nold\n=======\nnew\n"
                      ">>>>>>> REPLACE\n```"),
        ("assistant", "Applied edit to src/app.py"), ("user", "thanks"), ("assistant", "ok")]
