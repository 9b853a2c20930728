"""Text UTF-8 cannot encode (lone surrogates) is stored with U+FFFD, never refused.

A byte that is not UTF-8, decoded with ``surrogateescape`` (typed, piped, in argv, a file
name), or a ``\\udXXX`` escape in JSON (an MCP tool's output, an import, a model reply) gives
a ``str`` holding a lone surrogate; writing it once raised ``UnicodeEncodeError`` out of the
store and ended goosectx with a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.conversation import Conversation, Message
from goosectx.parts import ToolRequest, ToolResponse
from goosectx.store import SessionStore

BAD = "caf\udce9 \ud83d"
SHOWN = "caf\ufffd \ufffd"


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore(tmp_path / "data")
    yield s
    s.close()


def test_a_typed_message_with_a_lone_surrogate_is_stored_with_a_replacement(store) -> None:
    session = store.create_session(Path("."))
    store.append_message(session.id, Message.user(BAD))
    store.append_message(session.id, Message.assistant("after"))
    loaded = store.load(session.id)
    assert [m.text for m in loaded.conversation] == [SHOWN, "after"]
    assert store.list_sessions()[0].title == SHOWN


def test_a_tool_response_and_a_whole_history_are_stored_with_replacements(store) -> None:
    session = store.create_session(Path("."))
    store.append_message(session.id, Message.user("list"))
    call = Message("assistant", (ToolRequest("c1", "fs__list", {"path": BAD}),))
    result = Message("user", (ToolResponse("c1", f"out: {BAD}"),))
    store.replace_history(session.id, Conversation(
        [*store.load(session.id).conversation.messages, call, result,
         Message.assistant("fine"), Message.assistant(BAD)]))
    loaded = list(store.load(session.id).conversation)
    assert loaded[1].tool_requests[0].arguments == {"path": SHOWN}
    assert loaded[2].tool_responses[0].output == f"out: {SHOWN}"
    assert [m.text for m in loaded[3:]] == ["fine", SHOWN]


def test_an_imported_session_with_lone_surrogates_is_saved_whole(store, tmp_path) -> None:
    session = store.create_session(tmp_path, name=f"n{BAD}", metadata={"source_path": BAD})
    store.rename(session.id, f"r{BAD}")
    imported = store.create_session(Path("."))
    store.remove(imported.id)
    imported.conversation = Conversation(
        [Message.user("a"), Message.assistant(BAD), Message.user("b"), Message.assistant(BAD)])
    store.save_new_session(imported)
    texts = [m.text for m in store.load(imported.id).conversation]
    assert texts == ["a", SHOWN, "b", SHOWN]
    first = store.load(session.id)
    assert first.name == f"r{SHOWN}" and first.metadata["source_path"] == SHOWN
