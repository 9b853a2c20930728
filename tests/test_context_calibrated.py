"""/context: the breakdown is our count; the total says what the provider's count would be."""

from __future__ import annotations

import io

from rich.console import Console

from goosectx.cli.reports import ContextFacts, context_table
from goosectx.tokens import TokenCounter


def _table(factor: float) -> str:
    breakdown = TokenCounter().breakdown(system_prompt="sys " * 2_000, project_instructions="",
                                         tool_schemas=[], messages=[])
    facts = ContextFacts(breakdown=breakdown, current_tokens=round(breakdown.total * factor),
                         current_is_estimate=False, limit_tokens=2_500, limit_source="env",
                         threshold_ratio=0.8, threshold_source="default", auto_enabled=True,
                         paused=False, manages_own_context=False, factor=factor,
                         calibration=f"estimates ×{factor:.2f}, calibrated on 3 calls")
    buf = io.StringIO()
    Console(file=buf, width=140, color_system=None).print(context_table(facts))
    return next(line for line in buf.getvalue().splitlines() if "next request" in line)


def test_a_calibrated_total_gives_the_provider_s_figure_beside_ours() -> None:
    row = _table(0.68)
    total = int(row.split()[5].replace(",", ""))  # "estimate of the next request N …"
    assert f"our count · ≈ {-(-total * 68 // 100):,} in the provider's (×0.68)" in row
    assert "of limit" in row and f"{total / 2_500:.1%}" not in row  # not our count's share


def test_an_uncalibrated_total_is_its_share_of_the_limit() -> None:
    row = _table(1.0)
    assert "our count" not in row and "of limit" in row
