r"""What a sed call does beyond editing text to standard output: the trusted surface of sed.

docs/architecture.md §4, clause 2 of the one approval decision: under an allow rule
(``shell(sed -n*)``), a sed call is allowed only when all it does is read the files its
operands name and print (:attr:`goosectx.shell_forms.CommandForms.beyond`). Its script is
walked as GNU sed reads it (:func:`goosectx.shell_sed.sed_commands`); :func:`sed_beyond` says
why a call does more: the ``e`` command or ``s///e`` flag runs a command, ``r`` / ``R`` read a
file the rules do not judge, ``w`` / ``W`` and ``s///w FILE`` write one (``/dev/stdout`` and
``/dev/stderr`` are output, ``r /dev/stdin`` input), ``-f FILE`` runs a script not read here,
and an option not known here may be any of these. A script of a form the walk does not know is
beyond too. Writing in place (``-i``, ``--in-place``, ``--in-pl``, ``-n -i``, ``-s -i``) is
the user's call under ``shell(sed*)``, but not under a rule that names sed's options without
``-i`` (``shell(sed -n*)`` was written for reading): :func:`in_place_unnamed`, as an option
that makes a reading program write asks (:mod:`goosectx.option_writes`). What the command
text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import shlex

from goosectx.program_operands import file_operands
from goosectx.shell_options import long_option
from goosectx.shell_sed import sed_commands, sed_script

SED = frozenset({"sed", "gsed"})
_FLAGS = frozenset("nErszub")
"""Short options that only change how sed reads or prints."""
_LONGS = ("--quiet", "--silent", "--expression", "--regexp-extended", "--separate",
          "--null-data", "--zero-terminated", "--unbuffered", "--line-length", "--posix",
          "--debug", "--sandbox", "--follow-symlinks", "--binary", "--help", "--version",
          "--in-place")
_LONG_VALUED = ("--expression", "--line-length")
_STREAMS = {"w": ("/dev/stdout", "/dev/stderr"), "W": ("/dev/stdout", "/dev/stderr"),
            "r": ("/dev/stdin",), "R": ("/dev/stdin",)}
_DOES = {"e": "runs a command (e)", "r": "reads a file (r)", "R": "reads a file (R)",
         "w": "writes a file (w)", "W": "writes a file (W)"}


def _options(args: list[str]) -> tuple[str | None, str | None]:
    """The backup suffix of sed's ``args``, and why an option is beyond the surface.

    The suffix: ``""`` for none, ``None`` when sed does not write in place.
    """
    in_place: str | None = None
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            break
        if not word.startswith("-") or word == "-":
            i += 1
            continue
        if word.startswith("--"):
            option = next((o for o in _LONGS if long_option(word, o)), None)
            if option is None:
                said = word.partition("=")[0]
                return in_place, f"sed's option {said} is not one the rules read"
            if option == "--in-place":  # --in-place=SUFFIX
                in_place = word.partition("=")[2] or in_place or ""
            i += 2 if option in _LONG_VALUED and "=" not in word else 1
            continue
        for k in range(1, len(word)):
            letter = word[k]
            if letter == "i":  # -i[SUFFIX]: the rest of the word is the suffix
                in_place = word[k + 1:] or in_place or ""
                break
            if letter in "el":
                i += 0 if word[k + 1:] else 1
                break
            if letter not in _FLAGS:
                return in_place, f"sed's option -{letter} is not one the rules read"
        i += 1
    return in_place, None


def sed_beyond(args: list[str]) -> str | None:
    """Why ``sed ARGS`` does more than edit text to standard output, or ``None``.

    Writing in place aside: :func:`in_place_unnamed`.
    """
    why = _options(args)[1]
    if why is not None:
        return why
    script = sed_script(args)
    if script is None:
        return None  # --sandbox, or no script: sed refuses e, r and w, or does nothing
    found = sed_commands(script)
    if found is None:
        return "sed's script has a form the rules do not read"
    for command, argument in found:
        if argument not in _STREAMS.get(command, ()):
            return f"sed's script {_DOES[command]}"
    return None


def in_place_files(name: str, args: list[str]) -> list[str]:
    """The files ``sed ARGS`` edits in place (``sed -i s/a/b/ .git/config``): none without -i.

    With a backup suffix, the backups too: ``FILE`` + the suffix, or, where the suffix has a
    ``*``, the suffix with each ``*`` the file's name (GNU sed: ``sed -i'.git/hooks/*' -n p
    pre-commit`` keeps a copy as ``.git/hooks/pre-commit``), taken in the file's dir and in
    the dir sed runs in.
    """
    suffix = _options(args)[0] if name in SED else None
    if suffix is None:
        return []
    files = file_operands([name, *args])
    return [*files, *(backup for file in files for backup in backups(file, suffix))]


def backups(file: str, suffix: str) -> list[str]:
    """Where an in-place editor keeps ``file``'s backup for ``suffix`` (``""``: none).

    GNU sed's and perl's rule: each ``*`` is the file's name, else the suffix is appended.
    """
    if not suffix:
        return []
    if "*" not in suffix:
        return [file + suffix]
    head, _, base = file.rpartition("/")
    named = suffix.replace("*", base)
    return list(dict.fromkeys([named, f"{head}/{named}" if head else named]))


def in_place_unnamed(rule: str, words: str) -> bool:
    """True when ``words`` writes in place and the allow ``rule`` names sed's options, not ``-i``.

    ``words``: a command's allow form (:attr:`goosectx.shell_forms.CommandForms.words`).
    ``shell(sed -n*)`` does not cover ``sed -n -i 1p f``; ``shell(sed*)`` and ``shell(sed -i*)``
    do.
    """
    spec = rule.partition("(")[2].removesuffix(")").split()
    if not spec or spec[0] not in SED or not any(w.startswith("-") for w in spec[1:]):
        return False
    if any(w.startswith(("-i", "--in", "--i")) or w.startswith("-") and not w.startswith("--")
           and "i" in w for w in spec[1:]):
        return False  # the rule names -i (alone or in a cluster)
    try:
        argv = shlex.split(words)
    except ValueError:
        return True
    return bool(argv) and argv[0] in SED and _options(argv[1:])[0] is not None
