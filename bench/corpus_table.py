"""Import every corpus transcript and compact it with the extractive strategy; print a table.

For each session of each file under ``$GOOSECTX_CORPUS/raw`` (default ``../shared/corpus``
beside the repository) the script runs, in process and in a throw-away data dir, what a user
would run::

    goosectx sessions import FILE
    goosectx compact SESSION --strategy extractive --max-summary-tokens N --json

and prints one row per session: messages imported, tool pairs, tokens before and after the
compaction (``goosectx compact --json``'s figures: the full next request, system prompt and
tool schemas included), the extractive summary's own size, and the wall time of the import
and of the compaction. No model is configured, so nothing leaves the machine. The settings
are goosectx's defaults (context limit 128,000, ``keep_recent_ratio`` 0.2, ``keep_user_tokens``
8,000) unless given below; no ``GOOSE_*``/``GOOSECTX_*`` variable or config file of yours is
read. The first lines of the output state the settings and the commands that give one row.

A compaction goosectx refuses because it would grow the context (a session already about as
small as its summary) is a row saying so, ``refused: would grow BEFORE→AFTER``; any other
failure of a command stops the script with goosectx's error.

Usage: ``python bench/corpus_table.py [--max-summary-tokens N] [--keep-recent-ratio R]
[--keep-user-tokens N] [--markdown]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def corpus_root() -> Path:
    env = os.environ.get("GOOSECTX_CORPUS")
    return Path(env) if env else REPO.parent / "shared" / "corpus"


def run_cli(*args: str, refusal_ok: bool = False) -> str:
    """Run a goosectx command in process; return its stdout.

    A non-zero exit raises, with goosectx's stderr, unless ``refusal_ok`` and the command
    printed a refused compaction (``compact --json``: ``changed`` false, exit 1).
    """
    from goosectx.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code
    if code in (0, None) or (refusal_ok and code == 1 and _refusal(out.getvalue())):
        return out.getvalue()
    raise RuntimeError(f"goosectx {' '.join(args)} exited {code}: "
                       f"{err.getvalue().strip() or out.getvalue().strip()}")


_GROW = re.compile(r"compaction would grow the context from ([\d,]+) to ([\d,]+) tokens")


def _refusal(stdout: str) -> re.Match[str] | None:
    """The figures of a ``compact --json`` refused because it would grow the context."""
    try:
        result = json.loads(stdout)
    except ValueError:
        return None
    if not isinstance(result, dict) or result.get("changed") is not False:
        return None
    return _GROW.search(str(result.get("reason", "")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-summary-tokens", type=int, default=4000)
    parser.add_argument("--keep-recent-ratio", type=float, default=None,
                        help="GOOSECTX_KEEP_RECENT_RATIO for the compactions (default: "
                             "goosectx's, 0.2)")
    parser.add_argument("--keep-user-tokens", type=int, default=None,
                        help="keep_user_tokens in the config file the compactions read "
                             "(default: goosectx's, min(8,000, 0.1 x limit))")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    options = parser.parse_args()
    raw = corpus_root() / "raw"
    if not raw.is_dir():
        print(f"corpus not found at {raw} (set GOOSECTX_CORPUS)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as home:
        # Only what this script sets: no GOOSE_*/GOOSECTX_* variable or config file of yours.
        for name in [n for n in os.environ if n.startswith(("GOOSE_", "GOOSECTX_"))]:
            del os.environ[name]
        os.environ["GOOSECTX_HOME"] = home
        config = Path(home) / "config.toml"
        config.write_text("" if options.keep_user_tokens is None
                          else f"keep_user_tokens = {options.keep_user_tokens}\n",
                          encoding="utf-8")
        os.environ["GOOSECTX_CONFIG"] = str(config)
        if options.keep_recent_ratio is not None:
            os.environ["GOOSECTX_KEEP_RECENT_RATIO"] = str(options.keep_recent_ratio)
        from goosectx.errors import GoosectxError

        try:
            print(_settings_line(options.max_summary_tokens, options.keep_recent_ratio,
                                 options.keep_user_tokens))
        except GoosectxError as exc:  # e.g. --keep-recent-ratio 5
            print(f"corpus_table: {exc.one_line()}", file=sys.stderr)
            return 2
        rows = [_measure(path, options.max_summary_tokens)
                for path in sorted(raw.glob("*/*")) if path.is_file()]
    _print([r for group in rows for r in group], options.markdown)
    return 0


def _settings_line(max_summary_tokens: int, keep_recent_ratio: float | None,
                   keep_user_tokens: int | None) -> str:
    """The settings every row ran with, and the commands that reproduce one row."""
    from goosectx.compaction.budget import layout_budget
    from goosectx.config import DEFAULT_CONTEXT_LIMIT_TOKENS, load_settings

    settings = load_settings(None)
    limit = settings.context_limit_tokens or DEFAULT_CONTEXT_LIMIT_TOKENS
    budget = layout_budget(limit, settings.threshold_ratio,
                           keep_recent_ratio=settings.keep_recent_ratio,
                           keep_user_tokens=settings.keep_user_tokens)
    env = ("" if keep_recent_ratio is None
           else f"GOOSECTX_KEEP_RECENT_RATIO={keep_recent_ratio:g} ")
    if keep_user_tokens is not None:
        env += f"GOOSECTX_CONFIG=FILE (holding keep_user_tokens = {keep_user_tokens}) "
    return (
        f"extractive compaction, no model, context limit {limit:,} (the default), "
        f"keep_recent_ratio {settings.keep_recent_ratio:g} (recent tail up to "
        f"{budget.tail_tokens:,} tokens), keep_user_tokens {budget.user_tokens:,}, "
        f"--max-summary-tokens {max_summary_tokens:,}; tokens = the full next request "
        "(system prompt + tool schemas + agent view)\n"
        f"one row: GOOSECTX_HOME=$(mktemp -d) goosectx sessions import FILE, then {env}"
        f"goosectx compact SESSION --strategy extractive --max-summary-tokens "
        f"{max_summary_tokens} --json (tokens_before, tokens_after)")


def _measure(path: Path, max_summary_tokens: int) -> list[dict[str, object]]:
    from goosectx.config import load_settings
    from goosectx.store import SessionStore
    from goosectx.tokens import TokenCounter

    started = time.perf_counter()
    # --force: goose's export of a session the sessions.db held is a row of its own
    printed = run_cli("sessions", "import", str(path), "--force")
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
            printed = run_cli("compact", session_id, "--strategy", "extractive",
                              "--max-summary-tokens", str(max_summary_tokens), "--json",
                              refusal_ok=True)
            compact_s = time.perf_counter() - started
            shown = f"{path.parent.name}/{path.name}"  # its path under raw/ (README's FILE)
            label = shown if len(ids) == 1 else (
                f"{shown} [{session.metadata.get('source_session_id')}]")
            row: dict[str, object] = {
                "session": label, "format": session.metadata.get("source", "?"),
                "messages": len(session.conversation), "pairs": pairs,
                "import_s": import_s / len(ids), "compact_s": compact_s,
            }
            refused = _refusal(printed)
            if refused:  # nothing changed: the row says so, with goosectx's figures
                row.update(before=f"{refused[1]}", summary="—",
                           after=f"refused: would grow {refused[1]}→{refused[2]}")
            else:
                result = json.loads(printed)
                summary = next(m for m in reversed(store.load(session_id).conversation.messages)
                               if m.metadata.is_summary)
                row.update(before=f"{result['tokens_before']:,}",
                           after=f"{result['tokens_after']:,}",
                           summary=f"{counter.count_text(summary.text):,}")
            rows.append(row)
    finally:
        store.close()
    return rows


def _print(rows: list[dict[str, object]], markdown: bool) -> None:
    headers = ["session", "format", "messages", "pairs", "tokens before", "tokens after",
               "summary tokens", "import s", "compact s"]
    table = [[str(r["session"]), str(r["format"]), f"{r['messages']:,}", f"{r['pairs']:,}",
              str(r["before"]), str(r["after"]), str(r["summary"]),
              f"{r['import_s']:.2f}", f"{r['compact_s']:.2f}"] for r in rows]
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
