"""Open items of the agent's todo list, for the extractive summary's pending tasks.

Part of step 3 of the compaction pipeline (docs/architecture.md §5). A todo or plan tool call
(Claude Code ``TodoWrite``, opencode ``todowrite``, Codex ``update_plan``, Gemini
``write_todos``, Cursor ``todo_write``) states the whole list, or with ``merge: true`` only the
items that changed (matched by ``id``, else by text). A Markdown checklist (``- [x] done``) is
read too: in a todo call's arguments, and in the assistant's or the user's own text outside
fenced code (:func:`checklist_todos`: the newest checklist written replaces the list). An item
that is finished — status completed / done / cancelled / skipped …, a true ``done`` /
``completed`` / ``checked`` flag, a ticked box — is never listed as pending.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from goosectx.compaction.actions import normalize_tool_name
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse
from goosectx.lazy_pattern import LazyPattern

STOP_TOOLS = frozenset({"taskstop", "killshell", "killbash"})
"""Normalised names of the calls that only stop a background task (Claude Code ``TaskStop``,
``KillShell``): bookkeeping, no work — an answer that ends with them is still an answer."""


def only_stops(requests: Sequence[ToolRequest]) -> bool:
    """True when ``requests`` are some calls and all of them :data:`STOP_TOOLS`."""
    return bool(requests) and all(normalize_tool_name(r.name) in STOP_TOOLS for r in requests)


def stopped(calls_message: Message, results: Message) -> bool:
    """True for an assistant message whose only calls stop a task, then ``results``: theirs."""
    calls = calls_message.tool_requests
    return (calls_message.role == "assistant" and only_stops(calls)
            and results.role == "user" and bool(results.content)
            and all(isinstance(p, ToolResponse) and p.id in {r.id for r in calls}
                    for p in results.content))


TODO_TOOLS = frozenset({"todowrite", "update_plan", "todo_write", "write_todos", "todo"})
"""Normalised names of the tools whose arguments are the agent's todo list."""
_FINISHED = frozenset({"completed", "complete", "done", "finished", "cancelled", "canceled",
                       "skipped", "resolved", "closed", "obsolete"})
_FLAGS = ("done", "completed", "checked", "complete")
_CHECKBOX = LazyPattern(r"^\s*(?:[-*+]|\d+[.)])?\s*\[([ xX✓✔~-])\]\s*(.+?)\s*$")
_TICKED = LazyPattern(r"^\s*(?:[-*+]\s*)?(?:✅|✔|✓|☑)\s*")


def _items(args: dict[str, Any]) -> list[Any]:
    items = (args.get("todos") or args.get("plan") or args.get("items")
             or args.get("content") or [])
    if isinstance(items, str):
        return [line for line in items.splitlines() if line.strip()]
    return list(items) if isinstance(items, list) else []


def _item(item: Any) -> tuple[str, str, bool] | None:
    """(key, text, finished) of one item, or ``None`` for an item with no text."""
    if isinstance(item, dict):
        text = str(item.get("content") or item.get("step") or item.get("description")
                   or item.get("title") or item.get("task") or "").strip()
        if not text:
            return None
        status = str(item.get("status") or "").strip().lower().replace(" ", "_")
        finished = (status in _FINISHED
                    or any(item.get(flag) is True for flag in _FLAGS))
        label = f"{text} ({status or 'pending'})"
        return str(item.get("id") or text), label, finished
    if not isinstance(item, str) or not item.strip():
        return None
    box = _CHECKBOX.match(item)
    if box:
        return box.group(2), box.group(2), box.group(1) in "xX✓✔"
    ticked = _TICKED.match(item)
    text = item[ticked.end():].strip() if ticked else item.strip().lstrip("-*+ ").strip()
    return (text, text, ticked is not None) if text else None


_CHECKLIST_LINE = LazyPattern(r"^\s*(?:[-*+]|\d+[.)])\s*\[[ xX✓✔~-]\]\s*\S", re.M)
_BOX = LazyPattern(r"\[[ xX]\]")
"""A ``[ ]``, ``[x]`` or ``[X]`` box: one search (``"[ ]" in text`` and the others, three
slow scans of a text full of brackets, found the same)."""


_FENCE = LazyPattern(r"^ {0,3}(`{3,}|~{3,})")


def checklist_todos(text: str) -> dict[str, str] | None:
    """The open items of the Markdown checklist in a message, or ``None`` when it has none.

    Every ``- [ ] item`` / ``- [x] item`` line of ``text`` outside fenced code (a checklist in a
    code block is an example, not a plan) is read as one list (the newest checklist written
    replaces the earlier list): text → text of each unticked item, in order. A text with no
    ``[ ]`` / ``[x]`` box is not scanned further.
    """
    if "]" not in text or not _BOX.search(text) or (
            not _CHECKLIST_LINE.search(text)):  # a "]" first: one fast pass (memchr)
        return None
    out: dict[str, str] = {}
    found = False
    fence = ""  # the open fence's characters, "" outside fenced code
    for line in text.splitlines():
        marker = _FENCE.match(line)
        if marker is not None:
            run = marker.group(1)
            if not fence:
                fence = run
            elif run[0] == fence[0] and len(run) >= len(fence) and not line.strip(run[0] + " \t"):
                fence = ""  # CommonMark: a closing fence is at least as long, nothing after
            continue
        if not fence and _CHECKLIST_LINE.match(line):
            parsed = _item(line)
            if parsed is not None:
                found = True
                if not parsed[2]:
                    out[parsed[0]] = parsed[1]
    return out if found else None


def open_todos(args: dict[str, Any], previous: dict[str, str] | None = None) -> dict[str, str]:
    """The open items after one todo call: key → ``"text (status)"``, in list order.

    Args:
        args: The call's arguments.
        previous: The open items before it; kept (and updated) only when the call says
            ``merge: true``, else the call replaces the list.
    """
    out = dict(previous or {}) if args.get("merge") is True else {}
    for raw in _items(args):
        parsed = _item(raw)
        if parsed is None:
            continue
        key, label, finished = parsed
        if finished:
            out.pop(key, None)
        else:
            out[key] = label
    return out


def newest_todos(messages: Sequence[Message], pending: dict[str, str]) -> dict[str, str]:
    """The open items after ``pending`` and the todo lists and checklists of ``messages``.

    ``messages``: those after the ones ``pending`` was read from (a compaction's verbatim
    tail): the newest list wins, as in the scan (a todo call, the assistant's or the user's
    checklist). ``pending`` itself (not copied) when they hold none.
    """
    out = pending
    for m in messages:
        if m.role == "assistant" or m.is_user_request:
            text = "\n".join(p.text for p in m.content if isinstance(p, TextContent))
            checklist = checklist_todos(text) if text else None
            if checklist is not None:
                out = checklist
        for r in m.tool_requests if m.role == "assistant" else ():
            if r.arguments and normalize_tool_name(r.name) in TODO_TOOLS:
                out = open_todos(r.arguments, out)
    return out
