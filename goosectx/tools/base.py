"""The tool protocol, the context a tool runs in, and the registry."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from goosectx.conversation import ToolRequest
from goosectx.path_word import exact_word
from goosectx.providers.base import ToolSchema

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

if TYPE_CHECKING:
    from goosectx.file_journal import EditJournal
    from goosectx.read_target import JudgedFile


def working_dir_gone(working_dir: Path, what: str) -> str:
    """Why a tool cannot run in ``working_dir``, which no longer exists, and the fix.

    ``what``: what cannot happen until it is recreated ("no command can run"). The fix is
    the command that recreates the very path (:func:`~goosectx.path_word.exact_word`); the
    shell tool and the text editor give the same one.
    """
    return (f"the working dir {working_dir} no longer exists (removed or moved); {what} until "
            f"it is recreated (mkdir -p {exact_word(str(working_dir))})")


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returns.

    Attributes:
        output: Text for the model (already capped; see ``ToolContext.max_output_chars``).
        is_error: True when the tool failed.
        attachments: Images and resources the call returned (attachment parts), sent with
            the tool responses; ``output`` names each by its stub.
        diff: For an edit: a unified diff of the change, shown to the user only.
    """

    output: str
    is_error: bool = False
    attachments: tuple[Any, ...] = ()
    diff: str | None = None


@dataclass(frozen=True, slots=True)
class UndoEntry:
    """One edit the text editor can undo.

    Attributes:
        before: The file's earlier contents (``surrogateescape``-decoded, so any bytes
            round-trip), or ``None`` when the edit created the file.
        after_sha256: SHA-256 (hex) of the bytes the edit wrote; undo refuses when the
            file no longer holds them (someone changed it since).
    """

    before: str | None
    after_sha256: str


@dataclass(slots=True)
class ToolContext:
    """Where and how a tool call runs.

    Attributes:
        working_dir: The session's working directory.
        cancel: Set when the turn is cancelled; long-running tools must stop.
        timeout_s: Default shell timeout, seconds.
        max_output_chars: Cap on the output returned, characters; overflow goes to a file
            under ``overflow_dir`` whose path the output names.
        overflow_dir: Where full outputs are written.
        env: Environment for subprocesses (secret-looking variables already removed).
        redact: Replaces configured secret values in a text before it is stored.
        undo: Per-session undo stack of the text editor, path → its edits, oldest first.
        progress: Called with a one-line progress text by a long call (an extension's
            progress notifications); the REPL shows it as the spinner text.
        spinner: Called with a running call's status line (shell: elapsed seconds and its
            last output line) several times a second at most; shown only where a spinner is.
        capture: A dry run (the diff shown before an approval question): the text editor
            records path → new text (``None``: removed) here and changes nothing.
        edits: The session's journal of edits ``/undo`` restores (``None``: none kept).
        session_id: Id of the session the calls belong to (set by the agent): overflow file
            names carry it, so ``sessions remove`` removes them too.
        turn_id: Id of the user's message the running turn answers (set by the agent).
        call_id: Id of the running tool call (set by the agent).
        write_target: The file outside the working dir the running call's approval saw its
            edit reach through a symlink (set by the agent from the verdict; ``None``: the
            path led nowhere outside). The text editor writes through a symlink outside only
            to this file: a path swapped for such a link after the decision is refused.
        read_target: The file the running call's approval judged a ``text_editor view`` to
            read (set by the agent from the verdict; ``None``: not judged). The view reads
            only that file: a path swapped for a link elsewhere after the decision is refused.
    """

    working_dir: Path
    cancel: threading.Event = field(default_factory=threading.Event)
    timeout_s: float = 120.0
    max_output_chars: int = 40_000
    overflow_dir: Path = field(default_factory=lambda: Path("/tmp"))
    env: dict[str, str] = field(default_factory=dict)
    redact: Callable[[str], str] = lambda text: text
    undo: dict[str, list[UndoEntry]] = field(default_factory=dict)
    progress: Callable[[str], None] | None = None
    spinner: Callable[[str], None] | None = None
    capture: dict[str, str | None] | None = None
    edits: EditJournal | None = None
    session_id: str = ""
    turn_id: str = ""
    call_id: str = ""
    write_target: Path | None = None
    read_target: JudgedFile | None = None


class Tool(Protocol):
    """A tool the model can call."""

    name: str
    description: str
    parameters: dict[str, Any]

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """True when this call changes nothing (``smart_approve`` runs it without asking)."""
        ...

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run one call. Bad arguments give an error result, never an exception."""
        ...


class ToolRegistry:
    """The tools offered to the model, by name."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {t.name: t for t in tools}

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or ``None``."""
        return self._tools.get(name)

    def tools(self) -> list[Tool]:
        """The tools in registration order."""
        return list(self._tools.values())

    def refusal(self, request: ToolRequest) -> str | None:
        """Why ``request`` cannot run at all, for the model (no approval is asked then).

        An unknown tool, bad arguments, or a tool that says it cannot run now (an optional
        ``unavailable()`` method returning the reason: an extension tool whose server died).
        """
        tool = self.get(request.name)
        if tool is None:
            names = ", ".join(self.names()) or "none"
            return f"There is no tool named {request.name!r}. Available tools: {names}."
        if request.parse_error is not None or request.arguments is None:
            raw = (request.raw_arguments or "")[:2_000]
            return (f"The call to {request.name} was not run: its {request.parse_error}. "
                    f"You sent: {raw!r}. Call the tool again with a JSON object that matches "
                    "its parameters schema.")
        unavailable = getattr(tool, "unavailable", None)
        why = unavailable() if callable(unavailable) else None
        return why if isinstance(why, str) else None

    def nul_refusal(self, request: ToolRequest) -> str | None:
        """Why ``request`` cannot run: an argument that must be NUL-free holds one; else ``None``.

        Also a lone surrogate (``\ud800``, from a JSON escape): it cannot be encoded for the
        system call either.

        A shell command or a file path cannot hold the NUL character (the system call fails
        with "embedded null byte"), so such a call is refused before anything looks at it —
        the approval decision resolves its paths too. A tool names those arguments in an
        optional ``nul_free`` mapping (argument -> what it is, for the message).
        """
        arguments = request.arguments or {}
        for key, what in getattr(self.get(request.name), "nul_free", {}).items():
            value = arguments.get(key)
            if isinstance(value, str) and "\0" in value:
                return (f"The call to {request.name} was not run: its {key} holds a NUL "
                        f"character, which {what} cannot contain. Call the tool again "
                        "without it.")
            if isinstance(value, str) and _LONE_SURROGATE.search(value):
                return (f"The call to {request.name} was not run: its {key} holds a lone "
                        "surrogate (U+D800–U+DFFF), which is no character and cannot be "
                        "written as UTF-8. Call the tool again without it.")
        return None

    def names(self) -> list[str]:
        """Tool names in registration order."""
        return list(self._tools)

    def close(self) -> None:
        """Release what the tools hold when the session ends; safe to call more than once.

        The shell tool ends its namespace and every process left in it (root only).
        """
        for tool in self._tools.values():
            close = getattr(tool, "close", None)
            if callable(close):
                close()

    def schemas(self) -> list[ToolSchema]:
        """``{"name", "description", "parameters"}`` of every tool, in order."""
        return [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in self._tools.values()
        ]


class ToolSource(Protocol):
    """Tools that come and go between turns: the extensions (docs/architecture.md §1).

    The agent asks at the start of each turn, never mid-turn — except after the source's
    ``search_tools`` loaded a tool (``loads`` changed), the one deliberate exception.
    """

    @property
    def generation(self) -> int:
        """Changes whenever the offered tools or instructions may have changed."""
        ...

    @property
    def loads(self) -> int:
        """Changes whenever ``search_tools`` loaded a tool (mid-turn refresh)."""
        ...

    def prepare_turn(self, cancel: threading.Event | None = None) -> list[str]:
        """Wait (bounded) for starting tools, apply pending changes; notices for the user."""
        ...

    def offer(self, builtin: Sequence[ToolSchema], limit_tokens: int,
              recent: Sequence[str]) -> Any:
        """``.tools`` to offer after ``builtin`` and ``.deferred`` names (tool budget).

        ``recent``: tools used or loaded, least recent first (the budget keeps the newest).
        """
        ...

    def loaded_by(self, call_id: str) -> Sequence[str]:
        """The tools the source's ``search_tools`` call ``call_id`` loaded (else none)."""
        ...

    def unloaded(self, offered: Iterable[str], recent: Sequence[str]) -> list[str]:
        """Of the source's tools ``offered`` now, those the budget defers once ``recent`` is."""
        ...

    def deferred_tool(self, name: str) -> Tool | None:
        """The deferred tool ``name``, run when the model calls it by name (else ``None``)."""
        ...

    def instructions(self) -> list[tuple[str, str]]:
        """(source name, instructions) for the system prompt, sorted by name."""
        ...

    def refusal(self, name: str) -> str | None:
        """Why a call of ``name``, one of the source's tools not offered now, cannot run.

        ``None`` when the source has no such tool (the caller's "no tool named" answer).
        """
        ...
