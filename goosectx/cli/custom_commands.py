"""Custom slash commands in the REPL: ``/NAME [arguments]`` sends the ``NAME.md`` file's text.

The files and their rules (three directories, first wins; front matter; project files kept
inside the project) are :mod:`goosectx.cli.command_files`. They are read when the REPL starts
(one warning line per file skipped), again on each use, by ``/help`` and by ``/commands``;
completion offers the last list read. Everything from a file reaches the terminal through
:mod:`goosectx.cli.sanitize`.
"""

from __future__ import annotations

import difflib
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from goosectx.cli.command_files import (
    CommandFiles,
    command_dirs,
    expand,
    read_commands,
    shown_path,
    unread_command,
    user_dir_notes,
)
from goosectx.cli.folding import plural
from goosectx.cli.sanitize import one_line_safe

if TYPE_CHECKING:
    from rich.table import Table

    from goosectx.cli import slash
    from goosectx.cli.repl import Repl
    from goosectx.config import Settings

__all__ = ["CustomCompleter", "info_row", "list_commands", "run_custom", "show_help",
           "startup_warnings"]

_LAST: weakref.WeakKeyDictionary[Any, CommandFiles] = weakref.WeakKeyDictionary()
"""The list each REPL read last (what completion offers)."""


def _config_dir(settings: Settings) -> Path:
    return settings.config_file.parent


def _reread(repl: Repl) -> CommandFiles:
    files = read_commands(repl.session.working_dir, _config_dir(repl.settings))
    _LAST[repl] = files
    return files


def startup_warnings(repl: Repl) -> list[str]:
    """Read the command files as the REPL starts: one line per file skipped."""
    return [line for _stem, line in _reread(repl).skipped]


def run_custom(repl: Repl, unknown: slash.Invalid) -> bool:
    """Send the custom command an unknown ``/NAME`` line names; ``False`` when none does.

    A name whose file was skipped gets that file's warning; a name close to a custom one
    gets a "did you mean".
    """
    if not unknown.line:
        return False
    head, *rest = unknown.line.split(maxsplit=1)
    name = head[1:].lower()
    files = _reread(repl)
    command = files.commands.get(name)
    if command is not None:
        text = expand(command, rest[0] if rest else "")
        if text.strip():
            repl.turn(text)
        else:
            shown = shown_path(command.path, repl.session.working_dir)
            repl.renderer.notice(one_line_safe(f"/{name}: {shown} has no text to send — "
                                               "nothing sent"), style="yellow")
        return True
    for stem, line in files.skipped:
        if stem == name:
            repl.renderer.notice(f"{line} — /commands lists the custom commands",
                                 style="yellow")
            return True
    if ":" in name:  # Claude Code's /frontend:component names frontend/component.md
        repl.renderer.notice(one_line_safe(
            f"{unknown.message} — commands in subdirectories (frontend/component.md) are not "
            "read: move the file up into the commands directory and type /component"),
            style="yellow")
        return True
    unread = unread_command(name, _config_dir(repl.settings))
    if unread is not None:  # ~/.config/goosectx/commands/NAME.md, config file elsewhere
        repl.renderer.notice(one_line_safe(f"{unknown.message}: {unread} — move or link it "
                                           "there"), style="yellow")
        return True
    close = difflib.get_close_matches(name, files.commands, n=1, cutoff=0.6)
    if close and not unknown.hint.startswith("did you mean"):
        repl.renderer.notice(one_line_safe(f"{unknown.message} — did you mean /{close[0]}? "
                                           "/help lists the commands"), style="yellow")
        return True
    return False


def _table(files: CommandFiles, working_dir: Path) -> Table:
    """The commands: synopsis, description, the directory it comes from (first wins)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.SIMPLE, show_header=False, pad_edge=False, title="custom commands",
                  title_justify="left")
    table.add_column("command", style="bold cyan", no_wrap=True)
    table.add_column("what it does")
    table.add_column("from", style="dim")
    for c in files.commands.values():
        hint = c.argument_hint or "[arguments]"
        table.add_row(Text(one_line_safe(f"/{c.name} {hint}")),
                      Text(c.description or "sends the file's text"),
                      Text(one_line_safe(f"{'user' if c.source == 'user' else 'project'} "
                                         f"{shown_path(c.path.parent, working_dir)}")))
    return table


def show_help(repl: Repl) -> None:
    """``/help``'s custom commands, under their own heading (nothing when there are none)."""
    files = _reread(repl)
    if files.commands:
        repl.renderer.print(_table(files, repl.session.working_dir))


def list_commands(repl: Repl) -> None:
    """``/commands``: read the files again; the commands, the directories, the files skipped."""
    files = _reread(repl)
    if files.commands:
        repl.renderer.print(_table(files, repl.session.working_dir))
    here = repl.session.working_dir
    ignored = (c.ignored_warning(here) for c in files.commands.values())
    for line in [*(line for _stem, line in files.skipped), *filter(None, ignored)]:
        repl.renderer.notice(f"warning: {line}", style="yellow")
    found = ", ".join(f"{one_line_safe(shown_path(d, here))} ({plural(n, 'command')})"
                      for _s, d, n in files.dirs)
    where = ", ".join(one_line_safe(shown_path(d, here)) for _s, d in command_dirs(
        here, _config_dir(repl.settings)))
    absent, unread = user_dir_notes(_config_dir(repl.settings))
    line = (" · ".join(filter(None, (f"read from {found}", absent))) if found else
            f"no custom commands — put NAME.md files in {where}")
    repl.renderer.notice(line, style="dim")
    if unread is not None:
        repl.renderer.notice(unread, style="yellow")


def info_row(settings: Settings, working_dir: Path) -> tuple[str, str, str]:
    """``goosectx info``'s row: the command directories found and what each gives."""
    files = read_commands(working_dir, _config_dir(settings))
    found = ", ".join(f"{d} ({plural(n, 'command')})" for _s, d, n in files.dirs)
    notes = user_dir_notes(_config_dir(settings))  # the user dir read, absent; one not read
    return ("custom commands", " · ".join(filter(None, (found or "(none)", *notes))),
            "project > user > .claude")


class CustomCompleter(Completer):
    """Completes ``/NAME`` with the custom commands last read (no disk read per key)."""

    def __init__(self, repl: Repl) -> None:
        self.repl = repl

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Iterator[Completion]:
        """Yield the custom commands whose name starts with the typed ``/word``."""
        text = document.text_before_cursor
        files = _LAST.get(self.repl)
        if files is None or not text.startswith("/") or " " in text or "\n" in text:
            return
        for c in files.commands.values():
            if f"/{c.name}".startswith(text.lower()):
                yield Completion(f"/{c.name}", start_position=-len(text),
                                 display_meta=c.description or f"custom ({c.source})")
