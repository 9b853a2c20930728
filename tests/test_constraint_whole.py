"""A long user constraint reaches the model whole after a compaction.

fixj13's note: a user message's constraint line longer than the facts' 300-character cut was
listed cut under "User constraints" while the message itself was summarised away (not among
the earlier user messages re-sent verbatim): the model had no whole copy of it anywhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import cli
from reliability_support import fill

from goosectx.conversation import Message
from goosectx.store import SessionStore

CONSTRAINT = ("You must never touch the files under vendor/ because "
              + " ".join(f"reason{i}" for i in range(80)) + " END-OF-CONSTRAINT")


def _session(home: Path, work: Path) -> None:
    fill(home, work, name="uc", first=[Message.user("set up the project\n" + CONSTRAINT),
                                       Message.assistant("ok")])


@pytest.mark.parametrize("config, resent", [
    ("context_limit = 8000\n", True),  # the first request (the task) is re-sent whole
    ("context_limit = 8000\nkeep_user_tokens = 0\n", False),  # summarised away: listed whole
    ("context_limit = 30000\nkeep_user_tokens = 20000\n", True),  # re-sent whole: listed cut
], ids=["default", "none-resent", "resent"])
def test_a_long_constraint_line_is_whole_somewhere_in_what_the_model_gets(
        config: str, resent: bool, capsys: pytest.CaptureFixture[str],
        isolated_env: dict[str, Path], work: Path) -> None:
    isolated_env["config"].write_text(config)
    _session(isolated_env["home"], work)
    cli(capsys, "compact", "uc", "--strategy", "extractive")
    store = SessionStore(isolated_env["home"])
    try:
        view = store.load(store.resolve("uc")).conversation.agent_view()
    finally:
        store.close()
    sent = "\n".join(m.text for m in view)
    assert "User constraints" in sent
    assert CONSTRAINT in sent
    listed = sent.split("User constraints (from the transcript)\n\n- ", 1)[1].split("\n")[0]
    assert listed == CONSTRAINT or (resent and listed.endswith("reason27…")), listed[-40:]


def test_a_paste_that_says_only_is_still_cut() -> None:
    """A line past 1,000 characters is rather a paste that happens to say "only": cut, so it
    does not crowd the other facts out of their budget."""
    from goosectx.compaction.facts import merge_facts
    from goosectx.tokens import TokenCounter

    text = merge_facts("", [Message.user("only question " + "lorem " * 400)], max_tokens=2_000,
                       counter=TokenCounter())
    listed = text.split("\n- ", 1)[1].split("\n")[0]
    assert listed.endswith("…") and len(listed) <= 300
