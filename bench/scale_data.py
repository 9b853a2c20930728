"""Generated long sessions for the scale table (``bench/run.py --scale``); data never committed.

A generated session is a tool-using agent at work. Each turn: one user request, then 1–4
rounds of assistant text + one shell call answered by a tool result of 1–50 KB (most results
are small, a few are large, as real ones are), then the assistant's answer. 10,000 messages
come to about 17 MB of text. The text is real (standard-library source, see
``figures.text_of``), so tokenising it costs what real text costs.

``seed_data_dir`` writes one session into a goosectx data dir with the real store (as if
recorded live); ``write_export`` writes the same session as a ``sessions export --format json``
file for the import row. Everything goes under a temporary directory the caller removes.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from figures import ROOT, text_of

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SESSION_NAME = "scale"
ANSWER_MARK = "SCALE-ANSWER-END"
"""The last words of every scripted answer, so a pty reader knows the last chunk arrived."""


def _result_chars(rng: random.Random) -> int:
    """1–50 KB, skewed towards small results (mean about 3.5 KB)."""
    return int(1_000 * 50 ** (rng.random() ** 4.5))


def generate(count: int, *, seed: int = 11) -> Iterator:  # noqa: ANN201 - yields Message
    """``count`` messages of a generated session, oldest first (ends after ``count``)."""
    from goosectx.conversation import (
        Message,
        MessageMetadata,
        TextContent,
        ToolRequest,
        ToolResponse,
    )

    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    made = 0
    turn = 0
    both = MessageMetadata.both()

    def stamp() -> datetime:
        return start + timedelta(seconds=made * 7)

    while made < count:
        turn += 1
        yield Message("user", (TextContent(f"turn {turn}: " + text_of(rng, rng.randint(80, 600))),),
                      both, created=stamp())
        made += 1
        for step in range(rng.randint(1, 4)):
            if made >= count:
                return
            call_id = f"call_{seed}_{turn}_{step}"
            command = "grep -rn " + text_of(rng, 30).split("\n")[0][:24].strip() + " src/"
            yield Message("assistant", (TextContent(text_of(rng, rng.randint(60, 400))),
                                        ToolRequest(call_id, "shell", {"command": command})),
                          both, created=stamp())
            made += 1
            if made >= count:
                return
            yield Message("user", (ToolResponse(call_id, text_of(rng, _result_chars(rng))),),
                          both, created=stamp())
            made += 1
        if made >= count:
            return
        yield Message("assistant", (TextContent(text_of(rng, rng.randint(200, 1_500))),),
                      both, created=stamp())
        made += 1


def make_session(count: int, working_dir: Path):  # noqa: ANN201 - returns Session
    """A :class:`~goosectx.session.Session` named :data:`SESSION_NAME` of ``count`` messages."""
    from goosectx.conversation import Conversation
    from goosectx.session import Session, new_session_id

    messages = list(generate(count))
    created = messages[0].created if messages else datetime.now(UTC)
    updated = messages[-1].created if messages else created
    return Session(new_session_id(created), SESSION_NAME, working_dir.resolve(),
                   "openai/gpt-4o-mini", created, updated, Conversation(messages))


def seed_data_dir(data_dir: Path, count: int, working_dir: Path) -> str:
    """Store a generated session of ``count`` messages in ``data_dir``; return its id.

    Written with the real store in one transaction, then the WAL is checkpointed so every
    reader starts from the same main file.
    """
    from goosectx.store import SessionStore

    session = make_session(count, working_dir)
    store = SessionStore(data_dir)
    try:
        store.save_new_session(session)
        store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        store.close()
    return session.id


def write_export(path: Path, count: int, working_dir: Path) -> int:
    """Write a generated session as a goosectx JSON export; return the file's size in bytes."""
    from goosectx.export import session_to_json

    session = make_session(count, working_dir)
    data = session_to_json(session)
    data["session"]["name"] = None  # imported beside the seeded one: no name clash
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path.stat().st_size


def text_megabytes(count: int) -> float:
    """Megabytes of message text in a generated session of ``count`` messages."""
    total = 0
    for m in generate(count):
        total += len(m.text) + sum(len(r.output) for r in m.tool_responses)
    return total / 1e6


if __name__ == "__main__":
    for n in (1_000, 10_000):
        print(f"{n:,} messages: {text_megabytes(n):.1f} MB of text")
