"""Inline code that names the git directory, a virtualenv or ``node_modules``: a write there.

docs/architecture.md §4, clause 2 of the one approval decision: part of
:func:`goosectx.shell_runners.hidden_program`. ``awk 'BEGIN{print "x" > ".git/config"}'``,
``python3 -c "import shutil; shutil.rmtree('.git')"``, ``perl -e 'open F, ">>.git/config"'``,
``node -e "fs.writeFileSync('.git/hooks/pre-commit', …)"`` write where a later command runs
what they wrote, from inside their code, where no word of the command names the file. Each
string literal of an interpreter's inline code (its blank-separated pieces, literals joined by
a concatenation too: :func:`goosectx.inline_reads.code_pieces`) that names such a path is
judged as a write of it (:func:`goosectx.protected_paths.protected_write`): whether the code
reads or writes it is not told apart — simple and safe, code rarely names those dirs. awk's
only by what it prints to (``> "F"``, ``>> ("a" "b")``, a ``-v out=F`` / ``out=F`` value): its
programs compare names as data (``$1 == "node_modules"``). sed's ``w FILE`` and ``s///w
FILE`` write ``FILE``. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.inline_reads import AWK, code_files, code_pieces, takes_code
from goosectx.protected_paths import Where, git_dirs, protected_write
from goosectx.shell_sed import sed_commands, sed_script

_AWK_OUTPUT = re.compile(r"""(?:>>?|\|)\s*\(?\s*((?:"(?:\\.|[^"\\])*"\s*)+)""")
"""awk's output to a file or a command named by string literals (``> ".git/" "config"``)."""
_AWK_STRING = re.compile(r'"((?:\\.|[^"\\])*)"\s*')
"""One of those literals: awk joins them as written side by side."""
_AWK_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=(.+)", re.DOTALL)
"""An awk variable set on its command line: its value may be the file it prints to."""
_MOST_PIECES = 256
"""The most pieces of one command's code judged (each a few path checks); the rest are let be
as the reads' check lets a piece over 4096 characters be."""


def _awk_assigned(word: str) -> list[str]:
    """The value an awk assignment gives (``-vout=F``, ``out=F`` as an operand), or none."""
    found = _AWK_ASSIGNMENT.fullmatch(word.removeprefix("-v"))
    return [found[1]] if found else []


def inline_writes(name: str, args: list[str], where: Where | None) -> str | None:
    """Why ``name ARGS``' inline code may write a protected path it names, or ``None``."""
    if name in ("sed", "gsed"):
        script = sed_script(args)
        commands = sed_commands(script) if script is not None else None
        files = [file for command, file in commands or () if command in "wW" and file]
        return next(filter(None, (protected_write(name, file, where) for file in files)), None)
    if not takes_code(name):
        return None
    texts, _files = code_files(name, args)
    if name in AWK:  # only the files awk prints to: '{print > ".git/config"}', not $1 == "x"
        found = [_AWK_STRING.sub(r"\1", output[1]) for text in texts
                 for output in _AWK_OUTPUT.finditer(text)]
        found += [value for k, a in enumerate(args) for value in _awk_assigned(  # -v o=.git/x
            a if a[:2] != "-v" or len(a) > 2 else args[k + 1] if k + 1 < len(args) else "")]
    else:  # perl's ">>.git/x": the file its open mode names
        found = [p.lstrip("+<>|&") for text in texts for p in code_pieces(text)]
    pieces = [p for p in dict.fromkeys(found) if p and "\0" not in p and len(p) <= 4096]
    pieces = pieces[:_MOST_PIECES]
    tops = git_dirs(where) if pieces else ()
    return next(filter(None, (protected_write(f"{name}'s inline code", piece, where,
                                              "may write", tops) for piece in pieces)), None)
