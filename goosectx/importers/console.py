"""Terminal copies of Claude Code and Gemini CLI sessions, imported as text turns.

A console copy has no structure beyond what the screen showed, so only one thing is relied
on: a user prompt is a line that starts with ``> `` in the first column (continued by the
indented, non-blank lines right after it), and everything between two prompts is the agent's
turn. The agent's turn is kept verbatim as one assistant text message — tool calls
(``⏺ Bash(…)`` / ``⎿`` results, ``╭ ✔ Shell … ╰`` panels) included — so nothing is guessed.
The start-up banner before the first prompt is dropped. Built-in slash commands (``/model``,
``/clear``…) are user-only ``command`` messages.

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
_PANEL_START = ("⏺", "✦", "╭", "│", "╰", "⎿", "※", "✻")
_BUILTIN_COMMANDS = {
    "/model", "/clear", "/compact", "/help", "/status", "/config", "/cost", "/exit", "/quit",
    "/about", "/memory", "/stats", "/tools", "/mcp", "/theme", "/auth", "/editor", "/doctor",
    "/login", "/logout", "/permissions", "/resume", "/vim", "/bug", "/chat", "/privacy",
    "/init", "/ide", "/agents", "/hooks", "/export", "/add-dir",
}


def detect(text: str) -> str | None:
    """``"claude"`` or ``"gemini"`` when ``text`` looks like that tool's console copy."""
    prompts = sum(1 for line in text.splitlines() if _PROMPT.match(line))
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
    for line in text.splitlines():
        match = _PROMPT.match(line)
        if match:
            _emit_reply(builder, reply if seen_prompt else [])
            reply = []
            if prompt is not None:
                _emit_prompt(builder, prompt)
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
