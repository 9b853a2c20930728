"""Print goosectx's shell-rule verdicts for every command of commands.jsonl, as JSONL.

Usage: classify.py [REPO] [--out DIR]
  REPO  a goosectx checkout, imported from sys.path (default: the checkout this file is in)
  DIR   where extract.py wrote commands.jsonl (default ~/.cache/goosectx-bench/shell-corpus)

Each output line: {"source", "command", "auto", "deny_rm", "deny_push"}, each verdict being
{"action": run|ask|deny|error, "reason": ...}: the one approval decision
(goosectx.approval.decide) on a ``shell`` call, exactly as tests/rules_support.py computes it:
  auto       --mode auto, no rules
  deny_rm    --mode auto --deny 'shell(rm *)'
  deny_push  --mode auto --deny 'shell(git push*)'
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = Path.home() / ".cache" / "goosectx-bench" / "shell-corpus"
PROJECT = Path("/work/proj")  # tests/rules_support.py's made-up project dir; nothing reads it
DENY = {"auto": (), "deny_rm": ("shell(rm *)",), "deny_push": ("shell(git push*)",)}

Verdicts = Callable[[str], dict[str, dict[str, str]]]


def load_rules(repo: Path) -> Verdicts:
    """Import goosectx from ``repo``; return command -> {rule set: verdict}."""
    repo = repo.resolve()
    sys.path.insert(0, str(repo))
    import goosectx
    from goosectx.approval import ApprovalContext, decide
    from goosectx.permissions import PermissionRules

    if not Path(goosectx.__file__ or "").resolve().is_relative_to(repo):
        sys.exit(f"goosectx came from {goosectx.__file__}, not {repo}: "
                 "give a goosectx checkout and unset PYTHONPATH")
    rule_sets = {name: PermissionRules(deny=deny) for name, deny in DENY.items()}

    def verdicts(command: str) -> dict[str, dict[str, str]]:
        out = {}
        for name, rules in rule_sets.items():
            try:
                v = decide(ApprovalContext(mode="auto", tool_name="shell", read_only=False,
                                           working_dir=PROJECT, arguments={"command": command},
                                           rules=rules))
                out[name] = {"action": v.action, "reason": v.reason}
            except Exception as exc:  # a crash is a verdict worth seeing, not a reason to stop
                out[name] = {"action": "error", "reason": f"{type(exc).__name__}: {exc}"}
        return out

    return verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", type=Path, default=CHECKOUT)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    commands = args.out / "commands.jsonl"
    if not commands.is_file():
        sys.exit(f"{commands} not found: run extract.py first (with the same --out)")
    verdicts = load_rules(args.repo)
    for line in commands.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        row.update(verdicts(row["command"]))
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
