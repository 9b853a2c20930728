"""Running the command a command line names, and how each way it can end is reported.

Used by :mod:`goosectx.cli.app`'s ``main`` (docs/architecture.md §1: ``app.py`` declares the
commands, ``endings.py`` words how one ends). Errors a user can fix print one line and exit
non-zero (2 for configuration and usage, 1 otherwise); Ctrl-C is 130 (143 / 129 when SIGTERM /
SIGHUP was the Ctrl-C); ``run --output-format json|stream-json`` still ends with its result
object when its command line or configuration is refused.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import typer

from goosectx.cli.endings import cannot_write, cwd_gone, print_cwd_gone, print_error


def _cli_exception_types() -> tuple[tuple[type[BaseException], ...], ...]:
    """(usage errors, exits, aborts) of click AND of typer's own copy of click.

    typer ≥ 0.20 ships a private fork of click whose exceptions do not derive from click's,
    so both families are caught. Called once an exception is on its way: click's own are
    included only if something imported click (they cannot be raised otherwise; importing it
    for its exception classes alone cost every command ~15 ms).
    """
    import importlib

    errors: list[type[BaseException]] = []
    exits: list[type[BaseException]] = [typer.Exit]
    aborts: list[type[BaseException]] = [typer.Abort]
    click = sys.modules.get("click")
    if click is not None:
        errors.append(click.ClickException)
        exits.append(click.exceptions.Exit)
        aborts.append(click.exceptions.Abort)
    try:
        vendored = importlib.import_module("typer._click.exceptions")
    except ImportError:
        pass
    else:
        errors.append(vendored.ClickException)
    return tuple(errors), tuple(exits), tuple(aborts)


def dispatch(app: typer.Typer, argv: list[str] | None,
             narrow: Callable[[list[str]], typer.Typer] | None = None) -> int:
    """Run the command ``argv`` names (``None``: ``sys.argv``, the console script's) on ``app``.

    ``narrow(args)``: the app that runs those (final) args, one with fewer commands than
    ``app`` that parses them alike (``app.command_app``); ``run``'s result object on an error
    still reads ``app``. Returns its exit code; a user-fixable error, a closed or unwritable
    output, a deleted current directory or an interrupt is one line on stderr and its code.
    """
    from goosectx.cli.argv import root_flags_first, typed_text
    from goosectx.cli.exit_signals import closed_pipe
    from goosectx.errors import GoosectxError

    if argv is None:  # the real command (tests call main(args) in-process)
        from goosectx.isolation import protect_self

        protect_self()
    from goosectx.cli.ascii_output import fit_output
    from goosectx.cli.typer_params import install

    install()  # no pydantic adapter for values that need no converting
    fit_output()  # a terminal that encodes ASCII only: our punctuation as ASCII
    args = list(sys.argv[1:] if argv is None else argv)
    if argv is None:
        from goosectx.cli.stdin_text import utf8_stdin

        args = typed_text(args, app)  # UTF-8 typed under an ASCII locale: the text typed
        utf8_stdin()
    args = root_flags_first(args, app)
    if "run" in args:  # in-process (tests): a run before may have written its result
        from goosectx.cli.run_failed import result_written

        result_written(False)
    from goosectx.cli import early_cancel

    early_cancel.before_command()  # the signals are the command's from here (run: its body's)
    runs = app if narrow is None else narrow(args)
    try:
        code = runs(args=args, standalone_mode=False, prog_name="goosectx")
        sys.stdout.flush()  # a full disk under stdout fails here, not in the teardown
    except GoosectxError as exc:
        _run_result(app, args, exc.one_line(), exc.exit_code)
        print_error(exc.one_line())
        return exc.exit_code
    except KeyboardInterrupt:
        return _interrupted()
    except BrokenPipeError:
        return closed_pipe()
    except SystemExit as exc:  # click's and rich's exit 1 for a closed pipe
        if isinstance(exc.__context__, BrokenPipeError):
            return closed_pipe()
        raise
    except OSError as exc:
        from goosectx.cli.exit_signals import WRITE_FAILED_ERRNOS

        if isinstance(exc, FileNotFoundError) and cwd_gone():  # a getcwd() not guarded
            return print_cwd_gone()
        if exc.errno not in WRITE_FAILED_ERRNOS:
            raise
        return cannot_write(exc)
    except Exception as exc:
        usage_errors, exits, aborts = _cli_exception_types()
        if isinstance(exc, exits):
            return int(getattr(exc, "exit_code", 0) or 0)
        if isinstance(exc, aborts):
            print_error("aborted")
            return 130
        if isinstance(exc, usage_errors):
            from goosectx.cli.argv import option_without_value, positional_task

            line = positional_task(exc, args) or option_without_value(exc, args)
            _run_result(app, args, line or exc.format_message(),  # type: ignore[attr-defined]
                        int(getattr(exc, "exit_code", 2)))
            print_error(line if line is not None else usage_line(exc))
            return int(getattr(exc, "exit_code", 2))
        raise
    return code if isinstance(code, int) else 0


def usage_line(exc: BaseException) -> str:
    """A usage error as goosectx's one line: click's message and where the usage is.

    ``No such option: --bogus — see: goosectx --help``, not click's three lines
    ("Usage: …", "Try 'goosectx -h' for help.", "Error: …").
    """
    from goosectx.errors import clause

    message = " ".join(str(exc.format_message()).split())  # type: ignore[attr-defined]
    ctx = getattr(exc, "ctx", None)
    where = getattr(ctx, "command_path", "") or "goosectx"
    return f"{clause(message)} — see: {where} --help"


def _run_result(app: typer.Typer, args: list[str], error: str, exit_code: int) -> None:
    """``run --output-format json|stream-json`` still ends with its result object on error."""
    if "run" not in args:
        return
    from goosectx.cli.argv import options_taking_values
    from goosectx.cli.run_failed import after_error

    after_error(args, options_taking_values(app), sys.stdout, error, exit_code)


def _interrupted() -> int:
    """Exit status 130 for a Ctrl-C (143 / 129 when SIGTERM / SIGHUP was the Ctrl-C)."""
    from goosectx.cli.exit_signals import exit_status

    return exit_status(130)
