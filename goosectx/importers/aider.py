"""aider chat history (``.aider.chat.history.md``): plain Markdown, imported as text turns.

aider appends to this file as the chat runs:

* ``# aider chat started at <time>`` — a (re)start; its time dates the messages after it;
* ``#### text`` lines — what the user typed (consecutive lines form one message; the two
  trailing spaces aider adds for Markdown line breaks are removed);
* ``> text`` lines (aider always writes ``> `` or a bare ``>``) — aider's own notes
  (``Applied edit to …``, ``Commit …``, ``Tokens: …``, questions): a user-only notification,
  never sent to a model;
* everything else — the model's reply, edit blocks included (a path line then a fenced
  block); they stay text and the extractive summariser reads the paths from them.

A line inside a fenced code block of a reply is reply text whatever it starts with: the
``>>>>>>> REPLACE`` line of aider's SEARCH/REPLACE blocks, a quoted ``> …`` or a ``#### …``
heading in an edited Markdown file. A fence counts as one only if it is closed before the
next fence that opens a block and before aider restarts: a reply cut off inside its fence
(output limit, Ctrl-C) does not swallow the notes and user lines after it.

User lines that are aider commands (``/clear``, ``/add f``, ``/ask msg``…) are user-only and
marked ``command`` (aider logs the message of ``/ask msg`` again as the next user line). In
architect mode aider feeds the architect's reply to the editor model as a user message: such a
message (equal to the reply just before it) is marked ``harness``. All messages stay
agent-visible (aider's ``/clear`` only affects the live aider process).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from goosectx.conversation import Message, MessageMetadata, SystemNotification
from goosectx.importers.builder import TranscriptBuilder, format_error, read_text
from goosectx.importers.times import parse_time
from goosectx.session import Session

_START = re.compile(r"^# aider chat started at (.+?)\s*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def load(path: Path, *, working_dir: Path) -> list[Session]:
    """One session from an aider chat history file.

    Raises:
        ImportFormatError: the file has no ``####`` user line.
    """
    builder = TranscriptBuilder("aider", path)
    when: datetime | None = None
    kind: str | None = None
    block: list[str] = []

    def flush() -> None:
        nonlocal block
        if kind is not None:
            _emit(builder, kind, block, when)
        block = []

    lines = read_text(path).splitlines()
    fenced = _fenced_lines(lines)
    for index, line in enumerate(lines):
        if index in fenced:
            line_kind, text = "assistant", line
        elif started := _START.match(line):
            flush()
            kind = None
            when = parse_time(started.group(1))
            builder.metadata.setdefault("source_started", started.group(1))
            continue
        elif line.startswith("####"):
            line_kind, text = "user", line[4:].removeprefix(" ")
        elif line.startswith("> ") or line == ">":
            line_kind, text = "note", line[1:].removeprefix(" ")
        else:
            line_kind, text = "assistant", line
        if line_kind != kind:
            flush()
            kind = line_kind
        block.append(text.removesuffix("  ") if line_kind != "assistant" else text)
    flush()
    if not any(m.role == "user" for m in builder.messages):
        raise format_error(path, "", "no '####' user lines: not an aider chat history")
    return [builder.session(working_dir=working_dir)]


def _fenced_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines inside a closed fenced code block (its closing line included)."""
    inside: set[int] = set()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        end = None
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            end = _closing_line(lines, index, opening.group(1))
        if end is None:
            index += 1
            continue
        inside.update(range(index + 1, end + 1))
        index = end + 1
    return inside


def _closing_line(lines: list[str], start: int, fence: str) -> int | None:
    """The line closing the fence opened at ``start``; None if it is never closed."""
    for index in range(start + 1, len(lines)):
        if _START.match(lines[index]):
            return None
        other = _FENCE.match(lines[index])
        if other and other.group(1)[0] == fence[0] and len(other.group(1)) >= len(fence):
            # a fence with an info string opens the next block: this one was left open
            return index if not other.group(2).strip() else None
    return None


def _emit(builder: TranscriptBuilder, kind: str, lines: list[str], when: datetime | None
          ) -> None:
    text = "\n".join(lines).strip("\n")
    if not text.strip():
        return
    if kind == "note":
        builder.add("assistant", [SystemNotification("inline", text)], created=when,
                    metadata=MessageMetadata.user_only())
    elif kind == "assistant":
        builder.add("assistant", builder.text(text), created=when)
    else:
        metadata, source_kind = _classify_user(text, _previous_reply(builder.messages))
        builder.add("user", builder.text(text), created=when, metadata=metadata,
                    source_kind=source_kind)


def _previous_reply(messages: list[Message]) -> str:
    """The last agent-visible reply, unless a user message came after it."""
    for m in reversed(messages):
        if m.role == "assistant" and m.metadata.agent_visible:
            return m.text
        if m.role == "user":
            return ""
    return ""


def _classify_user(text: str, previous_reply: str) -> tuple[MessageMetadata | None, str | None]:
    stripped = text.strip()
    if re.match(r"/[a-z-]+(\s|$)", stripped):
        return MessageMetadata.user_only(), "command"
    if previous_reply and " ".join(stripped.split()) == " ".join(previous_reply.split()):
        return None, "harness"
    return None, None
