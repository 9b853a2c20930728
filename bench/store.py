"""Session store: append, load, the compaction transaction and peak RSS at 10,000 messages.

Messages average 2 KB of text (real text, see ``figures.make_messages``). Baselines are the
raw ``sqlite3`` work each operation cannot avoid, on a database with the same pragmas:
inserting the pre-serialised row in its own transaction; selecting and ``json.loads``-ing
the rows; one ``executemany`` UPDATE of every row. Peak RSS is measured in a subprocess
(``VmHWM`` from ``/proc/self/status``, else
``resource.getrusage`` — whose ``ru_maxrss`` survives ``exec`` and would include the
forking parent) that loads the session, counts its tokens, builds both views and
runs the compaction transaction, and asserts litellm was never imported; its baseline is
the same interpreter after importing the same modules.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import ROOT, Figure, make_messages, quick_arg

MESSAGES = 10_000
AVG_CHARS = 2_000
APPEND_MAX_MS = 2.0
LOAD_MAX_S = 0.5
COMPACT_TX_MAX_S = 0.3
PEAK_RSS_MAX_MB = 200.0


def _raw_db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=5000"):
        conn.execute(f"PRAGMA {pragma}")
    conn.execute("CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, position REAL,"
                 " role TEXT, created TEXT, content_json TEXT, metadata_json TEXT)")
    conn.execute("CREATE INDEX by_session ON messages(session_id, position)")
    return conn


def _append(tmp: Path, messages: list) -> tuple[float, float]:
    """(ours, raw) mean seconds per appended message."""
    from goosectx.store import SessionStore

    store = SessionStore(tmp / "append")
    session = store.create_session(tmp)
    start = time.perf_counter()
    for m in messages:
        store.append_message(session.id, m)
    ours = (time.perf_counter() - start) / len(messages)
    store.close()

    rows = [SessionStore._row("s", float(i + 1), m) for i, m in enumerate(messages)]
    conn = _raw_db(tmp / "raw-append.db")
    start = time.perf_counter()
    for row in rows:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO messages VALUES (?,?,?,?,?,?,?)", row)
        conn.execute("COMMIT")
    raw = (time.perf_counter() - start) / len(rows)
    conn.close()
    return ours, raw


def _seed(tmp: Path, messages: list) -> tuple[Path, str]:
    """A data dir holding one session of ``messages`` (WAL checkpointed into the main file)."""
    from goosectx.conversation import Conversation
    from goosectx.session import Session, new_session_id
    from goosectx.store import SessionStore

    data = tmp / "seed"
    store = SessionStore(data)
    now = messages[0].created
    session = Session(new_session_id(now), "bench", tmp, "bench/model", now, now,
                      Conversation(list(messages)))
    store.save_new_session(session)
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return data, session.id


def _load(data: Path, session_id: str, repeat: int) -> tuple[float, float]:
    from goosectx.store import SessionStore

    store = SessionStore(data)
    ours, raw = [], []
    for _ in range(repeat + 1):
        start = time.perf_counter()
        store.load(session_id)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        rows = store._conn.execute(
            "SELECT id, role, created, content_json, metadata_json FROM messages"
            " WHERE session_id=? ORDER BY position", (session_id,)).fetchall()
        for r in rows:
            json.loads(r[3])
            json.loads(r[4])
        raw.append(time.perf_counter() - start)
    store.close()
    return statistics.median(ours[1:]), statistics.median(raw[1:])


def compacted(conversation):  # noqa: ANN001, ANN201 - bench helper
    """``conversation`` as a compaction leaves it: every message hidden from the model, plus
    an agent-only summary, continuation and copy of the last user request."""
    from goosectx.conversation import Conversation, Message, MessageMetadata

    hidden = [m.with_metadata(agent_visible=False) for m in conversation.messages]
    extra = [Message.user("# Conversation Summary\n\n## User intent\nbench",
                          MessageMetadata(user_visible=False, is_summary=True)),
             Message.assistant("continue", MessageMetadata(user_visible=False,
                                                           is_continuation=True)),
             Message.user("the last request", MessageMetadata.agent_only())]
    return Conversation(hidden + extra)


def _compaction_tx(tmp: Path, data: Path, session_id: str, repeat: int) -> tuple[float, float]:
    from goosectx.store import SessionStore
    from goosectx.usage import LedgerEntry, Usage

    ours, raw = [], []
    for i in range(repeat):
        copy = tmp / f"tx{i}"
        shutil.copytree(data, copy)
        store = SessionStore(copy)
        new = compacted(store.load(session_id).conversation)
        entry = LedgerEntry(Usage.of(100_000, 2_000, 0.01), "bench/model", "compaction")
        start = time.perf_counter()
        store.replace_history(session_id, new, ledger_entry=entry, current_tokens=5_000,
                              current_is_estimate=True)
        ours.append(time.perf_counter() - start)
        meta = [(json.dumps({"user_visible": True, "agent_visible": False}), m.id)
                for m in new.messages[:-3]]
        start = time.perf_counter()
        store._conn.execute("BEGIN IMMEDIATE")
        store._conn.executemany("UPDATE messages SET metadata_json=? WHERE id=?", meta)
        store._conn.execute("COMMIT")
        raw.append(time.perf_counter() - start)
        store.close()
        shutil.rmtree(copy)
    return statistics.median(ours), statistics.median(raw)


RSS_SCRIPT = """
import resource, sys, json
from pathlib import Path
from goosectx.store import SessionStore
from goosectx.tokens import TokenCounter
from goosectx.usage import LedgerEntry, Usage
sys.path.insert(0, {bench!r})
from store import compacted
store = SessionStore(Path({data!r}))
if {work!r}:
    session = store.load({sid!r})
    counter = TokenCounter(None)
    counter.count_messages(session.conversation.agent_messages())
    session.conversation.agent_view()
    session.conversation.user_view()
    store.replace_history({sid!r}, compacted(session.conversation),
                          ledger_entry=LedgerEntry(Usage.of(1, 1), "m", "compaction"))
else:
    TokenCounter(None).count_text("warm the encoder")
assert "litellm" not in sys.modules, "litellm was imported"
def peak_kb():
    # VmHWM is this process image's peak; ru_maxrss would include the forking parent's.
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"peak_mb": peak_kb() / 1024}}))
"""


def _peak_rss_mb(tmp: Path, data: Path, session_id: str, work: bool) -> float:
    copy = tmp / ("rss" if work else "rss-base")
    shutil.copytree(data, copy)
    code = RSS_SCRIPT.format(bench=str(ROOT / "bench"), data=str(copy), sid=session_id,
                             work=work)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return float(json.loads(out.stdout.strip().splitlines()[-1])["peak_mb"])


def run(quick: bool = False) -> list[Figure]:
    """Measure append, load, compaction transaction and peak RSS."""
    count = 2_000 if quick else MESSAGES
    repeat = 3 if quick else 5
    messages = make_messages(count, AVG_CHARS)
    size = f"{count:,}"
    with tempfile.TemporaryDirectory(prefix="goosectx-bench-") as name:
        tmp = Path(name)
        append_s, raw_append_s = _append(tmp, messages)
        data, sid = _seed(tmp, messages)
        load_s, raw_load_s = _load(data, sid, repeat)
        tx_s, raw_tx_s = _compaction_tx(tmp, data, sid, repeat)
        rss = _peak_rss_mb(tmp, data, sid, True)
        rss_base = _peak_rss_mb(tmp, data, sid, False)
    text_mb = sum(len(m.text) + sum(len(r.output) for r in m.tool_responses)
                  for m in messages) / 1e6
    return [
        Figure(f"append 1 msg (mean of {size})", append_s * 1e3, "ms",
               "raw INSERT, own transaction", raw_append_s * 1e3,
               f"≤ {APPEND_MAX_MS:g} ms", append_s * 1e3 <= APPEND_MAX_MS),
        Figure(f"load {size} msgs ({text_mb:.0f} MB text)", load_s, "s",
               "raw SELECT + json.loads", raw_load_s, f"≤ {LOAD_MAX_S:g} s",
               load_s <= LOAD_MAX_S),
        Figure(f"compaction transaction @ {size}", tx_s, "s",
               "raw UPDATE of every row", raw_tx_s, f"≤ {COMPACT_TX_MAX_S:g} s",
               tx_s <= COMPACT_TX_MAX_S),
        Figure(f"peak RSS, {size}-msg session", rss, "MB", "python + goosectx imports",
               rss_base, f"≤ {PEAK_RSS_MAX_MB:g} MB, no litellm", rss <= PEAK_RSS_MAX_MB,
               note="peak RSS: load + token count + agent/user view + compaction transaction"),
    ]


if __name__ == "__main__":
    from run import print_table

    sys.exit(print_table(run(quick_arg())))
