"""The structured summary a compaction produces, and its Markdown rendering.

Fields follow DESIGN.md §4.2(3). Both summarisers (the model's, parsed leniently, and the
extractive one) fill this same structure and render it the same way.
"""

from __future__ import annotations

import json
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
    """An unknown key's JSON value as text: ``null`` items left out, ``true`` as JSON says it."""
    if isinstance(value, list):
        return "\n".join(f"- {_render_extra(v)}" for v in value if v is not None)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_render_extra(v)}" for k, v in value.items() if v is not None)
    return json.dumps(value) if isinstance(value, bool) else str(value)


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


UNPARSED_LABEL = ("The summariser's reply did not follow the requested format; its text, "
                  "quoted as it came:")
"""Opens a summary that is the model's unparsed reply (:func:`quoted_reply`)."""


def quoted_reply(text: str) -> str:
    """A summariser's unparsed reply as the summary holds it: labelled, then fenced.

    The label comes first, so no line of the reply (``[user] …``, a ``# Conversation Summary``
    of its own) opens the model's view of the summary, and the fence is longer than any run of
    backticks in the reply, so no line of it closes the quote.
    """
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{UNPARSED_LABEL}\n\n{fence}text\n{text.strip()}\n{fence}"
