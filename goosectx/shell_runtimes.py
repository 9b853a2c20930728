"""Runtimes whose subcommands or options name code to run: deno and erl, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:func:`goosectx.shell_languages.language_commands` reads a command for the shell's permission
rules. ``deno eval CODE`` runs CODE with every permission (``Deno.Command`` starts any
program), ``deno repl`` and ``deno run -`` run what they read from standard input; ``deno run
x.ts``, ``deno test`` and ``deno task`` run the project's files, as ``node x.js`` does. ``erl
-s MOD FUNC``, ``-run MOD FUNC ARG`` and ``-S MOD FUNC ARG…`` call any function
(``-run os cmd 'rm x'`` runs ``rm``), ``init`` (``-s init stop``) excepted; its ``-eval`` code
is read by :func:`goosectx.shell_runners.inline_code`. What the command text shows, not a
sandbox.

Core module: no printing.
"""

from __future__ import annotations

from goosectx.shell_builtins import reads_stdin

RUNTIMES = frozenset({"deno", "erl"})
"""The programs :func:`runtime_code` reads."""
_DENO_VALUED = frozenset({"--config", "-c", "--import-map", "--cert", "--location", "--seed",
                          "--ext"})
"""deno's options that take the next word (``--config deno.json``): not the script. (The
``--allow-*`` ones take a value only after ``=``: ``--allow-read main.ts`` runs main.ts.)"""
_ERL_CALLS = ("-s", "-run", "-S")


def _deno(args: list[str], fed: bool) -> str | None:
    command = args[0] if args else ""
    rest = args[1:]
    if command == "eval":
        return "deno eval runs code with every permission, which may start a program"
    if command == "repl":
        return "deno repl runs the code it is given or reads from its standard input"
    if command != "run":
        return None
    script = next((a for k, a in enumerate(rest) if not a.startswith("-") and (
        k == 0 or "=" in rest[k - 1] or rest[k - 1] not in _DENO_VALUED)), None)
    if "-" in rest[:rest.index(script) if script in rest else len(rest)] or script is None or (
            reads_stdin(script, fed)):
        return "deno run runs the code it reads from its standard input or a stream"
    return None


def _erl(args: list[str]) -> str | None:
    for k, word in enumerate(args):
        if word in _ERL_CALLS and (k + 1 >= len(args) or args[k + 1] != "init"):
            return (f"erl {word} calls a function named on the line (os:cmd …), which the "
                    "rules do not read")
    return None


def runtime_code(name: str, args: list[str], fed: bool) -> str | None:
    """Why deno or erl runs code given on the line or standard input, or ``None``.

    ``args``: its words after the program; ``fed``: :attr:`goosectx.shell_words.Part.fed`.
    """
    if name == "deno":
        return _deno(args, fed)
    if name == "erl":
        return _erl(args)
    return None
