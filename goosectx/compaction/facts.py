"""Facts merged into every summary from the extractive analysis of the head.

Part of step 3 of the compaction pipeline (docs/architecture.md §5). Whatever the summariser
wrote, the model keeps: every file written, edited, created or deleted (path and verb), the
last error of each command still failing (:mod:`.fixed_errors`: nor one the verbatim tail
fixed), the shell commands and extension calls run (deduplicated, newest 20), the user's
constraints (the prose request lines :data:`~goosectx.compaction.carry.CONSTRAINT` finds, a
rule a later line changed marked so: :mod:`.constraint_change`), the open to-do items (the
tail's newest list wins) and the next step the assistant stated (:mod:`.stated_step`). Each is
added under its own heading marked ``(from the transcript)`` unless the summary already names
it in a section read back (a command, constraint or to-do item: in its own section,
:data:`_OWN_SECTIONS`). An earlier summary in the head carries its facts into the next
(:func:`goosectx.compaction.gather.gather_facts` reads them back from its text), so they survive
any number of compactions, across processes, whatever each summariser writes. Past
``summary_facts_tokens`` paths are grouped by directory (``src/api/: 143 files edited``) —
never dropped silently.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Collection, Sequence

from goosectx.compaction.actions import actions_from_tool_call, inline_code, normalize_tool_name
from goosectx.compaction.blocks import contained, one_line_code
from goosectx.compaction.carry import (
    LATER_PASSED,
    MODEL_PENDING,
    Facts,
    carried_errors_lines,
    carried_lines,
    carried_text,
    is_constraint,
    may_name_constraint,
    names_error,
    shows_text,
)
from goosectx.compaction.condensed import with_condensed_pairs
from goosectx.compaction.constraint_change import may_change, request_lines, settled
from goosectx.compaction.cuts import word_head
from goosectx.compaction.facts_fit import MAX_LINE_CHARS, fit_facts, render, titled
from goosectx.compaction.fixed_errors import fixed_in
from goosectx.compaction.gather import gather_facts
from goosectx.compaction.memo import ScanMemo
from goosectx.compaction.stated_step import STEP_TITLE
from goosectx.compaction.todos import TODO_TOOLS, newest_todos
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse
from goosectx.tokens import TokenCounter

MAX_COMMANDS = 20
"""Newest shell commands listed."""
_OWN_SECTIONS = ("commands run", "user constraints", "open to-do items")
"""The sections (lower case, without the facts mark) that alone carry a command, a constraint or
a to-do item to the next compaction: one named only in another is listed in the facts again."""
MAX_CONSTRAINT_CHARS = 300
"""Longest constraint line listed (a longer one is cut between words)."""
MAX_WHOLE_CONSTRAINT_CHARS = MAX_LINE_CHARS - len("- ")
"""Longest constraint line listed whole when the model has no other whole copy of it."""
_SHELL = {"shell", "bash", "exec", "execute_bash", "run_shell_command", "exec_command",
          "terminal", "run_command", "command"}


def _changed_paths(facts: Facts, kept: str) -> list[tuple[str, str]]:
    """(path, what was done) of each file changed that ``kept`` does not name.

    A file a ``/undo`` restored is named only by a line that says so: a summary's line on
    the edit alone would have the model build on edits no longer on disk.
    """
    out = []
    for r in {id(r): r for r in facts.files.values()}.values():  # one record, two names
        if r.listed and (r.path not in kept or r.undone and not any(
                r.path in line and " by /undo" in line for line in kept.splitlines())):
            out.append((r.path, r.describe()))
    return out


def _last_errors(facts: Facts) -> list[str]:
    """The last error of each failing call, each on one line."""
    last: dict[str, str] = {}
    for entry in facts.errors:
        line = " ".join(entry[0].split())
        last[line.split(": ", 1)[0]] = line
    return [line for line in last.values() if not line.endswith(LATER_PASSED.strip())]


def _error_items(summary_text: str) -> list[str]:
    """The items of the summary's errors sections read back as facts.

    ``Errors``, and an extractive summary's ``Errors and fixes``: a model's are not, so an
    error they name is listed in the facts too.
    """
    return [line[2:] for line in carried_errors_lines(summary_text)
            if line.startswith("- ")]


def _commands(messages: Sequence[Message], memo: ScanMemo, carried: Sequence[str]) -> list[str]:
    """The newest :data:`MAX_COMMANDS` distinct commands, ordered by their last run.

    ``carried``: the commands earlier summaries listed, older than any in ``messages``.
    """
    newest_first = newest_commands(messages, memo)
    if len(newest_first) < MAX_COMMANDS:
        for command in reversed(carried):
            newest_first.setdefault(command, None)
            if len(newest_first) == MAX_COMMANDS:
                break
    return list(reversed(newest_first))


def newest_commands(messages: Sequence[Message], memo: ScanMemo) -> dict[str, None]:
    """The newest :data:`MAX_COMMANDS` distinct commands of ``messages``, newest first.

    A kept scan state of their first messages (:meth:`ScanMemo.commands_before`) lists those
    messages' newest: enough, as at most that many are looked at past the rest.
    """
    start, before = memo.commands_before(messages)
    newest_first: dict[str, None] = {}  # read from the end: the first sight is the last run
    for m in reversed(with_condensed_pairs(messages[start:] if start else messages)):
        for r in reversed(m.tool_requests):
            if normalize_tool_name(r.name) in _SHELL:
                newest_first.setdefault(memo.command(r), None)
            elif "__" in r.name and _extension_call(r):  # a state change like a command's
                newest_first.setdefault(extension_label(r), None)
            if len(newest_first) == MAX_COMMANDS:
                return newest_first
    for command in before:
        newest_first.setdefault(command, None)
        if len(newest_first) == MAX_COMMANDS:
            break
    return newest_first


def _constraints(messages: Sequence[Message], memo: ScanMemo, carried: Sequence[str],
                 resent: Collection[str] = ()) -> list[str]:
    """The constraint lines of ``messages`` after the ``carried`` ones, each once.

    A line longer than :data:`MAX_CONSTRAINT_CHARS` is cut when its message is in ``resent``
    (ids of the messages the model gets a whole copy of); else the line is its one copy and
    stays whole up to :data:`MAX_WHOLE_CONSTRAINT_CHARS` (a longer one is rather a paste that
    happens to say "only" or "must": cut, so it does not crowd out the other facts).
    """
    out: list[str] = list(carried)  # what earlier summaries listed comes first
    seen: set[str] = set(out)  # what ``out`` holds, to look up
    for at, lines in memo.constraint_scan(messages, constraint_lines):  # once a compaction
        for line in lines:
            if len(line) > MAX_CONSTRAINT_CHARS and (messages[at].id in resent or len(line)
                                                     > MAX_WHOLE_CONSTRAINT_CHARS):
                line = word_head(line, MAX_CONSTRAINT_CHARS - 1) + "…"  # between words
            if line not in seen:
                out.append(line)
                seen.add(line)
    # A shortened item (an earlier summary's user message) beside the whole one: said once.
    out = [c for c in out if not (("[…]" in c or c.endswith("…"))
                                  and any(o != c and shows_text(c, o) for o in out))]
    return settled(out, _is_constraint)  # a rule a later line changed is marked superseded


def kept_constraint_entries(found: Sequence[tuple[int, tuple[str, ...]]], end: int
                            ) -> list[tuple[int, tuple[str, ...]]]:
    """The entries of a constraint scan before ``end`` that :func:`_constraints` may list.

    A line an earlier entry holds is left out when it is listed the same wherever it is (at
    most :data:`MAX_CONSTRAINT_CHARS`, or over :data:`MAX_WHOLE_CONSTRAINT_CHARS`: always
    cut): it is listed once, at its first place. An entry left with no line goes.
    """
    seen: set[str] = set()
    out = []
    for at, lines in found:
        if at >= end:
            break
        kept = tuple(line for line in lines if line not in seen or MAX_CONSTRAINT_CHARS
                     < len(line) <= MAX_WHOLE_CONSTRAINT_CHARS)
        seen.update(lines)
        if kept:
            out.append((at, kept))
    return out


def _is_constraint(line: str) -> bool:
    """True for a line that states a requirement (:func:`.carry.is_constraint`)."""
    return is_constraint(line)


def _extension_call(r: ToolRequest) -> bool:
    """True for an extension's call (``server__tool``) the other facts do not cover.

    Its file work is in the files changed, a todo call's items in the open to-do items.
    """
    return (normalize_tool_name(r.name) not in TODO_TOOLS
            and not actions_from_tool_call(r.name, r.arguments))


def extension_label(r: ToolRequest, limit_chars: int = 160) -> str:
    """An extension call as the facts list it: its name and its arguments as compact JSON."""
    if not r.arguments:
        return r.name
    args = " ".join(json.dumps(r.arguments, ensure_ascii=False).split())
    if len(args) > limit_chars:
        args = args[:limit_chars - 1] + "…"
    return f"{r.name} {inline_code(args)}"


def constraint_lines(m: Message) -> tuple[str, ...]:
    """The stripped lines of a user request that name a constraint, in order (else ``()``).

    Every such line, repeats included (:func:`_constraints` drops what it has seen).
    """
    content = m.content  # ``m.text``, without the join of a one-part request
    text = content[0].text if len(content) == 1 and type(content[0]) is TextContent else m.text
    if not (may_name_constraint(text) or may_change(text)) or not (
            m.is_user_request or _request_after_results(m)):
        return ()  # a line of it can match only where the whole text may
    return request_lines(text, _is_constraint)  # prose lines, a rule's change too


def _request_after_results(m: Message) -> bool:
    """True for tool results with the user's next request merged after them.

    A request typed after a tool call (a cancelled one, an imported turn's last) follows its
    result; sent, the two are one user message (``repair`` merges them), and its text parts
    are the request's.
    """
    return (m.role == "user" and isinstance(m.content[0], ToolResponse)
            and isinstance(m.content[-1], TextContent) and not m.metadata.is_summary
            and m.metadata.extra.get("source_kind") is None)


def _todo_text(label: str) -> str:
    """A to-do item's text without the ``(status)`` a todo tool's item is labelled with."""
    return re.sub(r" \([a-z_]+\)$", "", label)


def _grouped(paths: list[tuple[str, str]]) -> list[str]:
    groups: dict[str, int] = {}
    for path, _verb in paths:
        d = posixpath.dirname(path.replace("\\", "/")) or "."
        groups[d] = groups.get(d, 0) + 1
    return [f"- {one_line_code(d + '/')}: {n} file{'' if n == 1 else 's'} changed"
            for d, n in groups.items()]


def merge_facts(summary_text: str, head: Sequence[Message], *, max_tokens: int,
                counter: TokenCounter, memo: ScanMemo | None = None,
                resent: Collection[str] = (), tail: Sequence[Message] = ()) -> str:
    """``summary_text`` with the facts of ``head`` it lacks appended under their headings.

    Returns:
        The summary unchanged when it already names every fact in a section a later
        compaction reads back (:func:`~goosectx.compaction.gather.carried_text`); else the
        summary, a blank line and ``## … (from the transcript)`` sections. The sections fit
        ``max_tokens`` (paths grouped by directory, then the oldest errors, commands and to-do
        items dropped, one of each a round, until the text fits, then, only when none of
        those is left, the oldest user constraints: :func:`.facts_fit.fit_facts`) except
        the grouped paths, which are always kept. ``memo``: the compaction's scan memo
        (:mod:`goosectx.compaction.memo`), shared with its other scans of the same messages.
        ``resent``: ids of the head messages the model gets whole copies of
        (:meth:`~goosectx.compaction.tail.Split.whole_copies`): only their long constraint
        lines are listed cut. ``tail``: the messages the model keeps verbatim after the
        summary: an error a call there fixed is not listed, the open to-do items are the
        newest list's (a finished item is never listed as pending).
    """
    memo = ScanMemo() if memo is None else memo
    facts = gather_facts(head, memo)  # once: it parses every tool call of the head
    kept = carried_text(summary_text)  # a fact named elsewhere would not reach the next one
    paths = _changed_paths(facts, kept)
    shown = _error_items(summary_text)  # an item may be shortened: it names its error
    tail = with_condensed_pairs(tail)
    fixed = fixed_in(tail, facts.errors, memo.label, memo.error) if tail else set()
    errors = [f"- {e}" for e in _last_errors(facts)
              if e not in kept and e not in fixed and not any(names_error(s, e) for s in shown)]
    # A command, constraint or to-do item is carried by its own section only: named in
    # another (a failing command's error, an error's output), it would not be read back as one.
    listed = {line[2:] for line in carried_lines(summary_text, _OWN_SECTIONS)
              if line.startswith("- ")}
    commands = [f"- {c}" for c in _commands(head, memo, facts.commands) if c not in listed]
    constraints = [f"- {c}" for c in _constraints(head, memo, facts.constraints, resent)
                   if c not in listed]
    listed_todos = {_todo_text(item) for item in listed}
    todos = [f"- {t}" for k, t in newest_todos(tail, facts.pending).items()
             if not k.startswith(MODEL_PENDING) and _todo_text(t) not in listed_todos]
    # Each line contained on its own: a constraint, error or to-do item that starts a block
    # (``<pre> blocks must stay``) would have the rest of the summary, and the user messages
    # re-sent after it, read as markup.
    errors, commands, constraints, todos = ([contained(line) for line in lines] for lines in
                                            (errors, commands, constraints, todos))
    step = facts.stated_step  # kept whole, its room taken first
    step_text = (render([(STEP_TITLE, [contained(f"- {step}")])]) if step and step not in kept
                 else "")
    if step_text:
        max_tokens = max(0, max_tokens - counter.count_kept_text(step_text + "\n\n"))
    path_lines = [f"- {one_line_code(p)}: {v}" for p, v in paths]
    text = render(titled(path_lines, errors, commands, constraints, todos))
    if text and counter.count_kept_text(text, max_tokens) > max_tokens:
        text = fit_facts(_grouped(paths), [errors, commands, constraints, todos], max_tokens,
                         counter)
    text = "\n\n".join(t for t in (text, step_text) if t)
    return f"{summary_text.rstrip()}\n\n{text}\n" if text else summary_text
