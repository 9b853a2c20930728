"""``!command`` and ``!!`` at the REPL prompt (the core part is :mod:`goosectx.shell_escape`).

A single line starting with ``!`` runs the rest as a shell command in the session's working dir,
without the model and without an approval question (the user typed it), through the shell
tool's own spawn path; Ctrl-C stops it. ``!!`` runs the previous ``!command`` of the session
again, and ``!!`` followed by more text appends it (bash's history expansion: ``!! | head``).
The session stores a command with the secrets in it redacted; ``!!`` runs it as it was typed
in this process (kept in memory only, ``Repl.typed_escape``), and echoes it as stored.
The output is drawn folded like a tool result; whether it reaches the model is
``shell_escape_to_model`` — never when a word of the command names a sensitive file
(``!cat .env``), as an ``@.env`` mention is not attached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goosectx.cli.sanitize import terminal_safe
from goosectx.sensitive import sensitive_in_command
from goosectx.sensitive_shell import ANY_MAY_BE
from goosectx.shell_escape import last_command, run_shell_escape
from goosectx.unseen_output import unseen_secret_output

if TYPE_CHECKING:
    from goosectx.cli.repl import Repl

PREFIX = "!"


def is_escape_line(line: str) -> bool:
    """True when the input is a ``!command`` (or ``!!``) rather than a prompt.

    Only one line is a command: a message of several lines that starts with ``!`` (a pasted
    notebook cell ``!pip install x`` + code, a LaTeX log, a Markdown ``![img](a.png)``) is a
    prompt for the model, never a bash script run without a question.
    """
    text = line.strip()
    return text.startswith(PREFIX) and len(text.splitlines()) == 1


def expand(line: str, previous: str | None) -> tuple[str | None, str | None]:
    """The command a ``!`` line runs, or why none: ``(command, None)`` / ``(None, problem)``.

    ``!!`` is ``previous``; ``!!rest`` is ``previous + rest``. Pure (no terminal).
    """
    text = line.strip()[len(PREFIX):]
    if text.startswith(PREFIX):
        if previous is None:
            return None, "no earlier !command in this session — type !COMMAND, e.g. !git status"
        text = previous + text[len(PREFIX):]
    if not text.strip():
        return None, "type a shell command after !, e.g. !git status (!! runs the last one)"
    return text.strip(), None


def run_escape(repl: Repl, line: str) -> None:
    """Run the ``!`` line ``line`` in ``repl``'s session and draw its output."""
    messages = repl.session.conversation.messages
    stored = last_command(messages)
    command, problem = expand(line, stored)
    if command is None:
        repl.renderer.notice(problem or "", style="yellow")
        return
    echoed, typed = command, repl.typed_escape
    if line.strip().startswith(PREFIX * 2) and typed is not None \
            and typed[:2] == (repl.session.id, stored):
        command = expand(line, typed[2])[0] or command  # as typed here, not as stored
    repl.renderer.command_echo(PREFIX + echoed)
    to_model = repl.settings.shell_escape_to_model
    secret = sensitive_in_command(command, repl.session.working_dir,
                                  data_dir=repl.settings.data_dir,
                                  config_file=repl.settings.config_file) if to_model else None
    printed = unseen_secret_output(command, repl.session.working_dir, environment=False)
    if printed is not None:  # !gh auth token: a token from gh's store no redaction here knows
        repl.renderer.notice(terminal_safe(
            f"not run: {printed.replace(' printed ', ' prints ')}, which goosectx would keep in "
            "the session (its store, search "
            "and exports); run it in your own terminal"), style="yellow")
        return
    to_model = to_model and secret is None  # as an @.env mention is not
    # No wait for the model client (litellm's import, the key check): the command needs only
    # the agent's shell tool and tool context, built first; on the worker thread, so Ctrl-C
    # works as for any command.
    count = len(messages)
    unkept = None if secret is None else repl.renderer.show_unkept  # never stored: see below
    repl._drive(lambda cancel: run_shell_escape(repl.agent, command, to_model=to_model,
                                                cancel=cancel, unkept=unkept),
                waiting="running…")
    messages = repl.session.conversation.messages
    if len(messages) > count and (ran := last_command(messages[count:])) is not None:
        repl.typed_escape = (repl.session.id, ran, command)  # memory only: never stored
    if secret is not None:  # worded as the approval question words it (approval.py)
        verb = "may name" if secret.endswith(ANY_MAY_BE) else "is"
        repl.renderer.notice(terminal_safe(
            f"shown to you only, once: {secret} {verb} a sensitive file (keys, credentials), "
            "so the model does not see this output and the session does not keep it; paste "
            "what the model needs instead"), style="yellow")
    elif not to_model:
        repl.renderer.notice("shown to you only (shell_escape_to_model = false): the model "
                             "does not see it")
