"""Programs with a command language of their own that can run a shell command, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. A debugger, a
database shell, an editor, a Tcl shell or a pager runs a shell command from its own language:
``gdb -ex 'shell rm x'``, ``sqlite3 db '.shell rm x'``, ``printf '!rm x' | ed -s``, ``echo 'exec
rm x' | tclsh``, ``vi -es -c 'call system("rm x")'``, ``LESSOPEN='|rm x %s' less f``; a shell
whose language is not bash's runs any (``tcsh -c``, ``pwsh -Command``, ``nu -c``), as do
``deno eval`` and ``erl -run`` (:mod:`goosectx.shell_runtimes`). The rules
do not read those languages, so :func:`language_commands` makes such a command unreadable
(asked about under shell deny/ask rules) unless everything it is given is on a short list of
forms that run nothing: ``sqlite3 db 'select 1'``, ``sqlite3 db .tables``, ``gdb -batch -ex bt
./prog core``, ``vim -es -c 'wq' f``, ``less f``. Commands it reads from standard input or from
a command file (``gdb -x FILE``, ``sqlite3 -init FILE``, ``vim -S FILE``) are not read: asked
about. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.build_flags import assignment_runs
from goosectx.option_values import node_variable
from goosectx.shell_builtins import reads_stdin
from goosectx.shell_databases import COMPUTED, DATABASES, database_commands
from goosectx.shell_git import config_variable
from goosectx.shell_packages import apt_config_variable
from goosectx.shell_runners import VIM as _VIM
from goosectx.shell_runners import code_runs
from goosectx.shell_runtimes import RUNTIMES, runtime_code
from goosectx.shell_sql_clients import SQL_CLIENTS, sql_client_commands
from goosectx.shell_words import Word

_GDB = re.compile(r"(?:cuda-)?gdb(?:-multiarch)?")
_TCL = re.compile(r"(?:tclsh|wish|jimsh)[\d.]*")
_VERSION = frozenset({"--version", "-version", "--help", "-help", "-h"})

# -- gdb ----------------------------------------------------------------------------------
_GDB_SAFE = frozenset({
    "bt", "backtrace", "where", "info", "i", "show", "run", "r", "start", "starti", "continue",
    "c", "cont", "next", "n", "step", "s", "stepi", "si", "nexti", "ni", "finish", "fin", "frame",
    "f", "up", "down", "print", "p", "inspect", "output", "x", "list", "l", "break", "b", "br",
    "tbreak", "delete", "d", "clear", "disable", "enable", "condition", "ignore", "watch",
    "rwatch", "awatch", "catch", "display", "undisplay", "ptype", "whatis", "detach", "kill",
    "k", "quit", "q", "thread", "echo", "printf", "until", "advance", "core-file", "core",
    "file", "symbol-file", "exec-file", "directory", "dir", "attach", "disassemble", "handle",
    "inferior", "sharedlibrary", "set"})
"""gdb commands that run no shell command, no script and no code of an extension language
(not ``shell``/``!``/``pipe``/``|``/``python``/``guile``/``source``/``define``/``alias``/
``make``/``compile``); an abbreviation not listed here is not read."""
_GDB_SET_SAFE = frozenset({
    "pagination", "confirm", "print", "p", "width", "height", "var", "variable", "listsize",
    "logging", "disassembly-flavor", "breakpoint", "follow-fork-mode", "detach-on-fork",
    "non-stop", "scheduler-locking", "debuginfod", "style", "verbose", "complaints", "language",
    "charset", "environment", "env", "args", "backtrace", "filename-display"})
"""``set`` settings that name no program gdb runs (not ``exec-wrapper``, ``shell`` …)."""
_GDB_COMMANDS = ("ex", "iex", "eiex", "eval-command", "init-eval-command",
                 "early-init-eval-command")
_GDB_FILES = ("x", "ix", "eix", "command", "init-command", "early-init-command")
"""gdb's options whose value is a command, or a file of commands; gdb takes any unambiguous
prefix of a long one (``-ev``, ``-eval``), so a prefix of one of these is read as it."""
_GDB_VALUED = frozenset({"-p", "--pid", "-pid", "-c", "--core", "-core", "-cd", "--cd", "-d",
                         "--directory", "-directory", "-s", "--symbols", "-symbols", "-e",
                         "--exec", "-exec", "-se", "--se", "-b", "-l", "-tty", "--tty", "-D",
                         "--data-directory", "-data-directory", "-i", "--interpreter",
                         "-interpreter"})
_CALLS = re.compile(r"(?<![\w$])(?!(?:sizeof|alignof|_Alignof|decltype)\b)\$?[A-Za-z_][\w:.>-]*"
                    r"\s*\(")
"""A function call in an expression (``p unlink("x")``, ``$_shell("rm x")``): it may run
anything in the program or in gdb."""
_RUN_SHELL = re.compile(r"[$`;|&()\n]")
"""Text gdb's shell would run in ``run ARGS`` / ``set args``."""


def _gdb_command(command: str) -> bool:
    """True when one gdb command runs nothing the rules cannot see."""
    words = command.split()
    if not words:
        return True
    if any(c in command for c in "\n\r" + COMPUTED):
        return False  # one -ex value is one command line; bash makes a computed one
    name = words[0].split("/", 1)[0]  # p/x var, x/4i $pc
    if name not in _GDB_SAFE or _CALLS.search(command) or "$_shell" in command:
        return False
    if name == "thread" and words[1:2] == ["apply"]:
        rest = [w for w in words[2:] if not re.fullmatch(r"all|-\w+|[\d.*-]+", w)]
        return _gdb_command(" ".join(rest))
    if name == "set" and len(words) > 1 and not words[1].startswith("$") and (
            words[1].split("=")[0] not in _GDB_SET_SAFE):
        return False
    runs = name in ("run", "r", "start", "starti") or words[:2] == ["set", "args"]
    return not (runs and _RUN_SHELL.search(command))


def _gdb_option(option: str, names: tuple[str, ...]) -> bool:
    """True when ``option`` (``-ex``, ``--eval``) is one of ``names`` or a prefix of a long one."""
    bare = option.lstrip("-")
    return option.startswith("-") and bool(bare) and any(
        bare == name or len(bare) > 1 and name.startswith(bare) for name in names)


def _gdb(args: list[str]) -> str | None:
    end = next((k for k, a in enumerate(args) if a in ("--args", "-args")), len(args))
    own = args[:end]  # after --args: the program's own words
    batch = any(a.lstrip("-") in ("batch", "batch-silent") for a in own)
    i = 0
    while i < len(args):
        word = args[i]
        option, eq, attached = word.partition("=")
        value = attached if eq else (args[i + 1] if i + 1 < len(args) else "")
        step = 1 if eq else 2
        if word in ("--args", "-args"):
            break  # the program and its arguments
        if word.startswith("-") and word.endswith(COMPUTED):
            return "gdb is given an option bash computes, which may be a command of its own"
        if option in _GDB_VALUED:
            i += step
        elif _gdb_option(option, _GDB_COMMANDS):
            if not _gdb_command(value):
                return "gdb runs a command of its own language the rules do not read"
            i += step
        elif _gdb_option(option, _GDB_FILES):
            return "gdb runs the commands of a file the rules do not read"
        else:
            i += 1
    if not batch:
        return "gdb without -batch runs the commands it reads from its standard input"
    return None


# -- vim, vi, ex ----------------------------------------------------------------------------
_EX_SAFE = frozenset({
    "w", "write", "wq", "x", "xit", "exit", "q", "quit", "qa", "qall", "quitall", "wa", "wall",
    "wqa", "wqall", "xa", "xall", "up", "update", "s", "substitute", "d", "delete", "m", "move",
    "t", "co", "copy", "j", "join", "y", "yank", "pu", "put", "retab", "ret", "sort", "sor",
    "noh", "nohlsearch", "u", "undo", "red", "redo", "le", "left", "ri", "right", "ce", "center",
    "e", "edit", "r", "read", "set", "se", "setlocal", "setl", ""})
"""Ex commands that run no shell command and no script (not ``!``, ``call``, ``system()``,
``exe``, ``py*``, ``lua``, ``perl``, ``ruby``, ``tcl``, ``source``, ``normal``, ``g`` …)."""
_SET_SAFE = frozenset({
    "ff", "fileformat", "fenc", "fileencoding", "et", "expandtab", "ts", "tabstop", "sw",
    "shiftwidth", "sts", "softtabstop", "tw", "textwidth", "ic", "ignorecase", "scs",
    "smartcase", "ws", "wrapscan", "bomb", "eol", "fixeol", "fixendofline", "bin", "binary",
    "ai", "autoindent", "list", "nu", "number", "more", "magic", "hls", "hlsearch", "ul",
    "undolevels", "report", "nocp", "cp", "compatible"})
"""Options ``set`` may change in a command the rules read (not ``shell``, ``makeprg``, an
``*expr`` …)."""
_RANGE = re.compile(r"\s*(?:[%.$]|\d+|'[a-z<>]|[+-]\d*|,|;|\s)*")


_FORCED = frozenset({"w", "write", "wq", "x", "xit", "exit", "q", "quit", "qa", "qall",
                     "quitall", "wa", "wall", "wqa", "wqall", "xa", "xall", "up", "update", "e",
                     "edit", "sort", "sor"})
"""Ex commands whose ``!`` right after the name forces them (``q!``); after ``r`` it runs a
shell command (``r!ls``)."""
_QUITS = _FORCED - {"w", "write", "wa", "wall", "up", "update", "e", "edit", "sort", "sor"}


def _ex_commands(text: str) -> list[str] | None:
    r"""The names of the ex commands of a line (``-c`` / ``+`` value), or ``None``.

    ``None``: one of them may run a shell command or a script (not on the short list, a ``!``
    or a backquote, an expression ``\=``, ``+cmd`` for a file, ``set`` of another option).
    """
    if "`" in text or "\\=" in text:
        return None  # `…` in a file name runs a shell; \= an expression
    names: list[str] = []
    for piece in text.split("|"):
        piece = _RANGE.sub("", piece.lstrip(": \t"), count=1)
        found = re.match(r"[A-Za-z]*", piece)
        assert found is not None
        name, rest = found[0], piece[found.end():]
        rest = rest.removeprefix("!") if name in _FORCED else rest
        if name not in _EX_SAFE or "!" in rest or name == "" and rest.strip() or re.search(
                r"(?:^|\s)\+(?!\+)", rest):  # e +cmd f: runs cmd
            return None
        if name in ("set", "se", "setlocal", "setl") and not all(
                re.sub(r"^(?:no|inv)|[=:+^!&?-].*$", "", option) in _SET_SAFE
                for option in rest.split()):
            return None
        names.append(name)
    return names


def _vim(name: str, args: list[str], fed: bool) -> str | None:
    """vim, vi, ex: ``-c`` / ``--cmd`` / ``+`` commands, script files, standard input.

    Without a command that quits, it goes on with commands (ex mode) or keys read from
    standard input, unless ``-`` makes that the text to edit.
    """
    ex_mode = name.startswith("ex") or any(re.fullmatch(r"-[eE]s?", a) for a in args)
    quits = False
    for i, word in enumerate(args):
        value = None
        if word.startswith("+") and not re.fullmatch(r"\+\d*|\+/.*", word):
            value = word[1:]
        elif word in ("-c", "--cmd"):
            value = args[i + 1] if i + 1 < len(args) else ""
        elif word in ("-S", "-u", "-U") and (args[i + 1:i + 2] not in (["NONE"], ["NORC"],
                                                                      ["DEFAULTS"])):
            return f"{name} {word} runs the commands of a file the rules do not read"
        elif word == "-s" and not ex_mode:
            return f"{name} -s types the keys of a file the rules do not read"
        elif name == "nvim" and word == "-l" and reads_stdin(args[i + 1:i + 2][0] if i + 1 < len(
                args) else "-", fed):
            return "nvim -l runs a Lua script from its standard input"
        names = _ex_commands(value) if value is not None else []
        if names is None:
            return f"{name} runs an ex command the rules do not read (!, system(), call …)"
        quits = quits or bool(_QUITS.intersection(names))
    if "-" not in args and (fed or not quits):
        return f"{name} runs the commands or keys it reads from its standard input"
    return None


# -- the rest ------------------------------------------------------------------------------
_STARTUP = re.compile(r"(?:LESSOPEN|LESSCLOSE|LESSKEYIN|LESSKEY|LESSKEY_CONTENT|LESSKEY_SRC"
                      r"|LESSKEYIN_SYSTEM|LESSKEY_SYSTEM|VIMINIT|EXINIT)(?:\[[^\]]*\])?\+?="
                      r"|LESS\+?=(?=.*(?:\s|=)(?:-[^-\s]*k|--lesskey))"
                      r"|NODE_OPTIONS\+?=(?=.*data:)|PERL5OPT\+?=(?=.*-[mM]\S*[^\w:=,.\s-])"
                      r"|PSQLRC\+?=")
"""A word that sets a variable holding a command ``less`` runs (``LESSOPEN='|cmd %s'``), a
lesskey file (which may set ``LESSOPEN``), ex commands vim runs at startup (``VIMINIT``), or
code every node or perl runs (``NODE_OPTIONS='--import=data:…'``, ``PERL5OPT='-Mx;system…'``),
or a file of commands psql runs (``PSQLRC``)."""


def sets_startup_command(value: str) -> str | None:
    """Why a word sets a command ``less`` or vim runs, or code node or perl runs, or ``None``.

    ``LESSOPEN='|rm x %s' less f``, ``env LESSCLOSE=… less``, ``export LESSOPEN=…``,
    ``VIMINIT='call system(…)' vim``, ``NODE_OPTIONS='--import=data:…'``; git's or apt's config
    given on the line (``GIT_CONFIG_GLOBAL=/tmp/c``: :func:`goosectx.shell_git.config_variable`;
    ``APT_CONFIG=/tmp/c``: :func:`goosectx.shell_packages.apt_config_variable`).
    """
    if (why := config_variable(value) or apt_config_variable(value)) is not None:
        return why  # GIT_CONFIG_GLOBAL=/tmp/c git log, APT_CONFIG=/tmp/c apt-get update
    if why := node_variable(value) or assignment_runs(value):  # NODE_OPTIONS=--require=x.js,
        return why  # CFLAGS=-fplugin=x.so, RUSTFLAGS='-C linker=P': build_flags
    found = _STARTUP.match(value)
    if found is None:
        return None
    name = found[0].partition("=")[0].rstrip("+")
    if name == "PSQLRC":
        return "it sets PSQLRC, which names a file of commands psql runs (one may be \\!)"
    if name in ("NODE_OPTIONS", "PERL5OPT"):
        return f"it sets {name}, which holds code every node or perl it starts runs"
    return f"it sets {found[0].rstrip('+=')}, which holds a command less or vim runs"


# -- shells whose language is not bash's -------------------------------------------------
COMMAND_LANGUAGES = frozenset({"csh", "tcsh", "xonsh", "nu", "elvish", "ysh", "pwsh",
                               "powershell"})
"""Shells whose command language is not bash's: their ``-c`` code, or code from standard
input, is run unread (:func:`_other_shell`)."""
_PWSH_VALUED = re.compile(r"ex|ep|executionpolicy|wd|wo|workingdirectory|o|of|outputformat|if"
                          r"|inp|inputformat|w|windowstyle|config.*|settings.*|custompipename")


def _other_shell(name: str, args: list[str], fed: bool) -> str | None:
    """Why a shell of :data:`COMMAND_LANGUAGES` runs commands unread, or ``None`` (a script).

    Its code option anywhere (``tcsh -fc CODE``, ``nu --commands CODE``, ``nu -e CODE``,
    ``elvish -c CODE``, ``pwsh -Command|-c|-EncodedCommand|-ec CODE``) gives code; no script
    operand, ``-`` or a script that may be a stream (:func:`reads_stdin`): standard input.
    """
    first = args[0].lower() if args else ""
    if first in ("--version", "--help") or name in ("pwsh", "powershell") and first in (
            "-v", "-version", "-h", "-help", "-?"):
        return None
    script: str | None = None
    skip = False
    for word in args:
        short = word[1:] if word.startswith("-") and not word.startswith("--") else ""
        if name in ("pwsh", "powershell"):
            option = word.lstrip("-").lower() if word.startswith("-") else ""
            code = option in ("c", "e", "ec", "cwa") or option.startswith(("com", "enc"))
            valued = _PWSH_VALUED.fullmatch(option) is not None
        else:
            code = re.fullmatch(r"--?c(?:=.*)?", word) is not None if name == "elvish" else (
                "c" in short or name == "nu" and (
                    "e" in short or word.startswith(("--commands", "--execute"))))
            valued = name == "nu" and word in ("--config", "--env-config", "-I") or (
                name == "xonsh" and word in ("--rc", "-D", "--shell-type", "-st"))
        if code:
            return f"{name} runs code ({word}) in a language the rules do not read"
        if script is None and not skip and (word == "-" or not word.startswith("-")):
            script = word
        skip = valued and not skip
    if script is None or script == "-" or reads_stdin(script, fed):
        return f"{name} runs the commands it reads from its standard input"
    return None


_PERL_RUNNERS = re.compile(r"(?:IPC|Capture|System|Proc|Sys|Command|Expect|Net::OpenSSH)\b"
                           r"|Shell\b|Env::Sanctify|Devel::|PerlIO::via")
"""Modules whose functions start programs or run code (``-MIPC::Cmd=run``, ``-MCapture::Tiny``)."""


def _perl(args: list[str]) -> str | None:
    """Read perl's ``-M``/``-m`` modules: one that runs programs, or code written in one."""
    code = any(re.fullmatch(r"-[^-]*[eE].*", a) for a in args)
    k = 0
    while k < len(args):
        word = args[k]
        if word == "--" or not word.startswith("-"):
            break  # the script and its arguments
        found = re.fullmatch(r"-[^-MmeE]*[Mm](-?)(.*)", word, re.DOTALL)
        module = found[2] or (args[k + 1] if k + 1 < len(args) else "") if found else ""
        if re.search(r"[^\w:=,.\s-]", module) or code and _PERL_RUNNERS.match(module):
            return "perl loads a module that may run a program or code (-M) the rules do not read"
        k += 2 if re.fullmatch(r"-[^-MmI]*[eE]|-I|-[^-]*[Mm]-?", word) else 1  # -e CODE, -I DIR
    return None


def _mongosh(name: str, args: list[str], fed: bool) -> str | None:
    """Read mongosh (and mongo): its ``--eval`` code is node's; fed, it runs what it reads."""
    codes = [v for k, a in enumerate(args) for v in (
        [a.partition("=")[2]] if a.startswith("--eval=") else
        [args[k + 1] if k + 1 < len(args) else ""] if a == "--eval" else [])]
    if any(COMPUTED in code or code_runs("node", code) for code in codes):
        return f"{name} --eval runs code that may start a program (child_process, eval …)"
    if not codes and fed and not any(a.endswith(".js") for a in args):
        return f"{name} runs the code it reads from its standard input"
    return None


def language_commands(name: str, words: list[Word], fed: bool = True) -> str | None:
    """Why ``name`` runs commands of its own language that the rules cannot read, or ``None``.

    ``words``: its words after the program; ``fed``: :attr:`goosectx.shell_words.Part.fed`.
    """
    args = [w.value + COMPUTED if w.expands or w.pattern else w.value for w in words]
    if args[:1] and (args[0] in _VERSION or name in ("ed", "red") and args[0] == "-V"):
        return None  # gdb --version, sqlite3 -version, ed --help
    if _GDB.fullmatch(name):
        return _gdb(args)
    if name in DATABASES:  # sqlite3 db '.shell …', psql -c '\! …', mysql -e 'system …'
        return database_commands(name, args)
    if name in SQL_CLIENTS:  # sqlcmd -Q '!! rm x', clickhouse-client -q "… executable(…)"
        return sql_client_commands(name, args)
    if name in ("ed", "red"):
        if any(a.startswith("!") for a in args):
            return f"{name} reads its buffer from a shell command (!…)"
        return f"{name} runs the commands it reads from its standard input (one may be !…)"
    if _TCL.fullmatch(name):
        script = next((a for k, a in enumerate(args) if not a.startswith("-") and (
            k == 0 or args[k - 1] != "-encoding")), None)
        if script is None or reads_stdin(script, fed):
            return f"{name} runs a script it reads from its standard input"
        return None
    if _VIM.fullmatch(name):
        return _vim(name, args, fed)
    if re.fullmatch(r"perl[\d.]*", name):  # perl -MIPC::Cmd=run -e 'run(…)'
        return _perl(args)
    if name in ("mongosh", "mongo"):  # a node shell: mongosh --eval 'require("child_process")…'
        return _mongosh(name, args, fed)
    if name in RUNTIMES:  # deno eval CODE, erl -run os cmd 'rm x'
        return runtime_code(name, [w.value for w in words], fed)
    if name in COMMAND_LANGUAGES:  # tcsh -c CODE, pwsh -Command CODE, echo … | nu
        return _other_shell(name, [w.value for w in words], fed)
    if name == "less" and any(re.match(r"-[^-]*k|--lesskey", a) for a in args):
        return "less reads a lesskey file, which may set a command it runs (LESSOPEN)"
    return None
