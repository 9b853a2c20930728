"""The pager ``/show N`` opens for an output taller than the screen.

Python's default (``pydoc.pager``) runs ``less`` without ``-R`` when neither ``PAGER`` nor
``LESS`` is set, and ``less`` then shows every colour code as text (``ESC[36m``). This pager
chooses the command the same way (``MANPAGER``, ``PAGER``, else ``less``, else ``more``) but
gives ``less`` ``LESS=-R`` when ``LESS`` is unset, and reports whether the chosen pager shows
styles at all, so a ``less`` whose ``LESS`` lacks ``R`` gets plain text (see
docs/architecture.md, "Layers and their one-way arrows": cli/ owns rich).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from rich.pager import Pager


@dataclass(frozen=True, slots=True)
class PagerCommand:
    """A pager to run.

    Attributes:
        command: The shell command (``less``, the user's ``PAGER``).
        env: The environment to run it with.
        styles: True when it shows colour codes as colours (send them), else send plain text.
    """

    command: str
    env: dict[str, str]
    styles: bool


def choose_pager(environ: Mapping[str, str]) -> PagerCommand | None:
    """The pager ``environ`` asks for, else ``less``, else ``more``; ``None`` without any.

    ``less`` (by ``PAGER`` or by default) runs with ``LESS=-R`` when ``LESS`` is unset; with a
    ``LESS`` that has no ``R``/``r`` it shows codes as text, so it gets no styles. Any other
    pager gets styles, as Python's own pager sends them (except to a ``dumb`` terminal).
    """
    env = dict(environ)
    command = env.get("MANPAGER") or env.get("PAGER")
    if not command:
        command = "less" if shutil.which("less") else "more" if shutil.which("more") else ""
    if not command:
        return None
    styles = env.get("TERM") not in ("dumb", "emacs")
    words = _words(command)
    program = os.path.basename(words[0]) if words else ""
    if program == "less" and styles:
        if "LESS" not in env:
            env["LESS"] = "-R"
        else:
            styles = _shows_colours([*_words(env["LESS"]), *_words(command)[1:]])
    return PagerCommand(command, env, styles)


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _shows_colours(options: list[str]) -> bool:
    """True when ``less`` options include ``-R``/``-r`` (or their long names)."""
    for word in options:
        if word.startswith("--"):
            if word.lower() == "--raw-control-chars":
                return True
        elif "R" in word or "r" in word:
            return True
    return False


class CommandPager(Pager):
    """A rich pager that pipes the content into a :class:`PagerCommand`."""

    def __init__(self, chosen: PagerCommand) -> None:
        self.chosen = chosen

    def show(self, content: str) -> None:
        """Run the pager on ``content`` and wait for the user to leave it (Ctrl-C ignored)."""
        proc = subprocess.Popen(self.chosen.command, shell=True, stdin=subprocess.PIPE,
                                env=self.chosen.env, text=True, errors="backslashreplace")
        try:
            with proc.stdin as pipe:  # type: ignore[union-attr]
                try:
                    pipe.write(content)
                except KeyboardInterrupt:
                    pass
        except OSError:  # the user left before reading it all (a broken pipe)
            pass
        while True:
            try:
                proc.wait()
                break
            except KeyboardInterrupt:  # the pager handles Ctrl-C itself
                pass
