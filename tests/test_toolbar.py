"""The context meter and the bottom toolbar."""

from __future__ import annotations

import pytest

from goosectx.cli.toolbar import ContextFigure, context_meter, meter_colour, toolbar_fragments


def test_meter_reads_like_the_spec() -> None:
    assert context_meter(ContextFigure(67_787, 200_000, False)) == (
        "Context ●●●○○○○○○○ 34% (67,787/200,000)")


def test_an_estimate_is_marked() -> None:
    text = context_meter(ContextFigure(10_312, 128_000, True))
    assert text == "Context ●○○○○○○○○○ ~8% (10,312/128,000 est.)"


@pytest.mark.parametrize(
    ("used", "colour"),
    [(0, "green"), (49_999, "green"), (50_000, "yellow"), (84_999, "yellow"),
     (85_000, "red"), (150_000, "red")],
)
def test_colour_bands(used: int, colour: str) -> None:
    assert meter_colour(ContextFigure(used, 100_000, False).used_ratio) == colour


def test_over_the_limit_stays_ten_cells() -> None:
    text = context_meter(ContextFigure(300_000, 200_000, False))
    assert "●●●●●●●●●● 150%" in text


def test_toolbar_shows_model_mode_and_meter_in_its_colour() -> None:
    parts = toolbar_fragments(model="openai/gpt-4o", mode="smart_approve",
                              figure=ContextFigure(180_000, 200_000, False), note="paused")
    text = "".join(t for _s, t in parts)
    assert "openai/gpt-4o" in text and "smart_approve" in text and "90%" in text
    assert "paused" in text
    assert ("class:toolbar.meter.red", context_meter(ContextFigure(180_000, 200_000, False))
            + " ") in parts


def test_toolbar_without_a_model() -> None:
    text = "".join(t for _s, t in toolbar_fragments(model=None, mode="chat", figure=None))
    assert "no model" in text and "Context" not in text
    pending = "".join(t for _s, t in toolbar_fragments(model="m", mode="auto", figure=None))
    assert "Context (measuring…)" in pending
