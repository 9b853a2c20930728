"""``/search WORDS`` in the REPL: where in this session's transcript the words are.

Each matching message (what the user saw: requests and answers, not tool output or summaries)
is one line: its place in the session (``#N of M``), its time, who wrote it and a short
sanitised excerpt. The full-text index answers where the session is indexed; otherwise (no
FTS5 in this SQLite, an import not indexed yet) a plain scan of the transcript does.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from test_repl import CTRL_D, ENTER, World, world  # noqa: F401 - the REPL fixture

from goosectx.conversation import Message, MessageMetadata, ToolRequest, ToolResponse
from goosectx.store import SessionStore

T0 = datetime(2026, 3, 4, 5, 6, tzinfo=UTC)


def stamp(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def seed(world: World, *messages: Message) -> None:  # noqa: F811 - the fixture's type
    for message in messages:
        world.store.append_message(world.session.id, message)
    world.session = world.stored()


def lexer_session(world: World) -> None:  # noqa: F811
    seed(world,
         Message("user", Message.user("Fix the tokenizer crash").content, created=T0),
         Message("assistant", (ToolRequest("c1", "shell", {"command": "pytest -q"}),)),
         Message("user", (ToolResponse("c1", "zebracorn failed in test_io.py"),)),
         Message("assistant", Message.assistant(
             "The lexer skipped the **empty** buffer; fixed in lexer.py.").content,
             created=T0.replace(minute=9)),
         Message.user("# Conversation Summary\nwombat lexer", MessageMetadata(
             user_visible=False, is_summary=True, compaction_id="k1")))


def line_with(out: str, text: str) -> str:
    (line,) = [ln for ln in out.splitlines() if text in ln]
    return line


@pytest.mark.parametrize("index", [True, False], ids=["fts5", "scan"])
def test_search_shows_where_each_match_is_in_this_session(
        world: World, monkeypatch: pytest.MonkeyPatch, index: bool) -> None:  # noqa: F811
    if not index:  # as with a SQLite without FTS5: the transcript is scanned
        monkeypatch.setattr(SessionStore, "search_available", lambda self: False)
    lexer_session(world)
    out = world.run("/search lexer" + ENTER + "/search TOKENIZER crash" + ENTER
                    + "/search zebracorn" + ENTER + "/search wombat" + ENTER + CTRL_D)
    hit = line_with(out, "4 of 5")
    assert "#4" not in hit  # '#N' is a tool output's number (/show N), not a message's
    assert stamp(T0.replace(minute=9)) in hit and "goosectx" in hit
    assert "The lexer skipped the **empty** buffer" in hit
    assert "1 message of this session matches 'lexer'" in out
    hit = line_with(out, "1 of 5")
    assert stamp(T0) in hit and "you" in hit and "Fix the tokenizer crash" in hit
    # tool output and summaries are not what the user saw
    assert "No message of this session mentions 'zebracorn'" in out
    assert "No message of this session mentions 'wombat'" in out
    assert world.provider.requests == []


def test_many_matches_show_the_newest_with_the_count(world: World) -> None:  # noqa: F811
    seed(world, *(Message.user(f"note {i}: the marmot moved") for i in range(1, 31)))
    out = world.run("/search marmot" + ENTER + CTRL_D)
    assert "30 messages of this session match 'marmot'; the newest 20 are shown" in out
    assert "30 of 30" in out and "11 of 30" in out and "10 of 30" not in out


def test_search_excerpts_are_sanitised_and_short(world: World) -> None:  # noqa: F811
    long = " ".join(f"w{i}" for i in range(400))
    seed(world, Message.assistant(f"look \x1b]52;c;ZWNobw==\x07 at {long} marmot {long}"))
    out = world.run("/search marmot" + ENTER + CTRL_D)
    assert "\x1b]52" not in out and "\x07" not in out
    hit = line_with(out, "1 of 1")
    assert "marmot" in hit and len(hit) < 200 and "…" in hit


def test_search_without_words_says_how_and_help_lists_it(world: World) -> None:  # noqa: F811
    out = world.run("/search" + ENTER + "/search ..." + ENTER + "/help" + ENTER + CTRL_D)
    assert "/search needs words to find — e.g. /search parser bug" in " ".join(out.split())
    assert "/search" in line_with(out, "search this session")
    assert world.provider.requests == []
