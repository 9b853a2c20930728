"""The system prompt and the project instructions it carries.

Project instructions (goose: ``.goosehints``; the cross-agent ``AGENTS.md``; Claude Code's
``CLAUDE.md``, same rules) are read from every directory between the repository root and the
working directory, outermost first, so a subdirectory's file refines the root's; within a
directory in that order. Outside a repository only the working directory is read. A file
that is the same file as, or repeats, one already read (``CLAUDE.md`` a link to
``AGENTS.md``) is read once.

A file is read only when it is a regular file that resolves inside the repository (outside
one: the working dir) and not to a sensitive file — a cloned repository's ``CLAUDE.md``
linked to ``~/.aws/credentials`` would put the keys in the system prompt; nor one with hard
links other than the instruction files found (``ln ~/.ssh/id_rsa AGENTS.md``) — and only when it
and its directory belong to the user or root: like git's ``safe.directory``, a directory
another user owns (a ``/tmp/.git`` and ``/tmp/AGENTS.md`` they created) is not trusted.
Each file skipped comes with why, for the front ends to warn (:func:`scan_instructions`).
"""

from __future__ import annotations

import os
import platform
import stat
from collections import Counter
from collections.abc import Sequence
from dataclasses import field
from datetime import date
from pathlib import Path

from goosectx.config import ApprovalMode
from goosectx.plain_record import plain_record
from goosectx.sensitive import hard_links_why, resolve, sensitive_below

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


@plain_record  # read-only to mypy; compared, printed nowhere (a test)
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


@plain_record  # read-only to mypy; compared, printed nowhere (a test)
class InstructionScan:
    """The instruction files of one working dir: those read and those skipped.

    Attributes:
        read: ``(path, text)`` in prompt order.
        skipped: ``(path, why)`` per file not read for a reason the user should hear
            (a link out of the repository, another user's file, not a regular file...);
            ``why`` ends with the fix. Empty and repeated files are left out silently.
        cut: ``(path, size in bytes)`` per file read but cut at
            :data:`MAX_INSTRUCTION_FILE_CHARS`, in prompt order.
    """

    read: list[tuple[Path, str]] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    cut: list[tuple[Path, int]] = field(default_factory=list)


def _instruction_dirs(working_dir: Path) -> tuple[Path, list[Path]]:
    """(the root files must resolve inside, the directories read outermost first)."""
    working_dir = resolve(working_dir)
    root = find_repo_root(working_dir)
    if root is None:
        return working_dir, [working_dir]
    return root, [d for d in (working_dir, *working_dir.parents)
                  if d == root or root in d.parents][::-1]


def instruction_files(working_dir: Path) -> list[Path]:
    """The instruction files present for ``working_dir``, outermost directory first.

    Present: the name exists (a link too, even one that leads nowhere); whether it is read
    is :func:`scan_instructions`'s call.
    """
    _root, directories = _instruction_dirs(working_dir)
    return [d / name for d in directories for name in INSTRUCTION_FILES
            if os.path.lexists(d / name)]


def trusted_owners() -> frozenset[int] | None:
    """The user ids whose files and directories are trusted; ``None`` where there are none.

    The current user and root, as git's ``safe.directory`` check; as root under ``sudo``,
    also the user who ran ``sudo`` (``SUDO_UID``, as git does).
    """
    if not hasattr(os, "geteuid"):
        return None  # no uids (Windows)
    owners = {os.geteuid(), 0}
    sudo_uid = os.environ.get("SUDO_UID", "")
    if os.geteuid() == 0 and sudo_uid.isdigit():
        owners.add(int(sudo_uid))
    return frozenset(owners)


def _owner_problem(path: Path, what: str, owners: frozenset[int] | None, *,
                   link: bool = False) -> str:
    try:
        uid = path.lstat().st_uid if link else path.stat().st_uid
    except OSError:
        return ""  # the read reports it
    if owners is None or uid in owners:
        return ""
    try:
        import pwd

        name = f"user {pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        name = f"uid {uid}"
    return (f"{what} belongs to {name}, not to you or root, so it is not trusted (as git's "
            f"safe.directory); chown it to yourself if you trust it")


def _why_not(path: Path, root: Path, owners: frozenset[int] | None) -> str:
    """Why the instruction file ``path`` (in a directory below ``root``) is not read, or ``""``."""
    for problem in (_owner_problem(path.parent, "its directory", owners),
                    _owner_problem(path, "it", owners, link=True)):
        if problem:
            return problem
    real = resolve(path)
    if real != root and root not in real.parents:
        return (f"it leads outside the {'repository' if (root / '.git').exists() else 'project'}"
                f" (to {real}); copy the file in if it should be read")
    if real != path and sensitive_below(real, root):
        return f"it leads to a sensitive file ({real}); its contents are never sent"
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(mode):
        return "it is not a regular file"
    return _owner_problem(real, "it", owners)


COPY_IT_IN = "copy the file in if it should be read"
"""The fix a project file skipped for its other hard links names (command files too)."""
LINKED_WHY = f"{hard_links_why('it', '~/.ssh/id_rsa AGENTS.md')}; {COPY_IT_IN}"
"""Why an instruction file with hard links other than the instruction files found is skipped."""


class _HardLinked(OSError):
    """The file opened has names other than the instruction files found (:data:`LINKED_WHY`)."""


def _read_capped(path: Path, names_here: Counter[tuple[int, int]]) -> tuple[str, int | None]:
    """``(text, size)``: the file's text, its size in bytes when it was cut, else ``None``.

    The text is at most :data:`MAX_INSTRUCTION_FILE_CHARS` and a cut marker.

    Reads no more bytes than that many characters can take (a huge file is not read whole);
    opened without blocking and checked again to be a regular file, with one name or no more
    than ``names_here`` counts for it (the instruction files found that are this file).

    Raises:
        _HardLinked: it has other names, which may be outside the project.
        OSError: it cannot be opened or read, or is no longer a regular file.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_nlink > max(1, names_here[(info.st_dev, info.st_ino)]):
            raise _HardLinked(LINKED_WHY)
        data = handle.read(4 * MAX_INSTRUCTION_FILE_CHARS + 4)
        size = max(os.fstat(handle.fileno()).st_size, len(data))
    text = data.decode("utf-8", errors="replace").strip()
    if len(text) <= MAX_INSTRUCTION_FILE_CHARS:
        return text, None
    return text[:MAX_INSTRUCTION_FILE_CHARS] + "\n[… file cut here: too long]", size


def _names(paths: list[Path]) -> Counter[tuple[int, int]]:
    """How many of ``paths`` are each regular file by their own name (not through a link)."""
    found: Counter[tuple[int, int]] = Counter()
    for path in paths:
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            found[(info.st_dev, info.st_ino)] += 1
    return found


def scan_instructions(working_dir: Path) -> InstructionScan:
    """The instruction files for ``working_dir``: those read with their texts, those skipped.

    Empty files are left out, and so is one that is the same file as, or has the same text
    as, a file already read; each text is cut at :data:`MAX_INSTRUCTION_FILE_CHARS` (and
    the file listed in ``cut``).
    """
    scan = InstructionScan()
    root, _directories = _instruction_dirs(working_dir)
    owners = trusted_owners()
    seen: set[Path] = set()
    files = instruction_files(working_dir)
    names_here = _names(files)  # CLAUDE.md a hard link to AGENTS.md: both names are here
    for path in files:
        if why := _why_not(path, root, owners):
            scan.skipped.append((path, why))
            continue
        real = resolve(path)
        try:
            text, cut_size = _read_capped(real, names_here)
        except _HardLinked:
            scan.skipped.append((path, LINKED_WHY))
            continue
        except OSError as exc:
            scan.skipped.append((path, f"it cannot be read ({exc.strerror or exc})"))
            continue
        if not text or real in seen:
            continue
        seen.add(real)
        if any(text == earlier for _p, earlier in scan.read):
            continue
        scan.read.append((path, text))
        if cut_size is not None:
            scan.cut.append((path, cut_size))
    return scan


def read_instruction_files(working_dir: Path) -> list[tuple[Path, str]]:
    """The instruction files read for ``working_dir`` and their texts, in prompt order."""
    return scan_instructions(working_dir).read


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
