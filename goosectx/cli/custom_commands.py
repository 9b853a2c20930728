"""Custom slash commands from Markdown files: ``/NAME [arguments]`` sends the file's text.

As Claude Code's ``.claude/commands/NAME.md``, Codex's ``~/.codex/prompts/NAME.md`` and
gemini-cli's ``.gemini/commands/NAME.toml``. Three directories, first wins for a name: the
project's ``.goosectx/commands/`` (in the session's working dir), the user's ``commands/``
next to the config file, the project's ``.claude/commands/``. Built-in commands always win.
Subdirectories are not read. A file from a project directory (a cloned repository's) must
resolve inside the working dir and not to a sensitive file (a ``review.md`` linked to
``~/.ssh/id_rsa`` would send the key); the user's own may link anywhere. A front matter
block (``---`` lines at the top) is not sent; its ``description:`` (and ``argument-hint:``)
show in ``/help`` and completion; other keys (Claude Code's ``model:``, ``allowed-tools:``)
are named in one warning by ``/commands`` and by ``run``
(:func:`goosectx.cli.run_task_input.slash_task`, which expands a command there). Nothing is
run: a ``!`` line is sent as text.

The files are read when the REPL starts (one warning line per file skipped), again on each
use, by ``/help`` and by ``/commands``; completion offers the last list read. Everything
from a file reaches the terminal through :mod:`goosectx.cli.sanitize`.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import stat
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from goosectx.cli import slash
from goosectx.cli.folding import plural
from goosectx.cli.sanitize import one_line_safe
from goosectx.sensitive import resolve, sensitive_below

if TYPE_CHECKING:
    from rich.table import Table

    from goosectx.cli.repl import Repl
    from goosectx.config import Settings

__all__ = ["CommandFiles", "CustomCommand", "CustomCompleter", "command_dirs", "expand",
           "info_row", "list_commands", "read_commands", "run_custom", "show_help",
           "startup_warnings"]

MAX_BYTES = 64 * 1024
"""A command file larger than this is skipped."""
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
"""A command's name: the file's stem."""
BUILTIN_ALIASES = frozenset({"?", "undo_compact", "extensions"})
_PLACEHOLDER = re.compile(r"\\\$|\$(ARGUMENTS|[1-9](?![0-9]))")
r"""``$ARGUMENTS``, ``$1`` … ``$9`` (not ``$10``, ``$25``: amounts), and ``\$`` (a literal
``$``)."""


_USED_KEYS = frozenset({"description", "argument-hint"})
"""The front matter keys goosectx reads; Claude Code's ``model:``, ``allowed-tools:``… not."""


@dataclass(frozen=True, slots=True)
class CustomCommand:
    """One usable command file.

    Attributes:
        name: The name typed after ``/`` (the file's stem).
        body: The text sent, front matter removed.
        description: ``description:`` of the front matter, one line, sanitised; or ``""``.
        argument_hint: ``argument-hint:`` of the front matter (sanitised), or ``""``.
        source: ``project``, ``user`` or ``.claude``.
        path: The file.
        ignored: Front matter keys goosectx does not use (``model``, ``allowed-tools``…),
            lower-cased, in file order.
    """

    name: str
    body: str
    description: str
    argument_hint: str
    source: str
    path: Path
    ignored: tuple[str, ...] = ()

    def ignored_warning(self, working_dir: Path) -> str | None:
        """The one line naming the front matter keys not used, or ``None`` (sanitised)."""
        if not self.ignored:
            return None
        keys = ", ".join(f"{key}:" for key in self.ignored)
        return one_line_safe(f"/{self.name} ({_shown(self.path, working_dir)}): front matter "
                             f"{keys} ignored — goosectx uses only description: and "
                             "argument-hint:")


@dataclass(frozen=True, slots=True)
class CommandFiles:
    """What the command directories hold.

    Attributes:
        commands: The usable commands by name, sorted.
        skipped: ``(lower-cased stem, warning line)`` per file skipped; lines sanitised.
        dirs: ``(source, directory, commands it gives)`` for each directory that exists.
    """

    commands: dict[str, CustomCommand]
    skipped: tuple[tuple[str, str], ...]
    dirs: tuple[tuple[str, Path, int], ...]


def command_dirs(working_dir: Path, config_dir: Path) -> tuple[tuple[str, Path], ...]:
    """The directories read, first wins: project, user, the project's ``.claude``."""
    return (("project", working_dir / ".goosectx" / "commands"),
            ("user", config_dir / "commands"),
            (".claude", working_dir / ".claude" / "commands"))


def _builtin_names() -> frozenset[str]:
    return frozenset(c.name[1:] for c in slash.COMMANDS) | BUILTIN_ALIASES


def read_commands(working_dir: Path, config_dir: Path) -> CommandFiles:
    """Read the command files of ``working_dir``'s project and the user's config dir."""
    commands: dict[str, CustomCommand] = {}
    skipped: list[tuple[str, str]] = []
    dirs: list[tuple[str, Path, int]] = []
    builtin = _builtin_names()
    for source, directory in command_dirs(working_dir, config_dir):
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue  # no such directory (or unreadable): nothing from it
        given = 0
        for entry in entries:
            if entry.name.startswith(".") or entry.is_dir() or not entry.name.endswith(".md"):
                continue  # hidden files, subdirectories and other files (notes.txt) are not read
            path = Path(entry.path)
            shown = _shown(path, working_dir)
            stem = entry.name[:-3].lower()  # Review.md is /review, as typed names are
            if NAME.fullmatch(stem) is None:
                skipped.append((stem, one_line_safe(
                    f"custom command file {shown} skipped: a command is NAME.md, NAME "
                    "ASCII letters a-z, digits, - and _ (at most 64), e.g. review.md")))
                continue
            if stem in builtin:
                skipped.append((stem, one_line_safe(
                    f"custom command file {shown} skipped: the built-in /{stem} always wins "
                    "— rename the file")))
                continue
            text, problem = _read(path, None if source == "user" else working_dir)
            if text is None:
                skipped.append((stem, one_line_safe(
                    f"custom command file {shown} skipped: {problem}")))
                continue
            if stem not in commands:  # an earlier directory's file of that name wins
                commands[stem] = _command(stem, text, source, path)
                given += 1
        dirs.append((source, directory, given))
    return CommandFiles(dict(sorted(commands.items())), tuple(skipped), tuple(dirs))


def _shown(path: Path, working_dir: Path) -> str:
    """``path`` relative to the project, else with the home directory as ``~``."""
    try:
        return str(path.relative_to(working_dir))
    except ValueError:
        pass
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except (ValueError, RuntimeError):
        return str(path)


def _link_problem(path: Path, real: Path, project: Path) -> str:
    """Why a project's command file that resolves to ``real`` must not be read, or ``""``.

    A project (a cloned repository) is not trusted to point outside itself: its
    ``review.md`` may be a link to ``~/.ssh/id_rsa``, and ``/review`` would send the key.
    """
    root = resolve(project)
    if real != root and root not in real.parents:
        return f"it leads outside the project (to {_shown(real, root)})"
    linked = real.relative_to(root) != path.relative_to(project)
    if linked and sensitive_below(real, root):
        return (f"it leads to a sensitive file ({_shown(real, root)}): keys and "
                "credentials are never sent")
    return ""


def _read(path: Path, project: Path | None) -> tuple[str | None, str]:
    """The file's text, or ``None`` and why it cannot be used.

    ``project``: the working dir, for a file from a project directory; it must resolve
    inside it (symlinks followed) and not to a sensitive file, and have no other hard link
    (another name may be outside). ``None`` for the user's own.
    """
    real = resolve(path)
    if project is not None and (problem := _link_problem(path, real, project)):
        return None, problem
    try:
        if not stat.S_ISREG(real.stat().st_mode):
            return None, "not a regular file"
        with open(real, "rb", opener=_nonblocking) as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                return None, "not a regular file"
            if project is not None and info.st_nlink > 1:  # `ln ~/.ssh/id_rsa leak.md`
                return None, "it has other hard links, which may be outside the project"
            if info.st_size > MAX_BYTES:
                return None, f"larger than 64 KB ({info.st_size:,} bytes)"
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    if len(data) > MAX_BYTES:
        return None, "larger than 64 KB"
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), ""
    except UnicodeDecodeError:
        return None, "not UTF-8 text"


def _nonblocking(name: str, flags: int) -> int:
    """Open without waiting: a FIFO named ``x.md`` must not hang the REPL (it is refused)."""
    return os.open(name, flags | os.O_NONBLOCK)


def _command(name: str, text: str, source: str, path: Path) -> CustomCommand:
    """Split off the front matter (``---`` lines at the top) and read its two keys."""
    fields: dict[str, str] = {}
    lines = text.replace("\r\n", "\n").split("\n")
    body = "\n".join(lines)
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        if end is not None:
            for line in lines[1:end]:
                key, colon, value = line.partition(":")
                if colon:
                    fields[key.strip().lower()] = value.strip().strip("'\"").strip()
            body = "\n".join(lines[end + 1:])
    ignored = tuple(key for key in fields if key not in _USED_KEYS)
    return CustomCommand(name, body.strip("\n"), _one_line(fields.get("description", "")),
                         _one_line(fields.get("argument-hint", "")), source, path, ignored)


def _one_line(text: str, limit: int = 120) -> str:
    text = one_line_safe(" ".join(text.split()))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def expand(command: CustomCommand, arguments: str) -> str:
    r"""The text sent for ``/NAME arguments``.

    ``$ARGUMENTS`` is the arguments as typed, ``$1`` … ``$9`` its words — split as a shell
    would, so ``'two words'`` is one (``""`` past the last); ``$`` before two digits (``$10``,
    ``$25``) is text, and ``\$`` is a literal ``$`` (``\$1`` sends ``$1``). A file with no
    placeholder gets the arguments after a blank line (just the arguments when it has no text).
    """
    arguments = arguments.strip()
    words = _words(arguments)

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key is None:
            return "$"  # an escaped dollar
        if key == "ARGUMENTS":
            return arguments
        index = int(key) - 1
        return words[index] if index < len(words) else ""

    if not any(m.group(1) for m in _PLACEHOLDER.finditer(command.body)):
        body = _PLACEHOLDER.sub(value, command.body)
        return "\n\n".join(part for part in (body, arguments) if part.strip())
    return _PLACEHOLDER.sub(value, command.body)


def _words(arguments: str) -> list[str]:
    """``arguments`` split as a shell would (quotes group words), else at whitespace."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


# -- the REPL's side -------------------------------------------------------------------------
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
            shown = _shown(command.path, repl.session.working_dir)
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
                                         f"{_shown(c.path.parent, working_dir)}")))
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
    found = ", ".join(f"{one_line_safe(_shown(d, here))} ({plural(n, 'command')})"
                      for _s, d, n in files.dirs)
    where = ", ".join(one_line_safe(_shown(d, here)) for _s, d in command_dirs(
        here, _config_dir(repl.settings)))
    repl.renderer.notice(f"read from {found}" if found else
                         f"no custom commands — put NAME.md files in {where}", style="dim")


def info_row(settings: Settings, working_dir: Path) -> tuple[str, str, str]:
    """``goosectx info``'s row: the command directories found and what each gives."""
    files = read_commands(working_dir, _config_dir(settings))
    found = ", ".join(f"{d} ({plural(n, 'command')})" for _s, d, n in files.dirs)
    user = command_dirs(working_dir, _config_dir(settings))[1][1]  # moves with --config
    absent = "" if any(d == user for _s, d, _n in files.dirs) else f"; user dir {user}: absent"
    return ("custom commands", (found or "(none)") + absent, "project > user > .claude")


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
