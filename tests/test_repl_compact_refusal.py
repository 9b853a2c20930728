"""What a refused ``/compact`` suggests inside the REPL: something the REPL user can do.

A refusal whose CLI hint is ``--strategy extractive`` names the REPL's own form of it,
``/compact --extractive`` (the CLI keeps its own wording).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, WORTH_COMPACTING, World

from goosectx.errors import CompactionFailed


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_a_summary_far_over_its_budget_names_the_repls_extractive_compact(
        world: World) -> None:
    huge = '{"user_intent": "HUGE-SUMMARY ' + "blah " * 10000 + '"}'
    world.provider.context_limit_tokens = 8000  # a summary budget of 800 tokens
    world.provider.add("first answer", huge)
    out = world.run("hello" + WORTH_COMPACTING + ENTER + "/compact" + ENTER
                    + "/compact --extractive" + ENTER + CTRL_D)
    assert "twice its budget" in out and "nothing changed" in out
    flat = " ".join(out.split())
    assert "try again, or use /compact --extractive" in flat
    assert "use --strategy extractive" not in flat  # an option /compact does not take
    assert len(world.provider.requests) == 2  # the answer, the summary: none for the second
    assert "Context compacted" in out or "context compacted" in out.lower(), out[-2000:]


def test_the_cli_keeps_its_option_wording() -> None:
    from goosectx.errors import CompactionWouldGrow, SummaryOverBudget

    refusal = SummaryOverBudget(CompactionWouldGrow(1_000, 2_000), 5_000, 500)
    assert isinstance(refusal, CompactionFailed)
    assert refusal.hint == "try again, or use --strategy extractive"
