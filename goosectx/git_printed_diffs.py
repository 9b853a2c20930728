"""A diff git prints from its own objects, piped into ``git apply``: judged as ``git stash apply``.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.diff_targets` judges a diff ``git apply`` (or ``git am``) reads from a pipe.
``git stash show -p | git apply``, ``git diff --cached | git apply -R``, ``git show HEAD | git
apply -R``: the diff names files of the repository's own commits, stash or index, as ``git
stash apply`` or ``git cherry-pick`` writes them, and git refuses a name in ``.git`` (``invalid
path``), outside the work tree or beyond a link. So such a line is no diff "that cannot be
read": only in a git repository, no ``cd`` in the line, the printer plain — a literal line, no
option that renames (``--relative``, ``--src-prefix``, ``--no-index``), runs a program
(``--ext-diff``) or writes (``--output``), no global option or variable (``git -c
diff.external=…``, ``GIT_…=``), no operand naming a protected, sensitive or outside path (a
tag named ``node_modules/x/i.js`` on a blob; ``git diff a .env`` outside a repository) — and
``git apply`` takes the names as git wrote them and writes nothing else (its default ``-p1``,
no ``--directory``, ``--unsafe-paths``, ``--build-fake-ancestor=F`` or global option:
:data:`_APPLYING`). ``git show REV`` may print a blob (any text) unless REV is ``HEAD``'s
(always a commit); ``git format-patch --stdout`` prints commit messages as they are, and one
may hold a diff of any name (``git apply`` and ``git am`` take it): both still ask, as
anything else in a pipe does.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.diff_appliers import Applied
from goosectx.prompts import find_repo_root
from goosectx.protected_paths import Where, moves, protected_write
from goosectx.shell_lexer import lex
from goosectx.written_names import sensitive_or_outside

_PLAIN = {
    "stash": frozenset({"-p", "--patch", "--binary", "--full-index", "-u",
                        "--include-untracked", "--only-untracked", "--no-color"}),
    "diff": frozenset({"-p", "--patch", "--cached", "--staged", "--binary", "--full-index",
                       "-R", "--no-color", "--no-ext-diff", "--no-textconv"}),
    "show": frozenset({"-p", "--patch", "--binary", "--full-index", "--no-color",
                       "--no-ext-diff", "--no-textconv", "--format=", "--pretty=format:"}),
}
"""Per printer, the options that change neither the names it prints nor where it writes."""
_CONTEXT = re.compile(r"-U\d+|--unified=\d+")
"""``-U5``: context lines."""
_REVISION = re.compile(r"[\w][\w./@{}^~-]*(?:\.\.\.?[\w./@{}^~-]*)?")
"""A revision or range as written (``HEAD~2``, ``origin/main..HEAD``, ``stash@{1}``): no ``:``
(``REV:PATH`` is a blob), no space, nothing bash expands."""
_APPLYING = re.compile(
    r"apply|am|-R|--reverse|--index|--cached|-3|--3way|--reject|--recount|-v|--verbose|-q|"
    r"--quiet|-s|--signoff|-k|--keep|--keep-cr|--no-keep-cr|--scissors|--no-scissors|"
    r"--ignore-whitespace|--ignore-space-change|--allow-empty|-C\d+|--whitespace=\w+|"
    r"--(?:include|exclude)=[^=]+")
"""``git apply|am`` words that change no name it writes and write nothing else (not
``--build-fake-ancestor=F``: an index file at F)."""
_HEAD = re.compile(r"HEAD(?:[~^]\d*)*|stash@\{\d+\}")
"""Revisions that are always commits (what ``git show`` prints a diff of, not a blob)."""


def printed_by_git(name: str, args: list[str], how: Applied, line: str,
                   where: Where | None) -> bool:
    """True when every ``git ARGS`` (an apply or am) in ``line`` reads a plain printer's diff.

    ``name`` is ``git`` (``patch``, which follows links and takes any name: never). The
    printer is the simple command just before it, joined by one ``|`` (not a group's or
    subshell's end, nothing redirected into the applier, ``line`` with no ``<``).
    """
    if name != "git" or how.files or how.directory or how.unsafe_paths or how.strip != 1 or (
            "<" in line or where is None or "GIT_" in line or moves(line)) or (
                find_repo_root(where.root) is None):
        return False
    if args[:1] not in (["apply"], ["am"]) or not all(map(_APPLYING.fullmatch, args)):
        return False  # git -C DIR apply, git apply --build-fake-ancestor=F
    parts = lex(line)
    found = False
    for before, part in zip(parts, parts[1:], strict=False):
        if [w.value for w in part.words] != [name, *args]:
            continue
        words = before.words
        if part.joint != "|" or before.piped or before.here or before.depth != part.depth or (
                any(w.expands or w.pattern for w in words)) or not _plain(
                    [w.value for w in words], where):
            return False
        found = True
    return found


def _plain(words: list[str], where: Where) -> bool:
    """True when ``words`` are a printer of :data:`_PLAIN` naming no protected path."""
    if words[:1] != ["git"] or len(words) < 2:
        return False
    sub, rest = words[1], words[2:]
    if sub == "stash":
        if rest[:1] != ["show"]:
            return False
        rest = rest[1:]
    known = _PLAIN.get(sub)
    if known is None:
        return False
    ended = False
    for word in rest:
        if word == "--" and sub == "diff" and not ended:
            ended = True  # pathspecs: which of the tracked files
        elif not ended and word[:1] == "-":
            if word not in known and not _CONTEXT.fullmatch(word):
                return False
        elif not ended and not _revision(sub, word):
            return False
        elif protected_write("git", word, where) or sensitive_or_outside(word, where):
            return False  # git diff tagA node_modules/x/i.js: a tag so named on a blob
    return True


def _revision(sub: str, word: str) -> bool:
    if sub == "stash":
        return word.isdigit() or _HEAD.fullmatch(word) is not None
    if sub == "show":
        return _HEAD.fullmatch(word) is not None
    return _REVISION.fullmatch(word) is not None and ":" not in word
