"""/context past the threshold (test29b LOW 2): it said "… = 2,048 tokens — 0 tokens to go"
with 2,895 in the window. It now says by how much the window is over and when auto-compaction
runs: before the next request, or — a compaction having just run, which the guard lets run
again only after a model call — before the one after it."""

from __future__ import annotations

import io

from rich.console import Console

from goosectx.cli.reports import ContextFacts, context_table
from goosectx.tokens import TokenCounter


def auto_line(current_tokens: int, *, compacted_since_call: bool = False) -> str:
    breakdown = TokenCounter().breakdown(system_prompt="sys", project_instructions="",
                                         tool_schemas=[], messages=[])
    facts = ContextFacts(breakdown=breakdown, current_tokens=current_tokens,
                         current_is_estimate=False, limit_tokens=4_096, limit_source="config",
                         threshold_ratio=0.5, threshold_source="config", auto_enabled=True,
                         paused=False, manages_own_context=False,
                         compacted_since_call=compacted_since_call)
    buf = io.StringIO()
    Console(file=buf, width=300, color_system=None).print(context_table(facts))
    return next(line for line in buf.getvalue().splitlines() if line.startswith("auto-"))


def test_under_the_threshold_it_counts_the_tokens_to_go() -> None:
    assert auto_line(1_500) == ("auto-compaction at 50% of the limit = 2,048 tokens — 548 "
                                "tokens to go")


def test_over_the_threshold_it_says_by_how_much_and_that_the_next_request_compacts() -> None:
    line = auto_line(2_895)
    assert line == ("auto-compaction at 50% of the limit = 2,048 tokens — over it by 847 "
                    "tokens: the next request compacts first")
    assert "to go" not in line


def test_right_after_a_compaction_it_says_the_next_request_goes_as_it_is() -> None:
    line = auto_line(2_895, compacted_since_call=True)
    assert "over it by 847 tokens: a compaction just ran, so the next request is sent as it " \
           "is and the one after it compacts first" in line


def test_a_threshold_below_the_fixed_part_says_auto_compaction_cannot_help() -> None:
    """The system prompt and tools alone over the threshold: no compaction can get under it,
    so /context says so and what to change, instead of "the next request compacts first"."""
    breakdown = TokenCounter().breakdown(system_prompt="rules " * 1_500, project_instructions="",
                                         tool_schemas=[], messages=[])
    facts = ContextFacts(breakdown=breakdown, current_tokens=breakdown.total,
                         current_is_estimate=True, limit_tokens=4_096, limit_source="config",
                         threshold_ratio=0.25, threshold_source="GOOSE_AUTO_COMPACT_THRESHOLD",
                         auto_enabled=True, paused=False, manages_own_context=False)
    buf = io.StringIO()
    Console(file=buf, width=1_000, color_system=None).print(context_table(facts))
    line = next(x for x in buf.getvalue().splitlines() if x.startswith("auto-"))
    assert line.startswith("auto-compaction at 25% of the limit = 1,024 tokens — it cannot help")
    assert f"alone take ~{breakdown.system_prompt:,} tokens" in line
    for fix in ("Raise auto_compact_threshold (now 0.25, GOOSE_AUTO_COMPACT_THRESHOLD)",
                "larger context window"):
        assert fix in line
    assert "compacts first" not in line
