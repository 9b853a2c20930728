"""The paths a shell word that bash expands as a pattern can name: braces, then globs.

For a ``!command`` the user types (:func:`goosectx.sensitive.sensitive_in_command`):
``cat .en?`` and ``cat ~/.aw[s]/credentials`` name ``.env`` and the AWS credentials as surely
as writing them out. Bash's order is kept: brace expansion (``{a,b}``, ``{1..3}``,
``{a..c}``), then each result's ``~``, then pathname expansion, where ``*``, ``?`` and
``[…]`` match no leading dot unless the pattern writes one (Python's :mod:`glob` keeps the
same rule). A word that would give more than :data:`MAX_NAMES` names is not walked further.

Core module: no printing, no ``cli`` imports.
"""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

MAX_NAMES = 10_000
"""Names one word is expanded to at most; past it :func:`pattern_paths` gives up (``None``)."""

_SEQUENCE = re.compile(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])")


class _TooMany(Exception):
    pass


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


def pattern_paths(word: str, working_dir: Path) -> list[Path] | None:
    """The absolute paths ``word`` (its value, quotes removed) can name as bash expands it.

    Each brace alternative as written, and the existing files its glob matches (relative
    ones taken in ``working_dir``). ``None``: more than :data:`MAX_NAMES`, not all looked at.
    """
    words: list[str] = []
    found: list[Path] = []
    try:
        _braces(word, words)
        for one in words:
            try:
                path = Path(one).expanduser()
            except RuntimeError:  # ~nobody: bash leaves it as written
                path = Path(one)
            found.append(Path(os.path.abspath(working_dir / path)))
            if not glob.has_magic(str(path)):
                continue
            for match in glob.iglob(str(path), root_dir=working_dir):
                found.append(Path(os.path.abspath(working_dir / match)))
                if len(found) > MAX_NAMES:
                    raise _TooMany
    except _TooMany:
        return None
    return found
