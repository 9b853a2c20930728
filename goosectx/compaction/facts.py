"""Facts merged into every summary from the extractive analysis of the head.

Part of step 3 of the compaction pipeline (docs/architecture.md §5). Whatever the summariser
wrote, the model keeps: every file written, edited, created or deleted (path and verb), the
last error of each failing command, the shell commands run (deduplicated, newest 20), the
user's constraints (lines with must / never / don't / always / only) and the open to-do items.
Each is added under its own heading marked ``(from the transcript)`` unless the summary already
names it. An earlier summary in the head carries its facts into the next
(:func:`goosectx.compaction.gather.gather_facts` reads them back from its text), so they survive
any number of compactions, across processes, whatever each summariser writes. Past
``summary_facts_tokens`` paths are grouped by directory (``src/api/: 143 files edited``) —
never dropped silently.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from goosectx.compaction.actions import normalize_tool_name
from goosectx.compaction.condensed import with_condensed_pairs
from goosectx.compaction.gather import (
    CONSTRAINT,
    FACTS_MARK,
    MODEL_PENDING,
    Facts,
    carried_text,
    gather_facts,
    may_name_constraint,
)
from goosectx.compaction.memo import ScanMemo
from goosectx.conversation import Message, TextContent
from goosectx.tokens import TokenCounter

MAX_COMMANDS = 20
"""Newest shell commands listed."""
_SHELL = {"shell", "bash", "exec", "execute_bash", "run_shell_command", "exec_command",
          "terminal", "run_command", "command"}


def _changed_paths(facts: Facts) -> list[tuple[str, str]]:
    return [(r.path, r.describe()) for r in facts.files.values() if r.changed]


def _last_errors(facts: Facts) -> list[str]:
    last: dict[str, str] = {}
    for entry in facts.errors:
        line = entry[0]
        last[line.split(": ", 1)[0]] = line
    return list(last.values())


def _commands(messages: Sequence[Message], memo: ScanMemo, carried: Sequence[str]) -> list[str]:
    """The newest :data:`MAX_COMMANDS` distinct commands, ordered by their last run.

    ``carried``: the commands earlier summaries listed, older than any in ``messages``.
    """
    newest_first: dict[str, None] = {}  # read from the end: the first sight is the last run
    for m in reversed(with_condensed_pairs(messages)):
        for r in reversed(m.tool_requests):
            if normalize_tool_name(r.name) in _SHELL:
                newest_first.setdefault(memo.command(r), None)
                if len(newest_first) == MAX_COMMANDS:
                    return list(reversed(newest_first))
    for command in reversed(carried):
        newest_first.setdefault(command, None)
        if len(newest_first) == MAX_COMMANDS:
            break
    return list(reversed(newest_first))


def _constraints(messages: Sequence[Message], memo: ScanMemo, carried: Sequence[str]
                 ) -> list[str]:
    out: list[str] = list(carried)  # what earlier summaries listed comes first
    seen: set[str] = set(out)  # what ``out`` holds, to look up
    for m in messages:
        if m.role != "user" or not m.content or not isinstance(m.content[0], TextContent):
            continue  # not a user request: no constraint line (nor a memo entry) to look up
        for line in memo.constraint_lines(m, constraint_lines):  # found once a compaction
            if line not in seen:
                out.append(line[:300])
                seen.add(line[:300])
    return out


def constraint_lines(m: Message) -> tuple[str, ...]:
    """The stripped lines of a user request that name a constraint, in order (else ``()``).

    Every such line, repeats included (:func:`_constraints` drops what it has seen).
    """
    text = m.text
    if not may_name_constraint(text) or not m.is_user_request:
        return ()  # a line of it can match only where the whole text may
    return tuple(line for line in (raw.strip() for raw in text.splitlines())
                 if line and may_name_constraint(line) and CONSTRAINT.search(line))


def _todo_text(label: str) -> str:
    """A to-do item's text without the ``(status)`` a todo tool's item is labelled with."""
    return re.sub(r" \([a-z_]+\)$", "", label)


def _grouped(paths: list[tuple[str, str]]) -> list[str]:
    groups: dict[str, int] = {}
    for path, _verb in paths:
        d = posixpath.dirname(path.replace("\\", "/")) or "."
        groups[d] = groups.get(d, 0) + 1
    return [f"- `{d}/`: {n} file{'' if n == 1 else 's'} changed" for d, n in groups.items()]


def merge_facts(summary_text: str, head: Sequence[Message], *, max_tokens: int,
                counter: TokenCounter, memo: ScanMemo | None = None) -> str:
    """``summary_text`` with the facts of ``head`` it lacks appended under their headings.

    Returns:
        The summary unchanged when it already names every fact in a section a later
        compaction reads back (:func:`~goosectx.compaction.gather.carried_text`); else the
        summary, a blank line and ``## … (from the transcript)`` sections. The sections fit
        ``max_tokens`` (paths grouped by directory, then commands and constraints shortened)
        except the grouped paths, which are always kept. ``memo``: the compaction's scan memo
        (:mod:`goosectx.compaction.memo`), shared with its other scans of the same messages.
    """
    memo = ScanMemo() if memo is None else memo
    facts = gather_facts(head, memo)  # once: it parses every tool call of the head
    kept = carried_text(summary_text)  # a fact named elsewhere would not reach the next one
    paths = [(p, v) for p, v in _changed_paths(facts) if p not in kept]
    errors = [e for e in _last_errors(facts) if e not in kept]
    commands = [c for c in _commands(head, memo, facts.commands) if c not in kept]
    constraints = [c for c in _constraints(head, memo, facts.constraints) if c not in kept]
    todos = [t for k, t in facts.pending.items()
             if not k.startswith(MODEL_PENDING) and _todo_text(t) not in kept]
    path_lines = [f"- `{p}`: {v}" for p, v in paths]

    def render(path_lines: list[str], commands: list[str], constraints: list[str]) -> str:
        sections = [("Files changed", path_lines), ("Errors", [f"- {e}" for e in errors]),
                    ("Commands run", [f"- {c}" for c in commands]),
                    ("User constraints", [f"- {c}" for c in constraints]),
                    ("Open to-do items", [f"- {t}" for t in todos])]
        return "\n\n".join(f"## {title} {FACTS_MARK}\n\n" + "\n".join(items)
                           for title, items in sections if items)

    text = render(path_lines, commands, constraints)
    if text and counter.count_kept_text(text, max_tokens) > max_tokens:
        path_lines = _grouped(paths)
        text = render(path_lines, commands, constraints)
        while (counter.count_kept_text(text, max_tokens) > max_tokens
               and (commands or constraints or errors or todos)):
            for items in (commands, errors, constraints, todos):
                if items:
                    items.pop(0)
            text = render(path_lines, commands, constraints)
    return f"{summary_text.rstrip()}\n\n{text}\n" if text else summary_text
