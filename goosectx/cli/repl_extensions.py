"""The REPL's side of extensions.

Starting them after the prompt is drawn, their notices, the toolbar's ``extensions 2/3``,
``/context`` lines and ``@NAME:URI`` attachments (``/extension``, ``/prompts`` and ``/prompt``
are :mod:`goosectx.cli.repl_extension_commands`).

Every text a server sent (names, errors, stderr, prompt descriptions) passes the terminal
sanitiser before it reaches the console.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, merge_completers
from prompt_toolkit.document import Document

from goosectx.cli.resume_load import after_render
from goosectx.cli.sanitize import one_line_safe, terminal_safe

Flags = tuple[tuple[str, ...], tuple[str, ...]]
"""``--with-extension`` specs and ``--with-remote-extension`` URLs."""

if TYPE_CHECKING:
    from goosectx.agent import Agent
    from goosectx.approval import ApprovalFn
    from goosectx.cli.repl import Repl
    from goosectx.extensions.manager import ExtensionManager

__all__ = ["ResourceCompleter", "ensure_manager", "redraw", "resource_mentions",
           "show_context_lines", "show_notices", "toolbar_note", "watch"]

def ensure_manager(repl: Repl) -> ExtensionManager:
    """The session's extension manager (an empty one first, for ``/extension add``)."""
    if repl.extensions is None:
        from goosectx.cli.extensions_cmd import start_extensions

        repl.extensions = start_extensions([], repl.session, start=False, empty=True)
        watch(repl, repl.extensions)
    manager: ExtensionManager = repl.extensions
    return manager


def show_notices(repl: Repl) -> None:
    """Draw the notices the servers raised since the last prompt (a failed start, a death).

    In plain mode (no prompt-toolkit prompt) the first call starts the servers. A restored
    model found unusable meanwhile is said here too (``cli.model_choice.show_retreat``).
    """
    from goosectx.cli.model_choice import show_retreat

    show_retreat(repl)
    if repl.extensions is None:
        return
    if repl._prompt is None:
        repl.extensions.start()
    _draw_notices(repl, repl.extensions.drain_notices())


def _draw_notices(repl: Repl, notices: list[str]) -> None:
    for notice in notices:  # server text, one line each: a name's line break as a stand-in
        repl.renderer.notice(one_line_safe(notice), style="yellow")


def watch(repl: Repl, manager: ExtensionManager) -> None:
    """Show the servers' notices and counts while the prompt waits, not at the next input.

    A server that fails to start or dies, or becomes ready, calls back from the servers'
    thread; the running prompt then draws the notices above itself and redraws its toolbar
    (``extensions 2/3``). With no prompt up (a turn runs) they wait for the next prompt.
    """
    manager.on_change = lambda: redraw(repl)


def redraw(repl: Repl) -> None:
    """Have the running prompt show what the servers changed (call from any thread).

    It draws pending notices, takes the tools of servers that are up (the meter counts
    them) and redraws its toolbar; with no prompt up nothing happens.
    """
    prompt = repl._prompt
    app = prompt.app if prompt is not None else None
    if app is None or not app.is_running or app.loop is None:
        return

    def draw() -> None:
        # As the resumed tail is drawn (cli/resume_load.py): erase the prompt, write, redraw;
        # run_in_terminal would switch the terminal to cooked mode and garble typed keys.
        if not app.is_running or repl.extensions is None:
            return
        notices = repl.extensions.drain_notices()
        if notices:
            app.renderer.erase()
            try:
                _draw_notices(repl, notices)
            finally:
                app.renderer.reset()
                app.renderer.request_absolute_cursor_position()
        starting = any(s.status == "starting" for s in repl.extensions.statuses())
        if repl.loader.ready and not starting:  # the meter counts the tools a turn would send
            repl.agent.sync_tools()
            repl._refresh_figure()
        app.invalidate()

    app.loop.call_soon_threadsafe(draw)


def rule_warnings(repl: Repl) -> list[str]:
    """The REPL's start-up warnings, one line each.

    Per permission rule of the config that matches no tool of the session, and per custom
    command file skipped (the files are read here, as the REPL starts).
    """
    from goosectx.cli.custom_commands import startup_warnings
    from goosectx.permissions import rules_for_no_tool

    active = repl.extensions
    names = [c.name for c in active.enabled] if active is not None else []
    return rules_for_no_tool(repl.settings.permissions, names) + startup_warnings(repl)


def toolbar_note(repl: Repl, note: str = "") -> str:
    """``extensions 2/3`` (ready / enabled) before ``note``; ``note`` without extensions."""
    if repl.extensions is None or not repl.extensions.enabled:
        return note
    ready, total = repl.extensions.counts()
    return " · ".join(n for n in (f"extensions {ready}/{total}", note) if n)


class Servers:
    """The extensions of one REPL run: parsed before the session opens, stopped at the end.

    Raises:
        ConfigError: a bad ``[extensions.*]`` table or ``--with-*`` flag.
    """

    def __init__(self, settings: Any, flags: Flags) -> None:
        from goosectx.cli.extensions_cmd import extension_configs

        self.configs = extension_configs(settings, *flags)
        self.manager: ExtensionManager | None = None

    def open(self, opened: Any) -> ExtensionManager | None:
        """The session's manager (recorded in its store; started after the first prompt)."""
        from goosectx.cli.extensions_cmd import open_extensions

        self.manager = open_extensions(opened, self.configs)
        return self.manager

    def stop(self, repl: Repl | None) -> None:
        """Close the agent's tools and stop every server (also one added with ``/extension add``).

        Nothing the session started outlives the REPL.
        """
        if repl is not None:
            repl.loader.close()
        active = repl.extensions if repl is not None else self.manager
        if active is not None:
            active.stop_all()


def completer(repl: Repl) -> Completer:
    """Slash commands (and model names), ``@NAME:URI`` resources and ``@path`` files."""
    from goosectx.cli.custom_commands import CustomCompleter
    from goosectx.cli.prompt import SlashCompleter
    from goosectx.cli.repl_mentions import MentionCompleter, extension_names

    mentions = MentionCompleter(repl.session.working_dir, lambda: extension_names(repl),
                                repl.redact_input)
    from goosectx.cli.repl_sessions import resume_choices

    return merge_completers([SlashCompleter(repl._model_names, lambda: resume_choices(repl)),
                             CustomCompleter(repl), ResourceCompleter(repl), mentions])


def reply(repl: Repl, text: str, attachments: list[Any] | None, sent: Any = None) -> Any:
    """The turn's event source: ``text``, ``attachments``, ``@path`` files, ``@NAME:URI``.

    ``sent``: the user's message when it was already saved (then it has no attachments).
    """
    from goosectx.cli.repl_mentions import file_mentions, redacted_parts

    if sent is not None:
        return lambda cancel: repl.agent.reply(text, cancel=cancel, sent=sent)
    parts = redacted_parts(repl, [*(attachments or ()), *file_mentions(repl, text),
                                  *resource_mentions(repl, text)])
    return lambda cancel: repl.agent.reply(text, cancel=cancel, attachments=parts)


def build_agent(repl: Repl, approve: ApprovalFn) -> Agent:
    """The REPL's agent (``goosectx.runtime.build_agent``) with the session's extensions.

    Its tools' progress, and a long tool call's while it streams, show as the REPL's
    spinner text.
    """
    from goosectx.runtime import build_agent as build

    agent = build(repl.settings, repl.session, approve=approve, mode=repl.mode,
                  model=repl._model_override, extensions=ensure_manager(repl))
    agent.progress = repl.driver.progress
    agent.writing = repl.driver.spinner
    return agent


def take_pre_run(repl: Repl) -> Any:
    """The next prompt's ``pre_run``: starts the servers once its first render is done."""
    manager = repl.extensions
    if manager is None or manager.started:
        return None
    return after_render(manager.start)


def resource_mentions(repl: Repl, text: str) -> list[Any]:
    """The ``@NAME:URI`` mentions in ``text`` read as attachment parts; notices drawn.

    Only names of configured extensions count (so a path like ``@src/a.py`` is left alone,
    and a configured name wins over a file path). Capped like ``@path`` files
    (``mention_max_tokens``); one notice per resource not attached or cut
    (:func:`goosectx.extensions.mentions.read_resource_mentions`).
    """
    from goosectx.cli.repl_mentions import extension_names, mention_cap_tokens

    names = extension_names(repl)
    if "@" not in text or not names:
        return []
    from goosectx.extensions.mentions import read_resource_mentions

    provider = repl.provider
    found = read_resource_mentions(repl.extensions, text, names=names,
                                   cap_tokens=mention_cap_tokens(repl),
                                   model=provider.model if provider else repl.session.model)
    for notice in found.notices:
        repl.renderer.notice(one_line_safe(notice), style="yellow")
    return list(found.attachments)


def show_context_lines(repl: Repl) -> None:
    """``/context``, per extension: instruction tokens, schema tokens, and a resources line.

    Schema tokens are what the extension's tools would cost; with deferral on (see the tool
    budget) only the loaded ones are in the request's ``tool schemas`` row.
    """
    if not repl.extensions or not repl.extensions.configs:
        return
    from goosectx.extensions.model import instructions_cut
    from goosectx.extensions.source import ExtensionToolSource

    deferred = repl.agent.offering.deferred
    for name, instr, schema, resources in ExtensionToolSource(repl.extensions).costs():
        status = next((s for s in repl.extensions.statuses() if s.name == name), None)
        cut = instructions_cut(status.instructions) if status else ""
        cut = f" (cut from {cut})" if cut else ""
        line = (f"extension {name} ({status.status if status else ''}): instructions "
                f"{instr:,} tokens{cut} · tool schemas {schema:,} tokens")
        repl.renderer.notice(terminal_safe(line))
        if resources:
            repl.renderer.notice(terminal_safe(
                f"  resources: {resources} offered (list_resources / read_resource, "
                f"@{name}:URI); none in the context until read"))
    if deferred:
        repl.renderer.notice(f"tool budget: {len(deferred)} extension tools deferred behind "
                             "search_tools (tool_budget_ratio)")


class ResourceCompleter(Completer):
    """Completes ``@NAME:URI`` with the resources the running extensions offer.

    What is inserted reads back as the same resource (:func:`resource_mention`: quoted when
    it must be); a URI that would put a raw control or invisible character into the line (a
    server's terminal escape, a bidi override) is not offered. The menu shows sanitised text.
    """

    def __init__(self, repl: Repl) -> None:
        self.repl = repl

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Iterator[Completion]:
        """Yield ``@NAME:URI`` completions for an ``@`` word before the cursor."""
        match = re.search(r"(?:^|\s)(@[A-Za-z0-9_-]*(?::\S*)?)$", document.text_before_cursor)
        manager = self.repl.extensions
        if match is None or manager is None:
            return
        from goosectx.extensions.mentions import resource_mention

        word = match.group(1)
        for status in manager.statuses():
            for res in status.resources:
                candidate = resource_mention(status.name, res.uri)
                if terminal_safe(candidate) != candidate:
                    continue  # (a raw ESC or U+202E: never into the line)
                typed = f"@{status.name}:{res.uri}"  # what a user types to narrow it
                if (candidate.startswith(word) or typed.startswith(word)) and candidate != word:
                    yield Completion(candidate, start_position=-len(word),
                                     display=one_line_safe(candidate),
                                     display_meta=one_line_safe(res.name))
