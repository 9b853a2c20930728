"""The typer application: every command's options, with bodies imported lazily.

Only typer is imported at start-up, so ``goosectx --help`` and ``--version`` stay fast and
never import litellm.
"""
# No ``from __future__ import annotations`` here: typer reads these commands' signatures at
# every start, and with string annotations it compiled and evaluated each one twice
# (typer.main.get_command: 20-30 -> 8-10 ms CPU for every command, on a busy machine).

import sys
from typing import Annotated, Any

from goosectx.collector import cycle_collector_paused

with cycle_collector_paused(frozen_after=True):  # no collection walks what they make (~4 ms)
    import typer

    from goosectx import __version__
    from goosectx.cli.dispatch import dispatch
    from goosectx.cli.endings import closed_output, exit_now
    from goosectx.cli.extension_options import WithExtOpt, WithRemoteOpt, extensions_app, flags
    from goosectx.cli.options import (
        STATE,
        ConfigOpt,
        ContinueOpt,
        HistoryOpt,
        MaxCostOpt,
        ModelOpt,
        ModeOpt,
        NameOpt,
        OutputFormat,
        ResumeOpt,
        SessionArg,
        Strategy,
        settings,
    )
    from goosectx.cli.sessions_app import sessions_app
    from goosectx.config_values import MAX_TURNS

_APP_SETTINGS: dict[str, Any] = {
    "name": "goosectx",
    "help": "A terminal chat agent that keeps long tasks going inside a finite context window.",
    "epilog": ("Project instructions: .goosehints, AGENTS.md and CLAUDE.md, from the repository "
               "root down to the working dir, go into the system prompt (/context names them)."),
    "no_args_is_help": False,
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}
app = typer.Typer(**_APP_SETTINGS)
app.add_typer(sessions_app, name="sessions")
app.add_typer(extensions_app, name="extensions")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"goosectx {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    config: ConfigOpt = None,
    debug: Annotated[
        bool, typer.Option("--debug", help="Write a detailed log to the data dir.")
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print version."),
    ] = False,
    name: NameOpt = None,
    resume: ResumeOpt = None,
    continue_: ContinueOpt = False,
    history: HistoryOpt = False,
    mode: ModeOpt = None,
    model: ModelOpt = None,
    max_cost: MaxCostOpt = None,
    with_extension: WithExtOpt = None, with_remote_extension: WithRemoteOpt = None,
) -> None:
    """Start the REPL (new session, or --name / --resume / --continue), or run a command."""
    STATE.config_path = config
    STATE.debug = debug
    STATE.model, STATE.mode, STATE.max_cost = model, mode, max_cost
    if ctx.invoked_subcommand is None:
        from goosectx.cli.repl_start import start_repl

        STATE.exit_at_once = True  # saved and closed when it returns: no teardown to wait for
        raise typer.Exit(start_repl(settings(), name=name, resume=resume, continue_=continue_,
                                    mode=mode, model=model, full_history=history,
                                    extensions=flags(with_extension, with_remote_extension)))
    given = [flag for flag, value in (
        ("--name NAME", name), ("--resume SESSION", resume), ("--continue", continue_),
        ("--history", history), ("--with-extension CMD", with_extension),
        ("--with-remote-extension URL", with_remote_extension)) if value]
    if given:
        _refuse_repl_flags(ctx, given)


def _refuse_repl_flags(ctx: typer.Context, given: list[str]) -> None:
    """Refuse REPL flags before a command, naming only ways that work.

    The flags the command takes go after it (``goosectx run --resume SESSION``); the rest
    start the REPL with no command (``goosectx --resume SESSION --history``).
    """
    from goosectx.errors import UsageError

    sub = ctx.invoked_subcommand or ""
    lookup = getattr(ctx.command, "get_command", None)  # the root is a group (typer's click)
    command = lookup(ctx, sub) if lookup is not None else None
    opts = {o for p in getattr(command, "params", ()) for o in getattr(p, "opts", ())}
    taken = [f for f in given if f.split()[0] in opts]
    left = [f for f in given if f not in taken]
    names = [f.split()[0] for f in given]
    message = (f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]) + (
        " before a command apply to the REPL only" if len(names) > 1
        else " before a command applies to the REPL only")
    after = f"goosectx {sub} {' '.join(taken)}"
    repl = given if any(f.startswith(("--resume", "--continue")) for f in given) or (
        "--history" not in given) else ["--resume SESSION", *given]
    to_repl = f"give no command to start the REPL: goosectx {' '.join(repl)}"
    if not left:
        raise UsageError(message, f"put them after the command: {after}")
    if not taken:
        whose = "takes none of them" if len(given) > 1 else "does not take it"
        raise UsageError(f"{message}; {sub} {whose}", to_repl)
    raise UsageError(
        f"{message}; {sub} takes {' '.join(f.split()[0] for f in taken)} but not "
        f"{' '.join(f.split()[0] for f in left)}",
        f"put those it takes after it ({after}), or {to_repl}")


@app.command()
def session(
    name: NameOpt = None, resume: ResumeOpt = None, continue_: ContinueOpt = False,
    mode: ModeOpt = None, model: ModelOpt = None, history: HistoryOpt = False,
    max_cost: MaxCostOpt = None,
    with_extension: WithExtOpt = None, with_remote_extension: WithRemoteOpt = None,
) -> None:
    """Start the REPL in a new, named or resumed session."""
    from goosectx.cli.repl_start import start_repl

    STATE.max_cost = max_cost if max_cost is not None else STATE.max_cost
    STATE.exit_at_once = True
    raise typer.Exit(start_repl(settings(), name=name, resume=resume, continue_=continue_,
                                mode=mode or STATE.mode, model=model or STATE.model,
                                full_history=history,
                                extensions=flags(with_extension, with_remote_extension)))


@app.command()
def run(
    text: Annotated[str | None, typer.Option("--text", "-t", help="The task text.")] = None,
    input_file: Annotated[
        str | None, typer.Option("--input", "-i", help="Read the task from FILE, or - for stdin.")
    ] = None,
    name: NameOpt = None,
    resume: ResumeOpt = None,
    continue_: ContinueOpt = False,
    max_turns: Annotated[
        int | None, typer.Option("--max-turns", min=1, max=MAX_TURNS,
                                  help="Bound on model calls this turn.")
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--output-format", help="text, json or stream-json.")
    ] = OutputFormat.text,
    mode: ModeOpt = None,
    model: ModelOpt = None,
    max_cost: MaxCostOpt = None,
    with_extension: WithExtOpt = None, with_remote_extension: WithRemoteOpt = None,
    allow: Annotated[list[str] | None, typer.Option(
        "--allow", help="Permission rule to allow, e.g. 'shell(ls*)' (repeatable).")] = None,
    deny: Annotated[list[str] | None, typer.Option(
        "--deny", help="Permission rule to deny, e.g. 'shell(rm *)' (repeatable).")] = None,
) -> None:
    """Run one task non-interactively and save the session.

    The task is -t TEXT, -i FILE (- for stdin), or else the text piped on stdin
    (echo 'summarise README' | goosectx run). Data piped along with -t or -i FILE is sent
    after the task in a fenced block, capped as an @FILE is (cat log | goosectx run -t
    'why did it fail?'). A terminal or /dev/null on stdin is never read.

    -t '/NAME args' runs a custom command (NAME.md) as the REPL does; REPL commands
    (/compact: use goosectx compact) are refused; // sends a leading /.

    Exit codes: 0 done, 1 error, 2 bad configuration or arguments, 3 stopped at --max-turns,
    130 cancelled (143 / 129: by SIGTERM / SIGHUP).
    """
    from goosectx.cli import early_cancel
    from goosectx.cli.exit_signals import as_ctrl_c

    STATE.exit_at_once = True
    STATE.max_cost = max_cost if max_cost is not None else STATE.max_cost
    with as_ctrl_c():  # SIGTERM / SIGHUP cancel the run as Ctrl-C does, then exit 143 / 129
        try:
            early_cancel.hand_over()  # a cancel from here is the except's below, or run_task's
            (loaded := settings()).extensions.flags = flags(with_extension, with_remote_extension)
            if resume:  # a typo is refused at once, not after the model client loaded
                from goosectx.cli.common import resolve_session

                resolve_session(loaded, resume, read_only=True)[0].close()
            from goosectx.cli.run_cmd import run_task
            from goosectx.permissions import parse_permissions

            if allow or deny:
                extra = parse_permissions("--allow/--deny",
                                          {"allow": allow or [], "deny": deny or []})
                loaded.permissions = loaded.permissions.merged(extra)
            code = run_task(
                loaded, text=text, input_file=input_file, name=name, resume=resume,
                continue_=continue_, max_turns=max_turns, output_format=output_format.value,
                mode=mode or STATE.mode, model=model or STATE.model,
            )
        except KeyboardInterrupt:  # before its session was open (run_task handles it after):
            from goosectx.cli.run_cancel import cancelled_at_start  # one line, "not saved"

            raise typer.Exit(cancelled_at_start(output_format.value)) from None
    raise typer.Exit(code)


@app.command()
def compact(
    session_ref: SessionArg,
    instructions: Annotated[
        str | None, typer.Option("--instructions", help="Extra instructions for the summary.")
    ] = None,
    strategy: Annotated[
        Strategy | None,
        typer.Option("--strategy", help="llm (a model writes the summary) or extractive "
                     "(no model). Default: llm, or extractive when no model is configured."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the plan; call no model, change nothing.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    max_summary_tokens: Annotated[
        str | None, typer.Option(  # read in the command: a bad one is a --json failure too
            "--max-summary-tokens", metavar="TOKENS",
            help="Extractive summary budget (100 to 100,000,000). Default: 4,000, at most a "
                 "quarter of the context window and half of what it summarises.")
    ] = None,
    model: ModelOpt = None,
    undo: Annotated[bool, typer.Option(
        "--undo", help="Give the model back the view the last compaction replaced.")] = False,
) -> None:
    """Compact a saved session offline (or undo its last compaction)."""
    from goosectx.cli.exit_signals import as_ctrl_c
    from goosectx.collector import cycle_collector_paused

    loaded = settings()
    extract_with = (model or STATE.model or loaded.model) if not (undo or dry_run) else None
    STATE.exit_at_once = True
    # SIGTERM / SIGHUP cancel as Ctrl-C does (one line, exit 143 / 129); the worker is
    # killed and reaped on every way out, an interrupt while the command loads included.
    # The collector is paused from here, its modules' import too: what the command makes
    # lives until it ends (its walks during start-up were ~5 % of a 1k-message dry run).
    with as_ctrl_c(), cycle_collector_paused():
        try:
            from goosectx.cli.compact_cancel import summary_tokens_option

            budget = summary_tokens_option(max_summary_tokens, as_json=as_json,  # before the
                                           dry_run=dry_run, undo=undo)  # worker is forked
            if extract_with and strategy is Strategy.extractive:  # it counts its summary
                from goosectx import encoder_worker

                encoder_worker.start(extract_with)  # loads the encoding as the session loads
            from goosectx.testhooks import pause_point

            pause_point("compact:loading")
            if undo:
                from goosectx.cli.compact_undo import undo_session

                raise typer.Exit(undo_session(loaded, session_ref, as_json=as_json, conflicts=[
                    n for n, v in (("--instructions", instructions), ("--strategy", strategy),
                                   ("--dry-run", dry_run)) if v]))
            from goosectx.cli.compact_cmd import compact_session

            code = compact_session(
                loaded, session_ref, instructions=instructions,
                strategy=strategy.value if strategy else None, dry_run=dry_run,
                as_json=as_json, max_summary_tokens=budget, model=model or STATE.model)
        except KeyboardInterrupt:  # while loading: nothing was written yet
            from goosectx.cli.compact_cancel import cancelled_compaction

            cancelled_compaction(as_json=as_json, dry_run=dry_run, undo=undo)
        finally:
            if extract_with:
                from goosectx import encoder_worker

                encoder_worker.stop()
    raise typer.Exit(code)


@app.command()
def info(
    session_ref: Annotated[str | None, typer.Option(
        "--session", metavar="SESSION",
        help="Whose calibration to show (default: the session last used here).")] = None,
    model: ModelOpt = None, mode: ModeOpt = None,
) -> None:
    """Show version, paths, model, context limit, threshold and calibration, with sources."""
    from goosectx.cli.info_cmd import show_info

    show_info(settings(), session_ref, model=model or STATE.model, mode=mode or STATE.mode)


def command_app(args: list[str]) -> typer.Typer:
    """The app that runs ``args``: for ``compact …``, one of the root and that command only.

    click builds the command tree of the app it runs, every command's options read from its
    signature (~3.5 ms of CPU for all of them, a tenth of a 1k-message ``compact --dry-run``
    past start-up). The root's callback and ``compact`` are the same functions, so the
    command line is parsed, refused and run as the whole app would. ``-h``/``--help``
    anywhere, or a root option before the command, take the whole app.
    """
    if args[:1] != ["compact"] or "-h" in args or "--help" in args:
        return app
    only = typer.Typer(**_APP_SETTINGS)
    only.callback(invoke_without_command=True)(root)
    only.command()(compact)
    return only


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: user-fixable errors print one line and exit non-zero.

    Exit codes: 0 done, 1 error, 2 bad configuration or arguments, 130 interrupted.
    Run as the console script (``argv`` None), it first makes the process non-dumpable so
    the processes it starts cannot read its environment (:mod:`goosectx.isolation`), and
    ``run``, ``compact``, ``sessions import`` and the REPL end with ``os._exit`` after
    flushing their output and the log: their session is saved and the store closed by then.
    """
    if (sys.argv[1:] if argv is None else argv)[:1] == ["compact"]:
        from goosectx.collector import cycle_collector_paused

        with cycle_collector_paused():  # its command pauses it: from its modules' import on
            code = closed_output() or dispatch(app, argv, command_app)
    else:
        code = closed_output() or dispatch(app, argv, command_app)
    if argv is None and STATE.exit_at_once:
        exit_now(code)
    sys.exit(code)
