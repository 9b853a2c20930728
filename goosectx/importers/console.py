"""Terminal copies of Claude Code and Gemini CLI sessions, imported as text turns.

A console copy has no structure beyond what the screen showed, so only one thing is relied
on: a user prompt is a line that starts with ``> `` in the first column (continued by the
indented, non-blank lines right after it), and everything between two prompts is the agent's
turn. The agent's turn is kept verbatim as one assistant text message — tool calls
(``⏺ Bash(…)`` / ``⎿`` results, ``╭ ✔ Shell … ╰`` panels) included — so nothing is guessed.
The start-up banner before the first prompt is dropped. Built-in slash commands (``/model``,
``/clear``…) are user-only ``command`` messages.

Gemini CLI draws a sent prompt in a rounded box (``╭─╮`` / ``│  > …  │`` / ``╰─╯``, two
columns of padding, wrapped lines under the text): such a box is a prompt too, read without
its box characters, its lines joined — also a box whose ``╰─╯`` is missing (the copy cut off
or ends inside it: the box ends at its last row, a row cut before its right border included),
so a prompt never joins the reply before it with its borders. The input box left at the bottom
of a copied screen (``│ > …``, one column of padding: a prompt not sent) and the status line
under it are dropped. Escape sequences in any text are kept as written: they are made safe
where a message is printed (docs/architecture.md §6).

A text file without such prompts, or without the markers of either tool (``⏺`` / ``✦``), is
not a console transcript: :func:`load` says so rather than guessing.
"""

from __future__ import annotations

import re
from pathlib import Path

from goosectx.conversation import MessageMetadata
from goosectx.importers.builder import TranscriptBuilder, format_error, read_text
from goosectx.session import Session

_PROMPT = re.compile(r"^>(?: (.*))?$")
_BOX_TOP = re.compile(r"^ ?╭─+╮\s*$")
_BOX_ROW = re.compile(r"^ ?│(.*)│\s*$")
_BOX_BOTTOM = re.compile(r"^ ?╰─+╯\s*$")
_BOXED_PROMPT = re.compile(r"^  >(?: (.*))?$")
"""The first row inside a sent prompt's box (Gemini CLI's ``paddingX`` is 2)."""
_INPUT_BOX = re.compile(r"^ >(?: |$)")
"""The first row inside the input box (``paddingX`` 1): what it holds was not sent."""
_TEXT_COLUMN = 4
"""Where a boxed prompt's text starts inside the box (padding 2, then ``> ``)."""
_FOOTER_LINES = 2
"""At most this many non-blank lines after the input box are its status line: dropped."""
_PANEL_START = ("⏺", "✦", "╭", "│", "╰", "⎿", "※", "✻")
_BUILTIN_COMMANDS = {
    "/model", "/clear", "/compact", "/help", "/status", "/config", "/cost", "/exit", "/quit",
    "/about", "/memory", "/stats", "/tools", "/mcp", "/theme", "/auth", "/editor", "/doctor",
    "/login", "/logout", "/permissions", "/resume", "/vim", "/bug", "/chat", "/privacy",
    "/init", "/ide", "/agents", "/hooks", "/export", "/add-dir",
}


def detect(text: str) -> str | None:
    """``"claude"`` or ``"gemini"`` when ``text`` looks like that tool's console copy."""
    lines = text.splitlines()
    prompts = sum(1 for line in lines if _PROMPT.match(line)) + sum(
        1 for i in range(len(lines)) if (boxed := _box(lines, i)) and boxed[0] is not None)
    if not prompts:
        return None
    claude, gemini = text.count("\n⏺ "), text.count("\n✦ ")
    if claude == gemini == 0:
        return None
    return "claude" if claude >= gemini else "gemini"


def load(path: Path, *, working_dir: Path) -> list[Session]:
    """One session of text turns from a console copy.

    Raises:
        ImportFormatError: the text has no recognisable prompts (unsupported format).
    """
    text = read_text(path)
    flavour = detect(text)
    if flavour is None:
        raise format_error(path, "", "unsupported format: no '> ' prompts with Claude Code "
                                     "(⏺) or Gemini CLI (✦) replies found")
    builder = TranscriptBuilder("console", path)
    builder.metadata["source_tool"] = "claude-code" if flavour == "claude" else "gemini-cli"
    prompt: list[str] | None = None
    reply: list[str] = []
    seen_prompt = False
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        match = _PROMPT.match(line)
        boxed = _box(lines, index - 1)
        if boxed is not None and boxed[0] is None:  # the input box: skipped
            index = boxed[1]
            if sum(1 for rest in lines[index:] if rest.strip()) <= _FOOTER_LINES:
                break  # the status line under it ends the screen
            continue
        if match or boxed is not None:
            _emit_reply(builder, reply if seen_prompt else [])
            reply = []
            if prompt is not None:
                _emit_prompt(builder, prompt)
            if boxed is not None:
                assert boxed[0] is not None
                index = boxed[1]
                _emit_prompt(builder, boxed[0])
                prompt, seen_prompt = None, True
                continue
            assert match is not None
            prompt, seen_prompt = [match.group(1) or ""], True
        elif prompt is not None and line[:1].isspace() and line.strip() and not (
                line.strip().startswith(_PANEL_START)):
            prompt.append(line.strip())
        else:
            if prompt is not None:
                _emit_prompt(builder, prompt)
                prompt = None
            reply.append(line)
    if prompt is not None:
        _emit_prompt(builder, prompt)
    _emit_reply(builder, reply if seen_prompt else [])
    return [builder.session(working_dir=working_dir)]


def _box(lines: list[str], start: int) -> tuple[list[str] | None, int] | None:
    """The prompt in the box whose top border is ``lines[start]``, and the index after it.

    ``(None, index)`` for the input box; ``None`` when no prompt box starts there. The box
    characters and the padding are stripped; the text's own indentation is kept. A box whose
    bottom border is missing (the copy cut off, or ends, inside it) ends at its last row and
    is read the same way, so its prompt never joins the reply before it with its borders. A
    row cut before its right border (a copy that stops mid-row) is read up to where it stops.
    """
    if not _BOX_TOP.match(lines[start]):
        return None
    indent = lines[start][:len(lines[start]) - len(lines[start].lstrip(" "))]
    rows: list[str] = []
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if _BOX_BOTTOM.match(line) and line.startswith(indent + "╰"):
            end += 1
            break
        if not line.startswith(indent + "│"):
            break
        inside = _BOX_ROW.match(line)  # None: a row cut before its right border
        rows.append(inside.group(1).rstrip() if inside else line[len(indent) + 1:].rstrip())
        end += 1
    if rows and _INPUT_BOX.match(rows[0]):
        return None, end
    first = _BOXED_PROMPT.match(rows[0]) if rows else None
    if first is None:
        return None
    text = [first.group(1) or ""]
    for row in rows[1:]:
        lead = row[:_TEXT_COLUMN]
        text.append(row[_TEXT_COLUMN:] if not lead.strip() else row.strip())
    return text, end


def _emit_prompt(builder: TranscriptBuilder, lines: list[str]) -> None:
    text = "\n".join(lines).strip()
    command = text.split(maxsplit=1)[0] if text.startswith("/") else ""
    if command in _BUILTIN_COMMANDS:
        builder.add("user", builder.text(text), metadata=MessageMetadata.user_only(),
                    source_kind="command")
    else:
        builder.add("user", builder.text(text or "(empty prompt)"))


def _emit_reply(builder: TranscriptBuilder, lines: list[str]) -> None:
    text = "\n".join(line.rstrip() for line in lines).strip("\n")
    if text.strip():
        builder.add("assistant", builder.text(text))
