"""Root flags typed after a command: ``goosectx run --debug …`` means ``goosectx --debug run …``.

click reads a group's options only before the command name; people type ``--debug`` and
``--config FILE`` wherever they think of it, so :func:`root_flags_first` moves them to the
front before click parses.
A task typed without ``-t`` (``goosectx run "fix it"``) gets one line saying where it goes
(:func:`positional_task`).
Under a locale that is not UTF-8 (``LC_ALL=C``, Python's UTF-8 mode off) Python decodes argv
as ASCII with ``surrogateescape``: :func:`typed_text` gives text values back as typed.
"""

from __future__ import annotations

import os
from typing import Any

import typer

ROOT_FLAGS_ANYWHERE = ("--debug",)
"""Root flags also accepted after a command (``goosectx run --debug …``)."""

ROOT_OPTIONS_ANYWHERE = ("--config",)
"""Root options with a value also accepted after a command (``goosectx run --config FILE …``,
``--config=FILE``): no command has an option of that name."""


def root_flags_first(args: list[str], app: typer.Typer) -> list[str]:
    """``args`` with every root flag or option typed after the command moved before it.

    :data:`ROOT_FLAGS_ANYWHERE` flags, and :data:`ROOT_OPTIONS_ANYWHERE` options with their
    value. One that is the value of the option before it (``-t --debug``), follows ``--``,
    or lacks its value (the last word) stays where it is.
    """
    named = (*ROOT_FLAGS_ANYWHERE, *ROOT_OPTIONS_ANYWHERE)
    if not any(arg.partition("=")[0] in named for arg in args):
        return args
    valued = options_taking_values(app)
    flags: list[str] = []
    moved: list[str] = []
    rest: list[str] = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "--":
            rest.extend(args[i:])
            break
        if i and args[i - 1] in valued and args[i - 1] not in ROOT_OPTIONS_ANYWHERE:
            rest.append(arg)  # the value of the option before it
        elif arg in ROOT_FLAGS_ANYWHERE:
            flags.append(arg)
        elif arg in ROOT_OPTIONS_ANYWHERE and i + 1 < len(args):
            moved.extend(args[i:i + 2])
            skip = True
        elif arg.partition("=")[0] in ROOT_OPTIONS_ANYWHERE:
            moved.append(arg)
        else:
            rest.append(arg)
    return [*dict.fromkeys(flags), *moved, *rest]


PATH_OPTIONS = frozenset({"--config", "-i", "--input", "-o", "--output", "--with-extension",
                          "--with-remote-extension"})
"""Options whose value is a path, a command line or a URL: left as the OS gave it, so a file
named in a non-UTF-8 locale opens (its bytes, not text, name it)."""


def as_text(arg: str) -> str:
    r"""``arg`` as the UTF-8 text its bytes are, when they are UTF-8 (else ``arg``).

    A no-op in a UTF-8 locale; under an ASCII one ``caf\udcc3\udca9`` becomes ``café``.
    """
    try:
        return os.fsencode(arg).decode("utf-8")
    except UnicodeError:
        return arg


def typed_text(args: list[str], app: typer.Typer) -> list[str]:
    """``args`` with every text value (a task, a name, search words) read as UTF-8 when it is.

    Values of :data:`PATH_OPTIONS` and the file of ``sessions import`` stay as the OS gave
    them (``open`` needs those bytes back).
    """
    if all(arg.isascii() for arg in args):
        return args
    valued = options_taking_values(app)
    out: list[str] = []
    words: list[str] = []  # the positionals so far: the command's names, then its arguments
    raw_next = text_next = after_dashes = False
    for arg in args:
        name, eq, _ = arg.partition("=")
        if raw_next or text_next:
            out.append(arg if raw_next else as_text(arg))
            raw_next = text_next = False
        elif after_dashes or not arg.startswith("-") or arg == "-":
            importing = words[:2] == ["sessions", "import"]  # its argument is the file
            out.append(arg if importing else as_text(arg))
            words.append(arg)
        elif arg == "--":
            after_dashes = True
            out.append(arg)
        elif arg in valued:
            raw_next, text_next = arg in PATH_OPTIONS, arg not in PATH_OPTIONS
            out.append(arg)
        elif arg.startswith("--") and eq and name in valued:
            out.append(arg if name in PATH_OPTIONS else name + "=" + as_text(arg[len(name) + 1:]))
        elif arg[:2] in valued and not arg.startswith("--"):  # -tTEXT
            out.append(arg if arg[:2] in PATH_OPTIONS else arg[:2] + as_text(arg[2:]))
        else:
            out.append(arg)
    return out


def options_taking_values(app: typer.Typer) -> set[str]:
    """Every option name (of any command) that takes a value, e.g. ``-t``, ``--name``."""
    names: set[str] = set()

    def walk(command: Any) -> None:
        for param in getattr(command, "params", []):
            if getattr(param, "param_type_name", "") == "option":
                if not getattr(param, "is_flag", False) and not getattr(param, "count", False):
                    names.update(param.opts)
                    names.update(param.secondary_opts)
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(typer.main.get_command(app))
    return names


def as_typed(joined: str, args: list[str]) -> list[str]:
    """The last run of words in ``args`` that click joined into ``joined`` (else it, whole).

    Only looked for among a command line of up to 64 words (the search is quadratic).
    """
    if len(args) > 64:
        return [joined]
    for start in range(len(args) - 1, -1, -1):
        for end in range(start + 1, len(args) + 1):
            if " ".join(args[start:end]) == joined:
                return args[start:end]
    return [joined]


def positional_task(exc: Exception, args: list[str]) -> str | None:
    """``goosectx run "fix the tests"``: one line saying the task goes after ``-t``.

    Other agents take the task as an argument; click would echo all of it back (a pasted
    task of pages) under a usage block. Returns that line (``None``: another usage error).
    """
    ctx, message = getattr(exc, "ctx", None), str(getattr(exc, "message", ""))
    marker = "unexpected extra argument"
    if ctx is None or ctx.command.name != "run" or marker not in message:
        return None
    extra = message[message.index(marker) + len(marker):].removeprefix("s").removeprefix("(s)")
    extra = extra.strip().removeprefix("(").removesuffix(")")
    extra = "', '".join(as_typed(extra, args))  # click joined the words with spaces
    shown = extra if len(extra) <= 40 else extra[:39] + "…"
    return (f"goosectx run takes the task as an option, not as '{shown}' — "
            "goosectx run -t 'TEXT' (or -i FILE, -i - for stdin)")


def option_without_value(exc: Exception, args: list[str]) -> str | None:
    """``goosectx --resume`` with nothing after it: one line saying what the option takes.

    click's own line ("Error: Option '--resume' requires an argument.") named no fix and read
    unlike every other error. Returns that line (``None``: another usage error).
    """
    option = getattr(exc, "option_name", None)
    if not isinstance(option, str) or "requires an argument" not in str(
            getattr(exc, "message", "")):
        return None
    if option in ("--resume", "-r"):
        return (f"{option} needs a session name or id — list them with: goosectx sessions list "
                "(--continue resumes the latest one in this directory)")
    command = f"{args[0]} " if args and not args[0].startswith("-") else ""
    return f"{option} needs a value — see: goosectx {command}--help"
