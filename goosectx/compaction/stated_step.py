"""The next step the assistant said it would take: a fact the summariser may leave out.

Part of step 3 of the compaction pipeline (docs/architecture.md §5). A model summary may drop
what the assistant itself said it would do next ("NEXT STEP: rename add to plus"), and a vague
one leaves the facts as the model's only memory. The newest such statement in the assistant's
answers (:func:`stated_step`: a ``Next step:`` / ``Next steps:`` / ``Next:`` line, or a
``Next, I'll …`` sentence, at a line's start or after a sentence, outside fenced code) is
merged into the summary under :data:`STEP_TITLE` and read back from an earlier summary
(:func:`carried_step`) until a newer one is stated.
"""

from __future__ import annotations

import re

from goosectx.compaction.carry import carried_lines
from goosectx.compaction.cuts import word_head
from goosectx.lazy_pattern import LazyPattern

STEP_TITLE = "Next step the assistant stated"
"""The facts heading of the stated next step (marked ``(from the transcript)``)."""
MAX_STEP_CHARS = 240
"""Longest stated step kept (a longer one is cut between words)."""
_STEP = LazyPattern(
    r"(?:^[ \t>#*-]*|(?<=[.!?] ))(?:\*\*)?next(?: steps?| up)?(?: (?:is|are|would be|will be))?"
    r"(?:\*\*)?[ \t]*[:：](?:\*\*)?[ \t]*(?P<rest>.*)"
    r"|(?:^[ \t>*-]*|(?<=[.!?] ))(?P<sentence>next,? I(?:'ll| will| am going to| plan to) .*)",
    re.I | re.M)
"""A marker at a line's start or after a sentence (not inside quoted text: a diff's
``+ ## NEXT: …`` line is no statement of the assistant's)."""
_FENCED = LazyPattern(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1[ \t]*$", re.M | re.S)
_ENUMERATED = LazyPattern(r"^\s*(?:[-*+]|\d+[.)])\s+")


def stated_step(text: str) -> str | None:
    """The last next step ``text`` (an assistant's answer) states, on one line, else ``None``.

    A marker with nothing after it on its line takes the lines under it (a list: its items
    joined with ``; ``) up to a blank line. Cut to :data:`MAX_STEP_CHARS`.
    """
    if "next" not in text and "Next" not in text and "NEXT" not in text:
        return None  # no marker can match: most answers stop here (three fast searches)
    if not _may_state(text):
        return None  # every "next" is inside a sentence: the regex would find nothing
    if "```" in text or "~~~" in text:
        text = _FENCED.sub("", text)
    found = None
    for match in _STEP.finditer(text):
        found = match
    if found is None:
        return None
    step = (found.group("rest") if found.group("sentence") is None
            else found.group("sentence")).strip()
    if not step:
        under: list[str] = []
        for line in text[found.end():].splitlines()[1:]:
            if not line.strip():
                if under:
                    break
                continue
            under.append(_ENUMERATED.sub("", line).strip())
        step = "; ".join(under)
    step = " ".join(step.split())
    if len(step) > MAX_STEP_CHARS:
        step = word_head(step, MAX_STEP_CHARS - 1) + "…"
    return step or None


_NEXT = LazyPattern("next", re.I)


def _may_state(text: str) -> bool:
    """False when no "next" of ``text`` could start a stated step.

    Such a "next" starts a line or follows a sentence, and is followed on its line by a colon
    or "I'll" (or "I will", "I am going to", "I plan to"): :data:`_STEP`'s places, a cheap
    test before it (it tries its look-behind everywhere).
    """
    for found in _NEXT.finditer(text):
        end = found.end()
        if not _may_follow(text, end):
            continue
        at = found.start()
        if text.startswith("**", at - 2):
            at -= 2
        if at >= 2 and text[at - 1] == " " and text[at - 2] in ".!?":
            return True
        while at > 0 and text[at - 1] in " \t>#*-":
            at -= 1
        if at == 0 or text[at - 1] == "\n":
            return True
    return False


_SAYS = ("i'll", "i will", "i am going to", "i plan to")
"""What :data:`_STEP`'s sentence form says after "next", lower-cased."""


def _may_follow(text: str, end: int) -> bool:
    """False when the rest of the line after a "next" ending at ``end`` cannot complete it.

    :data:`_STEP` needs a colon there, or one of :data:`_SAYS` (neither form crosses a line).
    Text that is not ASCII is let through (a case-insensitive ``I`` matches more than
    lower-casing finds).
    """
    stop = text.find("\n", end)
    rest = text[end:] if stop == -1 else text[end:stop]
    if ":" in rest or "：" in rest:
        return True
    if not rest.isascii():
        return True
    low = rest.lower()
    for says in _SAYS:
        if says in low:
            return True
    return False


def carried_step(summary_text: str) -> str:
    """The stated step an earlier summary's facts carry, else ``""``."""
    for line in carried_lines(summary_text, (STEP_TITLE.lower(),)):
        if line.startswith("- "):
            return line[2:].strip()
    return ""
