"""Ctrl-X Ctrl-E at the prompt: write the message in your own editor (docs/architecture.md §6).

The prompt's text goes to a private temporary file, the editor (``$VISUAL``, else
``$EDITOR``, else the first of ``editor``, ``nano``, ``vi`` on the ``PATH``) opens it in the
terminal, and what it saved comes back into the prompt — not sent: Enter sends it, as for
anything typed (bash's Ctrl-X Ctrl-E runs the line at once; Claude Code's Ctrl-G, like this,
puts it back). The editor gets the environment a shell tool call gets (no API keys) and, as
root, runs in a PID namespace of its own as a shell call does (``goosectx.isolation``), so
neither it nor a command started in it reads goosectx's ``/proc/PID/environ``. An editor
that cannot start, or exits with an error, leaves the prompt as it was and says so in one line.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from goosectx.isolation import PidNamespace, isolated_argv

if TYPE_CHECKING:
    from goosectx.config import Settings

FALLBACK_EDITORS = ("editor", "nano", "vi")
"""Tried in order (on the ``PATH``) when neither ``$VISUAL`` nor ``$EDITOR`` is set."""

EDITOR_HINT = "set $VISUAL or $EDITOR to your editor, e.g. export EDITOR=nano"

Notice = Callable[[str], None]
"""Shows one line to the user (the REPL's renderer, drawn above the prompt)."""


def editor_command(environ: Mapping[str, str]) -> list[str] | str:
    """The editor's argv (the file name goes last), or the one line saying why there is none."""
    for name in ("VISUAL", "EDITOR"):
        value = environ.get(name, "")
        if value.strip():
            try:
                words = shlex.split(value)
            except ValueError as exc:
                return f"${name} does not parse as a command ({exc}): {EDITOR_HINT}"
            if words:
                return words
    for name in FALLBACK_EDITORS:
        found = shutil.which(name, path=environ.get("PATH"))
        if found:
            return [found]
    return f"no editor found: {EDITOR_HINT}"


def edit_text(text: str, environ: Mapping[str, str], env: dict[str, str],
              notice: Notice, namespace: PidNamespace | None = None) -> str | None:
    """``text`` as the user saved it in their editor, or ``None`` (a line says why).

    ``environ``: where the editor is looked up; ``env``: the editor process's environment;
    ``namespace``: where it runs as root (:func:`goosectx.isolation.isolated_argv`).
    Runs in the terminal (the prompt is hidden meanwhile); the temporary file is the user's
    alone (0600) and removed afterwards.
    """
    from goosectx.cli.sanitize import one_line_safe

    command = editor_command(environ)
    if isinstance(command, str):
        notice(command)
        return None
    fd, path = tempfile.mkstemp(prefix="goosectx-prompt-", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            try:
                here = os.getcwd()  # the editor starts where goosectx runs, as before
            except OSError:
                here = os.path.dirname(path)
            argv = isolated_argv([*command, path], here, namespace)
            code = subprocess.call(argv, env=env)
        except OSError as exc:
            notice(one_line_safe(f"the editor {shlex.join(command)} did not start: "
                                 f"{exc.strerror or exc}; {EDITOR_HINT}"))
            return None
        if code != 0:
            notice(f"the editor exited with status {code}: the prompt is as it was")
            return None
        with open(path, "rb") as f:
            edited = f.read().decode("utf-8", errors="replace")
    finally:
        os.unlink(path)
    return edited.removesuffix("\n").replace("\r\n", "\n")


def editor_for(settings: Settings, notice: Notice) -> Callable[[str], str | None]:
    """The REPL's Ctrl-X Ctrl-E: :func:`edit_text` with a shell tool call's environment."""

    def edit(text: str) -> str | None:
        from goosectx.tools.builtin import tool_env

        namespace = PidNamespace()  # started only as root where the kernel allows it
        try:
            return edit_text(text, os.environ, tool_env(settings), notice, namespace)
        finally:
            namespace.close()

    return edit
