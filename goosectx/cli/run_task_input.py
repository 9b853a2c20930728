"""What ``goosectx run`` sends as its task: the text, piped data, the files ``@`` words name."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TextIO

from goosectx.cli.run_output import JsonOutput, StreamJsonOutput, TextOutput
from goosectx.cli.sanitize import terminal_safe
from goosectx.cli.task_input import Piped
from goosectx.config import DEFAULT_CONTEXT_LIMIT_TOKENS, Settings
from goosectx.errors import GoosectxError
from goosectx.events import Notification
from goosectx.mentions import cap_piped, mention_cap, read_mentions

PIPED_LABEL = "Standard input (piped to goosectx run):"
"""The line above the fenced block holding the data piped with ``-t``/``-i FILE``."""
_BACKTICKS = re.compile(r"`{3,}")

if TYPE_CHECKING:
    from goosectx.agent import Agent
    from goosectx.attachment import Attachment


def task_mentions(settings: Settings, agent: Agent, task: str, manager: Any,
                  output: TextOutput | StreamJsonOutput | JsonOutput,
                  stderr: TextIO) -> list[Attachment]:
    """The files and extension resources the task's ``@`` words name, read as the REPL reads them.

    One attachment per file (an image for a model that reads images:
    :func:`goosectx.mentions.read_mentions`), one per ``@NAME:URI`` resource of a configured
    extension (:func:`goosectx.extensions.mentions.read_resource_mentions`), each capped by
    ``mention_max_tokens``; each one not attached or cut gets a one-line notice (a
    ``notification`` event with ``stream-json``, else a ``goosectx: …`` line on stderr).
    """
    if "@" not in task:
        return []
    names = set(settings.extensions.tables) | set(manager.configs if manager else ())
    cap, model = _cap(settings, agent)
    provider, where = agent.provider, settings.config_file
    found = read_mentions(task, agent.session.working_dir, cap_tokens=cap, model=model,
                          extension_names=names, data_dir=settings.data_dir, provider=provider,
                          config_path=where)
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
    text, notice = cap_piped(piped.head, piped.tail, piped.skipped_bytes, cap, model)
    if notice is not None:
        _notify(notice, output, stderr)
        stderr.flush()
    text = text.rstrip("\n")
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)  # no line of the data can close the block
    return f"{task.rstrip()}\n\n{PIPED_LABEL}\n{fence}\n{text}\n{fence}"


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
