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
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from goosectx.compaction.actions import (
    UNDO_NOTE_START,
    WRITE_VERBS,
    FileAction,
    actions_from_text,
    is_harness_text,
    open_file_in,
)
from goosectx.compaction.carry import (
    LATER_PASSED,
    Facts,
    carry_forward,
    copy_facts,
    drop_shortened,
    is_shortened,
    resent_request,
    same_file,
)
from goosectx.compaction.condensed import with_pairs_positioned
from goosectx.compaction.file_record import FileRecord
from goosectx.compaction.fixed_errors import FailingTests
from goosectx.compaction.gather_state import CannotResume, capture, restore
from goosectx.compaction.memo import CallFacts, ScanMemo
from goosectx.compaction.prompts import CONTINUATION_TEXTS
from goosectx.compaction.stated_step import carried_step, stated_step
from goosectx.compaction.todos import TODO_TOOLS, checklist_todos, open_todos
from goosectx.compaction.tool_errors import error_excerpt, ran_status
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse
from goosectx.shell_escape import INTRO as ESCAPE_INTRO

_CONTINUATIONS = frozenset(CONTINUATION_TEXTS.values())
_READ_ONLY_TOOLS = {"read", "read_file", "view", "open", "cat", "readfile", "read_many_files",
                    "grep", "glob", "find_file", "search_file", "search_dir", "ls", "tree"}
_VIEWER_COMMANDS = {"cat", "sed", "head", "tail", "nl", "less", "grep", "rg", "ls", "find",
                    "tree", "wc", "awk"}


def gather_facts(messages: Sequence[Message], memo: ScanMemo | None = None) -> Facts:
    """The facts of ``messages`` (oldest first), in one pass.

    ``memo``: the compaction's scan memo (:mod:`goosectx.compaction.memo`), shared by its
    scans of the same parts; a fresh one when ``None``.
    """
    memo = ScanMemo() if memo is None else memo  # a compaction passes one for all its scans
    known = memo.prefix_facts(messages)
    if known is not None:  # a head whose facts the scan of the whole view kept on its way
        return known
    start = memo.resume_start(messages)  # a kept state of its first messages (scan_state)
    if start:
        try:
            return _gather(messages, memo, start)
        except CannotResume:  # scanned from the first message instead
            pass
    return _gather(messages, memo, 0)


def _gather(messages: Sequence[Message], memo: ScanMemo, start: int) -> Facts:
    """:func:`gather_facts` from ``messages[start]`` on, the state before it restored."""
    recover: Callable[[str], CallFacts | None] | None = None
    last_calls: Sequence[ToolRequest | str]  # ``facts.last_calls``, labelled when read
    if start:  # the state the memo's checkpoint kept (gather_state)
        resumed = restore(memo.resume_gather(), messages, start, memo)
        facts, calls, open_file = resumed.facts, resumed.calls, resumed.open_file
        pending_errors, by_head, tests = resumed.pending_errors, resumed.by_head, resumed.tests
        last_calls, cut, in_block = resumed.last_calls, resumed.cut, resumed.in_block
        recover = resumed.recover
    else:
        facts = Facts(message_count=len(messages))
        calls = {}  # (request, file open, actions, tool, stops) by call id
        open_file = None
        pending_errors = []
        by_head = {}  # facts.errors by each LABEL of a "LABEL: " start
        tests = FailingTests()  # the test runs' errors, fixed by a later run that covers them
        last_calls = []
        cut = []  # the shortened requests (an earlier summary's cuts)
        in_block = False
    keep_at = memo.keep_facts_at
    capture_at = memo.checkpoint_at if memo.checkpoint_view is messages else -1
    marks = keep_at if capture_at < start else keep_at | {capture_at}
    call_of, opened, error_of, label_of = memo.call, memo.opened, memo.error, memo.label
    requests_seen = facts.requests
    for at, m in with_pairs_positioned(messages, start):  # a note's pairs come back before it
        if at in marks:
            if at in keep_at:  # the facts of messages[:at], as a scan of just those would end
                facts.last_calls = _labels(last_calls, label_of)
                memo.keep_prefix_facts(messages, copy_facts(facts, at))
            if at == capture_at:  # kept for the next process (scan_state)
                memo.gathered = capture(messages, at, facts, calls, open_file, pending_errors,
                                        by_head, tests, last_calls, cut, in_block, label_of)
        meta = m.metadata
        if meta.is_summary:
            texts = [p.text for p in m.content if isinstance(p, TextContent) and p.text.strip()]
            carried = len(facts.errors)
            carry_forward(texts[0] if texts else "", facts)
            facts.stated_step = (carried_step(texts[0]) if texts else "") or facts.stated_step
            _index(by_head, facts.errors[carried:])
            tests.add(facts.errors[carried:])
            for text in texts[1:]:  # user messages re-sent after it, merged by the agent view
                if not is_harness_text(text):  # (their heading)
                    resent_request(text.strip(), facts)
            cut = [r for r in requests_seen if is_shortened(r)]
            in_block = True  # until its continuation: user messages in it are re-sent ones
            continue
        if m.role == "assistant":
            content, in_block = m.content, False
            if meta.is_continuation:  # an earlier compaction's: it says whether it was answered
                first = content[0] if content else None
                facts.answered = (isinstance(first, TextContent)
                                  and first.text == CONTINUATION_TEXTS["answered"])
                # The assistant's next message may be merged into it (agent_view): its text
                # and tool calls count.
                content = tuple(p for p in content if not (
                    isinstance(p, TextContent) and p.text in _CONTINUATIONS))
                if not content:
                    continue
            said: list[str] = []  # ``m.text``'s parts and ``m.tool_requests``, in one pass
            requests: list[ToolRequest] = []
            for p in content:
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
                facts.stated_step = stated_step(text) or facts.stated_step
            stops = bool(requests)  # ``only_stops(requests)``, from each call's facts
            for req in requests:
                facts.tool_calls += 1
                made = calls[req.id] = call_of(req, open_file)
                stops = stops and made[4]
                args = req.arguments
                if args:
                    tool = made[3]
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
            # A call that stops a background task (``TaskStop``) after the answer, in it or
            # on its own: still answered.
            if text or not stops:
                facts.answered = bool(text) and (not requests or stops)
            if text:
                facts.last_work = text
                last_calls = requests[-3:]
            elif requests:
                last_calls = [*last_calls, *requests][-3:]
            continue
        texts = []  # the text parts that are not all whitespace
        escape_output = False  # the next text part is a ``!command``'s output
        escape_parts = 0
        # An elided copy's results: their errors are read from the whole ones it was cut from
        # (the cut may have taken the exception line).
        whole = _whole_results(memo, m) if "elided_from_tokens" in meta.extra else {}
        for part in m.content:
            if isinstance(part, ToolResponse):
                if whole:
                    part = whole.get(part.id, part)
                call = calls.get(part.id)
                if call is None and recover is not None:  # a call before the resumed state
                    call = recover(part.id)
                if call is None or not call[4]:
                    facts.answered = False  # a tool's result: the model works on
                if call is not None and not part.is_error:
                    for action in call[2]:
                        _note(facts, action)
                elif call is not None and call[2]:
                    _note_failed(facts, call[2], ran=_ran(part.output))
                tail = part.output[-400:]  # ``opened`` finds a file only after one of these
                if "(Open file: " in tail or "[File: " in tail:
                    open_file = opened(part) or open_file
                err = part.output if part.is_error else (
                    None if call is not None and _only_reads(call[3], call[0].arguments)
                    else error_of(part))
                if err is None and call is not None and by_head:
                    _passed(by_head.pop(label_of(call[0]), ()))
                if err is None and call is not None and tests:
                    _passed(tests.passed(label_of(call[0]), part.output))
                if err is not None:
                    excerpt = error_of(part) if err is part.output else error_excerpt(err)
                    label = "tool" if call is None else label_of(call[0])
                    entry = [f"{label}: {excerpt or err}"]
                    facts.errors.append(entry)
                    pending_errors.append(entry)
                    _index(by_head, (entry,))
                    tests.add((entry,))
            elif isinstance(part, TextContent):
                # A ``!command``'s record: its intro part, then its output part, neither a
                # request (the last request stays answered, or pending, as it was).
                if escape_output or part.text.startswith(ESCAPE_INTRO):
                    escape_output = not escape_output
                    escape_parts += 1
                elif part.text and not part.text.isspace():
                    texts.append(part.text)  # (``part.text.strip()``, without the copy)
        kind = meta.extra.get("source_kind")
        if kind == "observation":
            facts.answered = False
            text = "\n".join(texts)
            open_file = open_file_in(text[-400:]) or open_file
            excerpt = error_excerpt(text)
            if excerpt:
                entry = [f"observation: {excerpt}"]
                facts.errors.append(entry)
                pending_errors.append(entry)
                _index(by_head, (entry,))
            continue
        for text in texts:
            # A merged message (agent_view joins consecutive user messages) keeps only its
            # first message's metadata, so each text part is also checked on its own. None of
            # these is a request: the last one stays answered (or pending) as it was.
            if text.startswith(UNDO_NOTE_START):  # the user's /undo: its files say so
                from goosectx.compaction.undo_note import undone_files  # (here: rare)

                for path, how in undone_files(text):
                    _undone(facts, path, how)
                continue
            if is_harness_text(text) or (
                    kind in ("harness", "command") and len(texts) + escape_parts == 1):
                continue
            text = text.strip()
            facts.answered = False
            if in_block:
                resent_request(text, facts)
                cut = [r for r in requests_seen if is_shortened(r)]
            elif not requests_seen or requests_seen[-1] != text:
                if cut:
                    drop_shortened(text, facts, cut)  # an earlier summary's cut of it: whole now
                requests_seen.append(text)
                if is_shortened(text):
                    cut.append(text)
                facts.next_step = ""  # a request after a summary: its next step is done with
            checklist = checklist_todos(text)
            if checklist is not None:  # the user's own list of what is to be done
                facts.pending = checklist
    facts.last_calls = _labels(last_calls, label_of)
    memo.keep_prefix_facts(messages, facts)
    return facts


def _labels(calls: Sequence[ToolRequest | str], label: Callable[[ToolRequest], str]
            ) -> list[str]:
    """The labels of ``calls`` (a resumed state names its calls by their labels)."""
    return [r if isinstance(r, str) else label(r) for r in calls]



def _whole_results(memo: ScanMemo, copy: Message) -> dict[str, ToolResponse]:
    """The results of the message ``copy`` was elided from, by call id (``{}``: not found)."""
    original = memo.original(copy)
    return {} if original is None else {
        p.id: p for p in original.content if isinstance(p, ToolResponse)}


def _index(by_head: dict[str, list[list[str]]], entries: Iterable[list[str]]) -> None:
    """Files each error entry under every ``LABEL`` its text starts ``LABEL: `` with.

    So a call that succeeds finds the errors its label starts at once (:func:`_passed`),
    rather than each success looking through every error of the session.
    """
    for entry in entries:
        text = entry[0]
        at = text.find(": ")
        while at != -1:
            by_head.setdefault(text[:at], []).append(entry)
            at = text.find(": ", at + 1)


def _passed(entries: Iterable[list[str]]) -> None:
    """Marks ``entries`` (the errors of a call that has now succeeded) :data:`LATER_PASSED`.

    The facts list the last error of each command still failing (DESIGN §4.5(4)); the
    extractive summary keeps the error, saying it passed after. One marked already (filed
    under another label too) is left as it is.
    """
    for entry in entries:
        if not entry[0].endswith(LATER_PASSED):
            entry[0] += LATER_PASSED


def _only_reads(tool: str, args: dict[str, Any] | None) -> bool:
    """True for a call that only shows files (its output may quote errors without failing).

    ``tool``: the call's normalised name (:func:`~.actions.normalize_tool_name`).
    """
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


def _note(facts: Facts, action: FileAction) -> None:
    path = _clean_path(action.path)
    if not path:
        return
    record = _record(facts, path)
    record.verbs[action.verb] = record.verbs.get(action.verb, 0) + 1
    if action.verb in WRITE_VERBS:
        record.undone = ""  # changed again after a /undo
        if action.code:
            record.code = action.code


def _note_failed(facts: Facts, actions: Iterable[FileAction], *, ran: bool) -> None:
    """The files of a call that failed, each once (one call is one attempt at a file).

    ``ran``: the command ran before it failed (:func:`_ran`), so what it wrote before failing
    (``echo x > f; exit 1``) is a change it made: :attr:`FileRecord.failed_runs`. Otherwise —
    a call denied, not run, or a tool that refused — an attempt that changed nothing. A file
    the call acts on twice counts as its last action left it (``> f; >> f``: written).
    """
    last = {_clean_path(a.path): a.verb for a in actions}
    for path, verb in last.items():
        if not path:
            continue
        record = _record(facts, path)
        record.verbs.setdefault(verb, 0)
        if ran and verb in WRITE_VERBS:
            record.failed_runs[verb] = record.failed_runs.get(verb, 0) + 1
            record.undone = ""  # changed again after a /undo
        else:
            record.failed += 1


def _ran(output: str) -> bool:
    """True when a failed result shows that its command ran (:func:`.tool_errors.ran_status`)."""
    return ran_status(output) is not None


def _clean_path(path: str) -> str:
    """``path`` as the facts key it: unquoted, forward slashes, no leading ``./``."""
    return path.strip().strip("`'\"").replace("\\", "/").removeprefix("./")


def _record(facts: Facts, path: str) -> FileRecord:
    """The record of ``path`` (named so, or :func:`~.carry.same_file`), made when it has none."""
    record = facts.files.get(path) or same_file(facts, path)
    if record is None:
        record = facts.files[path] = FileRecord(path)
    return record


def _undone(facts: Facts, path: str, how: str) -> None:
    """A ``/undo`` restored or removed ``path``: its record says so; its code is gone."""
    record = _record(facts, path.replace("\\", "/").removeprefix("./"))
    record.undone, record.code = how, ""


def _first_sentence(text: str, limit_chars: int = 200) -> str:
    flat = " ".join(text.split())
    m = re.search(r"[.!?。！？](\s|$)", flat)
    cut = flat[: m.end()].strip() if m and m.end() <= limit_chars else flat[:limit_chars]
    return cut + ("…" if len(cut) < len(flat) and not m else "")
