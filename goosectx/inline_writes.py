"""Inline code that names the git directory, a virtualenv or ``node_modules``: a write there.

docs/architecture.md §4, clause 2 of the one approval decision: part of
:func:`goosectx.shell_runners.hidden_program`. ``awk 'BEGIN{print "x" > ".git/config"}'``,
``python3 -c "import shutil; shutil.rmtree('.git')"``, ``perl -e 'open F, ">>.git/config"'``,
``node -e "fs.writeFileSync('.git/hooks/pre-commit', …)"`` write where a later command runs
what they wrote, from inside their code, where no word of the command names the file. Each
string literal of an interpreter's inline code (its blank-separated pieces, literals joined by
a concatenation too: :func:`goosectx.inline_reads.code_pieces`) that names such a path is
judged as a write of it (:func:`goosectx.protected_paths.protected_write`): whether the code
reads or writes it is not told apart — simple and safe, code rarely names those dirs. sed's
``w FILE`` and ``s///w FILE`` write ``FILE``. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

from goosectx.inline_reads import code_files, code_pieces, takes_code
from goosectx.protected_paths import Where, git_dirs, protected_write
from goosectx.shell_sed import sed_commands, sed_script

_MOST_PIECES = 256
"""The most pieces of one command's code judged (each a few path checks); the rest are let be
as the reads' check lets a piece over 4096 characters be."""


def inline_writes(name: str, args: list[str], where: Where | None) -> str | None:
    """Why ``name ARGS``' inline code may write a protected path it names, or ``None``."""
    if name in ("sed", "gsed"):
        script = sed_script(args)
        found = sed_commands(script) if script is not None else None
        files = [file for command, file in found or () if command in "wW" and file]
        return next(filter(None, (protected_write(name, file, where) for file in files)), None)
    if not takes_code(name):
        return None
    texts, _files = code_files(name, args)
    pieces = list(dict.fromkeys(p.lstrip("+<>|&") for text in texts  # perl's ">>.git/x"
                                for p in code_pieces(text)))
    pieces = [p for p in pieces if p and "\0" not in p and len(p) <= 4096][:_MOST_PIECES]
    tops = git_dirs(where) if pieces else ()
    return next(filter(None, (protected_write(f"{name}'s inline code", piece, where,
                                              "may write", tops) for piece in pieces)), None)
