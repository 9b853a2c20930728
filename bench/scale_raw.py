"""Baselines and helpers of the scale table, each run as its own process.

``python bench/scale_raw.py MODE ARGS``:

* ``seed DATA_DIR COUNT WORKDIR`` — store a generated session (prints its id); run apart so
  the bench process itself stays small (peak RSS of children is read through ``wait4``).
* ``export FILE COUNT WORKDIR`` — write a generated session as a JSON export.
* ``load DATA_DIR SESSION_ID`` — the raw load: ``SELECT`` the rows and ``json.loads`` them,
  after importing the CLI module every goosectx command imports (same start-up).
* ``tokenise DATA_DIR SESSION_ID`` — the raw load plus one tokenisation of every string in
  each row's content (texts, tool arguments and outputs; ``o200k_base`` loaded as goosectx
  loads it): the baseline of a first compaction, which must count each message once.
* ``jsonload FILE`` — ``json.load`` of a file, same start-up.
* ``prompt`` — a bare prompt_toolkit prompt (``❯``), the launch baseline.
* ``request DATA_DIR SESSION_ID`` — prints seconds for one load with the store plus one
  serialisation of the request the next call would send (the ``run --resume`` baseline).
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _texts(value: object) -> list[str]:
    """Every string value in a parsed row (its texts, tool arguments and outputs)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def _raw_load(data_dir: str, session_id: str, tokenise: bool = False) -> int:
    encode = None
    if tokenise:
        from goosectx.encoding import get_encoder

        encode = get_encoder("openai/gpt-4o-mini").encode
    conn = sqlite3.connect(Path(data_dir) / "sessions.db")
    count = 0
    for content, metadata in conn.execute(
            "SELECT content_json, metadata_json FROM messages WHERE session_id=?"
            " ORDER BY position", (session_id,)):
        parts = json.loads(content)
        json.loads(metadata)
        if encode is not None:
            for text in _texts(parts):
                encode(text, disallowed_special=())
        count += 1
    conn.close()
    return count


def main(argv: list[str]) -> int:
    mode, args = argv[0], argv[1:]
    if mode == "seed":
        from scale_data import seed_data_dir

        print(seed_data_dir(Path(args[0]), int(args[1]), Path(args[2])))
    elif mode == "export":
        from scale_data import write_export

        print(write_export(Path(args[0]), int(args[1]), Path(args[2])))
    elif mode == "load":
        import goosectx.cli.app  # noqa: F401 - the start-up every command pays

        _raw_load(args[0], args[1])
    elif mode == "tokenise":
        import goosectx.cli.app  # noqa: F401,F811

        _raw_load(args[0], args[1], tokenise=True)
    elif mode == "jsonload":
        import goosectx.cli.app  # noqa: F401,F811

        with open(args[0], encoding="utf-8") as fh:
            json.load(fh)
    elif mode == "prompt":
        from prompt_toolkit import PromptSession

        PromptSession().prompt("❯ ")
    elif mode == "request":
        from goosectx.providers.openai_format import to_openai_messages
        from goosectx.store import SessionStore

        start = time.perf_counter()
        store = SessionStore(Path(args[0]))
        session = store.load(args[1])
        json.dumps({"messages": to_openai_messages("system", session.conversation.agent_view())})
        print(time.perf_counter() - start)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
