"""The extractive summariser: a structured summary built from the transcript, no model.

It fills the same :class:`~goosectx.compaction.summary.StructuredSummary` as the model's summary
(DESIGN.md §4.2) and is rendered the same way:

* ``user_intent`` — the user's first request;
* ``user_messages`` — every user request (long ones shortened);
* ``files`` — every file touched, from tool arguments and text actions (see
  :mod:`goosectx.compaction.actions`), with what was done to it;
* ``errors_and_fixes`` — errors seen in tool results and what the assistant did next;
* ``pending_tasks`` — open items of the todo list / plan tool calls (:mod:`.todos`): a
  finished item is never listed;
* ``current_work`` — the last assistant work; ``next_step`` — the newest user request, or,
  when the summarised messages end with an answer, that it was answered (and what it was).

The rendered Markdown fits ``max_tokens``: items are shortened and dropped (key code first, then
read-only files, middle user messages, old errors) but the newest user request and every path
that was created, written, edited or deleted are always kept.

Messages marked by importers in ``metadata.extra["source_kind"]`` are treated accordingly:
``observation`` (tool output carried as user text, e.g. SWE-agent) is scanned like a tool result,
``harness`` and ``command`` (text the other agent's harness wrote, local slash commands) are not
user requests — nor is any text part that :func:`~goosectx.compaction.actions.is_harness_text`
recognises (a merged message keeps only its first message's metadata). Thinking is never
summarised.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from goosectx.compaction.actions import (
    WRITE_VERBS,
    FileAction,
    actions_from_text,
    error_excerpt,
    is_harness_text,
    normalize_tool_name,
    open_file_in,
)
from goosectx.compaction.memo import ScanMemo, TextCounts
from goosectx.compaction.summary import FileNote, StructuredSummary, render_markdown
from goosectx.compaction.todos import TODO_TOOLS, open_todos
from goosectx.conversation import Message, TextContent, ToolResponse
from goosectx.tokens import TokenCounter

_READ_ONLY_TOOLS = {"read", "read_file", "view", "open", "cat", "readfile", "read_many_files",
                    "grep", "glob", "find_file", "search_file", "search_dir", "ls", "tree"}
_VIEWER_COMMANDS = {"cat", "sed", "head", "tail", "nl", "less", "grep", "rg", "ls", "find",
                    "tree", "wc", "awk"}
ANSWERED_NEXT_STEP = "None: the last request was answered; wait for the user's next message."
"""``next_step`` when the summarised part ends with an answer (no pending tool call)."""
_SUMMARY_SECTION = re.compile(r"^## (.+?)\s*$", re.M)
_VERB_ORDER = ("created", "written", "edited", "deleted", "read")


@dataclass(slots=True)
class _FileRecord:
    path: str
    verbs: dict[str, int] = field(default_factory=dict)
    failed: int = 0
    code: str = ""

    @property
    def changed(self) -> bool:
        return any(v in WRITE_VERBS for v in self.verbs)

    def describe(self) -> str:
        parts = []
        for verb in _VERB_ORDER:
            n = self.verbs.get(verb, 0)
            if n:
                parts.append(verb if n == 1 else f"{verb} ({n}×)")
        text = ", ".join(parts)
        if self.failed:
            text += f"; {self.failed} attempt(s) failed or were rejected"
        return text


@dataclass(slots=True)
class _Facts:
    """Everything the summary is made from, gathered in one pass."""

    requests: list[str] = field(default_factory=list)
    files: dict[str, _FileRecord] = field(default_factory=dict)
    errors: list[list[str]] = field(default_factory=list)
    pending: dict[str, str] = field(default_factory=dict)
    answered: bool = False
    last_work: str = ""
    last_calls: list[str] = field(default_factory=list)
    earlier: list[str] = field(default_factory=list)
    tool_calls: int = 0
    message_count: int = 0


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
    memo: ScanMemo | None = None,
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

    Returns:
        The summary. Its rendering fits ``max_tokens`` unless the newest user request (cut to
        50 tokens) and the bare list of changed file paths alone exceed it.
    """
    facts = _gather(messages, memo)
    counts = TextCounts(counter)  # each piece is tokenised once, whatever the levels tried
    summary = _build(facts, _LEVELS[0], counts)
    for limits in _LEVELS[1:]:
        if counter.count_text_within(render_markdown(summary), max_tokens) <= max_tokens:
            return summary
        summary = _build(facts, limits, counts)
    return summary


# -- gathering -----------------------------------------------------------------------------------
def _gather(messages: Sequence[Message], memo: ScanMemo | None = None) -> _Facts:
    memo = ScanMemo() if memo is None else memo  # a compaction passes one for all its scans
    facts = _Facts(message_count=len(messages))
    calls: dict[str, tuple[str, dict[str, Any] | None, list[FileAction], str]] = {}
    open_file: str | None = None
    pending_errors: list[list[str]] = []
    for m in messages:
        kind = m.metadata.extra.get("source_kind")
        if m.metadata.is_summary:
            _carry_forward(m.text, facts)
            continue
        if m.role == "assistant":
            if m.metadata.is_continuation:
                continue
            text = m.text.strip()
            for action in actions_from_text(text, open_file=open_file) if text else []:
                _note(facts, action)
            labels = []
            for req in m.tool_requests:
                facts.tool_calls += 1
                actions, label = memo.call(req, open_file)
                calls[req.id] = (req.name, req.arguments, actions, label)
                labels.append(label)
                if req.arguments and normalize_tool_name(req.name) in ("open", "create"):
                    open_file = str(req.arguments.get("path") or req.arguments.get("filename")
                                    or open_file)
                if normalize_tool_name(req.name) in TODO_TOOLS and req.arguments:
                    facts.pending = open_todos(req.arguments, facts.pending)
            if pending_errors:  # what the assistant did next, for the errors still open
                what = _first_sentence(text) if text else ", ".join(labels)
                for pending in pending_errors:
                    pending.append(what)
                pending_errors = []
            facts.answered = bool(text) and not m.tool_requests
            if text:
                facts.last_work = text
                facts.last_calls = []
            facts.last_calls = (facts.last_calls + labels)[-3:]
            continue
        for part in m.content:
            if isinstance(part, ToolResponse):
                name, args, actions, label = calls.get(part.id, ("tool", None, [], "tool"))
                for action in actions:
                    _note(facts, action, failed=part.is_error)
                open_file = memo.opened(part) or open_file
                err = part.output if part.is_error else (
                    None if _only_reads(name, args) else memo.error(part))
                if err is not None:
                    excerpt = memo.error(part) if err is part.output else error_excerpt(err)
                    entry = [f"{label}: {excerpt or err}"]
                    facts.errors.append(entry)
                    pending_errors.append(entry)
        texts = [p.text for p in m.content if isinstance(p, TextContent) and p.text.strip()]
        facts.answered = False
        if kind == "observation":
            text = "\n".join(texts)
            open_file = open_file_in(text[-400:]) or open_file
            excerpt = error_excerpt(text)
            if excerpt:
                entry = [f"observation: {excerpt}"]
                facts.errors.append(entry)
                pending_errors.append(entry)
            continue
        for text in texts:
            # A merged message (agent_view joins consecutive user messages) keeps only its
            # first message's metadata, so each text part is also checked on its own.
            if is_harness_text(text) or (kind in ("harness", "command") and len(texts) == 1):
                continue
            text = text.strip()
            if not facts.requests or facts.requests[-1] != text:
                facts.requests.append(text)
    return facts


def _only_reads(name: str, args: dict[str, Any] | None) -> bool:
    """True for a call that only shows files (its output may quote errors without failing)."""
    tool = normalize_tool_name(name)
    if tool in _READ_ONLY_TOOLS:
        return True
    command = (args or {}).get("command")
    if isinstance(command, list):
        command = command[-1] if command else ""
    if not isinstance(command, str) or not command.strip():
        return False
    first = command.split()[0].rsplit("/", 1)[-1]
    return first in _VIEWER_COMMANDS and not any(c in command for c in ("&&", ";", "|"))


def _note(facts: _Facts, action: FileAction, *, failed: bool = False) -> None:
    path = action.path.strip().strip("`'\"").replace("\\", "/").removeprefix("./")
    if not path:
        return
    record = facts.files.get(path) or _same_file(facts, path)
    if record is None:
        record = facts.files[path] = _FileRecord(path)
    if failed:
        record.failed += 1
        record.verbs.setdefault(action.verb, 0)
        return
    record.verbs[action.verb] = record.verbs.get(action.verb, 0) + 1
    if action.code and action.verb in WRITE_VERBS:
        record.code = action.code


def _same_file(facts: _Facts, path: str) -> _FileRecord | None:
    """The record of ``path`` named differently: ``a/b.py`` and ``/repo/a/b.py`` are one file.

    Only an absolute and a relative name are matched (``README.md`` and ``docs/README.md``
    are two files).

    The record keeps the longer name, which contains the shorter one.
    """
    for key, record in facts.files.items():
        if key.startswith("/") == path.startswith("/"):
            continue  # two relative (or two absolute) names are two files
        if key.endswith("/" + path) or path.endswith("/" + key):
            facts.files[path] = record
            if len(path) > len(record.path):
                record.path = path
            return record
    return None


def _carry_forward(text: str, facts: _Facts) -> None:
    """Keep what an earlier summary (our Markdown rendering) recorded."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = _SUMMARY_SECTION.match(line)
        if m:
            current = m.group(1).lower()
            sections[current] = []
        elif current is not None and line.strip():
            sections[current].append(line)
    if not sections:
        facts.earlier.append(" ".join(text.split()))
        return
    for line in sections.get("files", []):
        fm = re.match(r"- `([^`]+)`(?:: (.*))?$", line)
        if fm:
            record = facts.files.setdefault(fm.group(1), _FileRecord(fm.group(1)))
            verbs = [v for v in _VERB_ORDER if v in (fm.group(2) or "")] or ["edited"]
            for verb in verbs:
                record.verbs[verb] = record.verbs.get(verb, 0) + 1
    for line in sections.get("user messages", []):
        if line.startswith("- "):
            facts.requests.append(line[2:])
    for line in sections.get("errors and fixes", []):
        if line.startswith("- "):
            facts.errors.append([line[2:]])
    for name in ("user intent", "current work", "problem solving"):
        if sections.get(name):
            facts.earlier.append(f"{name}: " + " ".join(" ".join(sections[name]).split()))


# -- building ------------------------------------------------------------------------------------
def _shorten(text: str, max_tokens: int | None, counter: TextCounts, *, oneline: bool = True
             ) -> str:
    """``text`` cut to ``max_tokens``: its head and tail around `` […] `` (made once a level)."""
    key = (text, max_tokens, oneline)
    hit = counter.shortened.get(key)
    if hit is None:
        hit = counter.shortened[key] = _cut(text, max_tokens, counter, oneline)
    return hit


def _cut(text: str, max_tokens: int | None, counter: TextCounts, oneline: bool) -> str:
    if oneline:
        text = " ".join(text.split())
    if max_tokens is None or len(text) <= max_tokens:  # a token is at least one character
        return text
    count = counter.count_text(text)
    if count <= max_tokens:
        return text
    keep = int(len(text) * max_tokens / count * 0.9)
    while keep > 8:
        head = text[: keep * 2 // 3].rstrip()
        tail = text[len(text) - keep // 3:].lstrip()
        candidate = f"{head} […] {tail}"
        if counter.count_text(candidate) <= max_tokens:
            return candidate
        keep = int(keep * 0.8)
    return text[: max(8, keep)] + " […]"


def _build(facts: _Facts, limits: _Limits, counter: TextCounts) -> StructuredSummary:
    summary = StructuredSummary()
    if facts.requests:
        summary.user_intent = _shorten(facts.requests[0], limits.intent_tokens, counter,
                                       oneline=False)
        summary.next_step = ((ANSWERED_NEXT_STEP + " It was:" if facts.answered else
                              "Continue with the newest user request:") + "\n\n"
                             + _shorten(facts.requests[-1], limits.next_tokens, counter,
                                        oneline=False))
        summary.user_messages = _pick(
            [_shorten(r, limits.item_tokens, counter) for r in facts.requests],
            limits.max_user_messages, "user messages")
    elif facts.earlier:
        summary.user_intent = _shorten(facts.earlier[0], limits.intent_tokens, counter)
    for record in {id(r): r for r in facts.files.values()}.values():
        if not record.changed and not limits.read_files:
            continue
        note = FileNote(record.path, record.describe() if limits.file_notes else "")
        if limits.key_code_lines and record.code:
            lines = record.code.strip("\n").splitlines()
            note.key_code = "\n".join(lines[: limits.key_code_lines])
            if len(lines) > limits.key_code_lines:
                note.key_code += "\n…"
        summary.files.append(note)
    errors = [" → then: ".join(e) for e in facts.errors]
    if limits.max_errors is not None:
        dropped = len(errors) - limits.max_errors
        errors = errors[-limits.max_errors:] if limits.max_errors else []
        if dropped > 0 and errors:
            errors.insert(0, f"({dropped} earlier errors omitted)")
    summary.errors_and_fixes = [_shorten(e, limits.item_tokens, counter) for e in errors]
    if limits.extras:
        summary.pending_tasks = [_shorten(t, limits.item_tokens, counter)
                                 for t in facts.pending.values()]
    work = facts.last_work
    if facts.last_calls:
        work = (work + "\n\n" if work else "") + "Last tool calls: " + "; ".join(facts.last_calls)
    summary.current_work = _shorten(work, limits.work_tokens, counter, oneline=False)
    if limits.extras:
        problem = (f"Extractive summary (no model) of {facts.message_count} messages with "
                   f"{facts.tool_calls} tool calls and {len(facts.errors)} error(s).")
        if facts.earlier:
            problem += " Earlier: " + _shorten(" ".join(facts.earlier), limits.work_tokens,
                                               counter)
        summary.problem_solving = problem
    return summary


def _pick(items: list[str], limit: int | None, noun: str) -> list[str]:
    """The first and newest items when there are more than ``limit``, with an omission note."""
    if limit is None or len(items) <= limit:
        return items
    if limit <= 1:
        return items[-1:] if limit == 1 else []
    head = max(1, limit // 3)
    tail = limit - head
    return [*items[:head], f"({len(items) - limit} more {noun} omitted)", *items[-tail:]]


def _first_sentence(text: str, limit_chars: int = 200) -> str:
    flat = " ".join(text.split())
    m = re.search(r"[.!?。！？](\s|$)", flat)
    cut = flat[: m.end()].strip() if m and m.end() <= limit_chars else flat[:limit_chars]
    return cut + ("…" if len(cut) < len(flat) and not m else "")


gather_facts = _gather
"""The one-pass analysis of a transcript (for :mod:`goosectx.compaction.facts`)."""
