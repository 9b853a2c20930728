"""``/init``: the model looks around the project and writes AGENTS.md (docs/architecture.md §6).

As Claude Code's, Codex's and gemini-cli's ``/init``: a turn with a fixed request, so the
model reads before it writes (its tools, under the session's approval mode) and the file is
the one goosectx itself reads as project instructions from the next turn on. Where the
project already has an AGENTS.md nothing is sent: the user's file is never rewritten by this
command (Codex does the same).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from goosectx.cli.sanitize import one_line_safe

if TYPE_CHECKING:
    from goosectx.cli.repl import Repl

INSTRUCTIONS_FILE = "AGENTS.md"

INIT_REQUEST = (
    "Create {path}: instructions for AI coding agents working on this project.\n\n"
    "First look around with your tools — do not guess: the README, the build, package and "
    "test configuration, the layout of the source tree, a few typical source and test "
    "files, any existing agent or contributor guidelines (.goosehints, CLAUDE.md, "
    "CONTRIBUTING, .cursorrules, .github/copilot-instructions.md).\n\n"
    "Then write {name} with short, concrete sections: what the project is (two or three "
    "lines); how to set up, build, run and test it (the exact commands, including how to run "
    "one test); the code layout (which directory holds what); the conventions to follow "
    "(style, naming, error handling, tests, commit messages) as the code actually shows them; "
    "and what an agent must not do. About 150 lines at most, no filler, nothing you have not "
    "checked. Create only {name}; change no other file.{focus}"
)


OTHERS_NOTE = (
    "\n\nInstruction files goosectx already reads here: {paths}. Read them first; write in "
    "{name} only what applies to {path_dir} and is not in them already (do not repeat them), "
    "and do not change them."
)


def init_request(working_dir: Path, focus: str | None, others: Sequence[Path] = ()) -> str:
    """The request ``/init`` sends for a project in ``working_dir``.

    ``others``: instruction files already read for ``working_dir`` (a repository root's
    AGENTS.md when ``/init`` runs in a subdirectory): the new file adds to them.
    """
    extra = OTHERS_NOTE.format(paths=", ".join(map(str, others)), name=INSTRUCTIONS_FILE,
                               path_dir=working_dir) if others else ""
    extra += f"\n\nThe user also asks: {focus}" if focus else ""
    return INIT_REQUEST.format(path=working_dir / INSTRUCTIONS_FILE, name=INSTRUCTIONS_FILE,
                               focus=extra)


def init_project(repl: Repl, focus: str | None) -> None:
    """Send the ``/init`` request as the user's turn, unless AGENTS.md is there already."""
    working_dir = repl.session.working_dir
    target = working_dir / INSTRUCTIONS_FILE
    if target.exists() or target.is_symlink():
        repl.renderer.notice(one_line_safe(
            f"{target} already exists — /init writes one only where there is none; edit it, "
            "or ask the model to improve it"), style="yellow")
        return
    if repl.mode == "chat":
        repl.renderer.notice("/init needs tools, and chat mode sends none: the model could "
                             "neither read the project nor write AGENTS.md — /mode approve "
                             "first", style="yellow")
        return
    if not working_dir.is_dir():
        repl.renderer.notice(one_line_safe(
            f"this session's working dir {working_dir} no longer exists — /init has no "
            "project to look at"), style="yellow")
        return
    from goosectx.prompts import read_instruction_files

    others = [path for path, _text in read_instruction_files(working_dir)]
    if others:
        repl.renderer.notice(one_line_safe(
            f"{', '.join(map(str, others))} already {'apply' if len(others) > 1 else 'applies'}"
            f" here: the model is asked to put in {target} only what they do not say"),
            style="dim")
    repl.turn(init_request(working_dir, focus, others))
