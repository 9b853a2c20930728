"""What fills one request, by category: the figures ``/context`` and the compaction report.

Made by :meth:`goosectx.tokens.TokenCounter.breakdown` (re-exported by :mod:`goosectx.tokens`);
docs/architecture.md §5.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ContextBreakdown:
    """Token estimate of one full request, by category (for ``/context``).

    All figures are tokens. ``mentions`` (files a message mentions, ``@path``) and
    ``attachments`` (extension resources, images) are not part of ``messages``.
    """

    system_prompt: int
    project_instructions: int
    tool_schemas: int
    messages: int
    summary: int
    attachments: int = 0
    mentions: int = 0

    @property
    def total(self) -> int:
        """Sum of every category."""
        return (
            self.system_prompt + self.project_instructions + self.tool_schemas
            + self.messages + self.summary + self.attachments + self.mentions
        )
