"""The REPL's slash commands, run against one :class:`~goosectx.cli.repl.Repl`.

``/compact``, ``/undo-compact``, ``/clear``, ``/mode``, ``/model``, ``/usage``, ``/context``,
``/max-cost``, ``/history``, ``/show``, ``/help``; ``/sessions`` and ``/resume`` live in
:mod:`.repl_sessions`, ``/search`` in :mod:`.repl_search`, ``/undo`` in :mod:`.file_undo_cmd`.
Parsing is :mod:`goosectx.cli.slash` (a pure function); this module only acts on the parsed
command, drawing through the REPL's renderer. ``/exit`` is handled by the REPL's loop.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from goosectx.budget import cap_source
from goosectx.cli import custom_commands, repl_agent, reports, slash
from goosectx.cli.folding import plural
from goosectx.cli.start_warnings import shown_path
from goosectx.compaction import calibration
from goosectx.config import ApprovalMode
from goosectx.conversation import Message, TextContent
from goosectx.errors import EXTRACTIVE_HINT, GoosectxError
from goosectx.shell_escape import is_shell_escape
from goosectx.shown import view_numbers

CLI_STRATEGY_HINT = EXTRACTIVE_HINT
"""The part of a compaction refusal's hint that only ``goosectx compact`` takes."""

if TYPE_CHECKING:
    from pathlib import Path

    from goosectx.cli.repl import Repl

__all__ = ["context_facts", "run_command"]


def run_command(repl: Repl, command: slash.SlashCommand) -> None:
    """Run one slash command of ``repl`` (``/exit`` is handled by ``Repl.run``).

    Commands that need the agent or the model's limit first wait (with a spinner) for
    the start-up work; ``/help``, ``/usage`` and ``/history user`` never wait.
    """
    offline = (slash.Help, slash.Invalid, slash.ShowUsage, slash.Show, slash.Sessions,
               slash.Resume, slash.Search, slash.Undo, slash.Commands)
    needs_agent = not isinstance(command, offline) and command != slash.History("user")
    if needs_agent and not repl.loader.wait(repl.renderer,
                                            quiet_terminal=repl.io.is_real_terminal):
        return
    if isinstance(command, slash.Extension | slash.Prompts | slash.Prompt):
        from goosectx.cli.repl_extension_commands import run_extension_command

        run_extension_command(repl, command)
    elif isinstance(command, slash.Help):
        repl.renderer.print(reports.help_table(plain=repl.io.plain,
                                               width=repl.renderer.console.width))
        custom_commands.show_help(repl)
    elif isinstance(command, slash.Commands):
        custom_commands.list_commands(repl)
    elif isinstance(command, slash.Init):
        from goosectx.cli.repl_init import init_project

        init_project(repl, command.focus)
    elif isinstance(command, slash.Invalid):
        if not custom_commands.run_custom(repl, command):  # /NAME of a NAME.md file
            repl.renderer.notice(f"{command.message} — {command.hint}", style="yellow")
    elif isinstance(command, slash.Compact):
        strategy = "llm" if repl.provider is not None and not command.extractive else "extractive"
        repl._drive(lambda cancel: _in_repl_words(repl, repl.agent.compact(
            command.instructions, strategy=strategy, cancel=cancel)))
    elif isinstance(command, slash.UndoCompact):
        repl._drive(lambda _cancel: repl_agent.context_manager(repl).undo_compaction(
            repl.agent.request_context))
    elif isinstance(command, slash.Undo):
        from goosectx.cli.file_undo_cmd import undo_files

        undo_files(repl, force=command.force)
    elif isinstance(command, slash.Clear):
        repl._drive(lambda _cancel: repl.agent.clear())
    elif isinstance(command, slash.Mode):
        _mode(repl, command.name)
    elif isinstance(command, slash.Model):
        _model(repl, command.name)
    elif isinstance(command, slash.ShowUsage):
        if repl.loader.ready:  # else the last figure: /usage never waits for the agent
            repl._refresh_figure()
        repl.renderer.print(reports.usage_table(repl.session.ledger, figure=repl._figure,
                                                cap_usd=repl.settings.max_cost_usd,
                                                cap_source=cap_source(
                                                    repl.settings.source("max_cost_usd"))))
    elif isinstance(command, slash.MaxCost):
        _max_cost(repl, command)
    elif isinstance(command, slash.ShowContext):
        facts = context_facts(repl)
        if facts is not None:
            repl.renderer.print(reports.context_table(facts))
            from goosectx.cli.repl_extensions import show_context_lines

            show_context_lines(repl)
    elif isinstance(command, slash.History):
        _history(repl, command.view)
    elif isinstance(command, slash.Show):
        show_output(repl, command.number)
    elif isinstance(command, slash.Search):
        from goosectx.cli.repl_search import search_transcript

        search_transcript(repl, command.text)
    elif isinstance(command, slash.Sessions | slash.Resume):
        from goosectx.cli import repl_sessions

        if isinstance(command, slash.Sessions):
            repl_sessions.show_sessions(repl)
        else:
            repl_sessions.resume(repl, command.ref)


def _max_cost(repl: Repl, command: slash.MaxCost) -> None:
    """``/max-cost``: the cap and what was spent; with USD or ``off``, set it for this REPL.

    The new cap holds for every later call of this process (the agent's, compaction's, and a
    session ``/resume`` opens); ``max_cost_usd`` in the config file is not changed. A cap at or
    below what the session already spent says, in the same line, that the next call will be
    refused (when the model's prices are known, as the cap's check needs them).
    """
    from dataclasses import replace

    from goosectx.usage import format_cap_usd, format_cost_usd

    budget = repl_agent.context_manager(repl).budget
    spent_usd = budget.spent_usd()
    spent = format_cost_usd(spent_usd)
    if command.usd is None and not command.off:
        cap = repl.settings.max_cost_usd
        repl.renderer.notice(
            f"spending cap: {format_cap_usd(cap)} per session; spent {spent}" if cap else
            f"no spending cap; spent {spent} — /max-cost USD sets one", style="dim")
        return
    budget.cap_usd, budget.source = command.usd, "/max-cost"
    repl.settings = replace(repl.settings, max_cost_usd=command.usd,
                            sources={**repl.settings.sources, "max_cost_usd": "/max-cost"})
    if not command.usd:
        repl.renderer.notice(f"spending cap removed for the rest of this REPL; spent {spent}",
                             style="dim")
        return
    text = (f"spending cap set to {format_cap_usd(command.usd)} for the rest of this REPL (set "
            f"max_cost_usd in the config file to keep it); spent {spent}")
    provider = repl.provider
    if spent_usd >= command.usd and provider is not None and provider.prices() is not None:
        repl.renderer.notice(f"{text}, already at or past it: the next model call will be refused",
                             style="yellow")
    else:
        repl.renderer.notice(text, style="dim")


def show_output(repl: Repl, number: int | None) -> None:
    """``/show [N]``: output N whole (through a pager when longer than the screen)."""
    from rich.text import Text

    from goosectx.cli.diffview import diff_plain, diff_text
    from goosectx.cli.folding import clean_output
    from goosectx.cli.sanitize import terminal_safe
    from goosectx.shown import find_output, numbered_outputs

    found = find_output(repl.session.conversation, number)
    if found is None:
        count = len(numbered_outputs(repl.session.conversation))
        what = f"there is no output #{number}" if number else "there is no output to show yet"
        hint = f"outputs are #1 to #{count}" if count else "tool results get numbers as they run"
        repl.renderer.notice(f"{what} — {hint}", style="yellow")
        return
    # Tool output loses its CSI sequences (a file tool's keeps them shown), reasoning is
    # model text: shown, as live.
    body = (terminal_safe(found.text) if found.kind == "thinking"
            else clean_output(found.text, tool=found.title.split(" ", 1)[0])).rstrip("\n")
    lines = body.count("\n") + 1 + (found.diff or "").count("\n")
    console = repl.io.console

    def draw() -> None:
        repl.renderer.rule(f"#{found.number} {clean_output(found.title)} · "
                           f"{plural(lines, 'line')}")
        if repl.io.plain:
            for line in body.split("\n"):
                repl.renderer._plain(line)
            for line in diff_plain(found.diff or "", indent="", limit=None):
                repl.renderer._plain(line)
            return
        console.print(Text(body))
        if found.diff:
            console.print(diff_text(found.diff, indent="", limit=None))

    rows = _screen_rows(body, console.width) + (found.diff or "").count("\n")
    if repl.io.is_real_terminal and rows > console.height:  # one long line wraps onto many
        from goosectx.cli.pager import CommandPager, choose_pager

        chosen = choose_pager(os.environ)
        if chosen is None:
            draw()
            return
        with console.pager(CommandPager(chosen), styles=chosen.styles):
            draw()
    else:
        draw()


def _screen_rows(text: str, width: int) -> int:
    """Rows ``text`` takes on a screen ``width`` cells wide (a long line wraps onto several)."""
    from rich.cells import cell_len

    width = max(width, 1)
    return sum(max(1, -(-cell_len(line) // width)) for line in text.split("\n"))


def _mode(repl: Repl, name: ApprovalMode | None) -> None:
    if name is None:
        repl.renderer.notice(f"mode: {repl.mode} (choose with /mode auto|approve|"
                             "smart_approve|chat)")
        return
    forgotten = repl.agent.set_mode(name)
    repl.mode = name
    repl.session.approval_mode = name  # restored on resume (migration 3)
    repl.store.update_session(repl.session.id, approval_mode=name)
    repl._refresh_figure()  # the system prompt follows the mode
    cleared = (f" · always-allow answers cleared ({', '.join(forgotten)})" if forgotten
               else "")
    repl.renderer.notice(f"mode: {name}{cleared}")


def _model(repl: Repl, name: str | None) -> None:
    if name is None:
        current = repl.provider.model if repl.provider else "none"
        repl.renderer.notice(f"model: {current} (switch with /model NAME)")
        return
    repl.renderer.waiting(f"switching to {name}…")
    try:
        provider = repl._provider_factory(name)
    except GoosectxError as exc:
        repl.renderer.error(exc.message, exc.hint)
        return
    finally:
        repl.renderer.settle()
    repl.agent.set_provider(provider)
    repl.loader.model_changed()
    repl.session.model = provider.model
    repl.session.state.chosen_model = provider.model  # resumed on (cli/model_choice.py)
    repl.store.update_session(repl.session.id, model=provider.model, state=repl.session.state)
    limit = provider.context_limit()
    repl.renderer.notice(f"model: {provider.model} · context limit {limit.tokens:,} tokens "
                         f"({limit.source}) from the next call")
    repl._refresh_figure()


def _history(repl: Repl, view: slash.HistoryView) -> None:
    conversation = repl.session.conversation
    if view == "user":
        repl.renderer.rule(f"transcript · {plural(len(conversation.user_view()), 'message')}")
        repl.renderer.history(conversation)
        repl.renderer.rule("end of transcript")
        return
    # Everything the model will see with your next message, the last answer included
    # (a request to the provider never ends on it, so for_sending=False).
    messages = conversation.agent_view(for_sending=False)
    request = repl.agent.request_context
    repl.renderer.rule(f"what the model sees · system prompt + "
                       f"{plural(len(request.tool_schemas), 'tool schema')} + "
                       f"{plural(len(messages), 'message')}")
    # the view merges and reorders messages: its outputs keep the session's numbers
    repl.renderer.view_numbers = view_numbers(messages, conversation.messages)
    summaries = {m.id: len(m.content) for m in conversation.messages if m.metadata.is_summary}
    try:
        for m in _escapes_apart(messages, conversation.messages):
            own = summaries.get(m.id, len(m.content)) if m.metadata.is_summary else 0
            if 0 < own < len(m.content):  # the user messages re-sent after it, merged into it
                repl.renderer.message(replace(m, content=m.content[:own]), label="summary")
                m = replace(m, content=m.content[own:], metadata=replace(
                    m.metadata, is_summary=False))
                repl.renderer.message(m, label="earlier user messages, re-sent")
                continue
            label = "summary" if m.metadata.is_summary else (
                "continuation" if m.metadata.is_continuation else None)
            repl.renderer.message(m, label=label)
    finally:
        repl.renderer.view_numbers = {}
    repl.renderer.rule("end of the model's view")


def _escapes_apart(view: Sequence[Message], stored: Sequence[Message]) -> Iterator[Message]:
    """``view`` with each ``!command`` the view merged into a user message drawn on its own.

    The model's view merges consecutive user messages, so a ``!command`` and what was typed
    after it reach the model as one; drawn as one, its whole output (thousands of lines) would
    fill the screen. Its own record (``stored``) is drawn instead, folded with its ``/show``
    number as the transcript draws it; the rest of the message around it as it is.
    """
    records = {tuple(p.text for p in m.content if isinstance(p, TextContent)): m
               for m in stored if is_shell_escape(m)}  # (command part, output part)
    for m in view:
        if m.role != "user" or len(m.content) < 3 or not records:
            yield m
            continue
        rest: list[Any] = []
        parts, i = m.content, 0
        while i < len(parts):
            first, second = parts[i], parts[i + 1] if i + 1 < len(parts) else None
            record = (records.get((first.text, second.text))
                      if isinstance(first, TextContent) and isinstance(second, TextContent)
                      else None)
            if record is None:
                rest.append(parts[i])
                i += 1
                continue
            if rest:
                yield replace(m, content=tuple(rest))
                rest = []
            yield record
            i += 2
        if rest:
            yield replace(m, content=tuple(rest))


def context_facts(repl: Repl) -> reports.ContextFacts | None:
    """The figures ``/context`` shows, or ``None`` after drawing why they cannot be measured."""
    try:
        manager = repl_agent.context_manager(repl)
        repl.agent.reload_instructions()  # an AGENTS.md written since the turn: counted
        request = repl.agent.request_context
        breakdown = manager.breakdown(request)
        current, is_estimate = manager.current_tokens(request)
        limit = manager.context_limit()
        fixed = manager.fixed_part_cause(request, 0.0)  # ratio 0: always, for its extensions
    except GoosectxError as exc:
        repl.renderer.error(f"cannot measure the context: {exc.message}", exc.hint)
        return None
    provider = repl.provider
    read, cut = _instruction_names(repl.session.working_dir)
    return reports.ContextFacts(
        breakdown=breakdown, current_tokens=current, current_is_estimate=is_estimate,
        limit_tokens=limit.tokens, limit_source=limit.source,
        threshold_ratio=repl.settings.threshold_ratio,
        threshold_source=repl.settings.source("threshold_ratio"),
        auto_enabled=repl.settings.auto_compaction_enabled,
        paused=repl.session.state.auto_compaction_paused,
        paused_by_undo=repl.session.state.paused_by_undo,
        pause_reason=repl.session.state.pause_reason,
        manages_own_context=bool(provider and provider.manages_own_context),
        calibration=calibration.describe(repl.session.state,
                                         provider.model if provider else repl.session.model),
        factor=calibration.ratio(repl.session.state,
                                 provider.model if provider else repl.session.model),
        instruction_files=read, instructions_cut=cut,
        compacted_since_call=manager.guard.compacted_since_call,
        extensions=tuple(name for name, *_ in fixed[2]) if fixed else (),
    )


def _in_repl_words(repl: Repl, events: Iterator[Any]) -> Iterator[Any]:
    """A compaction's events, with a refusal's hint in words that work in the REPL.

    A hint naming ``goosectx compact``'s option (``use --strategy extractive``) names the
    REPL's own form of it, ``/compact --extractive``.
    """
    try:
        yield from events
    except GoosectxError as exc:
        if exc.hint and CLI_STRATEGY_HINT in exc.hint:
            exc.hint = exc.hint.replace(CLI_STRATEGY_HINT,
                                        f"use /compact {slash.EXTRACTIVE_OPTION}")
        raise


def _instruction_names(working_dir: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the project instruction files read, those of them cut at the size cap).

    Each relative to ``working_dir`` where it is inside.
    """
    from goosectx.prompts import scan_instructions

    scan = scan_instructions(working_dir)
    return (tuple(shown_path(p, working_dir) for p, _text in scan.read),
            tuple(shown_path(p, working_dir) for p, _size in scan.cut))

