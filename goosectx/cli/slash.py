"""Slash commands of the REPL: a pure parser returning one small dataclass per command.

No terminal, no session: :func:`parse_slash` turns one input line into a command value (or
``None`` for a prompt for the model), and the REPL dispatches on its type (STYLE.md
example 8). Unknown or malformed commands become :class:`Invalid` with a hint, never a
model call.
"""

from __future__ import annotations

import difflib
import re
import shlex
from dataclasses import dataclass

from goosectx.cli.slash_types import (  # re-exported: slash.Compact etc.
    SEARCH_HINT,
    Clear,
    Commands,
    Compact,
    Exit,
    Extension,
    Help,
    History,
    HistoryView,
    Init,
    Invalid,
    MaxCost,
    Mode,
    Model,
    Prompt,
    Prompts,
    Resume,
    Search,
    Sessions,
    Show,
    ShowContext,
    ShowUsage,
    SlashCommand,
    Undo,
    UndoCompact,
)
from goosectx.config import APPROVAL_MODES, COST_USD_EXPECTED, parse_cost_usd
from goosectx.errors import ConfigError

__all__ = [
    "Clear",
    "Commands",
    "Compact",
    "Exit",
    "Extension",
    "Help",
    "History",
    "HistoryView",
    "Init",
    "Invalid",
    "MaxCost",
    "Mode",
    "Model",
    "Prompt",
    "Prompts",
    "Resume",
    "SEARCH_HINT",
    "Search",
    "Sessions",
    "Show",
    "ShowContext",
    "ShowUsage",
    "SlashCommand",
    "Undo",
    "UndoCompact",
]


@dataclass(frozen=True, slots=True)
class CommandInfo:
    """One command for ``/help`` and completion.

    Attributes:
        name: The command with its slash, e.g. ``/compact``.
        args: Argument synopsis, e.g. ``[instructions]``; empty when it takes none.
        summary: One-line description.
        choices: Completable values of the argument, if it has a fixed set.
    """

    name: str
    args: str
    summary: str
    choices: tuple[str, ...] = ()


COMMANDS: tuple[CommandInfo, ...] = (
    CommandInfo("/help", "", "show commands and keys"),
    CommandInfo("/exit", "", "leave (the session is saved)"),
    CommandInfo("/quit", "", "leave (the session is saved)"),
    CommandInfo("/compact", "[--extractive] [instructions]", "summarise the context now (with "
                "--extractive: from the transcript, no model call); the transcript stays"),
    CommandInfo("/undo", "[--force]", "undo the file edits made since your last message "
                "(again: one more message back); --force overwrites later changes"),
    CommandInfo("/undo-compact", "", "give the model back what the last compaction replaced "
                "(pauses auto-compaction)"),
    CommandInfo("/clear", "", "hide the whole history from the model; the transcript stays"),
    CommandInfo("/init", "[focus]", "have the model look around and write AGENTS.md "
                "(project instructions) where there is none"),
    CommandInfo("/mode", "[NAME]", "approval mode: " + ", ".join(APPROVAL_MODES),
                APPROVAL_MODES),
    CommandInfo("/model", "[NAME]", "switch model, e.g. openai/gpt-4o-mini"),
    CommandInfo("/usage", "", "tokens and cost so far, compaction calls separately"),
    CommandInfo("/context", "", "what fills the context window, and when it compacts"),
    CommandInfo("/max-cost", "[USD|off]", "show or set this session's spending cap"),
    CommandInfo("/extension", "list|add CMD|remove NAME|restart NAME",
                "MCP servers: list, add for this session, remove, restart"),
    CommandInfo("/prompts", "", "the prompts the extensions offer"),
    CommandInfo("/commands", "", "custom commands (NAME.md files): read them again, list them"),
    CommandInfo("/prompt", "NAME [key=value …]", "send an extension's prompt as your message"),
    CommandInfo("/history", "[agent|user]", "the model's view, or the full transcript",
                ("agent", "user")),
    CommandInfo("/show", "[N]", "print output #N whole (alone: the last folded one)"),
    CommandInfo("/search", "WORDS", "search this session's transcript: where each match is"),
    CommandInfo("/sessions", "", "saved sessions: title, source, messages, context"),
    CommandInfo("/resume", "SESSION", "save this session and continue another (name or id; "
                "alone: the list)"),
)

_NAMES = tuple(c.name for c in COMMANDS)
EXTRACTIVE_OPTION = "--extractive"
"""``/compact --extractive``: ``goosectx compact --strategy extractive`` inside the REPL."""


def is_command_line(line: str) -> bool:
    """True when ``line`` is meant as a slash command rather than a prompt.

    A leading ``/`` makes a command unless its first word is a path (``/etc/hosts …`` has a
    second ``/``) or the line starts with ``//`` (an escape for a prompt starting with ``/``).
    """
    text = line.strip()
    if not text.startswith("/") or text.startswith("//"):
        return False
    first = text.split(maxsplit=1)[0]
    return "/" not in first[1:]


def unescape_prompt(line: str) -> str:
    """A prompt with its ``//`` escape undone (``//x`` → ``/x``); other text unchanged."""
    stripped = line.lstrip()
    return stripped[1:] if stripped.startswith("//") else line


def parse_slash(line: str) -> SlashCommand | None:
    """Parse one REPL input line.

    Args:
        line: The text the user entered.

    Returns:
        ``None`` when the line is a prompt for the model (see :func:`is_command_line`),
        otherwise the command, or :class:`Invalid` with a hint for an unknown command or a
        bad argument. Command names are case-insensitive.
    """
    if not is_command_line(line):
        return None
    head, _, rest = line.strip().partition(" ")
    name = head.lower()
    arg = rest.strip()
    if name == "/help" or name == "/?":
        return Help()
    if name in ("/exit", "/quit"):
        return _no_arg(name, arg, Exit())
    if name == "/compact":
        option, _, instructions = arg.partition(" ")
        if option.lower() == EXTRACTIVE_OPTION:
            return Compact(instructions.strip() or None, extractive=True)
        return Compact(arg or None)
    if name == "/clear":
        return _no_arg(name, arg, Clear())
    if name == "/init":
        return Init(arg or None)
    if name in ("/undo-compact", "/undo_compact"):
        return _no_arg("/undo-compact", arg, UndoCompact())
    if name == "/undo":
        if arg.lower() in ("", "--force", "-f"):
            return Undo(force=bool(arg))
        return Invalid(f"/undo takes only --force; got {arg!r}",
                       "type /undo, or /undo --force to overwrite files changed since")
    if name == "/usage":
        return _no_arg(name, arg, ShowUsage())
    if name == "/context":
        return _no_arg(name, arg, ShowContext())
    if name == "/mode":
        return _parse_mode(arg)
    if name == "/max-cost":
        return _parse_max_cost(arg)
    if name == "/model":
        if len(arg.split()) > 1:
            return Invalid(f"/model takes one model name; got {arg!r}",
                           "e.g. /model openai/gpt-4o-mini")
        return Model(arg or None)
    if name == "/show":
        number = arg.lstrip("#")
        if not arg:
            return Show(None)
        if number.isdigit() and int(number) > 0:
            return Show(int(number))
        return Invalid(f"/show takes the number of an output; got {arg!r}",
                       "e.g. /show 3 (the #3 on a folded tool result), or /show for the last")
    if name == "/search":  # alone: how to use it (as the REPL says)
        if arg and not re.search(r"\w", arg):
            return Invalid("/search needs words to find", SEARCH_HINT)
        return Search(arg)
    if name == "/sessions":
        return _no_arg(name, arg, Sessions())
    if name == "/resume":
        if not arg:
            return Sessions()  # the sessions to pick from
        if not arg.strip("'\" \t"):  # '' or "  " (an unset $SID pasted): as --resume ''
            return Invalid(f"/resume {arg} names no session (an empty name)",
                           "give a session name or id; /sessions lists them")
        try:
            words = shlex.split(arg)
        except ValueError:
            return Invalid(f"/resume {arg}: a quote is not closed",
                           "e.g. /resume 'my task', or /resume my task")
        # a name with a blank, quoted or typed as it is (/resume my task), as --name allows
        return Resume(words[0] if len(words) == 1 else " ".join(arg.split()))
    if name in ("/extension", "/extensions"):
        return _parse_extension(arg)
    if name == "/prompts":
        return _no_arg(name, arg, Prompts())
    if name == "/commands":
        return _no_arg(name, arg, Commands())
    if name == "/prompt":
        return _parse_prompt(arg) if arg else Prompts()
    if name == "/history":
        view = arg.lower()
        if view in ("", "user"):
            return History("user")
        if view == "agent":
            return History("agent")
        return Invalid(f"/history shows 'agent' or 'user'; got {arg!r}",
                       "/history agent shows what the model sees; /history user the transcript")
    return _unknown(name, line.strip())


def _parse_extension(arg: str) -> SlashCommand:
    action, _, rest = arg.strip().partition(" ")
    action, rest = action.lower() or "list", rest.strip()
    if action == "list" and not rest:
        return Extension("list")
    if action == "add" and rest:
        if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "\"'":
            rest = rest[1:-1]
        return Extension("add", rest)
    if action in ("remove", "restart") and rest and " " not in rest:
        return Extension(action, rest)  # type: ignore[arg-type]
    return Invalid(f"/extension {arg.strip()!r} is not a valid use",
                   '/extension list | add "ENV=v cmd args" | remove NAME | restart NAME')


def _parse_prompt(arg: str) -> SlashCommand:
    hint = "/prompt NAME key=value … (/prompts lists them)"
    try:
        words = shlex.split(arg)
    except ValueError as exc:
        return Invalid(f"/prompt: {exc}", hint)
    if not words:
        return Invalid("/prompt needs a prompt name", hint)
    pairs = []
    for word in words[1:]:
        key, eq, value = word.partition("=")
        if not eq or not key:
            return Invalid(f"/prompt arguments are key=value; got {word!r}", hint)
        pairs.append((key, value))
    return Prompt(words[0], tuple(pairs))


def _no_arg(name: str, arg: str, command: SlashCommand) -> SlashCommand:
    if arg:
        return Invalid(f"{name} takes no argument; got {arg!r}", f"type {name} alone")
    return command


def _parse_max_cost(arg: str) -> SlashCommand:
    if not arg:
        return MaxCost()
    if arg.lower() in ("off", "none"):
        return MaxCost(off=True)
    try:
        usd = parse_cost_usd("/max-cost", arg)
    except ConfigError:
        return Invalid(f"/max-cost takes {COST_USD_EXPECTED}, or off; got {arg!r}",
                       "e.g. /max-cost 5")
    return MaxCost(usd)


def _parse_mode(arg: str) -> SlashCommand:
    if not arg:
        return Mode(None)
    wanted = arg.strip().lower().replace("-", "_")
    for mode in APPROVAL_MODES:
        if wanted == mode:
            return Mode(mode)
    return Invalid(f"unknown mode {arg!r}", "choose one of: " + ", ".join(APPROVAL_MODES))


def _unknown(name: str, line: str) -> Invalid:
    close = difflib.get_close_matches(name, _NAMES, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    hint += "/help lists the commands; start a prompt with // to send a leading /"
    return Invalid(f"unknown command {name}", hint, line)
