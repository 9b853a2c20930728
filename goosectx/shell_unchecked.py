r"""Why a shell command escapes the deny and ask rules: the part, and why the rules cannot check it.

docs/architecture.md §4, clause 2: part of :mod:`goosectx.permissions`. Under any shell deny or
ask rule, a part the rules cannot read (its program named at run time — ``$'\x72m' -rf x``,
``$X``, ``"$(echo rm)"`` — or by a glob or brace expansion — ``/bin/r[m]``, ``{rm,x}`` —, a
function or alias definition) could run any program; a part with a computed argument could be
what a rule for its own program names (``git $SUB`` against ``shell(git push*)``); an
interpreter's inline code that runs commands (``python3 -c "os.system('rm x')"``,
``awk '{system($0)}'``, ``sed 's/x/rm y/e'``) or a program it reads from standard input
(``python3 - <<EOF``) could run anything. The reason names the part, one line, clipped, for
``run``'s notice and the model's tool result.

Core module: no printing.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from textwrap import shorten

from goosectx.inline_code_extra import any_code_runs
from goosectx.shell_forms import CommandForms
from goosectx.shell_runners import COMPUTED, STDIN


def unchecked(subjects: list[CommandForms], programs: set[str]) -> str | None:
    """Why the first part of ``subjects`` the rules cannot check escapes them, or ``None``.

    ``programs``: the programs the shell deny and ask rules name (``""`` for ``shell(*)``).
    """
    for subject in subjects:
        why = _unchecked(subject, programs)
        if why is not None and subject.all:  # the part as written, one line, clipped
            return f"{why}, in `{shorten(' '.join(subject.all[0].split()), 80, placeholder=' …')}`"
        if why is not None:
            return why
    return None


def _unchecked(subject: CommandForms, programs: set[str]) -> str | None:
    """Why the rules cannot check one part (:func:`unchecked`), or ``None``."""
    if subject.unreadable:
        return subject.unreadable
    for interpreter, code in subject.code:
        if code in (STDIN, COMPUTED):
            return f"{interpreter} runs a program " + (
                "it reads from its standard input or a stream" if code == STDIN else
                "made at run time")
        if any_code_runs(interpreter, code):
            return f"its inline {interpreter} code runs commands"
    for program, _computed, arguments in subject.steps:
        if arguments and ({"", program} & programs or any(
                fnmatchcase(program, p) for p in programs)):
            return (f"an argument of {program} is computed at run time or by a glob or "
                    "brace expansion")
    return None
