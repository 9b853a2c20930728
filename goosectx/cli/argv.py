"""Root flags typed after a command: ``goosectx run --debug …`` means ``goosectx --debug run …``.

click reads a group's options only before the command name; people type ``--debug`` wherever
they think of it, so :func:`root_flags_first` moves it to the front before click parses.
"""

from __future__ import annotations

from typing import Any

import typer

ROOT_FLAGS_ANYWHERE = ("--debug",)
"""Root flags also accepted after a command (``goosectx run --debug …``)."""


def root_flags_first(args: list[str], app: typer.Typer) -> list[str]:
    """``args`` with every :data:`ROOT_FLAGS_ANYWHERE` flag moved before the command.

    A flag that is the value of the option before it (``-t --debug``) or follows ``--``
    stays where it is.
    """
    if not any(flag in args for flag in ROOT_FLAGS_ANYWHERE):
        return args
    valued = _options_taking_values(app)
    moved: list[str] = []
    rest: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            rest.extend(args[i:])
            break
        if arg in ROOT_FLAGS_ANYWHERE and not (i and args[i - 1] in valued):
            moved.append(arg)
        else:
            rest.append(arg)
    return [*dict.fromkeys(moved), *rest]


def _options_taking_values(app: typer.Typer) -> set[str]:
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
