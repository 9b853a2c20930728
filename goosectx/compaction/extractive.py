"""The extractive summariser: a structured summary built from the transcript, no model.

It fills the same :class:`~goosectx.compaction.summary.StructuredSummary` as the model's summary
(DESIGN.md §4.2) and is rendered the same way:

* ``user_intent`` — the user's first request, or the intent an earlier summary named;
* ``user_messages`` — every user request (long ones shortened; a long only request is not
  listed, the intent and next step say it);
* ``files`` — every file touched, from tool arguments and text actions (see
  :mod:`goosectx.compaction.actions`), with what was done to it;
* ``errors_and_fixes`` — errors seen in tool results and what the assistant did next;
* ``pending_tasks`` — open items of the todo list / plan tool calls, or of the newest Markdown
  checklist in the assistant's text (:mod:`.todos`): a finished item is never listed;
* ``current_work`` — the last assistant work; ``next_step`` — the newest user request (or the
  earlier summary's next step when no request came after it), or, when the summarised messages
  end with an answer, that it was answered (and what it was).

Text from outside (the user's, the model's, an import's) never starts a line of the summary
that reads as a section: a text with a line that could (a ``#`` heading, a ``===``/``---``
underline) is put on one line, as the user messages list puts every request (its words kept);
the sections marked ``(from the transcript)`` come only from our own facts.

The rendered Markdown fits ``max_tokens``: items are shortened and dropped (key code first, then
read-only files, middle user messages, old errors) but the newest user request and every path
that was created, written, edited or deleted are always kept.

Messages marked by importers in ``metadata.extra["source_kind"]`` are treated accordingly:
``observation`` (tool output carried as user text, e.g. SWE-agent) is scanned like a tool result,
``harness`` and ``command`` (text the other agent's harness wrote, local slash commands) are not
user requests — nor is any text part that :func:`~goosectx.compaction.actions.is_harness_text`
recognises (a merged message keeps only its first message's metadata). Thinking is never
summarised. The one pass over the messages is :func:`goosectx.compaction.gather.gather_facts`;
this module builds and sizes the summary from what it finds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from goosectx.compaction.carry import (
    ANSWERED_NEXT_STEP,
    EXTRACTIVE_MARK,
    LATER_PASSED,
    NOTE_SEPARATOR,
    THEN,
    Facts,
)
from goosectx.compaction.condensed import with_condensed_pairs
from goosectx.compaction.cuts import PieceCounts
from goosectx.compaction.cuts import shorten as _shorten
from goosectx.compaction.fixed_errors import fixed_in
from goosectx.compaction.gather import gather_facts
from goosectx.compaction.memo import ScanMemo
from goosectx.compaction.summary import FileNote, StructuredSummary, render_markdown
from goosectx.compaction.todos import newest_todos
from goosectx.conversation import Message, TextContent
from goosectx.tokens import TokenCounter

__all__ = ["ANSWERED_NEXT_STEP", "extractive_summary"]


@dataclass(frozen=True, slots=True)
class _Limits:
    """Per-field caps in tokens (``None`` = no cap) and item counts for one rendering."""

    item_tokens: int | None
    intent_tokens: int | None
    work_tokens: int | None
    next_tokens: int | None
    max_user_messages: int | None
    max_errors: int | None
    key_code_lines: int
    read_files: bool
    file_notes: bool
    extras: bool = True
    """Pending tasks and the problem-solving note."""


_LEVELS: tuple[_Limits, ...] = (
    _Limits(300, 300, 1000, None, None, None, 8, True, True),
    _Limits(300, 300, 1000, None, None, None, 0, True, True),
    _Limits(200, 200, 600, None, None, 40, 0, True, True),
    _Limits(200, 400, 400, None, 60, 25, 0, True, True),
    _Limits(120, 250, 250, None, 30, 15, 0, False, True),
    _Limits(80, 150, 150, None, 16, 8, 0, False, True),
    _Limits(50, 100, 100, 1500, 8, 4, 0, False, True),
    _Limits(30, 60, 60, 600, 4, 2, 0, False, False),
    _Limits(20, 40, 40, 250, 2, 1, 0, False, False, False),
    _Limits(12, 25, 25, 120, 0, 0, 0, False, False, False),
    _Limits(8, 12, 12, 50, 0, 0, 0, False, False, False),
)


def extractive_summary(
    messages: Sequence[Message], *, max_tokens: int, counter: TokenCounter,
    memo: ScanMemo | None = None, answered: bool = False, tail: Sequence[Message] = (),
    copied: frozenset[str] = frozenset(),
) -> StructuredSummary:
    """Summarise ``messages`` without a model.

    Args:
        messages: The history to summarise, oldest first (usually the agent-visible messages).
            A previous summary (``metadata.is_summary``) is carried forward: its files, user
            messages and errors are kept.
        max_tokens: Budget for the rendered Markdown (:func:`render_markdown`), in tokens as
            ``counter`` counts them.
        counter: The token counter of the model the summary is for.
        memo: The compaction's scan memo (:mod:`goosectx.compaction.memo`), if any.
        answered: The view's newest request was answered (``Split.answered``): the next step
            says so even when ``messages`` (a head) end inside that turn.
        tail: The messages the model keeps verbatim after the summary (``Split.tail``): the
            pending tasks are the newest to-do list's, theirs included, and an error a call
            there fixed reads ``(later passed)``.
        copied: Ids of the messages of ``messages`` the model keeps a copy of after the
            summary (``Split.copied``): a newest request among them is referred to by the
            next step (:data:`FOLLOWS`), not quoted again (fresh19b #07). Its identity
            counts, not its text: an answered request that reads as the new one is no copy.

    Returns:
        The summary. Its rendering fits ``max_tokens`` unless the newest user request (cut to
        50 tokens) and the bare list of changed file paths alone exceed it.
    """
    facts = gather_facts(messages, memo)
    if answered and not facts.answered:  # a copy: the memo keeps the scan's facts
        facts = replace(facts, answered=True)
    if tail:
        facts = _after_tail(facts, tail, ScanMemo() if memo is None else memo)
    counts = PieceCounts(counter)  # each piece is tokenised once, whatever the levels tried
    kept: _Kept = ("newest" if copied and facts.requests
                   and _newest_copied(messages, copied, facts.requests[-1]) else "")
    if facts.answered and not answered and any(m.is_user_request for m in tail):
        kept = "next"  # a new request follows the answered head: it is the next step
    levels = _LEVELS[_first_level(facts, max_tokens):]
    summary = _built(facts, levels[0], counts, kept)
    for limits in levels[1:]:
        if counter.count_text_within(render_markdown(summary), max_tokens) <= max_tokens:
            return summary
        summary = _built(facts, limits, counts, kept)
    return summary


_Kept = Literal["", "newest", "next"]
"""Which request the model reads after the summary: ``newest`` (a copy of the summarised part's
newest request), ``next`` (a request newer than the answered summarised part), or ``""``."""


def _newest_copied(messages: Sequence[Message], copied: frozenset[str], newest: str) -> bool:
    """Whether the message holding the newest request (``newest``) is one of ``copied``.

    That message is the newest user message with the text as the scan records it, never an
    older one with the same words (nor a re-sent text merged into an earlier summary: no copy).
    """
    for m in reversed(messages):
        if m.role == "user" and any(isinstance(p, TextContent) and p.text.strip() == newest
                                    for p in m.content):
            return m.id in copied
    return False


def _after_tail(facts: Facts, tail: Sequence[Message], memo: ScanMemo) -> Facts:
    """``facts`` (not changed: the memo keeps them) as the verbatim ``tail`` leaves them."""
    tail = with_condensed_pairs(tail)
    pending = newest_todos(tail, facts.pending)
    fixed = fixed_in(tail, facts.errors, memo.label, memo.error)
    if pending is facts.pending and not fixed:
        return facts
    errors = [[e[0] + LATER_PASSED, *e[1:]] if " ".join(e[0].split()) in fixed
              and not e[0].endswith(LATER_PASSED) else e for e in facts.errors]
    return replace(facts, pending=pending, errors=errors)


def _first_level(facts: Facts, max_tokens: int) -> int:
    """The first level that may fit: one whose user messages are not more than ``max_tokens``.

    Each user message is a bullet line, and a bullet's ``-`` is a token of its own (the
    tokenizers start a piece at it, after the line break): a level listing more of them than
    ``max_tokens`` cannot fit, so it is skipped without cutting (and counting) every request
    at its size — the level after it would be tried anyway, so the summary is the same.
    """
    for at, limits in enumerate(_LEVELS[:-1]):
        if len(_pick(facts.requests, limits.max_user_messages, "")) <= max_tokens:
            return at
    return len(_LEVELS) - 1



# -- building ------------------------------------------------------------------------------------
def _built(facts: Facts, limits: _Limits, counts: PieceCounts,
           kept: _Kept) -> StructuredSummary:
    """:func:`_build`; with a counter that batches, its cuts are made first, together."""
    if counts.batches:
        counts.collecting = []
        _build(facts, limits, counts, kept)  # records the pieces to cut
        counts.resolve()
    return _build(facts, limits, counts, kept)


def _lines_kept(text: str) -> bool:
    """True when ``text`` may keep its line breaks: none of its lines could start a section.

    Such a line is a heading (``#`` after spaces) or an underline (``===``, ``---``) below a
    line of text; any of :meth:`str.splitlines`' breaks ends a line.
    """
    if "#" not in text and "=" not in text and "-" not in text:
        return True
    above = False
    for line in text.splitlines():
        bare = line.strip(" \t")
        if bare[:1] == "#" or above and bare and (not bare.strip("=") or not bare.strip("-")):
            return False
        above = bool(bare)
    return True


def _block(text: str, max_tokens: int | None, counter: PieceCounts) -> str:
    """Outside ``text`` shortened for a prose field: on one line if a line could be a section."""
    flat = counter.one_line.get(text)
    if flat is None:
        flat = counter.one_line[text] = not _lines_kept(text)
    return _shorten(text, max_tokens, counter, oneline=flat)


def _build(facts: Facts, limits: _Limits, counter: PieceCounts,
           kept: _Kept) -> StructuredSummary:
    summary = StructuredSummary()
    if facts.intent or facts.requests:  # an earlier summary's intent is the task's
        summary.user_intent = _block(facts.intent or facts.requests[0], limits.intent_tokens,
                                     counter)
    if facts.next_step or facts.requests:
        summary.next_step = _next_step(facts, limits, counter, kept)
    requests = facts.requests
    if (len(requests) == 1 and not facts.intent and not facts.next_step
            and summary.user_intent != requests[0]):
        requests = []  # a long only request: the intent (shortened) and next step say it
    if requests:
        newest = len(requests) - 1 if kept == "newest" else None  # the model reads it
        summary.user_messages = [  # only the picked ones are shortened (and counted)
            r if i is None else _shorten(r, _item_tokens(limits.item_tokens, i == newest),
                                         counter)
            for i, r in _pick(requests, limits.max_user_messages, "user messages")]
    elif facts.earlier and not summary.user_intent:
        summary.user_intent = _shorten(facts.earlier[0], limits.intent_tokens, counter)
    for record in {id(r): r for r in facts.files.values()}.values():
        if not record.listed and not limits.read_files:
            continue
        note = FileNote(record.path, record.describe() if limits.file_notes
                        else record.brief())
        if limits.key_code_lines and record.code:
            lines = record.code.strip("\n").splitlines()
            note.key_code = "\n".join(lines[: limits.key_code_lines])
            if len(lines) > limits.key_code_lines:
                note.key_code += "\n…"
        summary.files.append(note)
    errors = [_error_item(e, limits.item_tokens, counter) for e in facts.errors]
    if limits.max_errors is not None:
        dropped = len(errors) - limits.max_errors
        errors = errors[-limits.max_errors:] if limits.max_errors else []
        if dropped > 0 and errors:
            errors.insert(0, f"({dropped} earlier errors omitted)")
    summary.errors_and_fixes = errors
    if limits.extras:
        summary.pending_tasks = [_shorten(t, limits.item_tokens, counter)
                                 for t in facts.pending.values()]
    work = facts.last_work
    if facts.last_calls:
        work = (work + "\n\n" if work else "") + "Last tool calls: " + "; ".join(facts.last_calls)
    summary.current_work = _block(work, limits.work_tokens, counter)
    if limits.extras:
        new = len(facts.errors) - facts.carried_errors
        carried = (f" ({facts.carried_errors} more carried from earlier summaries)"
                   if facts.carried_errors else "")
        problem = (f"{EXTRACTIVE_MARK} of {facts.message_count} messages with "
                   f"{_count(facts.tool_calls, 'tool call')} and {_count(new, 'error')}"
                   f"{carried}.")
        if facts.earlier:
            problem += " Earlier: " + _shorten(NOTE_SEPARATOR.join(facts.earlier),
                                               limits.work_tokens, counter)
        summary.problem_solving = problem
    else:  # the mark alone: its Files and Errors and fixes are read back (carry.own_sections)
        summary.problem_solving = f"{EXTRACTIVE_MARK}."
    return summary


KEPT_ITEM_TOKENS = 30
"""The most a user message listed keeps when it is the request the model reads after the
summary (the next step refers to it: its whole text follows)."""


def _item_tokens(item_tokens: int | None, kept: bool) -> int | None:
    """A listed user message's cap: :data:`KEPT_ITEM_TOKENS` at most for the kept request."""
    if not kept:
        return item_tokens
    return KEPT_ITEM_TOKENS if item_tokens is None else min(item_tokens, KEPT_ITEM_TOKENS)


def _count(n: int, noun: str) -> str:
    """``1 tool call``, ``2 tool calls``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


_NEWEST = "Continue with the newest user request:"
_ANSWERED = ANSWERED_NEXT_STEP + " It was:"
_EARLIER = ANSWERED_NEXT_STEP + " The earlier summary's next step was:"
FOLLOWS = "the user's request that follows this summary"
"""What the next step calls the newest request when the model keeps a copy of it after the
summary (verbatim or elided): quoting it too would send it twice."""


def _next_step(facts: Facts, limits: _Limits, counter: PieceCounts,
               kept: _Kept) -> str:
    """The newest request, or the earlier summary's next step when no request came after it.

    Its request (an extractive summary's next step) is said again as answered or not, as the
    messages after it left it; a model's next step is kept as it wrote it. A request the model
    reads after the summary (``kept``) is referred to, not quoted.
    """
    if kept == "next":
        return f"Continue with {FOLLOWS}."
    carried = facts.next_step
    newest = facts.requests[-1] if facts.requests else ""
    carried = carried.removeprefix(_EARLIER).strip()  # said again below if still so
    if carried:
        for prefix in (_NEWEST, _ANSWERED):
            if carried.startswith(prefix):
                newest, carried = carried[len(prefix):].strip(), ""
                break
    if carried:
        return ((_EARLIER + "\n\n" if facts.answered else "")
                + _block(carried, limits.next_tokens, counter))
    if kept == "newest":
        return (f"{ANSWERED_NEXT_STEP} It was {FOLLOWS}." if facts.answered
                else f"Continue with {FOLLOWS}.")
    return ((_ANSWERED if facts.answered else _NEWEST) + "\n\n"
            + _block(newest, limits.next_tokens, counter))


def _error_item(entry: list[str], max_tokens: int | None, counter: PieceCounts) -> str:
    """An error and what was done next, each shortened on its own (the error gets ¾).

    In fewer than 40 tokens only the error is said.
    """
    if len(entry) < 2 or max_tokens is None:
        if max_tokens is None or len(entry) < 2 and _LABELLED.match(entry[0]) is None:
            return _shorten(THEN.join(entry), max_tokens, counter)
        return _error_text(entry[0], max_tokens, counter)
    if max_tokens < 40:
        return _error_text(entry[0], max_tokens, counter)
    return (_error_text(entry[0], max_tokens * 3 // 4, counter) + THEN
            + _shorten(THEN.join(entry[1:]), max_tokens // 4, counter))


_LABELLED = re.compile(r"([\w.-]+(?: [\w.-]+)?(?: (`+) ?.*? ?\2)?): (\S.*)", re.S)
"""An error as the scan labels it: the call (tool, its command or path in a code span), the
error."""
_LABEL_TOKENS = 10
"""The fewest tokens a shortened label keeps (tool, the head and tail of its command)."""


def _error_text(text: str, max_tokens: int, counter: PieceCounts) -> str:
    """A failed call's error in ``max_tokens``: its label shortened first, then the error.

    DESIGN §4.5(4) keeps the last error of each failing command: what is cut is the command
    (its head and tail kept), and only an error longer than the whole item is cut itself.
    """
    whole = _shorten(text, max_tokens, counter)
    flat = " ".join(text.split())
    labelled = _LABELLED.fullmatch(flat)
    if whole == flat or labelled is None:
        return whole  # it fits (or a collecting pass: nothing is cut yet), or is no label
    label, error = labelled.group(1), labelled.group(3)
    room = max_tokens - counter.count_text(": " + error)
    for share in (room, room * 3 // 4, room // 2):
        if share < _LABEL_TOKENS:
            break
        shorter = f"{_shorten(label, share, counter)}: {error}"
        if counter.count_text(shorter) <= max_tokens:
            return shorter
    if room > 0:  # the error fits: it keeps a few words of its command, a little over the cap
        return f"{_shorten(label, _LABEL_TOKENS, counter)}: {error}"
    name = label.split(" ", 1)[0]
    left = max(8, max_tokens - counter.count_text(name + ": "))
    return f"{name}: {_shorten(error, left, counter)}"


def _pick(items: list[str], limit: int | None, noun: str) -> list[tuple[int | None, str]]:
    """The first and newest items when there are more than ``limit``, with an omission note.

    Returns (index in ``items``, item) pairs in order; the note's index is ``None``.
    """
    if limit is None or len(items) <= limit:
        return list(enumerate(items))
    if limit <= 1:
        return [(len(items) - 1, items[-1])] if limit == 1 else []
    head = max(1, limit // 3)
    tail = limit - head
    return [*enumerate(items[:head]), (None, f"({len(items) - limit} more {noun} omitted)"),
            *((len(items) - tail + i, item) for i, item in enumerate(items[-tail:]))]


