"""The command line: typer app, REPL, rich renderer, slash commands."""

# First of all, before typer and the command modules load: a Ctrl-C, SIGTERM or SIGHUP while
# they import ends the command as a cancel, not with a traceback or in silence.
from goosectx.cli import early_cancel as _early_cancel

_early_cancel.install()
