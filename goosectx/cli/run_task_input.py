"""What ``goosectx run`` sends as its task: the text, piped data, the files ``@`` words name."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from goosectx.cli.command_files import (
    BUILTIN_ALIASES,
    command_dirs,
    expand,
    read_commands,
    unread_command,
)
from goosectx.cli.input_secrets import InputSecrets
from goosectx.cli.run_output import JsonOutput, StreamJsonOutput, TextOutput
from goosectx.cli.sanitize import one_line_safe, terminal_safe
from goosectx.cli.slash import COMMANDS, is_command_line, unescape_prompt
from goosectx.cli.task_input import Piped
from goosectx.config import DEFAULT_CONTEXT_LIMIT_TOKENS, Settings
from goosectx.errors import GoosectxError, UsageError
from goosectx.events import Notification
from goosectx.mentions import cap_piped, mention_cap, read_mentions

PIPED_LABEL = "Standard input (piped to goosectx run):"
"""The line above the fenced block holding the data piped with ``-t``/``-i FILE``."""
_BACKTICKS = re.compile(r"`{3,}")
_BUILTIN = frozenset(c.name for c in COMMANDS)

if TYPE_CHECKING:
    from goosectx.agent import Agent
    from goosectx.attachment import Attachment


def scrub_piped(secrets: InputSecrets, piped: Piped | None) -> Piped | None:
    """``piped`` with this environment's secrets redacted (``cat conf.txt | goosectx run``)."""
    if piped is None:
        return None
    tail = secrets.text(piped.tail, "the piped input") if piped.tail is not None else None
    return replace(piped, head=secrets.text(piped.head, "the piped input"), tail=tail)


def task_mentions(settings: Settings, agent: Agent, task: str, manager: Any,
                  output: TextOutput | StreamJsonOutput | JsonOutput,
                  stderr: TextIO, secrets: InputSecrets | None = None) -> list[Attachment]:
    """The files and extension resources the task's ``@`` words name, read as the REPL reads them.

    One attachment per file (an image for a model that reads images:
    :func:`goosectx.mentions.read_mentions`), one per ``@NAME:URI`` resource of a configured
    extension (:func:`goosectx.extensions.mentions.read_resource_mentions`), each capped by
    ``mention_max_tokens``; each one not attached or cut gets a one-line notice (a
    ``notification`` event with ``stream-json``, else a ``goosectx: …`` line on stderr).
    ``secrets``: what the task and piped input held already noted; the attachments are
    redacted with the tool outputs' redactor and one notice says what held a secret.
    """
    secrets = secrets or InputSecrets(agent.redact)
    secrets.redact = agent.redact
    attachments = _read_mentions(settings, agent, task, manager, output, stderr)
    attachments = secrets.parts(attachments)
    if (notice := secrets.notice()) is not None:
        _notify(notice, output, stderr)
        stderr.flush()
    return attachments


def _read_mentions(settings: Settings, agent: Agent, task: str, manager: Any,
                   output: TextOutput | StreamJsonOutput | JsonOutput,
                   stderr: TextIO) -> list[Attachment]:
    if "@" not in task:
        return []
    names = set(settings.extensions.tables) | set(manager.configs if manager else ())
    cap, model = _cap(settings, agent)
    provider, where = agent.provider, settings.config_file
    found = read_mentions(task, agent.session.working_dir, cap_tokens=cap, model=model,
                          extension_names=names, data_dir=settings.data_dir, provider=provider,
                          config_path=where, rules=settings.permissions)
    if names:
        from goosectx.extensions.mentions import read_resource_mentions

        more = read_resource_mentions(manager, task, names=names, cap_tokens=cap, model=model)
        found.attachments += more.attachments
        found.notices += more.notices
    for notice in found.notices:
        _notify(notice, output, stderr)
    stderr.flush()
    return found.attachments


def with_piped(settings: Settings, agent: Agent, task: str, piped: Piped | None,
               output: TextOutput | StreamJsonOutput | JsonOutput, stderr: TextIO) -> str:
    """``task``, then a blank line and the piped data in a fenced block labelled as such.

    The data is capped by ``mention_max_tokens`` as a mentioned file is
    (:func:`goosectx.mentions.cap_piped`: its first and last lines around a marker), with a
    one-line notice when cut. ``task`` alone when nothing was piped. (claude -p: the piped
    data follows the prompt.)
    """
    if piped is None:
        return task
    cap, model = _cap(settings, agent)
    text, notice = cap_piped(piped.head, piped.tail, piped.skipped_bytes, cap, model,
                             piped.size_bytes)
    if notice is not None:
        _notify(notice, output, stderr)
        stderr.flush()
    text = text.rstrip("\n")
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)  # no line of the data can close the block
    return f"{task.rstrip()}\n\n{PIPED_LABEL}\n{fence}\n{text}\n{fence}"


def slash_task(task: str, working_dir: Path | None, config_dir: Path) -> tuple[str, list[str]]:
    """The text ``run`` sends for a task starting with ``/``, and the warnings to show.

    The REPL's rule decides what is a command (:func:`goosectx.cli.slash.is_command_line`):
    a first word with a second ``/`` (``/etc/hosts is broken``) or a leading ``//`` (undone:
    ``//compact`` sends ``/compact``) is text, and so is a first word naming a path that
    exists (``/tmp is full``). A custom command (:mod:`goosectx.cli.custom_commands`, the
    REPL's directories and precedence, read from ``working_dir``) is expanded, with a warning
    for its front matter keys not used; ``working_dir`` ``None`` (not known yet) leaves the
    task as it is unless it is a built-in.

    Raises:
        UsageError: a built-in REPL command, or a ``/word`` no command file gives.
    """
    if not is_command_line(task):
        return (task if working_dir is None else unescape_prompt(task)), []
    head, *more = task.strip().split(maxsplit=1)
    if os.path.lexists(head):
        return task, []
    name = head[1:].lower()
    if f"/{name}" in _BUILTIN or name in BUILTIN_ALIASES:
        fix = ("use goosectx compact SESSION" if name == "compact" else
               "run it in the REPL (goosectx --resume SESSION)")
        raise UsageError(f"/{name} is a REPL command; REPL commands do not run in goosectx run",
                         f"{fix}, or start the task with // to send a leading /")
    if working_dir is None:
        return task, []
    files = read_commands(working_dir, config_dir)
    command = files.commands.get(name)
    if command is None:
        skipped = next((line for stem, line in files.skipped if stem == name), None)
        unread = unread_command(name, config_dir)  # ~/.config/…/NAME.md, config elsewhere
        if skipped is None and unread is not None:
            raise UsageError(f"unknown command /{name}: {unread}",
                             "move or link it there, or start the task with // to send a "
                             "leading /")
        close = difflib.get_close_matches(name, files.commands, n=1, cutoff=0.6)
        searched = ", ".join(str(d) for _s, d in command_dirs(working_dir, config_dir))
        raise UsageError(skipped or f"unknown command /{name}: no custom command file "
                         f"{name}.md (looked in {searched}), and REPL commands do not run in "
                         "goosectx run",
                         (f"did you mean /{close[0]}? " if close else "")
                         + "start the task with // to send a leading /")
    text = expand(command, more[0] if more else "")
    if not text.strip():
        raise UsageError(one_line_safe(f"/{name}: {command.path} has no text to send"))
    warning = command.ignored_warning(working_dir)
    return text, [warning] if warning else []


def _cap(settings: Settings, agent: Agent) -> tuple[int, str | None]:
    """Tokens one mentioned file (or piped input) may take, and the model counting them."""
    try:
        limit = agent.context.context_limit().tokens
    except GoosectxError:
        limit = DEFAULT_CONTEXT_LIMIT_TOKENS
    provider = agent.provider
    return (mention_cap(settings.mention_max_tokens, limit),
            provider.model if provider else agent.session.model)


def _notify(notice: str, output: TextOutput | StreamJsonOutput | JsonOutput,
            stderr: TextIO) -> None:
    """A one-line notice: a ``notification`` event, or a ``goosectx:`` line with ``json``."""
    if isinstance(output, JsonOutput):
        stderr.write(terminal_safe(f"goosectx: {notice}") + "\n")
    else:
        output.on_event(Notification("inline", notice))
