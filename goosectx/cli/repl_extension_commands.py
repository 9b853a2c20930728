"""The REPL's extension commands: ``/extension list|add|remove|restart``, ``/prompts``, ``/prompt``.

Part of the REPL's side of extensions (:mod:`goosectx.cli.repl_extensions`;
docs/architecture.md §1): a change to the session's extensions is recorded with the session and
takes effect from the next turn; a prompt an extension offers is sent as a turn. Every text a
server sent passes the terminal sanitiser before it reaches the console (a listing's row its
one-line form: a line break in a name cannot forge a row).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goosectx.cli.repl_extensions import ensure_manager
from goosectx.cli.sanitize import one_line_safe, terminal_safe

if TYPE_CHECKING:
    from goosectx.cli import slash
    from goosectx.cli.repl import Repl

NO_EXTENSIONS = ('no extensions in this session — configure [extensions.NAME] or use '
                 '/extension add "cmd args"')


def run_extension_command(repl: Repl, command: slash.SlashCommand) -> None:
    """``/extension …``, ``/prompts`` and ``/prompt``."""
    from goosectx.cli import slash  # (imported at the first line typed: repl.run)
    manager = repl.extensions
    if manager is None and not (isinstance(command, slash.Extension) and
                                command.action == "add"):
        repl.renderer.notice(NO_EXTENSIONS, style="yellow")
        return
    if isinstance(command, slash.Extension):
        _extension(repl, command)
    elif isinstance(command, slash.Prompts):
        _prompts(repl)
    elif isinstance(command, slash.Prompt):
        _prompt(repl, command)


def _extension(repl: Repl, command: slash.Extension) -> None:
    from goosectx.errors import ConfigError
    from goosectx.extensions.config import parse_flag_spec

    if command.action == "add":
        try:
            adding = ensure_manager(repl)
            config = parse_flag_spec(command.arg, adding.configs, origin="repl")
        except ConfigError as exc:
            repl.renderer.error(exc.message, exc.hint)
            return
        adding.add(config)
        _forget_env(repl, command.arg)
        _record(repl)
        repl.renderer.notice(terminal_safe(f"extension {config.name}: starting "
                                           f"{config.command_line()} (tools as "
                                           f"{config.name}__TOOL from the next turn)"))
        return
    manager = repl.extensions
    assert manager is not None
    if command.action == "list":
        if not manager.statuses():
            repl.renderer.notice(NO_EXTENSIONS, style="yellow")
        for status in manager.statuses():
            tools = f"{len(status.tools)} tools" if status.status == "ready" else ""
            extra = f" · {status.error}" if status.error else ""
            repl.renderer.notice(one_line_safe(
                f"{status.name}: {status.status}{extra}" + (f" · {tools}" if tools else "")
                + (f" · {len(status.resources)} resources" if status.resources else "")
                + (f" · {len(status.prompts)} prompts" if status.prompts else "")))
        return
    removing = manager.configs.get(command.arg) if command.action == "remove" else None
    owned = [] if removing is None else [  # its tools' "always allow": forgotten with it
        name for name in repl.agent.always_allowed.keys() | repl.agent.reads_allowed.keys()
        if manager.owner(name) == command.arg]
    done = manager.remove(command.arg) if command.action == "remove" else \
        manager.restart(command.arg)
    if done and removing is not None and (forgotten := repl.agent.forget_allowed(owned)):
        repl.renderer.notice(terminal_safe(f"always allow forgotten (extension {command.arg} "
                                           f"removed): {', '.join(forgotten)}"))
    if done and removing is not None and removing.envs:
        _return_env(repl, removing.envs)
    if not done:
        names = ", ".join(manager.configs) or "none"
        repl.renderer.notice(terminal_safe(f"no extension named {command.arg!r} (have: "
                                           f"{names})"), style="yellow")
        return
    _record(repl)
    verb = "removed" if command.action == "remove" else "restarting"
    repl.renderer.notice(terminal_safe(f"extension {command.arg} {verb}; the tool list "
                                       "changes from the next turn"))


def _prompts(repl: Repl) -> None:
    manager = repl.extensions
    assert manager is not None
    manager.wait_ready()
    rows = 0
    for status in manager.statuses():
        for prompt in status.prompts:
            args = " ".join(f"{a.name}=…" + ("" if a.required else "?")
                            for a in prompt.arguments)
            about = f" — {prompt.description}" if prompt.description else ""
            repl.renderer.notice(one_line_safe(f"{status.name}:{prompt.name} {args}{about}"))
            rows += 1
    if not rows:
        repl.renderer.notice("no extension offers prompts")


def _prompt(repl: Repl, command: slash.Prompt) -> None:
    manager = repl.extensions
    assert manager is not None
    manager.wait_ready()
    ext, _, name = command.name.rpartition(":")
    matches = [(s.name, p) for s in manager.statuses() for p in s.prompts
               if p.name == name and (not ext or s.name == ext)]
    if len(matches) != 1:
        why = "no prompt" if not matches else "more than one prompt"
        repl.renderer.notice(terminal_safe(f"{why} named {command.name!r} — /prompts lists "
                                           "them (use EXTENSION:PROMPT)"), style="yellow")
        return
    extension, prompt = matches[0]
    given = dict(command.arguments)
    missing = [a.name for a in prompt.arguments if a.required and a.name not in given]
    if missing:
        repl.renderer.notice(terminal_safe(f"/prompt {prompt.name} needs "
                                           + " ".join(f"{m}=…" for m in missing)),
                             style="yellow")
        return
    outcome = manager.get_prompt(extension, prompt.name, given)
    if outcome.is_error:
        repl.renderer.error(terminal_safe(outcome.text), "check the arguments with /prompts")
        return
    from goosectx.extensions.tools import to_attachment

    repl.turn(outcome.text, attachments=[p for p in map(to_attachment, outcome.attachments)
                                         if p is not None])


def _forget_env(repl: Repl, spec: str) -> None:
    """The added spec's ``NAME=value`` words: out of the shell tool's environment, redacted.

    Recorded with this process's extension settings, which the tool environment and the
    redactors of this environment's secrets read (``ExtensionSettings.spec_envs``); the agent
    built already gets its shell environment scrubbed again.
    """
    repl.settings.extensions.added.append(spec)
    _rescrub(repl)


def _return_env(repl: Repl, envs: dict[str, str]) -> None:
    """A removed extension's ``NAME=value`` words: the names back in the shell's environment.

    Its spec is retired (``ExtensionSettings.retire``): the names leave the list the shell
    tool's environment drops, so goosectx's own variables of those names are the shell's
    again; the values stay redacted for the process (``spec_envs(removed=True)``): the server
    may have shown one, and redacting more hides nothing a user needs.
    """
    repl.settings.extensions.retire(envs)
    _rescrub(repl)


def _rescrub(repl: Repl) -> None:
    from goosectx.runtime import rescrub_extension_env

    try:
        agent = repl.agent  # (waits for one being built: it may have read the settings)
    except RuntimeError:
        return  # building it failed: no tool runs
    rescrub_extension_env(agent)


def _record(repl: Repl) -> None:
    from goosectx.cli.extensions_cmd import record_extensions

    if repl.extensions is not None:
        record_extensions(repl.store, repl.session.id, repl.extensions.configs.values(),
                          keep=repl.extensions.absent)
