"""End to end, as a user runs it: ``sessions import`` a corpus file, then
``compact SESSION --strategy extractive --max-summary-tokens N``.

After the compaction the model sees only the summary (within N tokens), the continuation and
any preserved request; the summary names the newest request and every changed path; no tool
pair is broken; every original message is still there and as visible to the user as before.
Skips visibly when the corpus is absent.
"""

from __future__ import annotations

import json

import pytest
from cli_support import cli as run_and_check
from test_import_corpus import FILES, norm, raw_file, tool_parts

from goosectx.config import load_settings
from goosectx.store import SessionStore
from goosectx.tokens import TokenCounter

MAX_SUMMARY_TOKENS = 1500
COUNTER = TokenCounter()


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    return run_and_check(capsys, *args)[0]


@pytest.mark.parametrize("name", sorted(FILES))
def test_import_then_extractive_compact(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = raw_file(name)
    printed = cli(capsys, "sessions", "import", str(path))
    ids = [line.split()[1].rstrip(":") for line in printed.splitlines()]
    expected = FILES[name][1](path)  # type: ignore[operator]
    assert len(ids) == len(expected)
    store = SessionStore(load_settings(None).data_dir)
    try:
        for session_id, exp in zip(ids, expected, strict=True):
            before = store.load(session_id)
            result = json.loads(cli(capsys, "compact", session_id, "--strategy", "extractive",
                                    "--max-summary-tokens", str(MAX_SUMMARY_TOKENS), "--json"))
            assert result["strategy"] == "extractive"
            assert result["tokens_after"] < result["tokens_before"] or len(
                before.conversation) < 12
            after = store.load(session_id)
            # nothing lost, the user still sees what they saw
            kept = after.conversation.messages[: len(before.conversation)]
            assert [m.id for m in kept] == [m.id for m in before.conversation]
            assert [m.metadata.user_visible for m in kept] == [
                m.metadata.user_visible for m in before.conversation]
            assert not any(m.metadata.agent_visible for m in kept)
            # the model's view: summary within budget, continuation, preserved request if any
            view = after.conversation.agent_messages()
            summary = [m for m in view if m.metadata.is_summary]
            assert len(summary) == 1
            assert COUNTER.count_text(summary[0].text) <= MAX_SUMMARY_TOKENS
            others = [m for m in view if not m.metadata.is_summary]
            assert [m.metadata.is_continuation for m in others][:1] == [True]
            assert all(m.is_plain_user_text for m in others[1:])
            requests, responses = tool_parts(after.conversation.agent_view())
            assert requests == responses == []
            flat = norm(summary[0].text.replace("\\", "/"))
            assert norm(exp.newest_request)[:40] in flat
            for changed in exp.changed:
                assert norm(changed.replace("\\", "/")) in flat
    finally:
        store.close()


def test_sessions_import_names_every_session_of_a_goose_db(capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    path = raw_file("goose/lantern-goose-1.45-sessions.db")
    printed = cli(capsys, "sessions", "import", str(path), "--name", "lantern")
    assert [line.split()[2] for line in printed.splitlines()] == [
        "(lantern-1):", "(lantern-2):", "(lantern-3):", "(lantern-4):"]
    one = cli(capsys, "sessions", "import", str(path), "--session", "20260805_3",
              "--name", "third")
    assert one.startswith("imported ") and "(third): 9 messages, 4 tool calls" in one
    listed = json.loads(cli(capsys, "sessions", "list", "--json"))
    assert sorted(r["name"] for r in listed) == ["lantern-1", "lantern-2", "lantern-3",
                                                 "lantern-4", "third"]
