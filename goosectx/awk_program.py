r"""What an awk call does beyond reading its files and printing: the trusted surface of awk.

docs/architecture.md §4, clause 2 of the one approval decision: under an allow rule
(``shell(awk*)``), an awk call is allowed only when all it does is read the files its operands
name and print to standard output; :func:`awk_beyond` says why a call does more, and the rule
does not cover it (:attr:`goosectx.shell_forms.CommandForms.beyond`). It is a reader of what
it understands, not a list of bad things: an option it does not know, a character or a form of
the program it does not read, asks.

The program is read token by token as awk's lexer does (strings, regular expressions where an
operand cannot end, comments, line continuations). It goes beyond the surface when it runs a
command (``system()``, ``print | "cmd"``, ``"cmd" | getline``, ``|&``), writes a file (``print
> F`` / ``>>`` in an unparenthesised ``print`` or ``printf``; ``/dev/stdout`` and
``/dev/stderr`` named as a string are output), reads one its operands do not name (``getline <
F``, a change of ``ARGV`` / ``ARGC`` or a ``SYMTAB`` entry) or uses gawk's ``@`` (``@include``,
``@load``, an indirect call such as ``@f("cmd")`` with ``f = "system"``). Options that load or
write files (``-f``, ``-E``, ``-i inplace``, ``-l``, ``-o``, ``-p``, ``-d``, ``-D``, mawk's
``-W``) are beyond it too. ``ENVIRON`` is read as ``printenv`` is: it prints, it does not write.
``$3 > 100`` outside a ``print`` is a comparison. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

AWK = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk", "original-awk"})
"""The awk programs read here."""

_FLAGS = frozenset("bcChMnNOPrsStVk")
"""Short options that only change how awk reads or prints (gawk, mawk, the one true awk)."""
_VALUED = frozenset("Fve")
"""Short options taking a value that the surface holds: a field separator, a ``NAME=value``
assignment, program text (``-e``)."""
_LONGS = ("--field-separator", "--assign", "--source", "--characters-as-bytes", "--traditional",
          "--copyright", "--help", "--bignum", "--use-lc-numeric", "--non-decimal-data",
          "--optimize", "--no-optimize", "--posix", "--re-interval", "--sandbox", "--version",
          "--lint", "--csv")
_LONG_VALUED = ("--field-separator", "--assign", "--source")
_TOKEN = re.compile(r"""
    (?P<space>[ \t]+|\\\r?\n|\#[^\n]*)
  | (?P<newline>\n)
  | (?P<number>0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<op>\|&|\*\*=|>>|\+\+|--|&&|\|\||[-+*/%^!<>=]=|\*\*|[-+*/%^!<>=|?:~,;()\[\]{}$])
""", re.VERBOSE)
_REGEX = re.compile(r"/(?:[^/\\\n\[]|\\.|\[\^?\]?[^\]\n]*\])*/")
_ENDS_OPERAND = frozenset({"number", "string", "regex", ")", "]", "++", "--"})
"""Tokens after which ``/`` divides (a name that is no keyword too); elsewhere it opens a
regular expression."""
_KEYWORDS = frozenset({"print", "printf", "return", "in", "do", "else", "case", "getline",
                       "if", "while", "for", "delete", "exit", "next", "nextfile", "BEGIN",
                       "END", "function", "func", "switch", "default", "break", "continue"})
_FILE_LISTS = frozenset({"ARGV", "ARGC", "SYMTAB"})
"""Names through which a program changes the files awk reads (``ARGV[1] = "/etc/x"``)."""
_OUTPUT = frozenset({'"/dev/stdout"', '"/dev/stderr"'})
_STATEMENT_END = frozenset({";", "\n", "}", ""})


def awk_beyond(args: list[str]) -> str | None:
    """Why ``awk ARGS`` does more than read its operand files and print, or ``None``."""
    programs, why, _rest = _call(args)
    if why is not None:
        return why
    for program in programs:
        if (why := program_beyond(program)) is not None:
            return why
    return None


def awk_runs(args: list[str]) -> bool:
    """True when ``awk ARGS`` may run a command: a program text it is given does, or may.

    Every ``-e``/``--source`` text and the program operand, read as awk reads them
    (:func:`program_runs`); after an option not read here, every later word may be a program
    text (``mawk -W x PROG``). A program file (``-f prog.awk``) is not read.
    """
    return any(program_runs(program) for program in awk_texts(args))


def awk_texts(args: list[str]) -> list[str]:
    """The program texts of ``awk ARGS``; after an option not read here, every later word too."""
    programs, _why, rest = _call(args)
    return [*programs, *args[rest:]]


_FILE_OPTIONS = {"f": "--file", "E": "--exec", "i": "--include", "l": "--load"}
"""Options naming a file awk loads (a program, a library, an extension): not read here, their
value skipped; after ``-f``/``-E`` every operand is a data file."""


def _call(args: list[str]) -> tuple[list[str], str | None, int]:
    """The program texts of ``awk ARGS``, why an option is beyond (``None``), where reading stopped.

    An option not known stops the reading there; a file option (:data:`_FILE_OPTIONS`) is
    beyond but read past.
    """
    programs: list[str] = []
    why: str | None = None
    from_file = False
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--" or not word.startswith("-") or word == "-":
            if not programs and not from_file:
                after = i + (word == "--")
                if after >= len(args):
                    return programs, why, i  # awk --version-like calls: no program
                programs.append(args[after])
            break
        letter = word[1:2] if word[1:2] in _FILE_OPTIONS and not word.startswith("--") else next(
            (one for one, long in _FILE_OPTIONS.items() if _long(word, long)), "")
        if letter:
            named = word.partition("=")[0] if word[1] == "-" else "-" + letter
            why = why or (f"awk's option {named} is not one the rules read (it may load or "
                          "write a file)")
            from_file |= letter in "fE"
            i += 2 if word in ("-" + letter, _FILE_OPTIONS[letter]) else 1
            continue
        if word.startswith("--"):
            option = next((o for o in _LONGS if _long(word, o)), None)
            if option is None:
                return programs, why or (f"awk's option {word.partition('=')[0]} is not one the "
                                         "rules read"), i
            if option in _LONG_VALUED and "=" not in word:
                i += 1
                value = args[i] if i < len(args) else ""
            else:
                value = word.partition("=")[2]
            programs += [value] if option == "--source" else []
            i += 1
            continue
        k = 1
        while k < len(word):
            letter = word[k]
            if letter in _VALUED:
                value = word[k + 1:]
                if not value:
                    i += 1
                    value = args[i] if i < len(args) else ""
                programs += [value] if letter == "e" else []
                break
            if letter not in _FLAGS:
                return programs, why or (f"awk's option -{letter} is not one the rules read (it "
                                         "may load or write a file)"), i
            k += 1
        i += 1
    return programs, why, len(args)


def _long(word: str, option: str) -> bool:
    name = word.partition("=")[0]
    return len(name) > 3 and option.startswith(name)


_MAX_READINGS = 16
"""Most readings of one program kept: a ``/`` after ``)`` divides after an expression
(``(a+b)/2``) and opens a regular expression after ``if (…)``; each is read."""


def _readings(program: str) -> list[list[tuple[str, str]]] | None:
    """Every way awk may split ``program`` into ``(kind, text)`` tokens.

    ``None`` when it holds what is not read here, or has more than :data:`_MAX_READINGS`.
    """
    done: list[list[tuple[str, str]]] = []
    todo: list[tuple[int, list[tuple[str, str]]]] = [(0, [])]
    while todo:
        i, tokens = todo.pop()
        while i < len(program):
            last = tokens[-1] if tokens else ("", "")
            divides = last[0] in _ENDS_OPERAND or last[1] in _ENDS_OPERAND or (
                last[0] == "name" and last[1] not in _KEYWORDS)
            if program[i] == "/" and (not divides or last[1] == ")"):
                found = _REGEX.match(program, i)
                if divides and found is not None:  # `if (x) /re/`: read both ways
                    todo.append((found.end(), [*tokens, ("regex", found.group())]))
                    if len(todo) + len(done) > _MAX_READINGS:
                        return None
                elif not divides:
                    if found is None:
                        return None
                    tokens.append(("regex", found.group()))
                    i = found.end()
                    continue
            found = _TOKEN.match(program, i)
            if found is None:
                return None
            kind = found.lastgroup or ""
            if kind != "space":
                tokens.append((kind if kind in ("number", "name", "string") else "op",
                               "\n" if kind == "newline" else found.group()))
            i = found.end()
        done.append(tokens)
    return done


def program_beyond(program: str) -> str | None:
    """Why an awk ``program`` does more than read its input and print, or ``None``."""
    readings = _readings(program)
    if readings is None:
        return "awk's program has a form the rules do not read"
    return next(filter(None, map(_beyond, readings)), None)


_ENDS = frozenset({";", "\n", "}", ")", ""})
"""Tokens that may follow a command string that is whole (not ``"rm" x``, a concatenation)."""
_STARTS = frozenset({"{", ";", "\n", "(", "}", "", "&&", "||", "!"})
"""Tokens that may come before a whole command string (``{"date" | getline}``)."""
_ESCAPES = {'\\"': '"', "\\\\": "\\", "\\/": "/", "\\n": "\n", "\\t": "\t"}


def awk_commands(args: list[str]) -> list[str]:
    """The command lines ``awk ARGS`` runs that its program spells as one plain string.

    ``system("rm x")``, ``print | "sort -u"``, ``print |& "cmd"``, ``"date" | getline``: each
    is a shell line (sh -c) for the deny rules to read as ``bash -c``'s. A command built at
    run time (``system($0)``, ``"r" "m"``, an escape not read here) is not one: the call asks
    anyway (:func:`awk_runs`).
    """
    found: list[str] = []
    for program in awk_texts(args):
        for tokens in _readings(program) or []:
            texts = ["", *(text for _kind, text in tokens), "", ""]
            kinds = ["", *(kind for kind, _text in tokens), "", ""]
            for k in range(1, len(texts) - 2):
                if kinds[k] != "string":
                    continue
                system = texts[k - 2:k] == ["system", "("] and texts[k + 1] == ")"
                piped = texts[k - 1] in ("|", "|&") and texts[k + 1] in _ENDS
                fed = texts[k - 1] in _STARTS and texts[k + 1] in ("|", "|&") and (
                    texts[k + 2] == "getline")
                line = _unquoted(texts[k]) if system or piped or fed else None
                if line is not None and line not in found:
                    found.append(line)
    return found


def _unquoted(string: str) -> str | None:
    """An awk string token's value, ``None`` when it holds an escape not read here."""
    parts = re.split(r"(\\.)", string[1:-1])
    if any(part.startswith("\\") and part not in _ESCAPES for part in parts):
        return None
    return "".join(_ESCAPES.get(part, part) for part in parts)


def program_runs(program: str) -> bool:
    """True when an awk ``program`` may run a command: ``system``, ``|``/``|&`` in a reading.

    A program not read here (gawk's ``@f()``, a form the lexer does not know) may.
    """
    readings = _readings(program)
    return readings is None or any(
        kind == "name" and text == "system" or kind == "op" and text in ("|", "|&")
        for tokens in readings for kind, text in tokens)


def _beyond(tokens: list[tuple[str, str]]) -> str | None:
    """Why one reading of a program (its tokens) goes beyond the surface, or ``None``."""
    kinds, texts = [kind for kind, _ in tokens] + ["", ""], [text for _, text in tokens] + ["", ""]
    printing = False  # inside an unparenthesised print / printf
    depth = 0
    for k, (kind, text) in enumerate(tokens):
        if kind == "name" and text == "system" or kind == "op" and text in ("|", "|&"):
            return "awk's program runs a command (system, a pipe)"
        if kind == "name" and text in _FILE_LISTS:
            return f"awk's program uses {text}, which may change the files it reads"
        if kind == "name" and text == "getline" and (texts[k + 1] in ("<", "$") or (
                kinds[k + 1] == "name" and texts[k + 2] in ("<", "["))):
            return "awk's program reads a file with getline <"
        if kind == "name" and text in ("print", "printf"):
            printing, depth = True, 0
        elif not printing or kind != "op":
            continue
        elif text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        elif depth <= 0 and text in (";", "\n", "}"):
            printing = False
        elif depth <= 0 and text in (">", ">>"):
            if texts[k + 1] not in _OUTPUT or texts[k + 2] not in _STATEMENT_END:
                return "awk's program writes a file (print >)"
            printing = False
    return None
