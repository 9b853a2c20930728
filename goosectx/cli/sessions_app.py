"""``goosectx sessions …``: list, search, show, export, rename, remove and import sessions.

Bodies are imported lazily from :mod:`goosectx.cli.sessions_cmd` (import:
:mod:`goosectx.cli.import_cmd`) (docs/architecture.md §6).
"""
# No ``from __future__ import annotations`` here: typer reads these commands' signatures at
# every start, and with string annotations it compiled and evaluated each one twice
# (typer.main.get_command: 20-30 -> 8-10 ms CPU for every command, on a busy machine).

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from goosectx.cli.options import STATE, ExportFormat, ImportFormat, NameOpt, SessionArg, settings

sessions_app = typer.Typer(
    help="List, search, show, export, import and remove saved sessions.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@sessions_app.command("list")
def sessions_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List saved sessions (title, source, messages, context), most recent first."""
    from goosectx.cli.sessions_list import list_sessions

    list_sessions(settings(), as_json=as_json)


@sessions_app.command("search")
def sessions_search(
    words: Annotated[list[str], typer.Argument(
        metavar="WORDS", help="Words to find (every word must match).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    limit: Annotated[int, typer.Option(
        min=1, max=1_000_000, help="Show at most this many sessions.")] = 20,
) -> None:
    """Find sessions by name, title and message text (SQLite full-text search)."""
    from goosectx.cli.sessions_list import search_sessions

    search_sessions(settings(), " ".join(words), as_json=as_json, limit=limit)


SkipDamagedOpt = Annotated[bool, typer.Option(
    "--skip-damaged", help="Leave out messages whose stored data does not parse (each is "
    "named on stderr) instead of stopping: saves what still reads.")]


@sessions_app.command("show")
def sessions_show(
    session_ref: SessionArg,
    agent: Annotated[
        bool, typer.Option("--agent", help="Show what the model sees instead of the transcript.")
    ] = False,
    skip_damaged: SkipDamagedOpt = False,
) -> None:
    """Show a session's transcript (compactions marked)."""
    from goosectx.cli.sessions_cmd import show_session

    show_session(settings(), session_ref, agent=agent, skip_damaged=skip_damaged)


@sessions_app.command("export")
def sessions_export(
    session_ref: SessionArg,
    fmt: Annotated[ExportFormat | None, typer.Option(
        "--format", "-f", help="md or json (default: json for -o FILE.json, else md).")] = None,
    output: Annotated[
        str | None, typer.Option("--output", "-o", metavar="FILE",
                                 help="Write to FILE instead of stdout (- is stdout).")
    ] = None,
    skip_damaged: SkipDamagedOpt = False,
) -> None:
    """Export a session as Markdown or JSON."""
    from goosectx.cli.sessions_cmd import export_session
    from goosectx.errors import UsageError

    if output == "":  # a Path of '' is '.': "'.' is a directory" named a path not given
        raise UsageError("-o '' is an empty path", "give a file name")
    if output is not None and output.isspace():  # an unset "$OUT" inside quotes, a typo
        raise UsageError(f"-o {output!r} is a blank path (only spaces)", "give a file name")
    if fmt is None:  # -o notes.json means JSON (importable back); otherwise Markdown
        json_file = output is not None and output.lower().endswith(".json")
        fmt = ExportFormat.json if json_file else ExportFormat.md
    from goosectx.cli.exit_signals import as_ctrl_c, exit_status, received_name
    from goosectx.errors import ExportStopped

    with as_ctrl_c():  # SIGTERM / SIGHUP stop it as Ctrl-C does: its temp file removed
        try:
            export_session(settings(), session_ref, fmt=fmt.value,
                           output=None if output is None else Path(output),
                           skip_damaged=skip_damaged)
        except KeyboardInterrupt:
            shown = None if output in (None, "-") else output
            raise ExportStopped(exit_status(130), received_name(), shown) from None


@sessions_app.command("remove")
def sessions_remove(
    session_ref: SessionArg,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a session."""
    from goosectx.cli.sessions_cmd import remove_session

    remove_session(settings(), session_ref, yes=yes)


sessions_app.command("delete", hidden=True)(sessions_remove)  # other agents' word for it


class _PositionalOnly(TyperCommand):
    """A command whose words are all arguments but ``-h`` / ``--help``.

    ``rename ID -dash`` reaches the naming rule (refused, saying why) instead of click's
    "No such option: -d".
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer's own click
        if "--" not in args and not {"-h", "--help"} & set(args):
            args = ["--", *args]
        return super().parse_args(ctx, args)


@sessions_app.command("rename", cls=_PositionalOnly)
def sessions_rename(
    session_ref: SessionArg,
    new_name: Annotated[str, typer.Argument(
        metavar="NEW_NAME", help="The new name.", show_default=False)],
) -> None:
    """Give a session another name (resume it by that name)."""
    from goosectx.cli.sessions_cmd import rename_session

    rename_session(settings(), session_ref, new_name)


@sessions_app.command("import")
def sessions_import(
    path: Annotated[Path, typer.Argument(
        metavar="PATH", help="Transcript file or goose sessions.db; - reads it from stdin.")],
    fmt: Annotated[ImportFormat, typer.Option("--format", "-f", help="Source format.")] = (
        ImportFormat.auto
    ),
    name: NameOpt = None,
    source_session: Annotated[
        str | None, typer.Option("--session", help="Only this session of a goose sessions.db.")
    ] = None,
    force: Annotated[bool, typer.Option(
        help="Import another copy of what was imported already (the same file, or the same "
             "session of the source agent from another file).")] = False,
    use_source_dir: Annotated[bool, typer.Option(
        help="Run its tools in the source's working dir (if it exists here).")] = False,
) -> None:
    """Import another agent's transcript (or a goosectx JSON export)."""
    from goosectx.cli.exit_signals import as_ctrl_c

    STATE.exit_at_once = True  # saved and closed before it returns: no teardown of its objects
    with as_ctrl_c():  # SIGTERM / SIGHUP stop it as Ctrl-C does (nothing half saved), 143 / 129
        try:
            from goosectx.cli.import_cmd import import_sessions
        except KeyboardInterrupt:
            from goosectx.cli.exit_signals import exit_status, received_name
            from goosectx.errors import ImportStopped

            shown = "stdin" if str(path) == "-" else str(path)
            raise ImportStopped(exit_status(130), received_name(), shown) from None
        import_sessions(settings(), path, fmt=fmt.value, name=name,
                        source_session=source_session, force=force,
                        use_source_dir=use_source_dir)
