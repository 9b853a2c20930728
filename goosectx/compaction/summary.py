"""The structured summary a compaction produces, and its Markdown rendering.

Fields follow DESIGN.md §4.2(3). Both summarisers (the model's, parsed leniently, and the
extractive one) fill this same structure and render it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SUMMARY_FIELDS: tuple[str, ...] = (
    "user_intent",
    "technical_concepts",
    "files",
    "errors_and_fixes",
    "problem_solving",
    "user_messages",
    "pending_tasks",
    "current_work",
    "next_step",
)

SECTION_TITLES: dict[str, str] = {
    "user_intent": "User intent",
    "technical_concepts": "Technical concepts",
    "files": "Files",
    "errors_and_fixes": "Errors and fixes",
    "problem_solving": "Problem solving",
    "user_messages": "User messages",
    "pending_tasks": "Pending tasks",
    "current_work": "Current work",
    "next_step": "Next step",
}


@dataclass(slots=True)
class FileNote:
    """A file the conversation touched.

    Attributes:
        path: File path as the conversation named it.
        summary: What was done to it.
        key_code: Important code, verbatim, or empty.
    """

    path: str
    summary: str = ""
    key_code: str = ""


@dataclass(slots=True)
class StructuredSummary:
    """A compaction summary.

    String fields hold prose; list fields hold one item per entry. ``extra`` keeps keys the
    model added that are not in :data:`SUMMARY_FIELDS` (rendered after the known sections).
    """

    user_intent: str = ""
    technical_concepts: list[str] = field(default_factory=list)
    files: list[FileNote] = field(default_factory=list)
    errors_and_fixes: list[str] = field(default_factory=list)
    problem_solving: str = ""
    user_messages: list[str] = field(default_factory=list)
    pending_tasks: list[str] = field(default_factory=list)
    current_work: str = ""
    next_step: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def is_empty(self) -> bool:
        """True when no field has content."""
        return not any(getattr(self, name) for name in SUMMARY_FIELDS) and not self.extra


def _render_extra(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(f"- {_render_extra(v)}" for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_render_extra(v)}" for k, v in value.items())
    return str(value)


def render_markdown(summary: StructuredSummary) -> str:
    """Render as ``# Conversation Summary`` with a ``##`` section per non-empty field."""
    lines = ["# Conversation Summary"]
    for name in SUMMARY_FIELDS:
        value = getattr(summary, name)
        if not value:
            continue
        lines += ["", f"## {SECTION_TITLES[name]}", ""]
        if name == "files":
            for note in value:
                lines.append(f"- `{note.path}`" + (f": {note.summary}" if note.summary else ""))
                if note.key_code:
                    fence = "```"
                    while fence in note.key_code:
                        fence += "`"
                    lines += ["", f"  {fence}", *(f"  {ln}" for ln in
                                                  note.key_code.splitlines()), f"  {fence}", ""]
        elif isinstance(value, list):
            lines += [f"- {item}" for item in value]
        else:
            lines.append(str(value))
    for key, value in summary.extra.items():
        if value in (None, "", [], {}):
            continue
        lines += ["", f"## {key.replace('_', ' ').capitalize()}", "", _render_extra(value)]
    return "\n".join(lines).rstrip() + "\n"
