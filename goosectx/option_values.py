"""Option values and operands that make an allowed program write or run what its rule does not show.

docs/architecture.md §4 (clause "permission rules"). Three families whose options no table can
list in full:

* pytest plugins add options (``--benchmark-json=F`` writes F): a long option not in
  :data:`goosectx.option_table.KNOWN` is a plugin's, and its value (``=V``, or the next word
  where that is no test path) may be a file it writes: anything but a plain word or number
  (``--timeout=30``, ``--dist=loadscope``) asks, so do a ``.git`` path and a project file's
  name (``Makefile``).
* make runs its recipes with the variables its command line sets: ``.SHELLFLAGS``, ``SHELL``
  and the like (:data:`MAKE_RUNNERS`) change what runs every recipe line, and a value holding
  shell syntax (``CC='cat .env>x;gcc'``) runs it where a recipe uses the variable.
  A value naming the project venv's interpreter (``PYTHON=.venv/bin/python``, a link to the
  base interpreter outside the project) is the program the project runs anyway
  (:func:`venv_interpreter`): the path checks let it be.
* ``uniq IN OUT`` and ``xxd IN OUT`` write their second operand.
* go's ``-ldflags``, ``-gcflags``, ``-asmflags``, ``-gccgoflags`` hand options to the linker
  and compilers: ``-ldflags=-extld=./x`` runs ``./x``, ``-gcflags=-cpuprofile=F`` writes F;
  a value holding more than plain flags asks (:func:`go_flag_values`); so does ruff's
  ``--config 'KEY = V'``, any setting (``output-file``, ``cache-dir``).
* npm passes ``--node-options`` (and ``NODE_OPTIONS``) to every node it starts: a value that
  loads code (``--require``, ``--import``, ``--loader``) or names a file asks.

Core module: no printing.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
from pathlib import Path

from goosectx.build_flags import flags_run
from goosectx.option_table import KNOWN, TAR_VALUED, table_name
from goosectx.shell_options import long_option, option_value, short_value, value_at

_PLAIN = re.compile(r"[a-z0-9_+-]+(?:,[a-z0-9_+-]+)*|\d+\.\d+")
"""A value that names no file a plugin may write: a lowercase word, a list of them, a number."""
PROJECT_FILES = frozenset({
    "makefile", "gnumakefile", "dockerfile", "containerfile", "justfile", "procfile", "gemfile",
    "rakefile", "vagrantfile", "jenkinsfile", "pipfile", "brewfile", "license", "readme",
    "copying", "authors", "changelog", "notice", "version", "head"})
"""Project files named without a dot: a plain word that may still be one to overwrite."""
_TEST_PATH = re.compile(r"(?:[\w.-]+/)*[\w-]+(?:\.py)?(?:::\S*)?/?|\.\.?/?")
"""What pytest takes as a test path: a dir, a ``.py`` file, a node id (``a.py::test_x``)."""


def option_values(name: str, args: list[str]) -> str | None:
    """Why ``name ARGS`` may write or run what its words do not show, or ``None``."""
    name, args = table_name(name, args)
    if name in ("pytest", "py.test"):
        return _plugin_option(name, args)
    if name == "go":
        return go_flag_values(args)
    if name == "ruff":
        return ruff_settings(args)
    if name == "sort":
        return sort_compressor(args)
    if name in ("tar", "gtar"):
        return tar_remote_archive(args)
    if name in ("make", "gmake"):
        return make_settings(name, args)
    if name in ("npm", "pnpm", "yarn", "npx"):
        return node_options(name, args)
    if name in OUTPUT_OPERANDS:
        return output_operand(name, args)
    return None


OUTPUT_OPERANDS = {"uniq": "fsw", "xxd": "cglson", "json.tool": ""}
_LONG_VALUED = ("--skip-fields", "--skip-chars", "--check-chars", "--indent")
"""Programs whose second operand is the file they write (``uniq IN OUT``, ``xxd IN OUT``,
``python -m json.tool IN OUT``), with their short options that take the next word (``uniq -f
1``, ``xxd -c 16``, ``-cols 16``) and long ones (``json.tool --indent 2``)."""


def output_operand(name: str, args: list[str]) -> str | None:
    """Why ``uniq|xxd|json.tool IN OUT`` writes a file, or ``None`` (one operand, a stream)."""
    operands: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            operands += args[i + 1:]
            break
        if word.startswith("-") and word != "-":
            takes = word[1:2] in OUTPUT_OPERANDS[name] and (len(word) == 2 or name == "xxd" and (
                word[1:].isalpha())) or any(long_option(word, o) for o in _LONG_VALUED)
            i += 2 if takes and "=" not in word else 1  # xxd -c16 takes no next word
            continue
        operands.append(word)
        i += 1
    if len(operands) > 1 and operands[1] not in ("/dev/stdout", "/dev/stderr", "/dev/null", "-"):
        return f"{name} writes its output to its second operand, {operands[1]}"
    return None


def _plugin_option(name: str, args: list[str]) -> str | None:
    known = KNOWN[name]
    for i, word in enumerate(args):
        if word == "--":
            return None
        option, equals, value = word.partition("=")
        if not option.startswith("--") or option in known or any(
                k.startswith(option) for k in known if k.startswith("--")):
            continue  # pytest's own, or a prefix argparse takes for one
        following = args[i + 1] if i + 1 < len(args) else "-"
        if (equals and _file_like(value)) or not equals and following[:1] != "-" and (
                _file_like(following) and not _TEST_PATH.fullmatch(following)
                or _git_path(following) or _project_file(following)):
            return (f"{name} {option} is a plugin's option whose value may name a file it "
                    "writes, which the rules do not judge")
    return None


def _file_like(value: str) -> bool:
    return not _PLAIN.fullmatch(value) or _project_file(value)


def _project_file(value: str) -> bool:
    return value.rstrip("/").rsplit("/", 1)[-1].lower() in PROJECT_FILES


def _git_path(value: str) -> bool:
    return ".git" in value.lower().split("/")


MAKE_RUNNERS = frozenset({".SHELLFLAGS", "SHELL", "MAKESHELL", "MAKEFILES", "MAKE", ".RECIPEPREFIX",
                          "MAKEOVERRIDES", "MAKE_COMMAND", ".LOADED", "MAKEFILE_LIST"})
"""make's variables that say how it runs recipes or which makefiles and flags it reads: set on
its command line (``make all '.SHELLFLAGS=-c cat<.env>x;:'``) they change what runs. The
flags variables (``MAKEFLAGS``, ``MFLAGS``, ``GNUMAKEFLAGS``) ask unless they hold only flags
that read no file and run nothing more (:data:`_SAFE_FLAGS`: ``MAKEFLAGS=-s``)."""
_FLAGS = frozenset({"MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS"})
_SAFE_FLAGS = re.compile(r"-{0,2}(?:[abdeiklnpqrRsStvwBLOj0-9]+|no-print-directory|"
                         r"print-directory|silent|quiet|keep-going|jobs(?:=\d+)?|"
                         r"output-sync(?:=\w+)?|load-average(?:=[\d.]+)?|trace|debug(?:=\w+)?|"
                         r"warn-undefined-variables|always-make|ignore-errors|no-silent)")
"""make flags that read no file and run no other text (``-s``, ``-j4``, ``-k``)."""
_ASSIGNMENT = re.compile(r"\s*(?:override\s+|export\s+)?([^\s=:+?!]+)\s*(?::{1,3}|[+?!])?=(.*)",
                         re.DOTALL)
_SHELL_SYNTAX = re.compile(r"[;&|<>`'\"\\()\n]|\$(?![A-Za-z_{])")
"""Text a shell reads as more than one program's plain words (quotes, ``;``, ``(``…): where a
recipe uses the variable it runs as written (``$HOME`` is bash's; ``$(…)`` make's, judged
by :func:`goosectx.shell_wrappers.started_commands`)."""
_FLAG_NAMES = re.compile(r".*(?:FLAGS|OPTS|OPTIONS|ARGS)")
"""Variables holding a program's options (``CFLAGS='-O2 -g'``), not a program: a blank in
their value is no command of its own."""


def make_settings(name: str, args: list[str]) -> str | None:
    """Why ``make ARGS`` runs its recipes other than its makefile says, or ``None``.

    An operand ``NAME=VALUE`` (``:=``, ``+=``, ``?=`` too; after ``--`` too) setting one of
    :data:`MAKE_RUNNERS`, or a value with shell syntax (``CC='x;rm f'``) or, but in a flags
    variable (``CFLAGS='-O2 -g'``), a blank (``PYTHON='sh -c id'``).
    """
    for word in args:
        found = _ASSIGNMENT.fullmatch(word) if not word.startswith("-") else None
        if found is None:
            continue
        if found[1] in _FLAGS and not all(_SAFE_FLAGS.fullmatch(f) for f in found[2].split()):
            return (f"{name} {found[1]}= gives make flags that may read a makefile or run text "
                    "the rules do not read")
        if why := flags_run(found[1], found[2]):  # make CFLAGS=-fplugin=x.so: build_flags
            return f"{name} {why}"
        if found[1] in MAKE_RUNNERS:
            return (f"{name} {found[1]}= changes how make runs its recipes, which the rules do "
                    "not read")
        if _SHELL_SYNTAX.search(found[2]) or (re.search(r"\s", found[2].strip())
                                              and not _FLAG_NAMES.fullmatch(found[1])):
            return (f"{name} {found[1]}= holds a command or shell syntax a recipe using it runs, "
                    "which the rules do not read")
    return None


_MAKE_VALUED = "fIoWE"
"""make's short options that take a value (``-f FILE``, ``-I DIR`` …), but ``-C``."""


def make_directories(args: list[str]) -> list[str] | None:
    """The dirs ``make ARGS`` moves to before it runs, in order (``-C a -C b``: ``a/b``).

    ``-C DIR``, ``-CDIR``, ``-sC DIR``, ``--directory=DIR`` / ``--directory DIR`` (a prefix
    too), read up to ``--``; ``None`` when one is missing or computed (``-C "$X"``).
    """
    found: list[str] = []
    for i, word in enumerate(args):
        if word == "--":
            break
        if long_option(word, "--directory"):
            value = option_value(args, i, ("--directory",))
        elif word[:1] == "-" and word[:2] != "--" and (at := _make_chdir(word)) is not None:
            value = word[at + 1:] or value_at(args, i + 1)
        else:
            continue
        if not value or "$" in value or "`" in value:
            return None
        found.append(value)
    return found


def _make_chdir(word: str) -> int | None:
    """The index of ``C`` in make's short-option cluster ``word`` (``-sC``), or ``None``."""
    for k in range(1, len(word)):
        if word[k] == "C":
            return k
        if word[k] in _MAKE_VALUED or word[k] in "jl" and word[k + 1:k + 2].isdigit():
            return None  # -fC: C is -f's file; -j4
    return None


_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)?)?")


def venv_interpreter(path: Path) -> bool:
    """True when ``path`` is a venv's interpreter: ``VENV/bin/python3`` leading to the base one.

    Its name a python's, ``VENV/pyvenv.cfg`` a regular file whose one ``home`` is the dir of
    the executable file the link resolves to (also named python…): what ``python -m venv``
    and ``uv venv`` make. Not a link to anything else, nor one through a ``pyvenv.cfg`` that
    is a link (its text would be another file's).
    """
    if path.parent.name != "bin" or not _PYTHON.fullmatch(path.name):
        return False
    config = path.parent.parent / "pyvenv.cfg"
    try:
        if not stat.S_ISREG(os.lstat(config).st_mode):
            return False
        with open(config, encoding="utf-8", errors="replace") as f:
            text = f.read(8192)
    except OSError:
        return False
    pairs = (line.partition("=") for line in text.splitlines())
    homes = [value.strip() for key, sep, value in pairs if sep and key.strip() == "home"]
    real = Path(os.path.realpath(path))
    return len(homes) == 1 and bool(homes[0]) and _PYTHON.fullmatch(real.name) is not None and (
        real.parent == Path(os.path.realpath(homes[0]))) and real.is_file() and os.access(
        real, os.X_OK)


_LOADS = re.compile(r"-r|--require|--import|--loader|--experimental-loader|-i|--inspect.*"
                    r"|--env-file.*|--experimental-.*")
"""node options that load code or a file (``--require=F``, ``--import=data:…``)."""


def node_options(name: str, args: list[str]) -> str | None:
    """Why ``npm … --node-options=V`` may run code from a file, or ``None``.

    npm hands ``--node-options`` (any spelling npm reads: ``--node_options``) to every node its
    scripts start; a value loading code or naming a file asks (:func:`node_value_loads`).
    """
    for i, word in enumerate(args):
        if word == "--":
            return None
        option, equals, value = word.partition("=")
        if option.replace("_", "-").lower() in ("--node-options", "--script-shell",
                                                  "--userconfig", "--globalconfig"):
            value = value if equals else (args[i + 1] if i + 1 < len(args) else "")
            if option.replace("_", "-").lower() != "--node-options" or node_value_loads(value):
                return (f"{name} {option} makes the node or shell it starts run code the rules "
                        "do not read")
    return None


def node_value_loads(value: str) -> bool:
    """True when node options ``value`` (``--max-old-space-size=4096``) load code or a file."""
    try:
        words = shlex.split(value)
    except ValueError:
        return True
    for word in words:
        option = word.partition("=")[0]
        if _LOADS.fullmatch(option) or not word.startswith("-") or re.search(r"[/.~:]", word):
            return True
    return False


_NODE_VARIABLE = re.compile(r"(NODE_OPTIONS|npm_config_(?:node_options|script_shell|userconfig"
                            r"|globalconfig))\+?=(.*)", re.DOTALL | re.IGNORECASE)
"""Variables node or npm read as those options (npm reads ``npm_config_*`` in any case)."""


def node_variable(word: str) -> str | None:
    """Why an assignment ``word`` makes node or npm run code the rules do not read, or ``None``.

    ``NODE_OPTIONS`` / ``npm_config_node_options`` loading code (:func:`node_value_loads`);
    ``npm_config_script_shell``, ``…_userconfig``, ``…_globalconfig`` always.
    """
    found = _NODE_VARIABLE.match(word)
    if found is None or found[1].lower().endswith("node_options") and not node_value_loads(
            found[2]):
        return None
    return f"it sets {found[1]}, which makes node or npm run code the rules do not read"


_GO_TOOL_FLAGS = ("ldflags", "gcflags", "asmflags", "gccgoflags")
_PLAIN_TOOL_FLAG = re.compile(r"(?:[\w.*/][\w./*-]*=)?(?:-(?:[swNlmBSLI]|race|shared|dynlink|"
                              r"trimpath|std|complete|pack|dwarf=\w+|buildid=[\w./-]*|"
                              r"X(?:=[\w./-]+=\S*)?)|[\w.][\w./-]*=[^\s;|&$`]*)?")
"""Flags of ``-ldflags``/``-gcflags`` values that run and write nothing (``-s -w``, ``-X
main.v=1.2``, ``all=-N -l``): a ``pkg=`` pattern, then one of them or ``-X``'s
``NAME=VALUE``."""


def go_flag_values(args: list[str]) -> str | None:
    """Why ``go … -ldflags=V`` may run a program or write a file, or ``None``.

    The value's words must all be :data:`_PLAIN_TOOL_FLAG` (``-ldflags='-s -w -X main.v=1'``
    runs); ``-extld=./x``, ``-linkmode=external``, ``-cpuprofile=F`` ask. A package pattern
    before them (``-gcflags=all=-N -l``, ``-ldflags=./...=-extld=x``) is go's, not a flag.
    """
    for i, word in enumerate(args):
        name, equals, value = word.lstrip("-").partition("=")
        if word[:1] != "-" or name not in _GO_TOOL_FLAGS:
            continue
        value = value if equals else args[i + 1] if i + 1 < len(args) else ""
        if not value.lstrip().startswith("-") and "=" in value:  # all=-N -l: for those packages
            value = value.partition("=")[2]
        try:
            words = shlex.split(value)
        except ValueError:
            words = [value + "'"]
        if not all(_PLAIN_TOOL_FLAG.fullmatch(w) for w in words):
            return (f"go -{name} gives its tools flags that may run a program or write a "
                    "file, which the rules do not read")
    return None


_COMPRESSORS = frozenset({"gzip", "pigz", "bzip2", "pbzip2", "lbzip2", "xz", "pixz", "lzma",
                          "lz4", "zstd", "pzstd", "lzop", "brotli", "compress"})
"""Programs ``sort --compress-program`` may start unasked: compressors, which read their input
as data (an interpreter, ``python3``, would run sort's temporary data as a program)."""


def sort_compressor(args: list[str]) -> str | None:
    """Why ``sort … --compress-program=P`` may run what sort feeds it, or ``None``."""
    for i, word in enumerate(args):
        if word == "--":
            return None
        if not long_option(word, "--compress-program"):
            continue
        program = option_value(args, i, ("--compress-program",)) or ""
        if program not in _COMPRESSORS:
            return (f"sort --compress-program={program} runs {program or 'a program'} on "
                    "sort's data, which it may run as a program")
    return None


def tar_remote_archive(args: list[str]) -> str | None:
    """Why GNU tar's archive ``HOST:FILE`` makes it run a remote shell, or ``None``.

    A colon before any ``/`` names a remote archive (``-f host:x.tar``, ``--file=u@h:/x``):
    tar runs ``rsh``/``ssh`` (or ``--rsh-command``) to reach the host, unless ``--force-local``.
    The archive is ``-f``'s value in a cluster (``-tvf A``), ``--file``'s, or, in the old
    style (``tar tf A``), the word after the cluster that ``f`` takes.
    """
    archives: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--" or long_option(word, "--force-local"):
            return None if word != "--" else _remote(archives)
        if word == "--file" or word.startswith("--file="):
            archives += filter(None, [option_value(args, i, ("--file",))])
        elif i == 0 and word[:1] != "-" and "f" in word:  # tar tf A: values in letter order
            values = [c for c in word if c in TAR_VALUED]
            archives += args[1 + values.index("f"):2 + values.index("f")]
        elif word[:1] == "-" and word[:2] != "--":
            short = short_value(args, i, TAR_VALUED)
            archives += [short.value] if short.letter == "f" and short.value else []
            i = short.next
            continue
        i += 1
    return _remote(archives)


def _remote(archives: list[str]) -> str | None:
    for archive in archives:
        if ":" in archive.split("/", 1)[0]:
            return (f"tar's archive {archive} is on another host: tar runs a remote shell "
                    "(rsh/ssh) to reach it")
    return None


def ruff_settings(args: list[str]) -> str | None:
    """Why ``ruff … --config 'KEY = V'`` may write a file, or ``None`` (a config file's path).

    An inline setting may be any (``output-file``, ``cache-dir``); ruff's options are clap's,
    whole words.
    """
    for i, word in enumerate(args):
        if word == "--":
            return None
        option, equals, value = word.partition("=")
        if option != "--config":
            continue
        value = value if equals else args[i + 1] if i + 1 < len(args) else ""
        if "=" in value:
            return (f"ruff --config {value} sets a setting on its command line, which may "
                    "write a file the rules do not judge")
    return None
