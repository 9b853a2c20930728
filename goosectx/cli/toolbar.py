"""The REPL's bottom toolbar: model, approval mode and the context meter.

Pure formatting: the REPL passes in the figures (the session's ``current`` tokens, the
context limit and whether the figure is an estimate) and gets prompt-toolkit formatted text.
"""

from __future__ import annotations

from dataclasses import dataclass

from goosectx.cli.sanitize import terminal_safe

METER_CELLS = 10
GREEN_BELOW_RATIO = 0.50
YELLOW_BELOW_RATIO = 0.85


@dataclass(frozen=True, slots=True)
class ContextFigure:
    """What the meter shows.

    Attributes:
        current_tokens: The session's ``current`` figure (DESIGN.md §2), tokens.
        limit_tokens: The context limit, tokens.
        is_estimate: True when ``current_tokens`` is our tiktoken estimate.
    """

    current_tokens: int
    limit_tokens: int
    is_estimate: bool

    @property
    def used_ratio(self) -> float:
        """``current_tokens / limit_tokens`` (0 when the limit is unknown)."""
        return self.current_tokens / self.limit_tokens if self.limit_tokens > 0 else 0.0


def meter_colour(used_ratio: float) -> str:
    """``green`` below 50 %, ``yellow`` below 85 %, ``red`` from there on."""
    if used_ratio < GREEN_BELOW_RATIO:
        return "green"
    if used_ratio < YELLOW_BELOW_RATIO:
        return "yellow"
    return "red"


def context_meter(figure: ContextFigure) -> str:
    """The meter text, e.g. ``Context ●●●○○○○○○○ 34% (67,787/200,000)``.

    An estimate is marked: ``Context ●○○○○○○○○○ ~8% (10,312/128,000 est.)``. The dots are
    the used ratio rounded to tenths, clamped to 0..10.
    """
    ratio = figure.used_ratio
    filled = min(METER_CELLS, max(0, round(ratio * METER_CELLS)))
    dots = "●" * filled + "○" * (METER_CELLS - filled)
    percent = round(ratio * 100)
    tilde = "~" if figure.is_estimate else ""
    est = " est." if figure.is_estimate else ""
    return (f"Context {dots} {tilde}{percent}% "
            f"({figure.current_tokens:,}/{figure.limit_tokens:,}{est})")


def toolbar_fragments(
    *, model: str | None, mode: str, figure: ContextFigure | None, note: str = ""
) -> list[tuple[str, str]]:
    """Formatted text for the prompt-toolkit bottom toolbar.

    Args:
        model: The model name, or ``None`` when none is configured.
        mode: The approval mode.
        figure: The context figure, or ``None`` when it is not known yet.
        note: An extra short note (e.g. ``auto-compaction paused``).

    Returns:
        ``(style, text)`` pairs: model · mode · meter [· note].
    """
    parts: list[tuple[str, str]] = [
        ("class:toolbar.model", f" {terminal_safe(model or 'no model')} "),
        ("class:toolbar", "· "),
        ("class:toolbar.mode", f"{mode} "),
    ]
    if figure is not None:
        parts.append(("class:toolbar", "· "))
        parts.append((f"class:toolbar.meter.{meter_colour(figure.used_ratio)}",
                      context_meter(figure) + " "))
    elif model is not None:
        parts.append(("class:toolbar", "· Context (measuring…) "))
    if note:
        parts.append(("class:toolbar", "· "))
        parts.append(("class:toolbar.note", terminal_safe(note) + " "))
    return parts


TOOLBAR_STYLE = {
    "bottom-toolbar": "noreverse bg:#262626 #bcbcbc",
    "toolbar.model": "bold #d7d7ff",
    "toolbar.mode": "#d7af87",
    "toolbar.meter.green": "#87d787",
    "toolbar.meter.yellow": "#ffd75f",
    "toolbar.meter.red": "bold #ff5f5f",
    "toolbar.note": "#ff8700",
}
"""prompt-toolkit style rules for the toolbar classes above."""
