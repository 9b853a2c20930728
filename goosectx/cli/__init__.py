"""The command line: typer app, REPL, rich renderer, slash commands."""
