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

An output file or directory named literally inside the project, no sensitive file (``tsc
--outDir dist``, ``go test -coverprofile=cover.out``), is no such question under deny and ask
rules (``shell(rm *)`` has nothing to say about it): it is judged as a write target, as
``tee``'s are (the git directory, a virtualenv, ``node_modules``:
:mod:`goosectx.git_config_writes`), and only an allow rule does not cover it
(:func:`output_beyond`: ``sort -o Makefile`` under ``shell(sort*)`` still asks).
"""

from __future__ import annotations

import re
from pathlib import Path

from goosectx.option_table import CURL_VALUED, JUDGED_OUTPUT, Does, Hit, option_hits, own_cache
from goosectx.option_values import option_values
from goosectx.protected_paths import Where
from goosectx.sensitive import expand_user
from goosectx.shell_options import option_value, short_value, wget_writes
from goosectx.split_outputs import split_writes
from goosectx.written_names import sensitive_or_outside

STREAMS = frozenset({"/dev/stdout", "/dev/stderr", "/dev/null"})
"""What an output option may name and write no file."""


_RUN_TIME = re.compile(r"[$`*?[{\\]")
"""A value bash may expand (a variable, ``$(…)``, a glob, braces) or unquote: not literal."""
_DIRECTORY = re.compile(r"-+(?i:[\w-]*dir|[\w-]+-report|cache|cache-location)")
"""Output options naming a directory (tsc's ``--outDir``, ``cargo --target-dir``, go's
``-outputdir``, mypy's ``--html-report``, npm's ``--cache``)."""


def option_writes(name: str, args: list[str], where: Where | None = None) -> str | None:
    """Why ``name ARGS`` may write files, read whole directories or run something unjudged.

    Also the files split and csplit write, a prefix and suffix joined
    (:func:`goosectx.split_outputs.split_writes`). ``where``: the project and the dirs the
    command may run in: an output option's file in the project is no reason
    (:func:`_in_project`); ``None`` (on another host, say): every one is.
    """
    if why := split_writes(name, args):
        return why
    for hit in option_hits(name, args):
        if _output_file(hit) and _in_project(str(hit.value), where):
            continue  # tsc --outDir dist: judged as tee's file is (git_config_writes)
        if hit.does in (Does.WRITES, Does.WHOLE, Does.RUNS, Does.SETS, Does.SENDS,
                        Does.UNTRACKED) or _output_file(hit):
            return _said(hit)
    if name == "curl" and (form := curl_write_out(args)) is not None:
        return f"curl -w {form} writes its output to a file, which the rules do not judge"
    if name == "wget" and (setting := wget_writes(args)) is not None:
        return f"wget -e {setting} writes a file or runs a program, which the rules do not judge"
    return option_values(name, args)


def output_beyond(name: str, args: list[str]) -> str | None:
    """What an output option of ``name ARGS`` writes beyond what an allow rule covers, or ``None``.

    ``sort -o out.txt in.txt`` under ``shell(sort*)``: the rule lets sort read and print, not
    write ``out.txt`` (:attr:`goosectx.shell_forms.CommandForms.beyond`); curl's, wget's and
    patch's are their rules' to write (:data:`JUDGED_OUTPUT`), and a linter's cache its rule's
    (``mypy --cache-dir=.mypy_cache`` under ``shell(mypy*)``: :func:`own_cache`; one outside
    the project or protected still asks, :func:`option_writes`).
    """
    return next((_said(hit) for hit in option_hits(name, args)
                 if _output_file(hit) and not own_cache(hit)), None)


def _output_file(hit: Hit) -> bool:
    """True when ``hit`` is an output option naming a file (no stream) its rule does not judge."""
    return hit.does is Does.OUTPUT and hit.value is not None and (
        hit.value not in STREAMS and hit.program not in JUDGED_OUTPUT)


def _said(hit: Hit) -> str:
    """What the option of ``hit`` does: ``sort -o writes its output to the file named F``."""
    option, named, does = hit.word.partition("=")[0], "", hit.does.value
    if hit.does is Does.OUTPUT and hit.value:  # sort -o lnk, sort -olnk: the file lnk
        named = f" {hit.value}"
        glued = not option.startswith("--") and option.endswith(hit.value)
        option = option[:-len(hit.value)] if glued and option != hit.value else option
        if _DIRECTORY.fullmatch(option):  # tsc --outDir dist: the directory named dist
            does = does.replace("to the file", "into the directory")
    return f"{hit.program} {option} {does}{named}"


def _in_project(path: str, where: Where | None) -> bool:
    """True when ``path``, written literally, is inside the project and no sensitive file.

    Taken in each dir ``where`` knows (after ``cd "$X"`` a relative path is in none), links
    followed (:func:`goosectx.written_names.sensitive_or_outside`).
    """
    if where is None or not path or _RUN_TIME.search(path):
        return False
    if not expand_user(path).is_absolute() and not any(
            isinstance(base, Path) for base in where.dirs):
        return False
    return sensitive_or_outside(path, where) is None


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
