r"""The files an interpreter's inline code names, for the sensitive-file check of a shell call.

docs/architecture.md §4 (the sensitive-file list): part of
:func:`goosectx.sensitive_shell.sensitive_words`. ``cat .env`` names the file as a word;
``python3 -c "print(open('.env').read())"``, ``node -e "…readFileSync('.env')…"``, ``perl -e
'open F, ".env"'``, awk's ``getline < ".env"``, sed's ``r .env`` and sqlite3's ``.read .env``
name it inside their code, and read it as surely. Each string literal of such code (each of
its blank-separated pieces: ``os.system('cat .env')``), each bare dotted name (``.env``) and
each file a sed ``r``/``w`` or a database shell's ``.read``/``\i``/``source`` command names is
judged as a word of the command is — a literal piece only when it looks like a path (a ``/``,
a leading ``~`` or ``.``) or names a file that is there (``d['id_token']`` names no
``id_token`` file); literals joined by a concatenation (``'.e' + 'nv'``) count as the literal
they make. Code that computes a name otherwise (``chr(46) + 'env'``) is not read: what the
command text shows, not a sandbox. Code naming dotenv reads the ``.env`` it finds
(:mod:`goosectx.sensitive_loaders`, which also knows the programs that load one unnamed).

Core module: no printing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from goosectx.awk_program import awk_texts
from goosectx.glob_words import value_names
from goosectx.inline_code_extra import ALIASES, MACROS, OPAQUE, REPLS, any_inline_code
from goosectx.sensitive import expand_user
from goosectx.sensitive_loaders import code_loads
from goosectx.shell_databases import DATABASES
from goosectx.shell_runners import INTERPRETER, RUNNERS, STDIN
from goosectx.shell_sed import sed_commands, sed_script

_LITERAL = re.compile(r"""(["'`])((?:\\.|(?!\1)[^\\])*)\1""", re.DOTALL)
"""A string literal of most languages (``'…'``, ``"…"``, a template ``` `…` ```)."""
_DOTTED = re.compile(r"(?<![\w)\]}$@.\\/])\.[\w][\w.-]*")
"""A bare dotted name (``.env``; not ``os.environ``, ``x().env``, ``$.a``, ``/\\.env/``)."""
_JOIN = re.compile(r"\s*(?:\+\+?|\.\.?|~|<>|\|\|)?\s*")
"""What joins two string literals into one: ``+`` (python, js, ruby), ``.`` (perl, php),
``..`` (lua), ``~`` (raku), ``<>`` (elixir), ``++`` (haskell, erlang), ``||`` (sql), or
nothing but blanks (python's and C's adjacent literals)."""
_COMMAND_FILE = re.compile(r"^\s*(?:[.\\]\w+|source)\s+(.+)$", re.MULTILINE | re.IGNORECASE)
"""A database shell's command naming a file: sqlite3's ``.read F`` / ``.import F T``, psql's
``\\i F``, mysql's ``source F`` (its words after the command)."""
_LOADS_DOTENV = re.compile(r"dotenv|loadEnvFile\s*\(\s*\)", re.IGNORECASE)
"""Inline code naming dotenv (``load_dotenv()``, ``require('dotenv').config()``) or node's
``process.loadEnvFile()`` (it reads ``./.env``): it loads ``.env``, looked for where it runs
and above (python-dotenv's ``find_dotenv``)."""
_ESCAPE = re.compile(r"\\(?:x\{([0-9A-Fa-f]{1,6})\}|u\{([0-9A-Fa-f]{1,6})\}|x([0-9A-Fa-f]{2})|"
                     r"[uU]([0-9A-Fa-f]{4}(?:[0-9A-Fa-f]{4})?)|([0-7]{1,3})|(.))", re.DOTALL)
"""A backslash escape of a string literal (python, perl, node, ruby, C)."""
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r"}
AWK = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_EXTRA = frozenset({*ALIASES, *OPAQUE, *REPLS, *MACROS})
"""The interpreters :mod:`goosectx.inline_code_extra` reads (``jruby -e``, ``ghc -e``, ``irb
<<EOF``, ``rpm --eval``): their code is read as the modelled interpreters' is."""


def code_files(name: str, args: list[str], line: str = "") -> tuple[list[str], list[str]]:
    """The texts of ``name``'s inline code, and the files its commands name as bare words.

    ``([code…], [file…])``: an interpreter's ``-c`` / ``-e`` code
    (:func:`goosectx.inline_code_extra.any_inline_code`: ``jruby -e``, ``ghc -e`` too; reading
    its program from standard input, the whole command ``line``, which holds it: a
    here-document, an ``echo`` piped in), ``deno eval``'s, an awk program, a database shell's
    command words; a sed script's ``r``/``R``/``w``/``W`` files, a database shell's
    :data:`_COMMAND_FILE` words.
    """
    if name in AWK:
        return awk_texts(args), []
    if name in ("sed", "gsed"):
        script = sed_script(args)
        found = sed_commands(script) if script is not None else None
        return [], [file for command, file in found or () if command in "rRwW" and file]
    if name in DATABASES:
        return args, [word for arg in args for line in _COMMAND_FILE.findall(arg)
                      for word in line.split()]
    if name == "deno":  # deno eval CODE: every permission, reads too
        first = next((a for a in args if not a.startswith("-")), "")
        return (args if first == "eval" else []), []
    if INTERPRETER.fullmatch(name) is None and name not in _EXTRA:
        return [], []
    code = any_inline_code(name, args)  # jruby -e, ghc -e, rpm --eval: inline_code_extra's
    if code == STDIN:  # python3 - <<'EOF' … EOF, echo '…' | node: the line holds the program
        return [line], []
    return ([] if code is None or code.startswith("\0") else [code]), []


def takes_code(name: str) -> bool:
    """True when ``name`` runs code given on its command line (:func:`code_files` reads it)."""
    return name in AWK or name in ("sed", "gsed", "deno") or name in DATABASES or (
        INTERPRETER.fullmatch(name) is not None) or name in _EXTRA


def code_pieces(code: str) -> Iterator[str]:
    """The names a code text may give a file by: its literals' pieces, its bare dotted names.

    Literals joined by a concatenation (:data:`_JOIN`: ``'.e' + 'nv'``, perl's ``'.e' .
    'nv'``, python's ``'.e' 'nv'``) count as the one literal they make too.
    """
    literals = list(_LITERAL.finditer(code))
    joined: list[str] = []
    for k, literal in enumerate(literals):
        if k and _JOIN.fullmatch(code, literals[k - 1].end(), literal.start()):
            joined[-1] += literal[2]
        else:
            joined.append(literal[2])
    texts = [*(literal[2] for literal in literals), *joined]
    texts += [_unescaped(text) for text in texts if "\\" in text]  # '\x2eenv', ".\x65nv"
    for text in dict.fromkeys(texts):
        for piece in text.split():
            yield from value_names(piece)  # 'if=.env', '@.env', 'file:.env'
    yield from _DOTTED.findall(code)


def _unescaped(text: str) -> str:
    r"""``text`` with a literal's escapes decoded (``\x2e``, ``\x{2e}``, ``\56``, ``\u{2e}``)."""
    def one(found: re.Match[str]) -> str:
        hexa = next((group for group in found.groups()[:4] if group), None)
        number = int(hexa, 16) if hexa else int(found[5], 8) if found[5] else None
        if number is None:
            return _SIMPLE.get(found[6], found[6])
        return chr(number) if number < 0x110000 else found[0]
    return _ESCAPE.sub(one, text)


def code_reads(words: list[str], dirs: tuple[Path, ...], judge: Callable[[Path], str | None],
               line: str, working_dir: Path) -> Iterator[tuple[str, str]]:
    """Each name a command's inline code gives a sensitive file: ``(name, how it is shown)``.

    ``words``: the command's program and arguments, wrappers looked through; a runner's
    (``uv run python3 -c …``, :data:`goosectx.shell_runners.RUNNERS`) by its first word
    naming an interpreter. Taken in each of ``dirs`` (where the command may run); ``judge``:
    :func:`goosectx.sensitive.sensitive_judge`'s; ``line``: the whole command line. Code
    naming dotenv (``load_dotenv()``) reads the ``.env`` it finds
    (:func:`goosectx.sensitive_loaders.code_loads`), shown relative to ``working_dir``.
    """
    names = [word.rsplit("/", 1)[-1] for word in words]
    start = 0 if not names or names[0] not in RUNNERS else next(
        (k for k, one in enumerate(names) if k and takes_code(one)), 0)
    if not names or not takes_code(name := names[start]):
        return
    texts, files = code_files(name, words[start + 1:], line)
    if any(_LOADS_DOTENV.search(text) for text in texts):  # load_dotenv(), require('dotenv')
        yield from code_loads(dirs, judge, working_dir, name)
    seen: set[str] = set()
    for piece, exact in [*((p, False) for text in texts for p in code_pieces(text)),
                         *((f, True) for f in files)]:
        if not piece or piece in seen or "\0" in piece or len(piece) > 4096:  # no path
            continue
        seen.add(piece)
        for base in dirs:
            path = base / expand_user(piece)
            if (exact or "/" in piece or piece.startswith(("~", ".")) or os.path.lexists(
                    path)) and judge(path):
                yield piece, f"{piece} (named in {name}'s inline code)"
                break
