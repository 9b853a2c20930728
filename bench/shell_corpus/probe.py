"""The three verdicts (see classify.py) of each command given: a quick check.

Usage: probe.py REPO CMD...   (REPO: a goosectx checkout)
"""
from __future__ import annotations

import sys
from pathlib import Path

from classify import load_rules


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    verdicts = load_rules(Path(sys.argv[1]))
    for cmd in sys.argv[2:]:
        vs = verdicts(cmd)
        actions = " ".join(f"{v['action']:4}" for v in vs.values())
        print(f"{cmd!r:42} {actions} | {vs['deny_rm']['reason'][:90]}")


if __name__ == "__main__":
    main()
