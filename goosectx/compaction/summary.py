"""The structured summary a compaction produces, and its Markdown rendering.

Fields follow DESIGN.md §4.2(3). Both summarisers (the model's, parsed leniently, and the
extractive one) fill this same structure and render it the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from goosectx.compaction.blocks import contained, one_line_code, one_reading, without_headings
from goosectx.compaction.carry import model_heading

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


def _field(text: str) -> str:
    """A prose field's text, :func:`contained`, with no line that starts a section.

    A heading line of the field (``## Files``: the model's words, or a tool output it quoted)
    outside a code block gets a backslash before its ``#``
    (:func:`~goosectx.compaction.blocks.without_headings`): a later compaction
    (:func:`~goosectx.compaction.carry.carry_forward`) does not read the lines under it as the
    summary's own files, user messages or constraints.
    """
    return without_headings(contained(one_reading(text)))


def _item(text: str) -> list[str]:
    r"""A list item's lines: ``- `` and the first line, the others indented under it.

    The text is :func:`~goosectx.compaction.blocks.contained`: a fence it leaves open does
    not swallow the items and sections after it; its line breaks are ``\n`` and its heading
    lines (``# …``, a setext ``===``) are escaped as a prose field's are, so the model and the
    terminal read the same lines and neither takes the model's words for a heading of ours.
    """
    first, *rest = without_headings(contained(one_reading(text))).splitlines() or [""]
    return [f"- {first}", *(f"  {line}" if line.strip() else "" for line in rest)]


def _render_extra(value: Any) -> str:
    """An unknown key's JSON value as text: ``null`` items left out, ``true`` as JSON says it."""
    if isinstance(value, list):
        return "\n".join(line for v in value if v is not None for line in _item(_render_extra(v)))
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_render_extra(v)}" for k, v in value.items() if v is not None)
    return json.dumps(value) if isinstance(value, bool) else _field(str(value))


def render_markdown(summary: StructuredSummary) -> str:
    """Render as ``# Conversation Summary`` with a ``##`` section per non-empty field.

    A field's text is kept as written except where it would reach past its place: a block it
    opens and never closes (a code fence) is escaped, a list item's later lines are indented
    under it, a heading line outside its code is escaped, a path is one code span
    (:mod:`goosectx.compaction.blocks`); an unknown key's heading never reads as one of the
    sections a later compaction reads back (:func:`~goosectx.compaction.carry.model_heading`).
    """
    lines = ["# Conversation Summary"]
    for name in SUMMARY_FIELDS:
        value = getattr(summary, name)
        if not value:
            continue
        lines += ["", f"## {SECTION_TITLES[name]}", ""]
        if name == "files":
            for note in value:
                lines += _item(one_line_code(note.path)
                               + (f": {note.summary}" if note.summary else ""))
                if note.key_code:
                    fence = "```"
                    while fence in note.key_code:
                        fence += "`"
                    lines += ["", f"  {fence}", *(f"  {ln}" for ln in
                                                  note.key_code.splitlines()), f"  {fence}", ""]
        elif isinstance(value, list):
            lines += [line for item in value for line in _item(item)]
        else:
            lines.append(_field(str(value)))
    for key, value in summary.extra.items():
        if value in (None, "", [], {}):
            continue
        # Not a second escape of what _field/_item escaped: an object's keys reach here raw,
        # and "- " items joined may underline the line above (a heading of their own).
        lines += ["", f"## {model_heading(key.replace('_', ' ').capitalize())}", "",
                  without_headings(_render_extra(value))]
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
