"""Interpreters beyond :data:`goosectx.shell_runners.INTERPRETER`: their inline code, for the rules.

docs/architecture.md §4, clause 2 of the one approval decision: :mod:`goosectx.shell_command`
reads a command's inline code through :func:`any_inline_code` and
:mod:`goosectx.shell_unchecked` asks whether it runs a command through :func:`any_code_runs`.
A second implementation of a modelled language (``jruby``, ``ts-node``, ``graalpy``,
``texlua``) is read as that language; a language whose ways to run a program the rules do not
model (``ghc -e``, ``raku -e``, ``octave --eval``, ``mongo --eval``, ``rc -c``) may run one
with any inline code, as julia's may; a REPL fed a here-document or a pipe (``irb <<EOF``,
``jshell <<EOF``) runs code the rules cannot see; an rpm macro's ``%(…)`` runs a shell line
(:data:`MACROS`). Python's ``webbrowser`` runs the browser
command it is given (``webbrowser.get("rm -rf %s")``) and AppleScript's ``do shell script``
runs a shell line: both run commands. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_runners import STDIN, code_runs, inline_code

ALIASES = {"jruby": "ruby", "truffleruby": "ruby", "tsx": "node", "ts-node": "node",
           "esno": "node", "esrun": "node", "graalpy": "python3", "jython": "python3",
           "micropython": "python3", "pyston": "python3", "pyston3": "python3",
           "texlua": "lua", "texluajit": "luajit"}
"""Interpreters read as the modelled language they implement."""
OPAQUE: dict[str, tuple[str, ...]] = {
    "ghc": ("-e",), "ghci": ("-e",), "runghc": ("-e",), "octave": ("--eval",),
    "octave-cli": ("--eval",), "bb": ("-e", "--eval"), "clojure": ("-e", "--eval"),
    "clj": ("-e", "--eval"), "raku": ("-e",), "perl6": ("-e",), "rakudo": ("-e",),
    "crystal": ("eval",), "ocaml": ("-e",), "scala": ("-e",), "kotlin": ("-e",),
    "jrunscript": ("-e",), "swift": ("-e",), "pry": ("-e",), "gforth": ("-e", "--evaluate"),
    "pike": ("-e",), "hy": ("-c",), "mongo": ("--eval",), "rc": ("-c",), "es": ("-c",),
    "murex": ("-c",), "ion": ("-c",), "matlab": ("-batch", "-r"),
    "lldb": ("-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash"),
    "gnuplot": ("-e",)}
"""Interpreters whose ways to run a program the rules do not model, and their inline-code
options (``crystal eval CODE``: a subcommand): any inline code of theirs may run one (the legacy
``mongo`` shell's ``runProgram``; mongosh's code is node's: :mod:`goosectx.shell_languages`;
``lldb -o 'platform shell rm x'``, ``lldb -o 'script …'``, gnuplot's ``system "rm x"``)."""
REPLS = frozenset({"irb", "jshell", "pry", "ghci", "octave", "octave-cli", "scala", "kotlin",
                   "bb", "clojure", "clj", "raku", "perl6", "hy", "swift", "rc", "es",
                   "murex", "ion", "gforth", "lldb", "gnuplot", "m4"})
"""Interpreters that run what their standard input holds when given no script (``echo
'syscmd(rm x)' | m4``: m4's ``syscmd``/``esyscmd`` run a shell line)."""
MACROS = dict.fromkeys(("rpm", "rpmbuild", "rpmspec", "rpmquery", "rpmsign"),
                      ("--eval", "-E", "--define", "-D"))
"""rpm's macro options: a macro's ``%(…)`` runs a shell line, ``%{lua:…}`` lua code
(``rpm --eval '%(rm -rf x)'``, ``rpmbuild -D 'x %(rm x)'``)."""
_MACRO_RUNS = re.compile(r"%\(|%\{lua:")
_GNUPLOT_RUNS = re.compile(r"""\b(?:system|load|call|shell|eval|evaluate|import)\b|`|"""
                           r"""(?:^|;)\s*!|["']\s*[<|]""", re.MULTILINE)
"""What in gnuplot's code may run a command or code the rules do not read: ``system "…"``,
``!cmd``, a backquote, ``load``/``call`` of a script, ``eval`` of a string, a plugin
``import``, a file name starting a pipe (``plot "< cmd"``, ``set output "|cmd"``)."""
_RUNS = re.compile(r"\bwebbrowser\b|\bdo\s+shell\s+script\b")
"""Code that runs a command :data:`goosectx.shell_runners._RUNS_COMMANDS` does not list."""


def any_inline_code(name: str, args: list[str], fed: bool = True) -> str | None:
    """:func:`goosectx.shell_runners.inline_code`, for the interpreters of this module too."""
    if name in ALIASES:
        return inline_code(ALIASES[name], args, fed)
    options = MACROS.get(name) or OPAQUE.get(name, ())
    if not options and name not in REPLS:
        return inline_code(name, args, fed)
    codes = []
    for i, word in enumerate(args):
        option, equals, value = word.partition("=")
        if word in options and i + 1 < len(args):
            codes.append(args[i + 1])
        elif equals and option in options and option.startswith("--"):
            codes.append(value)
        elif name in MACROS and word[:2] in options and len(word) > 2:
            codes.append(word[2:])  # rpm -E'%{_libdir}', -D'x 1': a short option's glued value
    if codes:
        return "\n".join(codes)
    if name in REPLS and fed and not any(not a.startswith("-") for a in args):
        return STDIN  # irb <<EOF, echo … | jshell
    return None


def any_code_runs(name: str, code: str) -> bool:
    """:func:`goosectx.shell_runners.code_runs`, for the interpreters of this module too."""
    if name in MACROS:
        return _MACRO_RUNS.search(code) is not None
    if name == "gnuplot":  # gnuplot -e 'set term png; plot sin(x)': no command
        return _GNUPLOT_RUNS.search(code) is not None
    if name in OPAQUE:
        return bool(code)  # ghc -e 'System.Process.callCommand …': its libraries are not read
    return code_runs(ALIASES.get(name, name), code) or _RUNS.search(code) is not None
