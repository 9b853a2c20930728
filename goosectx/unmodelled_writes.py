"""The backstop for programs whose options and operands no table here models: what they may write.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. Round after
round a program nobody had modelled wrote a hook or emptied the repository under its own allow
rule (``cmake -E …``, an archiver, a downloader). A program that is not known here — no entry
in :data:`goosectx.option_table.OPTIONS`, not a known read-only program, not a writer, runner,
wrapper, shell, interpreter or build tool another module reads — and that names a protected
location as a literal word is judged as possibly writing it (:func:`unmodelled_write`): the git
directory or a path in it (a worktree's ``.git`` file followed), a virtualenv, ``node_modules``
(:func:`goosectx.protected_paths.protected_write`), a sensitive file (the read check's names:
:func:`goosectx.sensitive.sensitive_why`) or a path outside the project. The reason names the
program and the path (``cmake is not known to goosectx: it may write .git``), so the call asks
under an allow rule for the program and where shell rules are set in auto mode, as ``tee
.git/HEAD`` does. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import dropwhile
from pathlib import Path

from goosectx.assigned_values import PLACEHOLDER, builtin_values, fill, substitution_outputs
from goosectx.git_config_writes import MODELLED
from goosectx.option_programs import COMPILER
from goosectx.option_table import OPTIONS
from goosectx.piped_names import NEUTRAL
from goosectx.protected_paths import BUILDERS, Where, git_dirs, protected_write
from goosectx.rule_offer import PREFIX_PROGRAMS
from goosectx.shell_assign import DECLARATIONS
from goosectx.shell_builtins import SHELLS
from goosectx.shell_databases import DATABASES
from goosectx.shell_dirs import Unknown, expanded
from goosectx.shell_languages import COMMAND_LANGUAGES
from goosectx.shell_launchers import LAUNCHERS, TERMINAL_EMULATORS
from goosectx.shell_lexer import lex
from goosectx.shell_multicall import MULTICALL
from goosectx.shell_packages import APT
from goosectx.shell_pagers import PAGERS
from goosectx.shell_program import KEYWORDS, after_keywords
from goosectx.shell_runners import CONTAINERS, INTERPRETER, LINE_RUNNERS, RUNNERS, SU_LIKE
from goosectx.shell_runtimes import RUNTIMES
from goosectx.shell_sql_clients import SQL_CLIENTS
from goosectx.shell_terminals import TERMINALS
from goosectx.shell_unwrap import WRAPPERS
from goosectx.shell_words import ASSIGNMENT_WORD, VARIABLE_EXPANSION
from goosectx.shell_wrappers import FD, cmake_tool
from goosectx.written_names import SENSITIVE, sensitive_or_outside

READERS = frozenset({
    "grep", "egrep", "fgrep", "rgrep", "zgrep", "rg", "ag", "ack", "find", "fd", "fdfind",
    "diff", "colordiff", "less", "more", "most", "bat", "batcat", "file", "tree", "sort", "tail",
    "uniq", "xxd", "test", "[", "type", "hash", "date", "host", "dig", "nslookup", "ping",
    "top", "htop", "lsof", "netstat", "ss", "man", "info", "whatis", "apropos", "locate",
    "ldd", "nm", "objdump", "readelf", "size", "getent", "lsb_release", "hostname", "env",
    "printenv", "tput", "stty", "clear", "reset", "tty", "sum", "zcat", "bzcat", "xzcat",
    "zless", "jq", "yq", "xmllint", "tidy", "column", "wc", "awk", "gawk", "mawk", "nawk",
    "command", "echo", "printf", "sleep", "wait", "kill", "pkill", "killall", "ps", "pgrep",
    "systemctl", "journalctl", "service", "free", "vmstat", "iostat", "mpstat", "sar",
    "nvidia-smi", "lspci", "lsusb", "dmesg", "w", "who", "last", "users", "tldr", "cowsay",
    "diff3", "sdiff", "git", "gh",
})
"""Programs that only read and print what they are given (or whose writes are read elsewhere),
besides :data:`goosectx.rule_offer.PREFIX_PROGRAMS` and :data:`goosectx.piped_names.NEUTRAL`."""
BUILTINS = frozenset({
    "cd", "pushd", "popd", "dirs", "export", "source", ".", "read", "set", "unset", "shift",
    "exit", "return", "local", "declare", "typeset", "readonly", "alias", "unalias", "true",
    "false", ":", "trap", "eval", "exec", "builtin", "let", "ulimit", "umask", "times",
    "getopts", "bg", "fg", "jobs", "disown", "suspend", "shopt", "complete", "compgen",
    "compopt", "history", "fc", "caller", "enable", "help", "logout", "mapfile", "readarray",
    "time", "coproc", "break", "continue", "select", "function", "[[", "]]", "{", "}", "!",
    "for", "in", "do", "done", "case", "esac", "if", "then", "else", "elif", "fi", "while",
    "until", "((", "))", "(", ")",
    ">", ">>", "<", "<<", "<<<", "&>", "&>>",
})
"""bash's builtins and keywords, and the redirections :mod:`goosectx.git_config_writes` reads."""
WRITERS = frozenset({
    "rm", "rmdir", "unlink", "shred", "mkdir", "chown", "chgrp", "split", "csplit", "gzip",
    "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "tar", "zip",
    "unzip", "7z", "7za", "7zz", "7zr", "patch", "curl", "wget",
})
"""Writers whose written paths other modules judge (:data:`goosectx.git_config_writes.MODELLED`
too): removers, ``mkdir``, the compressors (they write beside each operand, the operand's own
name judged), archivers, downloaders and ``patch``."""
_RUN_TIME = re.compile(r"[$`]")
"""A word bash makes at run time: no literal path (:mod:`goosectx.protected_paths` reads those
that may be in the git directory)."""


ELSEWHERE = frozenset({
    *DATABASES, *SQL_CLIENTS, *TERMINALS, *TERMINAL_EMULATORS, *LAUNCHERS, *PAGERS,
    *COMMAND_LANGUAGES, *APT, *RUNTIMES, *FD, *CONTAINERS, "at", "batch", "crontab", "nc",
    "netcat", "ncat", "nc.traditional", "nc.openbsd", "telnet", "sftp", "ipython", "deno",
})
"""Programs another module reads whole: databases and SQL clients (:mod:`goosectx.shell_databases`,
:mod:`goosectx.shell_sql_clients`), terminals and launchers, pagers, other shells' languages,
apt, deno and erl, fd, container tools, the job schedulers and netcat's family."""
REMOTE = frozenset({"ssh", "docker-compose", "podman-compose", "toolbox", "distrobox",
                    "machinectl", "systemd-nspawn", "chroot", "schroot", "proot", "vagrant"})
"""Runners whose command runs in a container, another root or on another host (and
:data:`goosectx.shell_runners.CONTAINERS`): its paths are none of the project's."""


_KNOWN = frozenset({*READERS, *BUILTINS, *WRITERS, *MODELLED, *PREFIX_PROGRAMS, *NEUTRAL,
                    *OPTIONS, *RUNNERS, *WRAPPERS, *SHELLS, *SU_LIKE, *LINE_RUNNERS, *MULTICALL,
                    *KEYWORDS, *ELSEWHERE, *REMOTE, *BUILDERS})


def known(name: str) -> bool:
    """True when goosectx models ``name``'s writes, reads only or reads what it runs.

    Also an interpreter (``python3.12``: its code is read as such) or a C compiler.
    """
    return name in _KNOWN or INTERPRETER.fullmatch(name) is not None or (
        COMPILER.fullmatch(name) is not None)


def unmodelled_write(name: str, args: list[str], where: Where | None,
                     line: str = "") -> str | None:
    """Why ``name ARGS`` may write a protected location, ``name`` not being :func:`known`.

    Each path a word may name (:func:`_named`: the word, an option's ``=VALUE`` or glued value,
    a ``key=value``/``key:value`` word's value; no URL or build label) naming the git
    directory or a path in it, a virtualenv, ``node_modules`` or a sensitive file, or, where
    it may be written (:func:`_named`), a path outside the project, in each dir the command
    may run in that is known here (a word after ``cd "$X"`` is not literal); ``$PWD``,
    ``${PWD}`` and ``~+`` are that dir, links are followed; a comma list's every item
    (``--paths=a,.git/config``); a variable ``line`` sets (``D=.git; tool $D/config``) is each
    value it is given there (:func:`_paths`). ``None``: a known program, or none named.
    """
    if not name or known(name) and not cmake_tool(name, args):
        return None
    root = where.root if where is not None else None
    dirs = tuple(d for d in (where.dirs if where is not None else ()) if isinstance(d, Path))
    bases: tuple[Path, ...] = (dirs or (root,)) if root is not None else ()
    literal = Where(root, bases) if root is not None else None
    tops = git_dirs(literal) if args else ()  # once for all the words
    cache: dict[str, Path] = {}  # the words' dirs resolved once
    away = next((d for d in where.dirs if isinstance(d, Unknown)), None) if where else None
    for value, written in _listed(_named(args)):
        if away is not None and written and value[:1] not in ("/", "~", "$", "-"):
            return (f"{name} is not known to goosectx: it may write {value} in a dir not known "
                    f"here (after {away.after}), maybe the git directory")  # cd "$X" && tool x
        for path in _paths(value, bases, line):
            does = "it may write" if written else "it is given"
            end = "" if written else " and what it does with it is not known"
            if why := protected_write(name, path, literal, tops=tops):
                return f"{name} is not known to goosectx: {does} {value} ({_tail(why, name)}){end}"
            kind = sensitive_or_outside(path, literal, cache) if root is not None and not (
                _RUN_TIME.search(path)) else None
            if kind == SENSITIVE or kind is not None and written:
                return f"{name} is not known to goosectx: {does} {value}, which {kind}{end}"
    return None


_OUTPUT = re.compile(r"[oO]|of|(?:[\w-]*[-_])?(?i:out|dest|target|save|write|log)[\w-]*")
"""An option or key whose name says it writes the path it is given: ``-o``, ``--output-dir``,
``--outDir``, ``--python_out``, ``--dest``, ``--save-to``, ``--log-file``, ``of=``."""
_INPUT = re.compile(r"[iI]|(?i:in|input|include|inventory|import|from|src|source|load|read|"
                    r"schema|template)(?:[-_][\w-]*)?|(?i:conf|rc|settings|var-file|env-file)"
                    r"[\w-]*")
"""An option whose name says the next word is a path it reads (``-i``, ``-I``, ``--config``,
``--rcfile``, ``--settings-path``, ``--var-file``): that word is its value, not an operand."""
_LABEL = re.compile(r"(?:@[\w.~+-]*)?//(?!/)")
"""A bazel, buck or pants label (``//...``, ``//src:all``, ``@repo//x``): no path."""
_KEY = re.compile(r"([\w.-]+)[=:](.+)")
"""A ``key=value`` or ``key:value`` word (``out=F``, ``file:F``)."""
_PWD = re.compile(r"\$(?:PWD\b|\{PWD\})")


def _named(args: list[str]) -> Iterator[tuple[str, bool]]:
    """Each path a word of ``args`` may name, and whether it may be written there.

    Written: an operand, the value of an option whose name says output (``-o F``, ``--out=F``,
    ``-oF``, ``-xoF``: :data:`_OUTPUT`) or of such a key (``dest=F``). Given only: the value of
    any other option (``--config=F``, ``-IDIR``, the next word after ``-i`` or ``--config``:
    :data:`_INPUT`), of another key (``file:F``), or ``@F``.
    """
    ended = False
    for i, word in enumerate(args):
        before = args[i - 1] if i and not ended else ""
        if word == "--" and not ended:
            ended = True
            continue
        if word[:1] == "-" and len(word) > 1 and not ended:
            option, equals, value = word.lstrip("-").partition("=")
            if equals:
                yield value, _writes(option)
            elif word[1] != "-":  # -o.git/hooks/x, -xo.git/hooks/x: a glued value
                yield from ((word[k:], word[k - 1] in "oO") for k in (2, 3) if word[k:])
            continue
        if word[:1] == "@":  # a response file: arguments read from it
            yield word[1:], False
            continue
        option = before.lstrip("-") if before[:1] == "-" and "=" not in before else ""
        if not (option and _INPUT.fullmatch(option)) and _LABEL.match(word) is None:
            yield word, True
        else:
            yield word, _writes(option)
        if "://" not in word and (key := _KEY.fullmatch(word)):  # out=F, --out a:F
            yield key[2], _writes(key[1]) or _writes(option)


def _listed(named: Iterator[tuple[str, bool]]) -> Iterator[tuple[str, bool]]:
    """Each of ``named``, and each item of one that is a list (``a,.git/config``, ``a:F``)."""
    for value, written in named:
        yield value, written
        if "://" not in value and (items := [i for i in _ITEMS.split(value) if i]) != [value]:
            key = _KEY.fullmatch(value)  # file:F is given F; out:F may write it
            yield from ((item, written and (not key or _writes(key[1]))) for item in items)


_ITEMS = re.compile(r"[,:\s]+")
"""What separates a list's items: ``a,.git/config``, ``--out=a:.git/x``, ``'a .git/x'``."""


def _writes(option: str) -> bool:
    """True when ``option`` (no dashes, no ``=``) is a name :data:`_OUTPUT` reads as a write."""
    return _OUTPUT.fullmatch(option) is not None


def _paths(value: str, dirs: tuple[Path, ...], line: str = "") -> list[str]:
    """``value`` as the paths it names in each dir of ``dirs`` (``[]``: bash makes it).

    ``$PWD/x``, ``${PWD}/x`` and ``~+/x`` are ``DIR/x``, as the other checks expand them
    (:func:`goosectx.shell_dirs.expanded`); so is a command's output before a ``/``
    (``$(pwd)/x``, ``$(git rev-parse --show-toplevel)/x``: most often the working dir). A
    variable ``line`` sets (``D=.git; …``, ``export D=.git``, ``for D in .git x``) is each
    value it is given there; a path whose variable stays unknown keeps its run-time form
    (``$d/config``: :func:`goosectx.protected_paths.protected_write` reads such a path that
    may be in the git directory).
    """
    if not value or "://" in value or "\0" in value:
        return []
    if value == "~+" or value.startswith("~+/"):
        return [str(d) + value[2:] for d in dirs]
    if not _RUN_TIME.search(value):
        return [value]
    value = _OUTPUT_DIR.sub("$PWD/", value)
    found: list[str] = []
    for one in line_values(value, line):
        if not _RUN_TIME.search(_PWD.sub("", one)):
            found += [path for d in dirs if (path := expanded(one, d)) is not None]
        else:
            found.append(one)  # $d/config: judged as a path that may be in the git directory
    return found


_OUTPUT_DIR = re.compile(r"^(?:\$\(…\)|`…`)/")
"""A command's output starting a path (``$(pwd)/x``, as the lexer keeps it: ``$(…)/x``)."""


def line_values(value: str, line: str) -> list[str]:
    """``value`` with each variable ``line`` gives values put in, one path per value.

    A command substitution whose output the line shows is put in too (``$(echo .git)/x``), and
    a default or alternate value's WORD (``${d:-.git}``) beside the word as written.

    ``[value]`` when ``line`` sets none of its variables.
    """
    assigned = line_assignments(line) if line else {}
    found = list(_substituted(line).get(value, (value,))) if PLACEHOLDER.search(value) else [value]
    for match in _DEFAULTED.finditer(value):  # ${d:-.git}, ${HOME:+.git}: WORD, or as written
        found += [v.replace(match[0], match[3], 1) for v in found]
    for match in VARIABLE_EXPANSION.finditer(value):
        name = match[1] or match[2]
        if name in assigned:
            found = [v.replace(match[0], one, 1) for v in found for one in assigned[name]]
    return found[:64]


_DEFAULTED = re.compile(r"\$\{([A-Za-z_]\w*)(:?[-+=])([^}$`'\"\\]*)\}")
"""``${NAME:-WORD}``, ``${NAME:+WORD}``, ``${NAME:=WORD}`` (and without ``:``): WORD may be the
value."""


@lru_cache(maxsize=16)
def _substituted(line: str) -> dict[str, tuple[str, ...]]:
    """Each word of ``line`` with a command substitution whose output the line shows, filled in.

    ``cp x $(echo .git/hooks)/pre-commit``: ``$(…)/pre-commit`` is ``.git/hooks/pre-commit``
    (:func:`goosectx.assigned_values.substitution_outputs`).
    """
    found: dict[str, list[str]] = {}
    parts = lex(line)
    for part, outputs in zip(parts, substitution_outputs(parts), strict=True):
        for word in part.words:
            count = len(PLACEHOLDER.findall(word.value))
            mine, outputs = outputs[:count], outputs[count:]
            if count and (filled := fill(word.value, mine)) != word.value:
                found.setdefault(word.value, []).append(filled)
    return {k: tuple(v) for k, v in found.items()}


@lru_cache(maxsize=16)
def line_assignments(line: str, computed: bool = False) -> dict[str, tuple[str, ...]]:
    """The literal values each variable is given in ``line`` (``D=.git``, ``for D in a b``).

    Each simple command's assignments before its program, after the reserved words that may
    start it (``if true; then D=.git; fi``, ``{ D=.git; }``, ``do export D=.git``), those of
    ``export``/``declare``/``local``, and those of the line ``eval`` runs (``eval D=.git``);
    what ``read``/``mapfile`` read from a here-string, ``printf -v`` prints and an ``echo`` or
    ``printf`` substitution prints (``B=$(echo .git/hooks)``: :mod:`goosectx.assigned_values`).

    ``computed``: an assignment's value bash expands is kept as written too
    (``GIT_TRACE=$PWD/.git/config``: :mod:`goosectx.git_environment`).
    """
    found: dict[str, list[str]] = {}
    parts = lex(line)
    for part, outputs in zip(parts, substitution_outputs(parts), strict=True):
        words = after_keywords(part.words, part.piped)  # then B=.git/hooks, { B=…; }, ! B=…
        if words[:1] and words[0].value == "time" and not part.piped:  # time -p B=.git/hooks
            words = list(dropwhile(lambda w: w.value in ("-p", "--"), words[1:]))  # a keyword
        if given := builtin_values([w.value for w in words], part.here_string,
                                   found.get("IFS", [" \t\n"])[-1]):  # IFS=:; read A B <<< …
            for key, val in given:  # read B <<< .git/hooks, printf -v B %s .git/hooks
                if (vals := _known(val, found)) != [val] or computed or not _RUN_TIME.search(val):
                    found.setdefault(key, []).extend(vals)
            continue
        if words[:1] and words[0].value in ("for", "select") and len(words) > 2 and (
                words[2].value == "in"):
            found.setdefault(words[1].value, []).extend(
                w.value for w in words[3:] if not w.expands)  # for f in .git/*: the glob
            continue
        if words[:1] and words[0].value == "eval" and words[1:]:  # eval B=.git/hooks: its line
            for key, values in line_assignments(" ".join(w.value for w in words[1:]),
                                                computed).items():
                found.setdefault(key, []).extend(values)
            continue
        for word in words[1:] if words[:1] and words[0].value in DECLARATIONS else words:
            if ASSIGNMENT_WORD.match(word.value):
                key, _, val = word.value.partition("=")
                val = fill(val, outputs) if word.expands else val  # B=$(echo .git/hooks)
                vals = _known(val, found) if word.expands else [val]  # E=$D/hooks
                if word.expands and vals == [val] and _RUN_TIME.search(val) and not computed:
                    continue  # H=$(mktemp): not known here (kept as written if computed)
                if key.endswith("+"):  # D=.g; D+=it: .git
                    key = key[:-1]
                    vals = [old + v for old in found.get(key, [""]) for v in vals]
                found.setdefault(key, []).extend(vals)
            elif word.value[:1] != "-":
                break
    return {k: tuple(v) for k, v in found.items()}


def _known(value: str, found: dict[str, list[str]]) -> list[str]:
    """``value`` with the variables set before it put in; ``[value]`` when one is not known."""
    out = [value]
    for match in VARIABLE_EXPANSION.finditer(value):
        if (name := match[1] or match[2]) not in found:
            return [value]
        out = [v.replace(match[0], one, 1) for v in out for one in found[name]][:64]
    return out


def _tail(why: str, name: str) -> str:
    """:func:`protected_write`'s reason without its ``NAME writes PATH`` start."""
    said = why.removeprefix(f"{name} writes ")
    return said.split(": ", 1)[1] if ": " in said else said.split(" ", 1)[-1]

