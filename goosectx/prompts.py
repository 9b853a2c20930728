"""The system prompt and the project instructions it carries.

Project instructions (goose: ``.goosehints``; the cross-agent ``AGENTS.md``; Claude Code's
``CLAUDE.md``, same rules) are read from every directory between the repository root and the
working directory, outermost first, so a subdirectory's file refines the root's; within a
directory in that order. Outside a repository only the working directory is read. A file
that is the same file as, or repeats, one already read (``CLAUDE.md`` a link to
``AGENTS.md``) is read once.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from goosectx.config import ApprovalMode

INSTRUCTION_FILES = (".goosehints", "AGENTS.md", "CLAUDE.md")
MAX_INSTRUCTION_FILE_CHARS = 50_000
"""Cap per instruction file, characters (a huge file must not fill the context window)."""

_BASE_PROMPT = """\
You are goosectx, an AI agent working in the user's terminal. You help with software \
engineering and other tasks by reading and changing files and running commands with your \
tools, then answering.

- Work in the working directory unless told otherwise. Look before you change: read files \
and run commands to check your assumptions.
- Prefer small, verifiable steps. After a change, run what proves it works (tests, a build).
- Tool output may be cut short; when it says where the full output was saved, read that file \
if you need more.
- When a tool call is denied, do not retry it; continue without it or ask the user.
- When the task is done, answer briefly: what you did and what the user should know. Use \
Markdown.

Working directory: {working_dir}
Operating system: {os_name}
Date: {today}"""

_TOOLS_PROMPT = "Tools available: {names}."
_DEFERRED_PROMPT = (
    "More extension tools exist but are not loaded, to save context: {names}. To use one, "
    "call search_tools with words describing it; the tools it returns can be called from "
    "your next step on."
)
MAX_DEFERRED_NAMES = 50
"""How many deferred tools the system prompt names; past it, how many more there are (a
server of 5,000 tools named them in 65 KB, more than a small context window, on every request;
``search_tools`` finds every one)."""


def _deferred_names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_DEFERRED_NAMES])
    more = len(names) - MAX_DEFERRED_NAMES
    return shown if more <= 0 else f"{shown} and {more:,} more"


_CHAT_MODE_PROMPT = (
    "Tools are disabled: goosectx is in chat mode, so no tool will run. Do not call tools; "
    "answer from the conversation and what you know."
)
_INSTRUCTIONS_HEADER = (
    "# Project instructions\n"
    "The user's project files below tell you how to work in this project. Follow them."
)


@dataclass(frozen=True, slots=True)
class SystemPrompt:
    """A built system prompt.

    Attributes:
        text: The full prompt as sent (project instructions included).
        project_instructions: The part of ``text`` taken from instruction files (empty if none).
    """

    text: str
    project_instructions: str


def find_repo_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` that holds ``.git``, or ``None``."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def instruction_files(working_dir: Path) -> list[Path]:
    """The instruction files that apply in ``working_dir``, outermost directory first."""
    working_dir = working_dir.resolve()
    root = find_repo_root(working_dir)
    directories = [working_dir]
    if root is not None:
        directories = [d for d in (working_dir, *working_dir.parents)
                       if d == root or root in d.parents][::-1]
    return [d / name for d in directories for name in INSTRUCTION_FILES if (d / name).is_file()]


def read_instruction_files(working_dir: Path) -> list[tuple[Path, str]]:
    """The instruction files read for ``working_dir`` and their texts, in prompt order.

    Unreadable and empty files are skipped, and so is one that is the same file as, or has
    the same text as, a file already read; each text is cut at
    :data:`MAX_INSTRUCTION_FILE_CHARS`.
    """
    read: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    for path in instruction_files(working_dir):
        try:
            real = path.resolve()
            text = path.read_text(encoding="utf-8", errors="replace").strip()
        except (OSError, RuntimeError):
            continue
        if not text or real in seen:
            continue
        seen.add(real)
        if len(text) > MAX_INSTRUCTION_FILE_CHARS:
            text = text[:MAX_INSTRUCTION_FILE_CHARS] + "\n[… file cut here: too long]"
        if any(text == earlier for _p, earlier in read):
            continue
        read.append((path, text))
    return read


def load_project_instructions(working_dir: Path) -> str:
    """The instruction files' contents, each under a ``## <path>`` heading; ``""`` if none."""
    return "\n\n".join(f"## {path}\n{text}"
                       for path, text in read_instruction_files(working_dir))


def build_system_prompt(
    working_dir: Path,
    *,
    tool_names: list[str],
    mode: ApprovalMode,
    project_instructions: str | None = None,
    today: date | None = None,
    extension_instructions: Sequence[tuple[str, str]] = (),
    deferred_tools: Sequence[str] = (),
) -> SystemPrompt:
    """Build the system prompt for a session.

    Args:
        working_dir: The session's working directory.
        tool_names: Tools offered to the model.
        mode: Approval mode; ``chat`` tells the model no tool will run.
        project_instructions: Pre-loaded instructions; ``None`` reads them from disk.
        today: The date shown (default: today).
        extension_instructions: (extension, its server's instructions), sorted by name so the
            prefix of the request stays stable (goose: extension instructions).
        deferred_tools: Extension tools not loaded (tool budget); named so the model can
            load them with ``search_tools``.
    """
    if project_instructions is None:
        project_instructions = load_project_instructions(working_dir)
    parts = [_BASE_PROMPT.format(working_dir=working_dir, os_name=platform.system() or "unknown",
                                 today=(today or date.today()).isoformat())]
    if mode == "chat":
        parts.append(_CHAT_MODE_PROMPT)
    elif tool_names:
        parts.append(_TOOLS_PROMPT.format(names=", ".join(tool_names)))
    if mode != "chat" and deferred_tools:
        parts.append(_DEFERRED_PROMPT.format(names=_deferred_names(deferred_tools)))
    if extension_instructions:
        parts.append("# Extension instructions\n\n" + "\n\n".join(
            f"## {name}\n{text.strip()}" for name, text in sorted(extension_instructions)))
    if project_instructions:
        parts.append(f"{_INSTRUCTIONS_HEADER}\n\n{project_instructions}")
    return SystemPrompt("\n\n".join(parts), project_instructions)
