"""The approval decision on long shell lines: its cost at N = 100 / 400 / 1,600 / 5,000.

``approval.decide`` in ``smart_approve`` under ``shell(cat*)`` and ``shell(echo*)`` (the
heaviest path: the rules' forms, then the sensitive and outside checks of an allowed line) on
three lines a fresh-eyes tester timed (docs/architecture.md §4): ``cat <<EOF`` with N lines of
``line $(echo x)`` (N + 1 commands), ``cat <<< x;`` N times, and ``cat src/*.py`` with the
glob N times. Before the fix the first cost 0.39 s at 100, 5.7 s at 400 and 25 s at 800
(each command re-read every here-document: growth exponent ≈ 2); now each is read once, and
a line past ``shell_budget``'s bound (500 commands, 2,000 words) is asked about unread.
Baseline, same run: ``lex`` of the same line. The growth exponent is the slope of log(time)
over log(N) between the two largest N the decision still judged (1.0: linear).

Usage: ``python bench/shell_decision.py [--quick]``.
"""

from __future__ import annotations

import math
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from figures import Figure, median_time_s, quick_arg

SIZES = (100, 400, 1_600, 5_000)
DECISION_MAX_S = 1.0
GROWTH_MAX = 1.3
"""Exponent allowed for timing noise on a shared machine (1.0 is linear, 2.0 quadratic)."""

LINES: dict[str, Callable[[int], str]] = {
    "here-document of N $( )": lambda n: "cat <<EOF\n" + "line $(echo x)\n" * n + "EOF",
    "N here-strings": lambda n: "cat <<< x; " * n,
    "cat of N globs": lambda n: "cat " + " ".join(["src/*.py"] * n),
}


def run(quick: bool = False) -> list[Figure]:
    """Time the decision and ``lex`` per line and size; the growth and the worst case."""
    from goosectx.approval import ApprovalContext, PermissionRules, decide
    from goosectx.shell_lexer import lex

    repeat = 1 if quick else 3
    rules = PermissionRules(allow=("shell(cat*)", "shell(echo*)"))
    figures = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "proj"
        (work / "src").mkdir(parents=True)
        for k in range(20):
            (work / "src" / f"m{k}.py").write_text("x\n")
        for name, make in LINES.items():
            judged: list[tuple[int, float]] = []
            for n in SIZES:
                line = make(n)
                ctx = ApprovalContext(mode="smart_approve", tool_name="shell", read_only=False,
                                      working_dir=work, arguments={"command": line},
                                      rules=rules, data_dir=work.parent / "data")
                verdict = decide(ctx)
                took = median_time_s(lambda ctx=ctx: decide(ctx), repeat=repeat, warmup=0)
                lexed = median_time_s(lambda line=line: lex(line), repeat=repeat, warmup=0)
                bounded = "the checks read" in verdict.reason
                if not bounded:
                    judged.append((n, took))
                figures.append(Figure(
                    f"decision, {name}, N={n:,} (s)", took, "s", "lex of the line", lexed,
                    f"≤ {DECISION_MAX_S:g} s", took <= DECISION_MAX_S,
                    note=f"{verdict.action}: {verdict.reason[:90]}"))
            (n1, t1), (n2, t2) = judged[-2:]
            exponent = math.log(t2 / t1) / math.log(n2 / n1)
            figures.append(Figure(
                f"growth exponent, {name}, N={n1:,}→{n2:,}", exponent, "×", "linear", 1.0,
                f"≤ {GROWTH_MAX:g}", exponent <= GROWTH_MAX,
                note="slope of log(time) over log(N) where the decision still judged the "
                     "line; 2.0 was the here-document's before the fix"))
    return figures


if __name__ == "__main__":
    from run import print_table

    sys.exit(print_table(run(quick_arg())))
