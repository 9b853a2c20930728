"""What a refused ``/compact`` suggests inside the REPL: something the REPL user can do.

``/compact`` takes only instructions, so a refusal whose CLI hint is ``--strategy
extractive`` names the shell command that takes it (the CLI keeps its own wording).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, WORTH_COMPACTING, World

from goosectx.errors import CompactionFailed


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_a_summary_far_over_its_budget_names_the_shell_command_in_the_repl(
        world: World) -> None:
    huge = '{"user_intent": "HUGE-SUMMARY ' + "blah " * 10000 + '"}'
    world.provider.context_limit_tokens = 8000  # a summary budget of 800 tokens
    world.provider.add("first answer", huge)
    out = world.run("hello" + WORTH_COMPACTING + ENTER + "/compact" + ENTER + CTRL_D)
    assert "twice its budget" in out and "nothing changed" in out
    flat = " ".join(out.split())
    assert "leave with /exit and run goosectx compact demo --strategy extractive" in flat
    assert "use --strategy extractive" not in flat  # an option /compact does not take


def test_the_cli_keeps_its_option_wording() -> None:
    from goosectx.errors import CompactionWouldGrow, SummaryOverBudget

    refusal = SummaryOverBudget(CompactionWouldGrow(1_000, 2_000), 5_000, 500)
    assert isinstance(refusal, CompactionFailed)
    assert refusal.hint == "try again, or use --strategy extractive"
