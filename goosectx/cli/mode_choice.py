"""The approval mode a REPL or ``run`` starts with (docs/architecture.md, the CLI layer).

``--mode`` > ``GOOSE_MODE`` > the mode chosen with ``/mode`` in the session > config > default;
the model is chosen alike (:mod:`goosectx.cli.model_choice`).
"""

from __future__ import annotations

from dataclasses import dataclass

from goosectx.config import ApprovalMode, Settings, parse_mode
from goosectx.errors import ConfigError
from goosectx.session import Session

RESTORED_MODE_ORIGIN = "this session"
"""The origin of an approval mode restored from the session (chosen earlier with ``/mode``)."""


@dataclass(frozen=True, slots=True)
class ModeChoice:
    """The approval mode a REPL or ``run`` starts with, and where it came from.

    Attributes:
        mode: The mode.
        origin: ``--mode``, ``env GOOSE_MODE``, :data:`RESTORED_MODE_ORIGIN`, ``config PATH``
            or ``default``.
    """

    mode: ApprovalMode
    origin: str

    @property
    def restored(self) -> bool:
        """True when the mode is the one stored in the session."""
        return self.origin == RESTORED_MODE_ORIGIN


def choose_mode(settings: Settings, flag: str | None, session: Session) -> ModeChoice:
    """The starting approval mode: ``--mode`` > ``GOOSE_MODE`` > stored > config > default.

    The stored mode is the one last chosen with ``/mode`` in this session (migration 3).

    Raises:
        ConfigError: a bad ``--mode``.
    """
    if flag:
        return ModeChoice(parse_mode("--mode", flag), "--mode")
    source = settings.source("mode")
    if not source.startswith("env") and session.approval_mode:
        try:
            return ModeChoice(parse_mode("mode", session.approval_mode), RESTORED_MODE_ORIGIN)
        except ConfigError:
            pass  # a mode this version does not know: fall back to the configured one
    return ModeChoice(settings.mode, source)
