"""``sessions list`` on a database of many large sessions: its context column costs no load.

``python bench/sessions_list.py [--sessions N] [--messages M]`` stores N generated sessions of
M messages (``figures.make_messages``: ~2 KB of text each; 40 × 2,500 is ~340 MB), each with
the context figure a REPL or ``run`` keeps in its state — but one in four, as a session last
used by an older goosectx, whose last message is then read to list its report — and times,
each the best of 5: the rows (``SessionStore.list_sessions``), the rows with every context
cell (``listed_context``: the limit looked up once per model), the same once those sessions
have no report either (listed ``—``, no extra read), and a whole ``goosectx sessions list``
process (best of 3). For scale it times what the list does not do: load one session and count
its agent view (``TokenCounter.breakdown``), which a figure made at list time would cost N
times. Data lives in a temporary directory that is removed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from figures import ROOT, make_messages


def best_s(call: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def seed(data: Path, sessions: int, messages: int, work: Path) -> list[str]:
    from datetime import UTC, datetime

    from goosectx.session import Session, new_session_id
    from goosectx.store import SessionStore

    store = SessionStore(data)
    ids = []
    try:
        for i in range(sessions):
            now = datetime.now(UTC)
            session = Session(new_session_id(now), f"s{i}", work, "openai/gpt-4o-mini", now,
                              now, title=f"session {i}")
            session.conversation.messages = make_messages(messages, 2_000, seed=i)
            session.ledger.current_tokens = 40_000 + i  # the last call's report
            session.ledger.current_is_estimate = False
            if i % 4:  # measured by a REPL or run: the figure it showed, for these messages
                session.note_context_figure(40_000 + i, False)
            # else saved by an older goosectx: listed by its report (it ends on an answer),
            # which costs one more indexed read, of its last message
            ids.append(store.save_new_session(session).id)
    finally:
        store.close()
    return ids


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--messages", type=int, default=2_500)
    args = parser.parse_args()
    from goosectx.cli.sessions_list import listed_context
    from goosectx.config import Settings
    from goosectx.store import SessionStore
    from goosectx.tokens import TokenCounter

    tmp = Path(tempfile.mkdtemp(prefix="goosectx-bench-sessions-list-"))
    try:
        data, work = tmp / "data", tmp / "work"
        work.mkdir()
        start = time.perf_counter()
        ids = seed(data, args.sessions, args.messages, work)
        size_mb = (data / "sessions.db").stat().st_size / 1e6
        print(f"{args.sessions} sessions × {args.messages:,} messages: {size_mb:,.0f} MB, "
              f"stored in {time.perf_counter() - start:.1f} s")
        settings = Settings(data_dir=data)
        store = SessionStore(data, read_only=True)
        rows = store.list_sessions()
        print(f"rows (SessionStore.list_sessions): {best_s(store.list_sessions) * 1000:.1f} ms")

        def with_cells() -> list[str]:
            limits: dict[str | None, object] = {}
            return [listed_context(r, settings, limits).cell()  # type: ignore[arg-type]
                    for r in store.list_sessions()]

        cells = with_cells()
        print(f"rows + context cells: {best_s(with_cells) * 1000:.1f} ms "
              f"({sum(c == '—' for c in cells)} of {len(rows)} unknown: '—')")
        store.close()  # the same with no session of an older goosectx, for comparison
        writer = SessionStore(data)
        for session_id in ids[::4]:
            state = writer.load_header(session_id).state
            state.context_figure = None
            writer.update_session(session_id, current_tokens=0)
            writer.save_state(session_id, state)
        writer.close()
        store = SessionStore(data, read_only=True)
        print(f"  the same, those {len(ids[::4])} without a report (no extra read): "
              f"{best_s(with_cells) * 1000:.1f} ms")
        env = {**os.environ, "GOOSECTX_HOME": str(data), "NO_COLOR": "1", "TERM": "dumb",
               "GOOSECTX_CONFIG": str(tmp / "none.toml"), "PYTHONPATH": str(ROOT)}
        (tmp / "none.toml").touch()
        process = best_s(lambda: subprocess.run(
            [sys.executable, "-m", "goosectx", "sessions", "list"], env=env, check=True,
            capture_output=True), runs=3)
        print(f"goosectx sessions list (whole process): {process:.2f} s")
        start = time.perf_counter()
        session = store.load(ids[0])
        counter = TokenCounter("openai/gpt-4o-mini")
        counter.breakdown(system_prompt="", project_instructions="", tool_schemas=[],
                          messages=session.conversation.agent_messages())
        one = time.perf_counter() - start
        print(f"avoided: load + count one session {one:.2f} s "
              f"(× {args.sessions} sessions ≈ {one * args.sessions:.0f} s)")
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
