"""The sensitive paths a glob word may match when the files it ran on are not here.

docs/architecture.md §4 (clause "permission rules"). A command of an imported transcript (a
Codex user's ``!cat .[e]nv``) ran on another machine, or on files since changed: its glob
words cannot be expanded against the disk (:func:`goosectx.glob_words.pattern_paths` finds
no ``.env`` where none is), so each counts by the sensitive names it can match — the
examples :data:`goosectx.git_pathspecs.EXAMPLES` lists (``.env``, ``.env.local``,
``id_rsa``, ``.netrc``, ``.git/config``…), matched name by name as bash matches (``*`` spans
no ``/`` and matches no leading dot the pattern does not write; case folded, as
:func:`goosectx.sensitive.sensitive_why` folds it), and the pattern's own plainest name
(``priv*.pem`` as ``priv.pem``). Asks more, never less: ``cat *`` may match ``id_rsa``, a
key may be anywhere; but ``*`` matches no dotfile (``.env``, ``.netrc``), nor is a tool's own
file (``fish_history``, ``credentials.tfrc.json``) taken to be outside its dir.

Core module: no printing.
"""

from __future__ import annotations

import fnmatch
import glob
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from goosectx.git_pathspecs import EXAMPLES
from goosectx.glob_words import bash_brackets

_BRACKET = re.compile(r"\[([!^]?)(.)[^\]]*\]")
_HOMES = {"fish_history": ".local/share/fish", "credentials.tfrc.json": ".terraform.d"}
"""Sensitive names that live in one dir only (a tool's own): a glob elsewhere (``cat *.json``
in a project) is not taken to match them; a key file (``id_rsa``, ``*.pem``) may be anywhere."""


def unseen_matches(paths: Iterable[Path]) -> Iterator[Path]:
    """For each glob path of ``paths`` (absolute), paths it may match that name an example.

    Each example (its names in a row) put where the pattern's names match it, the rest of the
    pattern kept; and the pattern with ``*`` as nothing, ``?`` as ``x`` and a bracket as its
    first member. A path with no glob gives none (it is judged as written).
    """
    for path in paths:
        if not glob.has_magic(str(path)):
            continue
        names = list(path.parts)
        yield Path(*(_plainest(name) for name in names))
        for example in EXAMPLES:
            wanted = example.split("/")
            for at in range(len(names) - len(wanted) + 1):
                home = _HOMES.get(example, "").split("/") if example in _HOMES else []
                if home and [n.lower() for n in names[max(0, at - len(home)):at]] != home:
                    continue  # cat *.json: no credentials.tfrc.json outside ~/.terraform.d
                if all(_matches(name, pattern) for name, pattern in
                       zip(wanted, names[at:at + len(wanted)], strict=True)):
                    yield Path(*names[:at], *wanted, *names[at + len(wanted):])


def _matches(name: str, pattern: str) -> bool:
    """True when bash's ``pattern`` (one name of a path) matches ``name``, case folded."""
    if name.startswith(".") and not pattern.startswith("."):
        return False  # bash: a leading dot is matched only when written
    readable = bash_brackets(pattern)
    return readable is None or fnmatch.fnmatchcase(name.lower(), readable.lower())


def _plainest(pattern: str) -> str:
    """A name ``pattern`` matches: ``*`` as nothing, ``?`` as ``x``, a bracket as its first."""
    if not glob.has_magic(pattern):
        return pattern
    plain = _BRACKET.sub(lambda m: "\0" if m[1] else m[2], pattern)  # [!a]: not a, \0 here
    return plain.replace("*", "").replace("?", "x").replace("\0", "x") or "x"
