"""What fills one request, by category: the figures ``/context`` and the compaction report.

Made by :meth:`goosectx.tokens.TokenCounter.breakdown` (re-exported by :mod:`goosectx.tokens`),
with :func:`breakdown`; docs/architecture.md §5.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from goosectx.conversation import Attachment, Message, TextContent, ToolResponse
from goosectx.plain_record import plain_record

if TYPE_CHECKING:
    from goosectx.tokens import TokenCounter


MENTION_KINDS = ("file", "resource")
"""Attachments of these kinds in a message the user typed are its ``@`` mentions."""


@plain_record  # read-only to mypy; compared, printed nowhere (a test)
class ContextBreakdown:
    """Token estimate of one full request, by category (for ``/context``).

    All figures are tokens. ``mentions`` (what the user's message mentions: files, ``@path``,
    and extension resources, ``@NAME:URI``) and ``attachments`` (images, resources a tool
    result brought) are not part of ``messages``.
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


def breakdown(counter: TokenCounter, counts: Sequence[int], *, system_prompt: str,
              project_instructions: str, tool_schemas: Sequence[dict[str, Any]],
              messages: Sequence[Message]) -> ContextBreakdown:
    """:meth:`TokenCounter.breakdown` of ``messages``, whose counts are ``counts`` (in order).

    ``counts``: :meth:`TokenCounter.message_counts` of ``messages``.
    """
    attachments = mentions = summary = 0
    for m, tokens in zip(messages, counts, strict=True):  # one pass over a long view
        if m.metadata.is_summary:
            summary += tokens
        content = m.content
        if len(content) == 1 and type(content[0]) is TextContent:  # most messages
            continue
        for p in content:  # an attachment among its parts? (the rest have none)
            if isinstance(p, Attachment):
                break
        else:
            continue
        typed = not any(isinstance(p, ToolResponse) for p in content)  # not a tool's result
        for p in content:
            if isinstance(p, Attachment):
                attached = counter.count_attachment(p)
                attachments += attached
                mentions += attached if typed and p.kind in MENTION_KINDS else 0
    rest = max(0, sum(counts) - summary - attachments)  # summaries carry no attachments
    system_tokens = counter.count_cached_text(system_prompt)
    instruction_tokens = counter.count_cached_text(project_instructions)
    if project_instructions and project_instructions in system_prompt:
        system_tokens = max(0, system_tokens - instruction_tokens)
    return ContextBreakdown(
        system_prompt=system_tokens,
        project_instructions=instruction_tokens,
        tool_schemas=counter.count_tool_schemas(tool_schemas),
        messages=rest,
        summary=summary,
        attachments=attachments - mentions,
        mentions=mentions,
    )
