"""The REPL's input history file holds no secret of the environment (cli/prompt.InputHistory).

A key typed in a ``!command`` is stored redacted in the session; the history file had it as
typed (tester round 11b). The up arrow recalls it redacted too (``!!`` runs it as typed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.cli.prompt import InputHistory

KEY = "sk-test-LEAKCHECK123"


def test_a_secret_typed_at_the_prompt_is_written_to_the_history_file_redacted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    history = InputHistory(tmp_path / "repl_history")
    history.append_string(f"!OPENAI_API_KEY={KEY} echo hi")
    history.append_string("fix the lexer")
    text = (tmp_path / "repl_history").read_text()
    assert KEY not in text
    assert "echo hi" in text and "fix the lexer" in text
    assert "!OPENAI_API_KEY=[REDACTED] echo hi" in history.get_strings()  # the up arrow too
