"""The extension flags of ``goosectx``, ``session`` and ``run``, and ``goosectx extensions``.

``--with-extension "ENV=v cmd args"`` and ``--with-remote-extension URL`` (repeatable) add MCP
servers for one session; ``goosectx extensions list [--json]`` reports what every configured
server offers. Importing this module loads no mcp code (``--help`` stays fast).
"""
# No ``from __future__ import annotations`` here: typer reads these commands' signatures at
# every start (see goosectx/cli/app.py).

from typing import Annotated

import typer

WithExtOpt = Annotated[
    list[str] | None,
    typer.Option("--with-extension", metavar="'ENV=v CMD ARGS'",
                 help="Add a stdio MCP server for this session (repeatable)."),
]
WithRemoteOpt = Annotated[
    list[str] | None,
    typer.Option("--with-remote-extension", metavar="URL",
                 help="Add a streamable HTTP MCP server for this session (repeatable)."),
]

extensions_app = typer.Typer(help="MCP servers (extensions): list what they offer.",
                             no_args_is_help=True, rich_markup_mode=None)


def flags(specs: list[str] | None, urls: list[str] | None
          ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The two flags' values as ``(specs, urls)``."""
    return tuple(specs or ()), tuple(urls or ())


@extensions_app.command("list")
def extensions_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    with_extension: WithExtOpt = None, with_remote_extension: WithRemoteOpt = None,
) -> None:
    """Start every configured extension, show its tools, resources and prompts, and stop."""
    from goosectx.cli.extensions_cmd import list_extensions
    from goosectx.cli.options import settings

    specs, remotes = flags(with_extension, with_remote_extension)
    raise typer.Exit(list_extensions(settings(), as_json=as_json, specs=specs, remotes=remotes))
