"""The REPL's slash commands as values: one small frozen dataclass per command.

:func:`goosectx.cli.slash.parse_slash` makes them (and re-exports them: code names them
``slash.Compact``); the REPL dispatches on their type (STYLE.md example 8).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from goosectx.config import ApprovalMode

HistoryView = Literal["agent", "user"]


@dataclass(frozen=True, slots=True)
class Help:
    """``/help``: list the commands and keys."""


@dataclass(frozen=True, slots=True)
class Exit:
    """``/exit`` or ``/quit``: leave the REPL (the session is already saved)."""


@dataclass(frozen=True, slots=True)
class Compact:
    """``/compact [--extractive] [instructions]``: compact the context now.

    Attributes:
        instructions: Extra instructions for the summary, or ``None``.
        extractive: ``--extractive``: the summary is built from the transcript, no model call
            (``goosectx compact --strategy extractive``).
    """

    instructions: str | None = None
    extractive: bool = False


@dataclass(frozen=True, slots=True)
class Init:
    """``/init [focus]``: ask the model to write AGENTS.md for the project (``repl_init``).

    Attributes:
        focus: What the user wants it to cover besides the usual sections, or ``None``.
    """

    focus: str | None = None


@dataclass(frozen=True, slots=True)
class UndoCompact:
    """``/undo-compact``: give the model back the view the last compaction replaced."""


@dataclass(frozen=True, slots=True)
class Undo:
    """``/undo [--force]``: undo the file edits made since your last message (one turn back).

    ``force``: restore files changed since goosectx edited them too.
    """

    force: bool = False


@dataclass(frozen=True, slots=True)
class Clear:
    """``/clear``: hide the whole history from the model; the transcript stays."""


@dataclass(frozen=True, slots=True)
class Mode:
    """``/mode [NAME]``: show (``name`` is ``None``) or change the approval mode."""

    name: ApprovalMode | None = None


@dataclass(frozen=True, slots=True)
class Model:
    """``/model [NAME]``: show (``name`` is ``None``) or change the model."""

    name: str | None = None


@dataclass(frozen=True, slots=True)
class ShowUsage:
    """``/usage``: tokens and cost of the session, compaction calls separately."""


@dataclass(frozen=True, slots=True)
class ShowContext:
    """``/context``: token breakdown, limit, threshold, distance to auto-compaction."""


@dataclass(frozen=True, slots=True)
class History:
    """``/history [agent|user]``: the model's view or the transcript (default ``user``)."""

    view: HistoryView = "user"


@dataclass(frozen=True, slots=True)
class MaxCost:
    """``/max-cost [USD|off]``: show the spending cap, or set (``off``: remove) it here."""

    usd: float | None = None
    off: bool = False


@dataclass(frozen=True, slots=True)
class Show:
    """``/show [N]``: print output number N whole (``None``: the last folded one)."""

    number: int | None = None


@dataclass(frozen=True, slots=True)
class Search:
    """``/search WORDS``: where in this session's transcript every word is (``""``: how)."""

    text: str


SEARCH_HINT = "e.g. /search parser bug (goosectx sessions search WORDS searches every session)"


@dataclass(frozen=True, slots=True)
class Sessions:
    """``/sessions``: the saved sessions, most recently changed first."""


@dataclass(frozen=True, slots=True)
class Resume:
    """``/resume SESSION``: save and leave this session, continue SESSION (name, id, prefix)."""

    ref: str


@dataclass(frozen=True, slots=True)
class Invalid:
    """A line that starts like a command but is not a valid one.

    Attributes:
        message: What is wrong, one line.
        hint: What to type instead, one line.
    """

    message: str
    hint: str
    line: str = ""
    """For an unknown command, the line as typed (a custom command may take it)."""


@dataclass(frozen=True, slots=True)
class Extension:
    """``/extension list | add "cmd args" | remove NAME | restart NAME``."""

    action: Literal["list", "add", "remove", "restart"] = "list"
    arg: str = ""


@dataclass(frozen=True, slots=True)
class Commands:
    """``/commands``: read the custom command files again and list them."""


@dataclass(frozen=True, slots=True)
class Prompts:
    """``/prompts``: the prompts the extensions offer."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """``/prompt NAME key=value …``: send an extension's prompt as the user's turn.

    Attributes:
        name: ``PROMPT`` or ``EXTENSION:PROMPT``.
        arguments: The ``key=value`` pairs.
    """

    name: str
    arguments: tuple[tuple[str, str], ...] = ()


SlashCommand: TypeAlias = (
    Help | Exit | Compact | UndoCompact | Undo | Clear | Mode | Model | ShowUsage | ShowContext
    | History | Show | Invalid | Extension | Prompts | Prompt | Sessions | Resume | MaxCost | Search
    | Init | Commands
)
