"""Custom command files: the ``NAME.md`` files of the command directories, read and expanded.

As Claude Code's ``.claude/commands/NAME.md``, Codex's ``~/.codex/prompts/NAME.md`` and
gemini-cli's ``.gemini/commands/NAME.toml``. Three directories, first wins for a name: the
project's ``.goosectx/commands/`` (in the session's working dir), the user's ``commands/``
next to the config file, the project's ``.claude/commands/``. Built-in commands always win.
With the config file elsewhere (``--config``, ``GOOSECTX_CONFIG``) the default location's
``commands/`` is not read, and ``info``, ``/commands`` and an unknown ``/NAME`` it holds say so.
Subdirectories are not read. A file from a project directory (a cloned repository's) must
resolve inside the working dir and not to a sensitive file (a ``review.md`` linked to
``~/.ssh/id_rsa`` would send the key); the user's own may link anywhere. A front matter
block (``---`` lines at the top) is not sent; its ``description:`` (and ``argument-hint:``)
show in ``/help`` and completion; other keys (Claude Code's ``model:``, ``allowed-tools:``)
are named in one warning by ``/commands`` and by ``run``
(:func:`goosectx.cli.run_task_input.slash_task`, which expands a command there). Nothing is
run: a ``!`` line is sent as text.

Everything from a file reaches the terminal through :mod:`goosectx.cli.sanitize`. The REPL's
side (``/NAME``, ``/help``, ``/commands``, completion) is :mod:`goosectx.cli.custom_commands`;
``run`` expands a command through :func:`goosectx.cli.run_task_input.slash_task`.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from goosectx.cli.sanitize import one_line_safe
from goosectx.prompts import COPY_IT_IN
from goosectx.sensitive import hard_links_why, resolve, sensitive_below

__all__ = ["BUILTIN_ALIASES", "CommandFiles", "CustomCommand", "command_dirs", "expand",
           "read_commands", "shown_path", "unread_command", "unread_user_dir", "user_dir_notes"]

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
        return one_line_safe(f"/{self.name} ({shown_path(self.path, working_dir)}): front matter "
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


def unread_user_dir(config_dir: Path) -> Path | None:
    """``~/.config/goosectx/commands`` when it exists but is not read, else ``None``.

    The user's commands are read next to the config file: with ``--config`` or
    ``GOOSECTX_CONFIG`` naming a file elsewhere, the default location's are not.
    """
    from goosectx.config import user_config_path

    default = user_config_path().parent / "commands"
    if not default.is_dir() or resolve(default) == resolve(config_dir / "commands"):
        return None
    return default


def unread_command(name: str, config_dir: Path) -> str | None:
    """Why ``/name`` is unknown when its file is in the user dir not read, else ``None``.

    ``… /mine.md is not read: your commands are read from DIR, next to the config file``
    (sanitised); the caller adds the fix: move or link it there.
    """
    unread = unread_user_dir(config_dir)
    if unread is None:
        return None
    try:
        with os.scandir(unread) as entries:
            found = next((Path(e.path) for e in entries if e.name.lower() == f"{name}.md"),
                         None)
    except OSError:
        return None
    if found is None:
        return None
    return one_line_safe(f"{found} is not read: your commands are read from "
                         f"{config_dir / 'commands'}, next to the config file")


def user_dir_notes(config_dir: Path) -> tuple[str | None, str | None]:
    """What to say of the user's command dirs: the one read when absent, the one not read.

    ``("user dir DIR: no such directory" or None, "DEFAULT not read: …" or None)``, sanitised.
    """
    searched = config_dir / "commands"
    absent = None if searched.is_dir() else f"user dir {searched}: no such directory"
    unread = unread_user_dir(config_dir)
    other = (None if unread is None else
             f"{unread} not read: the config file is elsewhere, {searched} is read instead")
    return (None if absent is None else one_line_safe(absent),
            None if other is None else one_line_safe(other))


@cache
def _builtin_names() -> frozenset[str]:
    from goosectx.cli import slash  # its command values: at the first command file, not launch

    return frozenset(c.name[1:] for c in slash.COMMANDS) | BUILTIN_ALIASES


def read_commands(working_dir: Path, config_dir: Path) -> CommandFiles:
    """Read the command files of ``working_dir``'s project and the user's config dir."""
    commands: dict[str, CustomCommand] = {}
    skipped: list[tuple[str, str]] = []
    dirs: list[tuple[str, Path, int]] = []
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
            shown = shown_path(path, working_dir)
            stem = entry.name[:-3].lower()  # Review.md is /review, as typed names are
            if NAME.fullmatch(stem) is None:
                skipped.append((stem, one_line_safe(
                    f"custom command file {shown} skipped: a command is NAME.md, NAME "
                    "ASCII letters a-z, digits, - and _ (at most 64), e.g. review.md")))
                continue
            if stem in _builtin_names():
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


def shown_path(path: Path, working_dir: Path) -> str:
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
        return f"it leads outside the project (to {shown_path(real, root)})"
    linked = real.relative_to(root) != path.relative_to(project)
    if linked and sensitive_below(real, root):
        return (f"it leads to a sensitive file ({shown_path(real, root)}): keys and "
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
                return None, (f"{hard_links_why('it', f'~/.ssh/id_rsa {path.name}')}; "
                              f"{COPY_IT_IN}")
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
