"""``/search WORDS`` and ``sessions search`` on a stored 10,000-message session.

``python bench/search_session.py [--messages N]`` stores a generated session
(``scale_data.generate``: ~18 MB of text) with the real store, indexes it, then times, each the
best of 5: the REPL's full-text search of the session (``SessionStore.search_session``) for a
rare word (one turn) and for a word in nearly every message (the newest 20 shown), the plain
scan of the loaded transcript it falls back to (``transcript_search.scan_messages``), and
``sessions search`` (``SessionStore.search``, now with where the best match is); then the same
for a CJK word (matched as a substring: every row's text is read, the slowest case). Data lives
in a temporary directory that is removed.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from scale_data import seed_data_dir


def best_ms(call: Callable[[], object]) -> tuple[float, object]:
    times, result = [], None
    for _ in range(5):
        start = time.perf_counter()
        result = call()
        times.append((time.perf_counter() - start) * 1000)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=10_000)
    args = parser.parse_args()
    from goosectx.store import SessionStore
    from goosectx.transcript_search import scan_messages

    tmp = Path(tempfile.mkdtemp(prefix="goosectx-bench-search-session-"))
    try:
        data = tmp / "data"
        session_id = seed_data_dir(data, args.messages, tmp)
        store = SessionStore(data)
        store.index_pending()
        messages = store.load(session_id).conversation.messages
        common = "the"
        for label, words in (("rare", "turn 42:"), ("common", common),
                             ("CJK, every row scanned", "数据库"),
                             ("CJK and a common word", f"数据库 {common}")):
            ms, found = best_ms(lambda w=words: store.search_session(session_id, w, limit=20))
            scan, scanned = best_ms(lambda w=words: scan_messages(messages, w, limit=20))
            print(f"/search {words!r} ({label}): full-text {ms:.1f} ms, {found.count:,} "  # type: ignore[attr-defined]
                  f"match(es); plain scan {scan:.1f} ms, {scanned.count:,} match(es)")  # type: ignore[attr-defined]
        ms, hits = best_ms(lambda: store.search(common))
        print(f"sessions search {common!r}: {ms:.1f} ms, {len(hits)} session(s)")  # type: ignore[arg-type]
        ms, hits = best_ms(lambda: store.search("数据库"))
        print(f"sessions search '数据库': {ms:.1f} ms, {len(hits)} session(s)")  # type: ignore[arg-type]
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
