#!/bin/bash
# rerun.sh [--out DIR] REPO [BASE]: shell-rule verdicts of REPO vs BASE on DIR/commands.jsonl.
# Prints every command whose verdict changed, grouped stricter / looser, with counts per rule set.
# BASE defaults to the checkout this script is in; DIR to ~/.cache/goosectx-bench/shell-corpus
# (run extract.py first). Python: $PYTHON, else this checkout's .venv/bin/python, else python3.
# REASONS=1 rerun.sh ... also lists the commands whose action stayed but whose reason changed.
# Exit 0 when the comparison ran (changes or not), 1 when it could not.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CHECKOUT=$(cd "$HERE/../.." && pwd)
OUT=$HOME/.cache/goosectx-bench/shell-corpus
if [ "${1:-}" = --out ]; then OUT=${2:?usage: rerun.sh [--out DIR] REPO [BASE]}; shift 2; fi
for d in "${1:?usage: rerun.sh [--out DIR] REPO [BASE]}" "${2:-$CHECKOUT}"; do
  [ -f "$d/goosectx/approval.py" ] || { echo "rerun.sh: $d is not a goosectx checkout (no goosectx/approval.py)"; exit 1; }
done
[ -f "$OUT/commands.jsonl" ] || { echo "rerun.sh: no $OUT/commands.jsonl: run extract.py first"; exit 1; }
REPO=$(cd "$1" && pwd)
BASE=$(cd "${2:-$CHECKOUT}" && pwd)
OUT=$(cd "$OUT" && pwd)
if [ -n "${PYTHON:-}" ]; then PY=$PYTHON
elif [ -x "$CHECKOUT/.venv/bin/python" ]; then PY=$CHECKOUT/.venv/bin/python
else PY=python3; fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1   # no goosectx on the path but the one classify.py is given
env -u PYTHONPATH "$PY" "$HERE/classify.py" "$REPO" --out "$OUT" >new.jsonl 2>new.err & p1=$!
env -u PYTHONPATH "$PY" "$HERE/classify.py" "$BASE" --out "$OUT" >old.jsonl 2>old.err & p2=$!
wait $p1 || { echo "classify failed for $REPO:"; cat new.err; exit 1; }
wait $p2 || { echo "classify failed for $BASE:"; cat old.err; exit 1; }
"$PY" "$HERE/compare.py" new.jsonl old.jsonl "$REPO" "$BASE"
