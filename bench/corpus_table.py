"""Import every corpus transcript and compact it with the extractive strategy; print a table.

For each session of each file under ``$GOOSECTX_CORPUS/raw`` (default ``../shared/corpus``
beside the repository) the script runs, in process and in a throw-away data dir, what a user
would run::

    goosectx sessions import FILE
    goosectx compact SESSION --strategy extractive --max-summary-tokens N --json

and prints one row per session: messages imported, tool pairs, tokens before and after the
compaction (``goosectx compact --json``'s figures: the full next request, system prompt and
tool schemas included), the extractive summary's own size, and the wall time of the import
and of the compaction. No model is configured, so nothing leaves the machine.

Usage: ``python bench/corpus_table.py [--max-summary-tokens N] [--markdown]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def corpus_root() -> Path:
    env = os.environ.get("GOOSECTX_CORPUS")
    return Path(env) if env else REPO.parent / "shared" / "corpus"


def run_cli(*args: str) -> str:
    """Run a goosectx command in process; return its stdout (raises on a non-zero exit)."""
    from goosectx.cli.app import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(list(args))
        except SystemExit as exc:
            if exc.code not in (0, None):
                raise RuntimeError(f"goosectx {' '.join(args)} exited {exc.code}") from None
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-summary-tokens", type=int, default=4000)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    options = parser.parse_args()
    raw = corpus_root() / "raw"
    if not raw.is_dir():
        print(f"corpus not found at {raw} (set GOOSECTX_CORPUS)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as home:
        os.environ["GOOSECTX_HOME"] = home
        for name in [n for n in os.environ if n.startswith("GOOSE_")]:
            del os.environ[name]
        rows = [_measure(path, options.max_summary_tokens)
                for path in sorted(raw.glob("*/*")) if path.is_file()]
    _print([r for group in rows for r in group], options.markdown, options.max_summary_tokens)
    return 0


def _measure(path: Path, max_summary_tokens: int) -> list[dict[str, object]]:
    from goosectx.config import load_settings
    from goosectx.store import SessionStore
    from goosectx.tokens import TokenCounter

    started = time.perf_counter()
    printed = run_cli("sessions", "import", str(path))
    import_s = time.perf_counter() - started
    ids = [line.split()[1].rstrip(":") for line in printed.splitlines()
           if line.startswith("imported ")]
    store = SessionStore(load_settings(None).data_dir)
    counter = TokenCounter()
    rows = []
    try:
        for session_id in ids:
            session = store.load(session_id)
            pairs = sum(len(m.tool_requests) for m in session.conversation)
            started = time.perf_counter()
            result = json.loads(run_cli("compact", session_id, "--strategy", "extractive",
                                        "--max-summary-tokens", str(max_summary_tokens),
                                        "--json"))
            compact_s = time.perf_counter() - started
            after = store.load(session_id)
            summary = next(m for m in reversed(after.conversation.messages)
                           if m.metadata.is_summary)
            label = path.name if len(ids) == 1 else (
                f"{path.name} [{session.metadata.get('source_session_id')}]")
            rows.append({
                "session": label, "format": session.metadata.get("source", "?"),
                "messages": len(session.conversation), "pairs": pairs,
                "before": result["tokens_before"], "after": result["tokens_after"],
                "summary": counter.count_text(summary.text),
                "import_s": import_s / len(ids), "compact_s": compact_s,
            })
    finally:
        store.close()
    return rows


def _print(rows: list[dict[str, object]], markdown: bool, budget: int) -> None:
    headers = ["session", "format", "messages", "pairs", "tokens before", "tokens after",
               "summary tokens", "import s", "compact s"]
    table = [[str(r["session"]), str(r["format"]), f"{r['messages']:,}", f"{r['pairs']:,}",
              f"{r['before']:,}", f"{r['after']:,}", f"{r['summary']:,}",
              f"{r['import_s']:.2f}", f"{r['compact_s']:.2f}"] for r in rows]
    print(f"extractive compaction, --max-summary-tokens {budget:,} "
          "(tokens = the full next request: system prompt + tool schemas + agent view)")
    if markdown:
        print("| " + " | ".join(headers) + " |")
        print("|" + "|".join("---" if i < 2 else "---:" for i in range(len(headers))) + "|")
        for row in table:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) if i < 2 else h.rjust(w)
                    for i, (h, w) in enumerate(zip(headers, widths, strict=True))))
    for row in table:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths, strict=True))))


if __name__ == "__main__":
    sys.exit(main())
