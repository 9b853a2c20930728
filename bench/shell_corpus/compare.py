"""Compare two classify.py outputs: commands whose verdict changed, stricter then looser.

Usage: compare.py NEW.jsonl OLD.jsonl [NEW_NAME OLD_NAME]
REASONS=1 in the environment also lists the commands whose action stayed but whose reason changed.
"""
from __future__ import annotations

import json
import os
import sys

RANK = {"run": 0, "ask": 1, "deny": 2}
RULE_SETS = ("auto", "deny_rm", "deny_push")


def load(path: str) -> dict[str, dict]:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return {row["command"]: row for row in rows}


def one_line(text: str, width: int = 150) -> str:
    shown = json.dumps(text, ensure_ascii=False)[1:-1]  # escapes newlines and control chars
    return shown if len(shown) <= width else shown[: width - 1] + "…"


def main() -> None:
    new, old = load(sys.argv[1]), load(sys.argv[2])
    new_name = sys.argv[3] if len(sys.argv) > 3 else "new"
    old_name = sys.argv[4] if len(sys.argv) > 4 else "old"
    groups: dict[str, list[str]] = {"stricter": [], "looser": [], "other": [], "reason only": []}
    per_set = {k: {"stricter": 0, "looser": 0, "other": 0, "reason only": 0} for k in RULE_SETS}
    for command, n in new.items():
        o = old.get(command)
        if o is None:
            continue
        for rs in RULE_SETS:
            a, b = o[rs], n[rs]
            if a["action"] == b["action"]:
                if a["reason"] != b["reason"]:
                    groups["reason only"].append(
                        f"  [{rs}] {a['action']}: {one_line(command)}\n"
                        f"      {old_name}: {one_line(a['reason'])}\n"
                        f"      {new_name}: {one_line(b['reason'])}")
                    per_set[rs]["reason only"] += 1
                continue
            if a["action"] in RANK and b["action"] in RANK:
                kind = "stricter" if RANK[b["action"]] > RANK[a["action"]] else "looser"
            else:
                kind = "other"
            per_set[rs][kind] += 1
            groups[kind].append(f"  [{rs}] {a['action']} -> {b['action']}: {one_line(command)}\n"
                                f"      {new_name}: {one_line(b['reason'])}\n"
                                f"      {old_name}: {one_line(a['reason'])}")
    shown = ["stricter", "looser", "other"] + (["reason only"] if os.environ.get("REASONS") else [])
    for kind in shown:
        print(f"== {kind} ({len(groups[kind])}) ==")
        for entry in groups[kind]:
            print(entry)
    print(f"== summary: {len(new)} commands, {new_name} vs {old_name} ==")
    for rs, c in per_set.items():
        print(f"  {rs:10s} stricter {c['stricter']:4d}  looser {c['looser']:4d}  "
              f"other/error {c['other']:3d}  reason-only {c['reason only']:4d}")
    missing = len(set(new) ^ set(old))
    if missing:
        print(f"  ({missing} commands in only one of the two outputs: not compared)")


if __name__ == "__main__":
    main()
