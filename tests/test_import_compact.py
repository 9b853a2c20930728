"""End to end, as a user runs it: ``sessions import`` a corpus file, then
``compact SESSION --strategy extractive --max-summary-tokens N``.

After the compaction the model sees the summary (within N tokens) first, then re-sent user
messages, the continuation and the verbatim tail; the newest request and every changed path are
in the summary or the tail; no tool pair is broken; every original message is still there and as visible to the user as before.
Skips visibly when the corpus is absent.
"""

from __future__ import annotations

import json

import pytest
from cli_support import cli as run_and_check
from cli_support import run_cli
from test_import_corpus import FILES, norm, raw_file, tool_parts

from goosectx.compaction.request import flatten
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
            code, out, err = run_cli(capsys, "compact", session_id, "--strategy", "extractive",
                                     "--max-summary-tokens", str(MAX_SUMMARY_TOKENS), "--json")
            if code == 1 and "nothing changed" in err:
                # A session already about as small as its summary is left alone (a compaction
                # never makes the view larger), with one line saying so.
                kept = store.load(session_id).conversation.agent_messages()
                assert [m.id for m in kept] == [m.id for m in before.conversation.agent_messages()]
                assert len(err.strip().splitlines()[-1]) < 300
                continue
            assert code == 0, err
            result = json.loads(out)
            assert result["strategy"] == "extractive"
            assert result["tokens_after"] < result["tokens_before"] or len(
                before.conversation) < 12
            after = store.load(session_id)
            # nothing lost, the user still sees what they saw, in the same order
            stored = {m.id: m for m in after.conversation}
            assert [m.id for m in after.conversation if m.id in {b.id for b in
                    before.conversation}] == [m.id for m in before.conversation]
            assert all(stored[m.id].metadata.user_visible == m.metadata.user_visible
                       for m in before.conversation)
            # Rule changed on purpose (issue 12): the model reads the summary first, then
            # re-sent user messages, the continuation and the verbatim tail (tool pairs whole).
            view = after.conversation.agent_messages()
            summary = [m for m in view if m.metadata.is_summary]
            assert len(summary) == 1 and view[0] is summary[0]
            assert COUNTER.count_text(summary[0].text) <= MAX_SUMMARY_TOKENS
            assert any(m.metadata.is_continuation for m in view)
            requests, responses = tool_parts(after.conversation.agent_view())
            assert sorted(requests) == sorted(responses)
            seen = norm("\n".join(line.text for line in flatten(view)).replace("\\", "/"))
            assert norm(exp.newest_request)[:40] in seen
            for changed in exp.changed:  # in the summary, or verbatim in the tail
                assert norm(changed.replace("\\", "/")) in seen
    finally:
        store.close()


def test_sessions_import_names_every_session_of_a_goose_db(capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    path = raw_file("goose/lantern-goose-1.45-sessions.db")
    printed = cli(capsys, "sessions", "import", str(path), "--name", "lantern")
    assert [line.split()[2] for line in printed.splitlines()] == [
        "(lantern-1):", "(lantern-2):", "(lantern-3):", "(lantern-4):"]
    code, _, err = run_cli(capsys, "sessions", "import", str(path), "--session", "20260805_3")
    assert code == 2 and "goose session 20260805_3, already imported as session" in err, err
    assert "(lantern-3)" in err and "--force" in err
    one = cli(capsys, "sessions", "import", str(path), "--session", "20260805_3",
              "--name", "third", "--force")
    assert one.startswith("imported ") and "(third): 9 messages, 4 tool calls" in one
    listed = json.loads(cli(capsys, "sessions", "list", "--json"))
    assert sorted(r["name"] for r in listed) == ["lantern-1", "lantern-2", "lantern-3",
                                                 "lantern-4", "third"]
