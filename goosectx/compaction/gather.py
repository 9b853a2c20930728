"""Gathering: the one pass over a transcript that the extractive summary and the facts use.

Part of step 3 of the compaction pipeline (docs/architecture.md §5). :func:`gather_facts` walks
the messages once and records the user's requests, the files touched (from tool arguments and
text actions, :mod:`goosectx.compaction.actions`), errors and what the assistant did next, open
todo items (:mod:`goosectx.compaction.todos`) and the last work. What a message kind means
(``metadata.extra["source_kind"]``, harness text, earlier summaries) is described in
:mod:`goosectx.compaction.extractive`, which builds the summary from these facts;
:mod:`goosectx.compaction.facts` merges some of them into a model's summary. The pairs a
tool-pair note stands for are put back by :mod:`goosectx.compaction.condensed`.
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
    is_harness_text,
    normalize_tool_name,
    open_file_in,
)
from goosectx.compaction.condensed import with_pairs_positioned
from goosectx.compaction.memo import ScanMemo
from goosectx.compaction.prompts import CONTINUATION_TEXTS
from goosectx.compaction.todos import TODO_TOOLS, checklist_todos, open_todos
from goosectx.compaction.tool_errors import error_excerpt
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse

_READ_ONLY_TOOLS = {"read", "read_file", "view", "open", "cat", "readfile", "read_many_files",
                    "grep", "glob", "find_file", "search_file", "search_dir", "ls", "tree"}
_VIEWER_COMMANDS = {"cat", "sed", "head", "tail", "nl", "less", "grep", "rg", "ls", "find",
                    "tree", "wc", "awk"}

ANSWERED_NEXT_STEP = "None: the last request was answered; wait for the user's next message."
"""``next_step`` when the summarised part ends with an answer (no pending tool call)."""
_SUMMARY_SECTION = re.compile(r"^## (.+?)\s*$", re.M)
FACTS_MARK = "(from the transcript)"
"""Ends the heading of each facts section merged into a summary (:mod:`.facts`)."""
EXTRACTIVE_MARK = "Extractive summary (no model)"
"""Starts the problem-solving note of an extractive summary."""
MODEL_PENDING = "\0model:"
"""Starts the :attr:`Facts.pending` key of a pending task a model's summary named: a guess,
kept by an extractive summary, never merged as a fact (:mod:`.facts`)."""
NOTE_SEPARATOR = " · "
"""Joins the ``earlier`` notes in an extractive summary's problem-solving note."""
CONSTRAINT = re.compile(r"\b(must|never|don't|do not|always|only)\b", re.I)
"""A user constraint: a line of a request with one of these words."""


def may_name_constraint(text: str) -> bool:
    """False only when :data:`CONSTRAINT` cannot match ``text`` (a cheap test before it).

    A case-insensitive match is, lower-cased, one of the words: every character that matches
    one of their letters ignoring case lower-cases to that letter, except the long s (ſ),
    which is replaced first. Scanning a long history's requests this way costs a quarter of
    the search.
    """
    low = text.lower()
    if "ſ" in low:
        low = low.replace("ſ", "s")
    return ("must" in low or "never" in low or "don't" in low or "do not" in low  # the words
            or "always" in low or "only" in low)  # of CONSTRAINT


_VERB_ORDER = ("created", "written", "edited", "deleted", "read")


@dataclass(slots=True)
class FileRecord:
    """What was done to one file: verbs with their counts, failed attempts, the code written."""

    path: str
    verbs: dict[str, int] = field(default_factory=dict)
    failed: int = 0
    code: str = ""

    @property
    def changed(self) -> bool:
        """True when the file was created, written, edited or deleted."""
        return any(v in WRITE_VERBS for v in self.verbs)

    def describe(self) -> str:
        """The verbs in order, with counts and failed attempts (``edited (2×), read``)."""
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
class Facts:
    """Everything the summary is made from, gathered in one pass."""

    requests: list[str] = field(default_factory=list)
    files: dict[str, FileRecord] = field(default_factory=dict)
    errors: list[list[str]] = field(default_factory=list)
    pending: dict[str, str] = field(default_factory=dict)
    answered: bool = False
    last_work: str = ""
    last_calls: list[str] = field(default_factory=list)
    earlier: list[str] = field(default_factory=list)
    tool_calls: int = 0
    message_count: int = 0
    commands: list[str] = field(default_factory=list)
    """Commands an earlier summary listed (its ``Commands run`` facts), oldest first."""
    constraints: list[str] = field(default_factory=list)
    """User constraints an earlier summary listed (its ``User constraints`` facts)."""


def gather_facts(messages: Sequence[Message], memo: ScanMemo | None = None) -> Facts:
    """The facts of ``messages`` (oldest first), in one pass.

    ``memo``: the compaction's scan memo (:mod:`goosectx.compaction.memo`), shared by its
    scans of the same parts; a fresh one when ``None``.
    """
    memo = ScanMemo() if memo is None else memo  # a compaction passes one for all its scans
    known = memo.prefix_facts(messages)
    if known is not None:  # a head whose facts the scan of the whole view kept on its way
        return known
    facts = Facts(message_count=len(messages))
    calls: dict[str, tuple[ToolRequest, list[FileAction]]] = {}
    open_file: str | None = None
    pending_errors: list[list[str]] = []
    last_calls: list[ToolRequest] = []  # ``facts.last_calls``, labelled when they are read
    keep_at = memo.keep_facts_at
    actions_of, opened, error_of, label_of = memo.actions, memo.opened, memo.error, memo.label
    requests_seen = facts.requests
    for at, m in with_pairs_positioned(messages):  # a tool-pair note's pairs come back before it
        if at in keep_at:  # the facts of messages[:at], as a scan of just those would end
            facts.last_calls = [label_of(r) for r in last_calls]
            memo.keep_prefix_facts(messages, _copy(facts, at))
        meta = m.metadata
        if meta.is_summary:
            texts = [p.text for p in m.content if isinstance(p, TextContent) and p.text.strip()]
            _carry_forward(texts[0] if texts else "", facts)
            for text in texts[1:]:  # user messages re-sent after it, merged by the agent view
                _resent_request(text.strip(), facts)
            continue
        if m.role == "assistant":
            if meta.is_continuation:  # an earlier compaction's: it says whether it was answered
                facts.answered = m.text == CONTINUATION_TEXTS["answered"]
                continue
            said: list[str] = []  # ``m.text``'s parts and ``m.tool_requests``, in one pass
            requests: list[ToolRequest] = []
            for p in m.content:
                if isinstance(p, TextContent):
                    said.append(p.text)
                elif isinstance(p, ToolRequest):
                    requests.append(p)
            text = "\n".join(said).strip()
            if text:
                for action in actions_from_text(text, open_file=open_file):
                    _note(facts, action)
                checklist = checklist_todos(text)
                if checklist is not None:  # the newest plan the assistant wrote is the list
                    facts.pending = checklist
            for req in requests:
                facts.tool_calls += 1
                calls[req.id] = (req, actions_of(req, open_file))
                args = req.arguments
                if args:
                    tool = normalize_tool_name(req.name)
                    if tool in ("open", "create"):
                        open_file = str(args.get("path") or args.get("filename") or open_file)
                    if tool in TODO_TOOLS:
                        facts.pending = open_todos(args, facts.pending)
            if pending_errors:  # what the assistant did next, for the errors still open
                what = (_first_sentence(text) if text
                        else ", ".join(label_of(r) for r in requests))
                for pending in pending_errors:
                    pending.append(what)
                pending_errors = []
            facts.answered = bool(text) and not requests
            if text:
                facts.last_work = text
                last_calls = requests[-3:]
            elif requests:
                last_calls = (last_calls + requests)[-3:]
            continue
        texts = []  # the text parts that are not all whitespace
        for part in m.content:
            if isinstance(part, ToolResponse):
                call = calls.get(part.id)
                if call is not None:
                    for action in call[1]:
                        _note(facts, action, failed=part.is_error)
                tail = part.output[-400:]  # ``opened`` finds a file only after one of these
                if "(Open file: " in tail or "[File: " in tail:
                    open_file = opened(part) or open_file
                err = part.output if part.is_error else (
                    None if call is not None and _only_reads(call[0].name, call[0].arguments)
                    else error_of(part))
                if err is not None:
                    excerpt = error_of(part) if err is part.output else error_excerpt(err)
                    label = "tool" if call is None else label_of(call[0])
                    entry = [f"{label}: {excerpt or err}"]
                    facts.errors.append(entry)
                    pending_errors.append(entry)
            elif isinstance(part, TextContent) and part.text and not part.text.isspace():
                texts.append(part.text)  # (``part.text.strip()``, without the copy)
        facts.answered = False
        kind = meta.extra.get("source_kind")
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
            if not requests_seen or requests_seen[-1] != text:
                requests_seen.append(text)
            checklist = checklist_todos(text)
            if checklist is not None:  # the user's own list of what is to be done
                facts.pending = checklist
    facts.last_calls = [memo.label(r) for r in last_calls]
    memo.keep_prefix_facts(messages, facts)
    return facts



def _resent_request(text: str, facts: Facts) -> None:
    """An earlier user message re-sent after a summary: a request, its constraint lines kept."""
    if not facts.requests or facts.requests[-1] != text:
        facts.requests.append(text)
    for line in text.splitlines():
        line = line.strip()[:300]
        if line and CONSTRAINT.search(line) and line not in facts.constraints:
            facts.constraints.append(line)


def _copy(facts: Facts, message_count: int) -> Facts:
    """A copy of ``facts`` that the rest of a scan leaves as it is (records, error entries)."""
    records: dict[int, FileRecord] = {}
    files = {}
    for path, r in facts.files.items():  # one record may be filed under two names
        copy = records.get(id(r))
        if copy is None:
            copy = records[id(r)] = FileRecord(r.path, dict(r.verbs), r.failed, r.code)
        files[path] = copy
    return Facts(list(facts.requests), files, [list(e) for e in facts.errors],
                 dict(facts.pending), facts.answered, facts.last_work, list(facts.last_calls),
                 list(facts.earlier), facts.tool_calls, message_count, list(facts.commands),
                 list(facts.constraints))

def _only_reads(name: str, args: dict[str, Any] | None) -> bool:
    """True for a call that only shows files (its output may quote errors without failing)."""
    tool = normalize_tool_name(name)
    if tool in _READ_ONLY_TOOLS:
        return True
    command = (args or {}).get("command")
    if isinstance(command, list):
        command = command[-1] if command else ""
    if not isinstance(command, str) or not command or command.isspace():
        return False  # (``not command.strip()``, without the copy)
    first = command.split(None, 1)[0].rsplit("/", 1)[-1]
    return first in _VIEWER_COMMANDS and not ("&&" in command or ";" in command
                                              or "|" in command)


def _note(facts: Facts, action: FileAction, *, failed: bool = False) -> None:
    path = action.path.strip().strip("`'\"").replace("\\", "/").removeprefix("./")
    if not path:
        return
    record = facts.files.get(path) or _same_file(facts, path)
    if record is None:
        record = facts.files[path] = FileRecord(path)
    if failed:
        record.failed += 1
        record.verbs.setdefault(action.verb, 0)
        return
    record.verbs[action.verb] = record.verbs.get(action.verb, 0) + 1
    if action.code and action.verb in WRITE_VERBS:
        record.code = action.code


def _same_file(facts: Facts, path: str) -> FileRecord | None:
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


def _sections(text: str) -> dict[str, list[str]]:
    """A summary's non-blank lines by ``##`` heading (lower case, without the facts mark)."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = _SUMMARY_SECTION.match(line)
        if m:
            current = m.group(1).lower().removesuffix(FACTS_MARK.lower()).strip()
            sections.setdefault(current, [])
        elif current is not None and line.strip():
            sections[current].append(line)
    return sections


_CARRIED_SECTIONS = ("files", "files changed", "user messages", "errors and fixes", "errors",
                     "commands run", "user constraints", "open to-do items")


def carried_text(summary_text: str) -> str:
    """The lines of ``summary_text`` a later compaction reads back as facts (``_carry_forward``).

    A fact named only elsewhere (the model's prose, its own pending tasks, an extractive
    summary's intent) is not carried, so the facts merged into the summary still list it.
    """
    sections = _sections(summary_text)
    names = list(_CARRIED_SECTIONS)
    if " ".join(" ".join(sections.get("problem solving", [])).split()).startswith(
            EXTRACTIVE_MARK):
        names.append("pending tasks")
    return "\n".join(line for name in names for line in sections.get(name, []))


def _carry_forward(text: str, facts: Facts) -> None:
    """Keep what an earlier summary (our Markdown rendering, facts included) recorded.

    Its files (the model's ``Files`` and the facts' ``Files changed``), user messages, errors,
    commands, user constraints (its facts, and its user messages that hold one) and — from
    facts or an extractive summary — open to-do items, with a model's pending tasks (keyed
    :data:`MODEL_PENDING`: an extractive summary lists them, facts never do); its prose
    (intent, current work, problem solving) as ``earlier`` notes.
    """
    sections = _sections(text)
    if not sections:
        facts.earlier.append(" ".join(text.split()))
        return
    for line in [*sections.get("files", []), *sections.get("files changed", [])]:
        fm = re.match(r"- `([^`]+)`(?:: (.*))?$", line)
        if fm:
            record = facts.files.get(fm.group(1)) or _same_file(facts, fm.group(1))
            if record is None:
                record = facts.files[fm.group(1)] = FileRecord(fm.group(1))
            grouped = re.match(r"(\d+) files? changed$", fm.group(2) or "")
            verbs = ([] if grouped else
                     [v for v in _VERB_ORDER if v in (fm.group(2) or "")]) or ["edited"]
            for verb in verbs:
                record.verbs[verb] = record.verbs.get(verb, 0) + (
                    int(grouped.group(1)) if grouped else 1)
    for line in sections.get("user messages", []):
        if line.startswith("- "):
            facts.requests.append(line[2:])
            if CONSTRAINT.search(line) and line[2:].strip() not in facts.constraints:
                facts.constraints.append(line[2:].strip())
    for line in [*sections.get("errors and fixes", []), *sections.get("errors", [])]:
        if line.startswith("- "):
            facts.errors.append([line[2:]])
    for name, into in (("commands run", facts.commands), ("user constraints", facts.constraints)):
        for line in sections.get(name, []):
            item = line[2:].strip() if line.startswith("- ") else ""
            if name == "commands run" and item.startswith("`") and item.endswith("`"):
                item = item[1:-1]  # an older rendering put the whole label in one code span
            if item and item not in into:
                into.append(item)
    problem = " ".join(" ".join(sections.get("problem solving", [])).split())
    extractive = problem.startswith(EXTRACTIVE_MARK)
    pending = sections.get("pending tasks", []) if extractive else []
    carried = {line[2:]: line[2:] for line in [*pending, *sections.get("open to-do items", [])]
               if line.startswith("- ")}
    for line in [] if extractive else sections.get("pending tasks", []):  # the model's own:
        if line.startswith("- ") and line[2:] not in carried.values():  # an extractive
            carried[MODEL_PENDING + line[2:]] = line[2:]  # summary keeps them, facts do not
    if carried:
        facts.pending = carried
    # An extractive summary's intent is a request (carried above) and its own note only
    # counts: what it carried before is kept instead, flat.
    names = ("current work",) if extractive else ("user intent", "current work")
    notes = [f"{name}: " + " ".join(" ".join(sections[name]).split())
             for name in names if sections.get(name)]
    if extractive:
        notes.insert(0, problem.partition(" Earlier: ")[2])
    elif problem:
        notes.append(f"problem solving: {problem}")
    for note in notes:  # flat: one list of notes, never a summary inside a summary
        for part in note.split(NOTE_SEPARATOR):
            if part and part not in facts.earlier:
                facts.earlier.append(part)


def _first_sentence(text: str, limit_chars: int = 200) -> str:
    flat = " ".join(text.split())
    m = re.search(r"[.!?。！？](\s|$)", flat)
    cut = flat[: m.end()].strip() if m and m.end() <= limit_chars else flat[:limit_chars]
    return cut + ("…" if len(cut) < len(flat) and not m else "")
