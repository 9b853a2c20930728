r"""Database shells whose own commands can run a program, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:func:`goosectx.shell_languages.language_commands` reads a command for the shell's permission
rules. A database shell runs a shell command from its own commands: the sqlite3 and duckdb
shells' ``.shell``/``.system`` (``sqlite3 db '.shell rm x'``, ``duckdb -c '.sh rm x'``), psql's
``\!``, ``\o |cmd``, a backquote in a meta-command and ``COPY … PROGRAM`` (``psql -c '\! rm
x'``), the mysql and mariadb clients' ``system``/``\!``, ``pager`` and ``edit`` (``mysql -e
'system rm x'``; sqlcmd and ClickHouse: :mod:`goosectx.shell_sql_clients`).
:func:`database_commands` makes such a command unreadable (asked about under shell deny/ask
rules) unless every command it is given is on a short list of forms that run nothing:
``sqlite3 db 'select 1'``, ``duckdb -c .tables``, ``psql -c 'select 1'``, ``psql -c '\dt'``,
``mysql -e 'select 1'``. sqlite3's SQL that reads, writes or lists another file
(``readfile()``, ``writefile()``, ``fsdir()``, ``zipfile()``, ``ATTACH``, ``VACUUM INTO``) asks
too, as does a database file inside ``.git``. Commands read from a file (``psql -f x.sql``,
``sqlite3 -init x``) or from standard input (``mysql db < dump.sql``) are not read: asked about.
What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from goosectx.shell_options import long_option, short_value, value_at

COMPUTED = "\0"
"""Ends the value of a word bash computes (``-ex "$CMD"``, ``sqlite3 db "$SQL"``): a command
holding it is never one the short lists name."""
DATABASES = frozenset({"sqlite", "sqlite3", "duckdb", "psql", "usql", "mysql", "mariadb"})
"""The database shells :func:`database_commands` reads."""


# -- sqlite3 --------------------------------------------------------------------------------
_DOT_SAFE = frozenset({
    "tables", "schema", "fullschema", "indexes", "indices", "databases", "dump", "mode",
    "headers", "header", "nullvalue", "separator", "width", "timer", "changes", "echo", "bail",
    "eqp", "explain", "help", "quit", "exit", "show", "stats", "dbinfo", "print", "prompt",
    "version", "timeout", "lint", "limit", "sha3sum"})
"""sqlite3's dot-commands that run no program and read or write no other file (not
``.shell``/``.system``/``.output``/``.once``/``.import``/``.load``/``.read``/``.open`` …)."""
_SQL_RUNS = re.compile(r"(?<![^\W_])(?:edit|load_extension|readfile|writefile|fsdir|zipfile"
                       r"|attach)(?![^\W_])", re.IGNORECASE)
"""SQL functions of the sqlite3 shell that start a program, load code, or read, write or list
a file the rules do not judge (``readfile('.env')``, ``writefile('.git/HEAD', x)``,
``fsdir('..')``, ``zipfile('x.zip')``), and ``ATTACH 'FILE'``, which opens or creates any
file: the name anywhere, as SQL can call it past a comment or quoted (``edit/**/(…)``,
``"edit"(…)``, ``[edit](…)``)."""
_VACUUM = re.compile(r"(?<![^\W_])vacuum(?![^\W_])", re.IGNORECASE)
_INTO = re.compile(r"(?<![^\W_])into(?![^\W_])", re.IGNORECASE)
"""``VACUUM INTO 'FILE'`` writes a copy of the database to any file: both words anywhere."""
_SQLITE_VALUED = frozenset({"cmd", "init", "separator", "newline", "nullvalue", "vfs", "mmap",
                            "maxsize", "escape", "nonce", "threadsafe"})
_SQLITE_PAIRS = frozenset({"heap", "lookaside", "pagecache"})


def _sqlite_command(text: str, safe: frozenset[str] = _DOT_SAFE) -> bool:
    """True when a command argument of sqlite3 (SQL, or dot-commands) runs nothing.

    ``safe``: the dot-commands that run nothing (duckdb's list for duckdb).
    """
    if COMPUTED in text:
        return False  # sqlite3 db "$SQL"
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith("."):
            name = line[1:].split(None, 1)[0] if line[1:].strip() else ""
            if name not in safe:
                return False
    unquoted = _string_free(text)  # 'edit' in a string literal is text
    sql = text if unquoted is None else unquoted
    return _SQL_RUNS.search(sql) is None and not (_VACUUM.search(sql) and _INTO.search(sql))


_SQL_UNITS = {'"': '"', "[": "]", "`": "`", "'": "'"}
"""SQL's quoted identifiers (kept: ``"edit"(…)`` calls edit) and string literals."""


def _string_free(sql: str) -> str | None:
    """``sql`` with each ``'…'`` literal emptied, or ``None`` when its strings are not sure.

    ``''`` inside a literal is a quote; a literal followed by ``(`` is kept (a name where one is
    expected); a quoted identifier is kept whole, so its quote opens nothing. ``None``: a
    comment (``--``, ``/*``: a quote in it opens nothing either) or a quote not closed.
    """
    out: list[str] = []
    i = 0
    while i < len(sql):
        if sql.startswith(("--", "/*"), i):
            return None
        closer = _SQL_UNITS.get(sql[i])
        if closer is None:
            out.append(sql[i])
            i += 1
            continue
        j = i + 1
        while j < len(sql) and (sql[j] != closer or sql.startswith(closer * 2, j) and (
                closer in "'\"`")):
            j += 2 if sql[j] == closer else 1
        if j >= len(sql):
            return None
        called = re.match(r"\s*\(", sql[j + 1:]) is not None
        out.append("''" if sql[i] == "'" and not called else sql[i:j + 1])
        i = j + 1
    return "".join(out)


# -- duckdb -------------------------------------------------------------------------------
_DUCK_SAFE = _DOT_SAFE - {"dbinfo", "lint", "sha3sum", "stats"} | {
    "maxrows", "maxwidth", "columns", "rows", "highlight"}
"""duckdb's dot-commands that run nothing (not ``.shell``/``.sh``/``.system``/``.read`` …)."""


# -- sqlite3 and duckdb: one walk ---------------------------------------------------------
class _DotShell(NamedTuple):
    """How a shell of the sqlite3 kind (sqlite3, duckdb) takes its options."""

    name: str
    safe: frozenset[str]
    """Its dot-commands that run nothing."""
    examples: str
    """The dot-commands that run a program, for the reason (``.shell, .system``)."""
    commands: frozenset[str]
    """Options whose value is a command (``-cmd``, duckdb's ``-c``)."""
    ending: frozenset[str]
    """Of those, the ones after which it reads no standard input (duckdb's ``-c``/``-s``)."""
    files: frozenset[str]
    """Options that run the commands of a file (``-init``)."""
    valued: frozenset[str]
    pairs: frozenset[str] = frozenset()
    """Options that take two values (sqlite3's ``-heap SIZE N``)."""
    safe_mode: bool = False
    """``-safe`` turns off every command that runs a program, unless ``-nonce`` is given."""


_SQLITE = _DotShell("sqlite3", _DOT_SAFE, ".shell, .system", frozenset({"cmd"}), frozenset(),
                    frozenset({"init"}), _SQLITE_VALUED, _SQLITE_PAIRS, safe_mode=True)
_DUCKDB = _DotShell("duckdb", _DUCK_SAFE, ".shell, .sh", frozenset({"c", "s", "cmd"}),
                    frozenset({"c", "s"}), frozenset({"f", "init"}),
                    frozenset({"newline", "nullvalue", "separator", "storage-version"}))


def _dot_shell(shell: _DotShell, args: list[str]) -> str | None:
    """Read sqlite3 or duckdb: command options, the operands after the database, stdin."""
    operands: list[str] = []
    options: set[str] = set()
    i = 0
    while i < len(args):
        word = args[i]
        option = word.lstrip("-")
        if not word.startswith("-") or len(word) == 1:
            operands.append(word)
            i += 1
            continue
        options.add(option)
        if option in ("version", "help"):
            return None
        if option in shell.files:
            return f"{shell.name} -{option} runs the commands of a file the rules do not read"
        if option in shell.commands and not _sqlite_command(value_at(args, i + 1) or "",
                                                             shell.safe):
            return (f"{shell.name} -{option} runs a command the rules do not read "
                    f"({shell.examples} …)")
        i += (3 if option in shell.pairs else
              2 if option in shell.valued | shell.commands else 1)
    if operands and ".git" in (part.lower() for part in re.split(r"[/\\]+", operands[0])):
        return f"{shell.name} writes its database file, here inside .git"
    if shell.safe_mode and "safe" in options and "nonce" not in options and not any(
            _VACUUM.search(c) and _INTO.search(c) for c in operands[1:]):
        return None  # safe mode: no .shell, .system, .load, edit(), ATTACH … (.nonce X lifts it)
    commands = operands[1:]  # after the database
    if not commands and not options & shell.ending:
        return f"{shell.name} runs the commands it reads from its standard input"
    if not all(_sqlite_command(c, shell.safe) for c in commands):
        return (f"{shell.name} runs a dot-command or function that may run a program or "
                f"read or write another file ({shell.examples}, readfile(), VACUUM INTO …)")
    return None


# -- psql ----------------------------------------------------------------------------------
_PSQL_SAFE = re.compile(r"d[a-zA-Z]*[+S]*|l\+?|list\+?|conninfo|x|timing|q|quit|echo|pset"
                        r"|[atH?]|encoding|c|connect|s[fv]\+?|z|errverbose|copyright|set|unset")
r"""psql meta-commands that run no program and read or write no file (not ``\!``, ``\o``,
``\g``, ``\w``, ``\copy``, ``\i``, ``\e``, ``\setenv`` …)."""
_PSQL_VALUED = "cdfhpUvLoPFRT"
_PSQL_LONG = {"--command": "c", "--dbname": "d", "--file": "f", "--host": "h", "--port": "p",
              "--username": "U", "--set": "v", "--variable": "v", "--log-file": "L",
              "--output": "o", "--pset": "P", "--field-separator": "F",
              "--record-separator": "R", "--table-attr": "T", "--list": "l"}
_META_IN_SQL = re.compile(r"\\(?:!|[ogw]\s*\||copy\b)")


def _psql_command(text: str) -> bool:
    r"""True when psql's ``-c`` text runs nothing: SQL without ``PROGRAM``, or safe meta-commands.

    A text starting with ``\`` is a line of meta-commands (each ``\name``; a backquote in
    one runs a shell command); other text goes to the server, where ``COPY … PROGRAM`` runs one.
    """
    line = text.strip()
    if COMPUTED in text:
        return False
    if line.startswith("\\"):
        return "`" not in line and all(_PSQL_SAFE.fullmatch(name) for name in re.findall(
            r"\\([^\s\\]*)", line) if name)
    return re.search(r"\bprogram\b", line, re.IGNORECASE) is None and not _META_IN_SQL.search(
        line)


def client_options(args: list[str], long_names: dict[str, str], valued: str,
                   optional: str = "") -> list[tuple[str, str | None]] | None:
    """Each option of a psql, mysql, sqlcmd or ClickHouse command line as ``(letter, value)``.

    ``None`` for ``--version``/``--help`` (it runs nothing). ``long_names``: a long option (any
    prefix getopt takes) and the letter it stands for, which takes a value after ``=`` or, when
    in ``valued``, the next word. A cluster of short options is read by :func:`short_value`
    (``-Atc CMD``, ``-pSECRET`` for an ``optional`` letter): its flags come with ``None``.
    """
    options: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("--version", "-V", "--help", "-?"):
            return None
        if word.startswith("--"):
            letter = next((v for o, v in long_names.items() if long_option(word, o)), "")
            takes_next = "=" not in word and bool(letter) and letter in valued
            value = word.partition("=")[2] if "=" in word else (
                value_at(args, i + 1) if takes_next else None)
            options.append((letter, value))
            i += 1 + takes_next
        elif word.startswith("-") and len(word) > 1:
            short = short_value(args, i, valued, optional)
            options += [(flag, None) for flag in short.flags] + [(short.letter, short.value)]
            i = short.next
        else:
            i += 1
    return options


def _psql(name: str, args: list[str]) -> str | None:
    """Read psql (and usql): ``-c`` commands, ``-f`` files, ``-o |cmd``, standard input.

    ``-l`` lists the databases and ends, but opens ``-o '|cmd'`` first: every option is read.
    """
    options = client_options(args, _PSQL_LONG, _PSQL_VALUED)
    if options is None:
        return None
    given = False
    for option, value in options:
        if option == "c":
            if not _psql_command(value or ""):
                return f"{name} runs a meta-command or SQL that may run a program (\\!, PROGRAM …)"
            given = True
        elif option == "f":
            return f"{name} -f runs the commands of a file the rules do not read"
        elif option == "o" and (value or "").lstrip().startswith("|"):
            return f"{name} -o pipes its output to a command the rules do not read"
        given = given or option == "l"
    if not given:
        return f"{name} runs the commands it reads from its standard input (one may be \\!)"
    return None


# -- mysql, mariadb ------------------------------------------------------------------------
_MYSQL_RUNS = re.compile(r"\\[!.PTe]|(?:^|[;\n])\s*(?:system|source|pager|tee|edit)\b",
                         re.IGNORECASE)
r"""The mysql client's commands that run a program or read or write a file (``system``/``\!``,
``source``/``\.``, ``pager``/``\P``, ``tee``/``\T``, ``edit``/``\e``)."""
_MYSQL_VALUED = "eDhPSu"


def _mysql_bare(text: str) -> str | None:
    """``text`` with each quoted string made ``''`` and each comment a newline, or ``None``.

    mysql's comments: ``#`` and ``-- `` (a blank after) to the end of the line, ``/* … */``.
    ``None``: a quote or comment not closed. One pass, so a quote in a comment (``# '``) opens
    nothing and a ``#`` in a quote ends nothing.
    """
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in "'\"`":
            i += 1
            while i < len(text) and text[i] != char:
                i += 2 if text[i] == "\\" and char != "`" else 1
            if i >= len(text):
                return None
            out.append("''")
        elif char == "#" or text.startswith(("-- ", "--\t", "--\n"), i) or text[i:] == "--":
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
            out.append("\n")
            continue
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            if i < 0:
                return None
            out.append("\n")
            i += 1
        else:
            out.append(char)
        i += 1
    return "".join(out)


def _mysql_runs(text: str) -> bool:
    r"""True when mysql's ``-e`` text may run a client command (``system``, ``\!`` …).

    A backslash command counts anywhere, even quoted; a named one at a line's or statement's
    start once quotes and comments are taken out.
    """
    bare = _mysql_bare(text)
    return COMPUTED in text or bare is None or _MYSQL_RUNS.search(bare) is not None or re.search(
        r"\\[!.PTe]", text) is not None


def _mysql(name: str, args: list[str]) -> str | None:
    """Read mysql, mariadb: ``-e`` statements, ``--pager``, standard input."""
    options = client_options(args, {"--execute": "e", "--pager": "pager"}, _MYSQL_VALUED, "p")
    if options is None:
        return None
    given = False
    for option, value in options:
        if option == "pager" and value is not None:
            return f"{name} --pager runs a command the rules do not read"
        if option == "e":
            if _mysql_runs(value or ""):
                return f"{name} runs a client command that may run a program (system, \\! …)"
            given = True
    if not given:
        return f"{name} runs the commands it reads from its standard input (one may be \\!)"
    return None


def database_commands(name: str, args: list[str]) -> str | None:
    """Why the database shell ``name`` runs commands the rules cannot read, or ``None``.

    ``args``: its words after the program, a computed one ending in :data:`COMPUTED`. Given
    no command (``psql``, ``mysql db < dump.sql``) it reads them from standard input, as
    sqlite3 does: asked about.
    """
    if name in ("sqlite", "sqlite3"):
        return _dot_shell(_SQLITE, args)
    if name == "duckdb":
        return _dot_shell(_DUCKDB, args)
    if name in ("psql", "usql"):
        return _psql(name, args)
    return _mysql(name, args)
