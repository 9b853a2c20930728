"""What ``git clean`` reaches below a dir: no ignored file without ``-x``, nothing with ``-n``.

docs/architecture.md §4: part of the sensitive-file check of a recursive command
(:mod:`goosectx.sensitive_shell`). ``git clean -n`` (``--dry-run``) only prints names; without
``-x`` or ``-X`` git leaves the files its ignore rules name alone, so ``git clean -fd`` with
``.env`` in ``.gitignore`` does not touch it. The ignore rules read are the repository's top
``.gitignore`` and ``.git/info/exclude``, by a file's name only: a rule with a ``/`` in it
ignores nothing here (a negation naming the file's name keeps it), so an unsure reading
reaches more, never less. A nested ``.gitignore`` is not read.

Core module: no printing.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

from goosectx.prompts import find_repo_root
from goosectx.recursive_reads import Printed
from goosectx.sensitive import expand_user

_MAX_IGNORE = 200_000
"""An ignore file past this size is not read (then nothing counts as ignored)."""


def git_clean_kept(args: list[str], base: Path) -> Printed | None:
    """Which files ``git clean ARGS`` run in ``base`` reaches, or ``None``: not ``git clean``.

    ``args``: the words after ``git``. ``-n``: none; ``-x``: all; ``-X``: all (the ignored
    ones are those it removes; judged as all); else those no ignore rule names.
    """
    if args[:1] != ["clean"]:
        return None
    flags = "".join(a[1:] for a in args[1:] if a[:1] == "-" and a[:2] != "--")
    longs = [a for a in args[1:] if a[:2] == "--"]
    if "n" in flags or any("--dry-run".startswith(a) and len(a) > 2 for a in longs):
        return lambda _name, _is_dir: False  # git clean -n: names printed, nothing removed
    if "x" in flags or "X" in flags:
        return None
    rules = _ignore_rules(base)
    return lambda name, is_dir: not _ignored(rules, name, is_dir)


def _ignore_rules(base: Path) -> list[str]:
    """The top ``.gitignore``'s and ``.git/info/exclude``'s lines, lowest precedence first."""
    top = find_repo_root(Path(expand_user(str(base))).absolute())
    if top is None:
        return []
    lines: list[str] = []
    for file in (top / ".git" / "info" / "exclude", top / ".gitignore"):
        try:
            if file.is_file() and file.stat().st_size <= _MAX_IGNORE:
                lines += file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    return [line.rstrip() for line in lines if line.strip() and not line.startswith("#")]


def _ignored(rules: list[str], name: str, is_dir: bool) -> bool:
    """True when the last rule naming ``name`` ignores it (by name only: see the module)."""
    ignored = False
    for rule in rules:
        negated = rule.startswith("!")
        pattern = rule[1:] if negated else rule
        dir_only = pattern.endswith("/")
        pattern = pattern.rstrip("/")
        if "/" in pattern:  # src/.env, /config, **/x: a path, not read here
            ignored = ignored and not (negated and fnmatchcase(name, pattern.rsplit("/", 1)[1]))
            continue
        if (is_dir or not dir_only) and fnmatchcase(name, pattern.replace("\\", "")):
            ignored = not negated
    return ignored
