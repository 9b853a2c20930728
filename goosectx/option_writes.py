"""Options that make a reading program write files or read whole directories.

Under an allow rule for a program that reads (``shell(git diff*)``, ``shell(pytest*)``), these
options write or delete files the rules never judge as write targets: ``git diff
--output=Makefile`` replaced a project file, ``pytest --basetemp=.git`` deleted the
repository (pytest empties its base temp dir), ``pytest --junitxml=Makefile`` overwrote one,
``sort -o Makefile`` and ``find . -fls Makefile`` too; ``git diff --no-index tests .`` printed
every file below ``.``, ``.env`` included. Such a call asks (docs/architecture.md §4,
permission rules). The options are :data:`goosectx.option_table.OPTIONS`' that do
:attr:`~goosectx.option_table.Does.WRITES` or :attr:`~goosectx.option_table.Does.WHOLE`
(``--outp=``, a unique prefix, counts), or :attr:`~goosectx.option_table.Does.OUTPUT` into
a file but a stream (``sort -o /dev/stdout`` runs; curl's, wget's and patch's:
:data:`JUDGED_OUTPUT`; ``ruff check -o``, ``go test
-cpuprofile``, ``tsc --outDir``, ``mypy --junit-xml`` too), an option that runs a program or
takes settings (:attr:`~goosectx.option_table.Does.RUNS`: ``cargo --config``, ``go test
-exec``, ``mypy --install-types``); and a pytest plugin's option, or a make variable, go
``-ldflags`` value or npm option that runs something (:mod:`goosectx.option_values`).
"""

from __future__ import annotations

from goosectx.option_table import CURL_VALUED, JUDGED_OUTPUT, Does, option_hits
from goosectx.option_values import option_values
from goosectx.shell_options import long_option, option_value, short_value, wget_writes
from goosectx.split_outputs import split_writes

STREAMS = frozenset({"/dev/stdout", "/dev/stderr", "/dev/null"})
"""What an output option may name and write no file."""
TERMINAL_VALUES = {"--cov-report": frozenset({
    "term", "term-missing", "term:skip-covered", "term-missing:skip-covered"})}
"""Values of a writing option that write no file (pytest-cov's report to the terminal)."""


def option_writes(name: str, args: list[str]) -> str | None:
    """Why ``name ARGS`` may write files, read whole directories or run something unjudged.

    Also the files split and csplit write, a prefix and suffix joined
    (:func:`goosectx.split_outputs.split_writes`).
    """
    if why := split_writes(name, args):
        return why
    for hit in option_hits(name, args):
        if any(long_option(hit.word, option) and hit.value in values
               for option, values in TERMINAL_VALUES.items()):
            continue  # pytest --cov-report=term-missing: printed, no file
        if hit.does in (Does.WRITES, Does.WHOLE, Does.RUNS, Does.SETS, Does.SENDS,
                        Does.UNTRACKED) or hit.does is Does.OUTPUT and hit.value is not None and (
                hit.value not in STREAMS and hit.program not in JUDGED_OUTPUT):
            option, named = hit.word.partition("=")[0], ""
            if hit.does is Does.OUTPUT and hit.value:  # sort -o lnk, sort -olnk: the file lnk
                named = f" {hit.value}"
                glued = not option.startswith("--") and option.endswith(hit.value)
                option = option[:-len(hit.value)] if glued and option != hit.value else option
            return f"{hit.program} {option} {hit.does.value}{named}"
    if name == "curl" and (form := curl_write_out(args)) is not None:
        return f"curl -w {form} writes its output to a file, which the rules do not judge"
    if name == "wget" and (setting := wget_writes(args)) is not None:
        return f"wget -e {setting} writes a file or runs a program, which the rules do not judge"
    return option_values(name, args)


def curl_write_out(args: list[str]) -> str | None:
    """The ``-w``/``--write-out`` format of ``curl ARGS`` that writes a file, or ``None``.

    ``%output{F}`` (curl 8.3+) writes what follows it to F, ``%output{>>F}`` appends.
    """
    for i, word in enumerate(args):
        if word == "--":
            return None
        if word[:2] == "--":
            form = option_value(args, i, ("--write-out",))
        elif word[:1] == "-" and len(word) > 1:
            short = short_value(args, i, CURL_VALUED)
            form = short.value if short.letter == "w" else None
        else:
            continue
        if form is not None and "%output{" in form.lower():
            return form
    return None
