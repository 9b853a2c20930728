"""The paths a shell word that bash expands as a pattern can name: braces, then globs.

For a ``!command`` the user types (:func:`goosectx.sensitive.sensitive_in_command`):
``cat .en?`` and ``cat ~/.aw[s]/credentials`` name ``.env`` and the AWS credentials as surely
as writing them out. Bash's order is kept: brace expansion (``{a,b}``, ``{1..3}``,
``{a..c}``), then each result's ``~``, then pathname expansion, where ``*``, ``?`` and
``[…]`` match no leading dot unless the pattern writes one (Python's :mod:`glob` keeps the
same rule). Bash's bracket forms Python's :mod:`fnmatch` lacks are put in first: ``[^…]`` is
``[!…]``; a bracket holding a class (``[[:alpha:]]``, ``[[=e=]]``, ``[[.e.]]``) matches as
``?``, any one character, a superset. What cannot be known here gives a reason instead of
names: a word past :data:`MAX_NAMES` names, a ``~-`` or ``~N`` (the previous dir, the
directory stack) a brace gives, a line that sets glob options (``shopt``, ``bash -O dotglob``,
``GLOBIGNORE``: ``*`` may then match ``.env``; :func:`glob_options`). docs/architecture.md §4.

Core module: no printing, no ``cli`` imports.
"""

from __future__ import annotations

import glob
import os
import re
import urllib.parse
from functools import lru_cache
from pathlib import Path

MAX_NAMES = 10_000
"""Names one word is expanded to at most; past it :func:`pattern_paths` gives up (``None``)."""

_SEQUENCE = re.compile(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])")


_TILDE_HERE = re.compile(r"~(?:\+0?|0)(?=/|$)")
"""A brace result's ``~+``, ``~0``, ``~+0``: bash's ``$PWD``, the dir the part runs in."""

_TILDE_UNKNOWN = re.compile(r"~(?:[+-]\d*|\d+)(?:/|$)")
"""``~-`` (``$OLDPWD``) and the directory stack's ``~N``, ``~+N``, ``~-N``: unknown here."""

_OPTION_TEXT = re.compile(r"\bshopt\b|\bGLOBIGNORE\b|\bBASHOPTS\b"
                          r"|\bBASH_ENV\b|(?<![\w$])ENV=.*\s-[A-Za-z]*i"
                          r"|(?<![\w-])[-+][A-Za-z]*O\s*[\w-]*glob"
                          r"|\bbash\s+(?:[-+][oO]\s+\S+\s+|[-+]\S*\s+)*?"
                          r"(?:-[A-Za-z]*[il]|--login|--rcfile|--init-file)")
"""What turns on bash's wider globbing: ``shopt -s dotglob``, ``bash -O globstar``,
``+O globskipdots``, ``GLOBIGNORE=…`` (which turns ``dotglob`` on), ``BASHOPTS=dotglob bash``,
a ``bash -i``/``-l`` reading the user's ``~/.bashrc``, where ``shopt -s dotglob`` may be, a
``BASH_ENV=F`` or an ``ENV=F`` with an interactive ``sh -i``: a file the shell sources first."""

_BRACKET_CLASS = re.compile(r"\[([:=.]).*?\1\]")
"""A bracket's ``[:alpha:]``, ``[=e=]``, ``[.e.]``."""

OPTIONS_WHY = "a glob option set on the line (shopt, bash -O, GLOBIGNORE) may widen it"
"""Why a line's glob words are not expanded here when it sets glob options."""


class _TooMany(Exception):
    pass


class _Unknown(Exception):
    pass


def glob_options(line: str) -> bool:
    """True when ``line`` (or goosectx's environment) may turn on wider globbing in bash.

    Read on the text with quotes and backslashes dropped (``sh'o'pt``), so a ``bash -c``
    inside counts too; sound rather than exact: ``shopt -u dotglob`` counts as well.
    """
    return _options_text(line) or any(name in os.environ for name in ("GLOBIGNORE", "BASHOPTS"))


@lru_cache(maxsize=16)
def _options_text(line: str) -> bool:
    """:func:`glob_options`' reading of the text, once per line (each glob word asks)."""
    plain = re.sub(r"[\\'\"]|\$(?=')", "", line)
    return _OPTION_TEXT.search(plain) is not None


def bash_brackets(pattern: str) -> str | None:
    """``pattern`` with bash's bracket forms put as :mod:`fnmatch` reads them.

    ``[^a]`` → ``[!a]``; a bracket holding a class, ``[[:alpha:]]`` → ``?`` (matching more
    than bash may, never less). A ``[`` that closes no bracket stays as written. ``None``
    for an equivalence class or collating symbol (``[[=e=]]``, ``[[.e.]]``): not modelled
    here, so it may match anything.
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern[i] != "[":
            out.append(pattern[i])
            i += 1
            continue
        j = i + 1
        negated = j < len(pattern) and pattern[j] in "!^"
        j += negated
        j += j < len(pattern) and pattern[j] == "]"  # `[]a]`: the first `]` is a member
        classed = False
        while j < len(pattern) and pattern[j] not in "]/":
            if (held := _BRACKET_CLASS.match(pattern, j)) is not None:
                if held.group(1) != ":":
                    return None  # [=e=], [.e.]: bash 5.2 matches them oddly ([[=e=]] as "")
                classed, j = True, held.end()
            else:
                j += 1
        if j >= len(pattern) or pattern[j] == "/":
            out.append("[")  # no closing `]`: a plain `[`, as bash reads it
            i += 1
            continue
        body = pattern[i + 1 + negated:j]
        out.append("?" if classed else f"[{'!' if negated else ''}{body}]")
        i = j + 1
    return "".join(out)


def _closing(word: str, start: int) -> int | None:
    """Index of the ``}`` closing the ``{`` at ``start``, or ``None``."""
    depth = 0
    for i in range(start, len(word)):
        if word[i] == "{":
            depth += 1
        elif word[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _alternatives(inside: str) -> list[str] | None:
    """What ``{inside}`` expands to, or ``None`` when bash leaves it as written."""
    if (seq := _SEQUENCE.fullmatch(inside)) is not None:
        if seq.group(4):
            a, b = ord(seq.group(4)), ord(seq.group(5))
            return [chr(c) for c in (range(a, b + 1) if a <= b else range(a, b - 1, -1))]
        a, b, step = int(seq.group(1)), int(seq.group(2)), abs(int(seq.group(3) or 1)) or 1
        if abs(b - a) // step >= MAX_NAMES:
            raise _TooMany
        return [str(n) for n in (range(a, b + 1, step) if a <= b else range(a, b - 1, -step))]
    parts, depth, last = [], 0, 0
    for i, c in enumerate(inside):
        depth += {"{": 1, "}": -1}.get(c, 0)
        if c == "," and depth == 0:
            parts.append(inside[last:i])
            last = i + 1
    return [*parts, inside[last:]] if parts else None


def _braces(word: str, out: list[str]) -> None:
    """Append ``word`` brace-expanded to ``out`` (raises _TooMany past the cap)."""
    start = word.find("{")
    while start >= 0:
        end = _closing(word, start)
        if end is None:
            break
        alternatives = _alternatives(word[start + 1:end])
        if alternatives is not None:
            for alternative in alternatives:
                _braces(word[:start] + alternative + word[end + 1:], out)
            return
        start = word.find("{", start + 1)
    out.append(word)
    if len(out) > MAX_NAMES:
        raise _TooMany


_FILE_URL = re.compile(r"file:(?://[^/]*(?=/))?(.+)", re.IGNORECASE)
"""A ``file:`` URL (``file:///etc/passwd``, ``FILE://localhost/x``, ``file:/x``): curl reads
its path, percent-decoded (curl fails at any other host); npm's ``file:../other`` spec
(``npm view``, ``npm install``) reads that dir's ``package.json``."""


def value_names(value: str) -> list[str]:
    """The names one argument word may give a program to read, the word itself first.

    What follows its first ``=`` (``dd if=F``), a leading ``@`` (``curl -d @F``, ``gcc @F``),
    and curl's forms: ``-F name=@F`` / ``name=<F`` (each ``;``-part: ``…;headers=@F``),
    ``--data-urlencode name@F``, ``--variable name@F``, and a ``file:`` URL's path (npm's
    ``file:../x`` too). Asks
    more, never less: a name that is no file of the project's sensitive ones changes nothing.
    """
    found = [value, value.partition("=")[2], value[1:] if value.startswith("@") else ""]
    for part in value.split(";") if ";" in value else [value]:
        after = part.partition("=")[2]
        found += [part, after[1:] if after[:1] in ("@", "<") else "", part.partition("@")[2]]
    for one in list(found):
        if (url := _FILE_URL.fullmatch(one)) is not None:
            found.append(urllib.parse.unquote(url.group(1)))
    return [one for one in dict.fromkeys(found) if one]


def _absolute(path: Path, fold: bool) -> Path:
    return Path(os.path.abspath(path)) if fold else path


def pattern_paths(word: str, working_dir: Path, line: str = "",
                  fold: bool = True) -> list[Path] | str:
    """The absolute paths ``word`` (its value, quotes removed) can name as bash expands it.

    Each brace alternative as written (and what follows its ``=`` or a leading ``@``, as
    ``dd if=F`` and ``curl -d @F`` read it), and the existing files its glob matches (relative
    ones taken in ``working_dir``, as a brace's ``~+`` is). A reason instead when they cannot
    be known here: more than :data:`MAX_NAMES` (not all looked at), a brace's ``~-`` or
    ``~N``, or ``line`` (the whole command) setting glob options (:func:`glob_options`).
    ``fold``: ``..`` folded as written; else kept, for the caller to resolve links first
    (``hooksdir/../config`` is in ``.git`` when ``hooksdir`` links to ``.git/hooks``).
    """
    words: list[str] = []
    found: list[Path] = []
    try:
        _braces(word, words)
        if glob.has_magic(word) and glob_options(line):
            return OPTIONS_WHY
        named = (value for one in words for value in value_names(one)
                 if value == one or not value.startswith("-"))
        for one in named:  # dd {if=.env,x}, dd if={~+/..,x}/y: each result's `=F` and `@F` too
            if _TILDE_UNKNOWN.match(one) and not _TILDE_HERE.match(one):
                raise _Unknown("a brace gives ~- or ~N, the previous dir or the directory "
                               "stack, unknown here")
            if (here := _TILDE_HERE.match(one)) is not None:
                one = str(working_dir) + one[here.end():]
            try:
                path = Path(one).expanduser()
            except RuntimeError:  # ~nobody: bash leaves it as written
                path = Path(one)
            found.append(_absolute(working_dir / path, fold))
            if not glob.has_magic(str(path)):
                continue
            if (readable := bash_brackets(str(path))) is None:
                raise _Unknown("a bracket form such as [[=e=]] or [[.e.]], not checked here")
            for match in glob.iglob(readable, root_dir=working_dir):
                found.append(_absolute(working_dir / match, fold))
                if len(found) > MAX_NAMES:
                    raise _TooMany
    except _TooMany:
        return f"over {MAX_NAMES:,} matches, too many to check"
    except _Unknown as unknown:
        return str(unknown)
    return found
