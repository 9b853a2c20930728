"""A ``!command`` typed at the REPL prompt: run by the user, no model, no approval.

The command runs through the session's own shell tool (:class:`goosectx.tools.shell.ShellTool`)
with the agent's tool context, so it takes the one spawn path every command goosectx runs
takes (:func:`goosectx.isolation.spawn_isolated` with the tool's namespace, the scrubbed
environment, its own process group, stdin closed), and its output is capped, saved to an
overflow file and redacted exactly like a tool result. The turn's cancel event (Ctrl-C) kills
it. Its record is one user message (Claude Code does the same) of two text parts — what was run
and its output — marked ``source_kind = "command"`` (not a request: it never titles a session)
and ``shell_escape = COMMAND``; with ``shell_escape_to_model = false`` it is user-only, so the
model never sees it. See docs/architecture.md §2.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from goosectx.conversation import Message, MessageMetadata, TextContent

if TYPE_CHECKING:
    from goosectx.agent import Agent
    from goosectx.events import Event

SHELL_ESCAPE_KEY = "shell_escape"
"""``metadata.extra`` key holding the command a ``!command`` message ran."""

INTRO = "[I ran a shell command myself, in the working directory]"
"""The first line the model reads before the command and its output."""

NOT_KEPT = ("(shown to the user once and not kept: the command names a sensitive file, whose "
            "secrets goosectx cannot know to redact)")
"""The output part of a ``!command`` whose output was shown but not kept in the session."""


def shell_escape_key(message_id: str) -> str:
    """The ``/show`` key of a ``!command`` message's output."""
    return f"{message_id}:shell_escape"


def is_shell_escape(message: Message) -> bool:
    """True for the record of a ``!command`` (command part, then output part)."""
    return (isinstance(message.metadata.extra.get(SHELL_ESCAPE_KEY), str)
            and len(message.content) == 2
            and all(isinstance(p, TextContent) for p in message.content))


def escape_command(message: Message) -> str:
    """The command a :func:`is_shell_escape` message ran."""
    return str(message.metadata.extra.get(SHELL_ESCAPE_KEY, ""))


def escape_output(message: Message) -> str:
    """The (capped, redacted) output part of a :func:`is_shell_escape` message."""
    part = message.content[1]
    return part.text if isinstance(part, TextContent) else ""


def escape_failed(message: Message) -> bool:
    """True when the command failed (non-zero exit, timeout, cancel)."""
    return bool(message.metadata.extra.get("is_error"))


def escape_message(command: str, output: str, *, is_error: bool, to_model: bool) -> Message:
    """The user's message recording ``command`` and its ``output``.

    Args:
        command: What the user typed after ``!`` (redacted like the output).
        output: The shell tool's result text (capped and redacted).
        is_error: The command failed.
        to_model: Agent-visible (``shell_escape_to_model``); else user-only.
    """
    metadata = MessageMetadata(user_visible=True, agent_visible=to_model,
                               extra={"source_kind": "command", SHELL_ESCAPE_KEY: command,
                                      "is_error": is_error})
    return Message("user", (TextContent(f"{INTRO}\n$ {command}"), TextContent(output)),
                   metadata)


def last_command(messages: Iterator[Message] | list[Message]) -> str | None:
    """The newest ``!command`` of a conversation (for ``!!``), or ``None``."""
    found = None
    for message in messages:
        if is_shell_escape(message):
            found = escape_command(message)
    return found


def run_shell_escape(agent: Agent, command: str, *, to_model: bool,
                     cancel: threading.Event,
                     unkept: Callable[[str, str], None] | None = None) -> Iterator[Event]:
    """Run ``command`` for the user and yield its record (one ``MessageCompleted``).

    The message is appended to the session's conversation before it is yielded (the recorder
    stores it; the context figure counts it when it is agent-visible).

    ``unkept``: the output is not kept — the record holds :data:`NOT_KEPT` in its place (a
    command naming a sensitive file: ``!cat .env``), and ``unkept(message_id, output)`` gets
    the output, before the record is yielded, to show it to the user once.
    """
    from goosectx.events import MessageCompleted  # here: the transcript readers need no events
    from goosectx.tools.shell import ShellTool

    shell = agent.tools.get("shell")
    own = not isinstance(shell, ShellTool)
    tool = ShellTool() if own else shell
    assert isinstance(tool, ShellTool)
    ctx = agent._context_for(cancel)
    try:
        result = tool.run({"command": command}, ctx)
    finally:
        if own:
            tool.close()
    # the command is recorded (and sent to the model) redacted, as its output is
    output = result.output if unkept is None else NOT_KEPT
    message = escape_message(ctx.redact(command), output, is_error=result.is_error,
                             to_model=to_model)
    if unkept is not None:
        unkept(message.id, result.output)
    agent.session.conversation.append(message)
    yield MessageCompleted(message)
