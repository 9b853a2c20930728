"""What `run` says of a mention the redaction changed, and of an error line with U+0085."""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.cli.run_output import error_line
from goosectx.env_secrets import tool_output_redactor
from goosectx.mentions import read_mentions

TOKEN = "acmetok_9f8e7d6c5b4a3210FEDCBA"


def test_a_mention_of_a_file_named_with_a_secret_says_to_rename_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_TOKEN", TOKEN)
    (tmp_path / f"{TOKEN}.md").write_text("notes\n")
    task = tool_output_redactor()(f"x @{TOKEN}.md")  # the task is redacted before it is read
    found = read_mentions(task, tmp_path, cap_tokens=1000)
    assert found.attachments == []
    assert found.notices == ["@[REDACTED].md: its name holds a secret: rename it to mention it"
                             " — not attached"]
    assert TOKEN not in "".join(found.notices)


def test_a_missing_file_still_says_no_such_file(tmp_path: Path) -> None:
    found = read_mentions("x @gone.md", tmp_path, cap_tokens=1000)
    assert found.notices == ["@gone.md: no such file in the working dir — not attached"]


@pytest.mark.parametrize("mark", ["\x85", "\u2028", "\u2029", "\x1c", "\x0b"])
def test_an_error_line_is_not_cut_at_a_unicode_line_break(mark: str) -> None:
    output = f"\ncannot open{mark}the file named here\nsecond line\n"
    assert error_line(output) == f"cannot open{mark}the file named here"
