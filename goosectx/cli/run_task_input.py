"""What ``goosectx run`` sends as its task: the text, the files its ``@`` words name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

from goosectx.cli.run_output import JsonOutput, StreamJsonOutput, TextOutput
from goosectx.cli.sanitize import terminal_safe
from goosectx.config import DEFAULT_CONTEXT_LIMIT_TOKENS, Settings
from goosectx.errors import GoosectxError
from goosectx.events import Notification
from goosectx.mentions import mention_cap, read_mentions

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
    try:
        limit = agent.context.context_limit().tokens
    except GoosectxError:
        limit = DEFAULT_CONTEXT_LIMIT_TOKENS
    names = set(settings.extensions.tables) | set(manager.configs if manager else ())
    cap = mention_cap(settings.mention_max_tokens, limit)
    provider, where = agent.provider, settings.config_file
    model = provider.model if provider else agent.session.model
    found = read_mentions(task, agent.session.working_dir, cap_tokens=cap, model=model,
                          extension_names=names, data_dir=settings.data_dir, provider=provider,
                          config_path=where)
    if names:
        from goosectx.extensions.mentions import read_resource_mentions

        more = read_resource_mentions(manager, task, names=names, cap_tokens=cap, model=model)
        found.attachments += more.attachments
        found.notices += more.notices
    for notice in found.notices:
        if isinstance(output, JsonOutput):
            stderr.write(terminal_safe(f"goosectx: {notice}") + "\n")
        else:
            output.on_event(Notification("inline", notice))
    stderr.flush()
    return found.attachments
