"""``python bench/run.py --working-set`` over a small corpus: it completes and prints its rows.

The corpus session here compacts in its first turn: one request, then tool results larger than
the 8,000-token limit, so the compaction has nothing before the turn to summarise and makes no
model call (the replay used to take the summariser's request for granted: IndexError).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _first_turn_session(path: Path) -> None:
    rows = "".join(f"row {n}: alpha beta gamma delta epsilon {n * 7919 % 10007}\n"
                   for n in range(400))
    calls = [{"id": f"call_{i}", "type": "function",
              "function": {"name": "read_file", "arguments": json.dumps({"path": f"f{i}.txt"})}}
             for i in range(3)]
    messages = [{"role": "user", "content": "read the three data files and sum the rows"},
                {"role": "assistant", "content": "", "tool_calls": calls},
                *({"role": "tool", "tool_call_id": f"call_{i}", "content": rows}
                  for i in range(3)),
                {"role": "assistant", "content": "The rows are read."}]
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"messages": messages}))


def test_working_set_table_over_a_first_turn_compaction(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    _first_turn_session(corpus / "raw" / "openai_chat" / "first-turn.json")
    env = {**os.environ, "GOOSECTX_CORPUS": str(corpus), "PYTHONPATH": str(ROOT),
           "GOOSECTX_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--working-set"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    row = next(line for line in lines if line.startswith("first-turn.json"))
    cells = row.split()
    # limit, messages, after ÷ limit, edited paths, user msgs, in-flight, summary req ÷ window
    assert cells[1] == "16,000" and cells[3].endswith("%"), row
    assert cells[5] == "1/1" and cells[6] in ("yes", "elided"), row
    assert cells[7] == "—", row  # no summary request: nothing before the turn to summarise
    assert any(line.startswith("scripted session (issue 12)") for line in lines)
    assert "row(s) break a promise" in done.stdout
    assert done.returncode == 0, done.stdout
