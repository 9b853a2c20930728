"""sqlcmd's and ClickHouse's commands that run a program or reach a file, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:func:`goosectx.shell_languages.language_commands` reads a command for the shell's permission
rules, beside :mod:`goosectx.shell_databases`. sqlcmd runs a shell command with ``!!`` and
reads or writes files with ``:r``, ``:out`` and its other ``:`` commands; on the server
``xp_cmdshell`` runs one. ClickHouse's ``INTO OUTFILE`` and ``FROM INFILE`` write and read
files where the client runs, ``file()`` and ``url()`` reach files and addresses, and
``executable()`` runs a script. :func:`sql_client_commands` makes such a query unreadable
(asked about under shell deny/ask rules), as it does a query file or queries read from
standard input; ``sqlcmd -Q 'select 1'`` and ``clickhouse-client -q 'select 1'`` run. What
the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_databases import COMPUTED, client_options

SQL_CLIENTS = frozenset({"sqlcmd", "clickhouse-client", "clickhouse-local", "clickhouse"})
"""The programs :func:`sql_client_commands` reads (``clickhouse client|local``)."""


# -- sqlcmd ---------------------------------------------------------------------------------
_SQLCMD_RUNS = re.compile(r"!!|^\s*:|xp_cmdshell|\bsp_execute_external_script\b",
                          re.IGNORECASE | re.MULTILINE)
"""sqlcmd's commands that run a program or read or write a file (``!! CMD``, ``:r FILE``,
``:out FILE``, ``:ed``; any line starting with ``:``) and the server procedures that run one."""
_SQLCMD_VALUED = "SUPdQqiovhswltcaVmfHzZKMFAry"


def _sqlcmd(args: list[str]) -> str | None:
    """Read sqlcmd: ``-Q`` queries, ``-i`` files, ``-q`` (then standard input), standard input."""
    options = client_options(args, {"--query": "Q", "--input-file": "i"}, _SQLCMD_VALUED)
    if options is None:
        return None
    given = False
    for option, value in options:
        if option == "i":
            return "sqlcmd -i runs the commands of a file the rules do not read"
        if option in ("Q", "q"):
            if COMPUTED in (value or "") or _SQLCMD_RUNS.search(value or ""):
                return "sqlcmd runs a command or procedure that may run a program (!!, :r …)"
            given = given or option == "Q"  # -q: it then reads standard input
    if not given:
        return "sqlcmd runs the commands it reads from its standard input (one may be !!)"
    return None


# -- clickhouse-client, clickhouse-local ---------------------------------------------------
_CLICKHOUSE_RUNS = re.compile(r"\binto\s+outfile\b|\bfrom\s+infile\b|\b(?:executable(?:pool)?"
                              r"|file|url|s3|hdfs)\s*\(", re.IGNORECASE)
"""ClickHouse SQL that writes or reads a file where the client runs (``INTO OUTFILE``, ``FROM
INFILE``), reads one where the server runs (``file()``) or runs a script (``executable()``)."""
_CLICKHOUSE_VALUED = "qhudfPpt"
_CLICKHOUSE_LONG = {"--query": "q", "--queries-file": "F", "--host": "h", "--user": "u",
                    "--database": "d", "--format": "f", "--port": "P", "--password": "p"}


def _clickhouse(name: str, args: list[str]) -> str | None:
    """Read clickhouse-client / clickhouse-local: ``--query`` text, query files, standard input."""
    options = client_options(args, _CLICKHOUSE_LONG, _CLICKHOUSE_VALUED + "F")
    if options is None:
        return None
    given = False
    for option, value in options:
        if option == "F":
            return f"{name} --queries-file runs the queries of a file the rules do not read"
        if option == "q":
            if COMPUTED in (value or "") or _CLICKHOUSE_RUNS.search(value or ""):
                return (f"{name} runs a query that reads or writes a file or runs a script "
                        "(INTO OUTFILE, file(), executable() …)")
            given = True
    if not given:
        return f"{name} runs the queries it reads from its standard input"
    return None


def sql_client_commands(name: str, args: list[str]) -> str | None:
    """Why sqlcmd or a ClickHouse client runs commands the rules cannot read, or ``None``.

    ``args``: its words after the program, a computed one ending in :data:`COMPUTED`.
    """
    if name == "sqlcmd":
        return _sqlcmd(args)
    if name == "clickhouse":
        return _clickhouse(f"clickhouse {args[0]}", args[1:]) if args[:1] in (
            ["client"], ["local"]) else None
    return _clickhouse(name, args)
