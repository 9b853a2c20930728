"""git pathspecs and ``REV:PATH`` words that may name a sensitive file no word names as a path.

docs/architecture.md §4 (clause "permission rules"). git matches a pathspec against the paths it
tracks, and those of every commit ``git log -p`` walks, not against the files on disk: ``git
log -p -- '*.env'`` printed a ``.env`` committed once and deleted since, which no glob of the
working tree shows. A pathspec's ``*`` spans ``/`` (``src/*`` matches ``src/a/.env``); magic
(``:(glob)``, ``:(icase)``, ``:/``, ``:(top)``) changes how or from where it matches. ``git
show HEAD:.env`` prints a file of a commit. :func:`pathspec_reads` tells when one of git's
operands may match a sensitive name (:data:`EXAMPLES`, the names real projects hold, checked
with the path's literal leading dirs and case folded; an ``:(exclude)`` pathspec only narrows),
read by :func:`goosectx.hidden_names.hidden_names`.

Core module: no printing.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from pathlib import Path

from goosectx.sensitive import SENSITIVE_NAMES, sensitive_why
from goosectx.shell_options import short_value

EXAMPLES: tuple[str, ...] = (
    *SENSITIVE_NAMES, ".env", ".env.local", ".env.production", ".env.development",
    ".env.test", ".env.staging", ".env.example", ".envrc", "x.pem", "x.key", "x.p12", "x.pfx",
    "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "id_rsa.pub", ".git/config",
    ".config/gh/hosts.yml", ".config/gcloud/credentials.db", ".cargo/credentials.toml",
    ".cargo/credentials", ".config/hub")
"""Sensitive names (:mod:`goosectx.sensitive`'s list and examples of its globs: ``.env*``,
``*.pem``, ``*.key``, ``*.p12``, ``*.pfx``, ``id_*``) a glob pathspec is tried against."""
_MAGIC = re.compile(r":(?:\(([^)]*)\)|([/!^]*))")
"""A pathspec's magic: ``:(glob,icase)``, or the short forms ``:/`` (top), ``:!`` / ``:^``
(exclude)."""
_GLOB = re.compile(r"[*?\[]")


def pathspec_reads(args: list[str], tracked: tuple[str, ...] | None = None) -> str | None:
    """Why ``git ARGS`` may show a sensitive file through a pathspec or ``REV:PATH``, or ``None``.

    ``args`` are git's words after ``git``; every word but an option is tried (git takes a
    glob or a magic pathspec without ``--`` too), and ``git log -L``'s file (``-L1,1:.env``,
    ``-L :func:.env``: the name after the last colon). ``tracked``: for a worktree diff
    (:func:`worktree_diff`), the sensitive paths its index lists: a glob is tried against
    them alone (:func:`goosectx.git_index.tracked_paths`), not against :data:`EXAMPLES`.
    """
    for i, word in enumerate(args):
        line_range = word[2:] if word.startswith("-L") and len(word) > 2 else (
            word if i and args[i - 1] == "-L" else None)
        if line_range is not None and ":" in line_range:  # -L1,1:.env, -L :func:.env
            path = line_range.rsplit(":", 1)[1]
            if path and sensitive_why(Path("/", path)) is not None:
                return f"{word} names {path}, a sensitive file, for its line history"
            continue
        if word.startswith("-") or not word or "://" in word:
            continue
        if (found := _why(word, tracked)) is not None:
            return found
    return None


def _why(word: str, tracked: tuple[str, ...] | None = None) -> str | None:
    if re.match(r":[0-3]:", word):  # :0:.env, a stage of the index
        word = word[2:]
    magic = _MAGIC.match(word)
    if magic is None and ":" in word:  # HEAD:.env, :0:.env, v1.2:src/.env
        path = word.rsplit(":", 1)[1] if word.startswith(":") else word.partition(":")[2]
        if path and sensitive_why(Path("/", path)) is not None:
            return f"{word} names {path} in a commit or the index, a sensitive file"
        return None
    words = {w.strip() for w in (magic[1] or "").lower().split(",")} if magic else set()
    short = (magic[2] or "") if magic else ""
    if "exclude" in words or "!" in short or "^" in short:
        return None  # :(exclude)x, :!x: it narrows what another pathspec matches
    path = word[magic.end():] if magic else word
    if any(w.startswith("attr") for w in words):
        return f"the pathspec {word} matches by attributes the project sets, any file"
    if "literal" not in words and "\\" in path:  # '\.env': git's escape, '[.]env' to fnmatch
        path = re.sub(r"\\(.)", lambda m: "[[]" if m[1] == "[" else f"[{m[1]}]", path)
    if "literal" in words or not _GLOB.search(path):
        if magic and path and sensitive_why(Path("/", path)) is not None:
            return f"the pathspec {word} names {path}, a sensitive file"
        return None
    if tracked is not None:
        found = next((one for one in tracked if _matches_tracked(path.lower(), one)), None)
        return None if found is None else (
            f"the pathspec {word} may match {found}, a sensitive file git tracks")
    if (example := _matching_example(path.lower())) is not None:
        return f"the pathspec {word} may match {example}, a sensitive file git tracks or tracked"
    return None


def _matches_tracked(pattern: str, path: str) -> bool:
    """True when ``pattern`` (lower case) matches ``path`` from some dir on its way (any cwd)."""
    names = path.lower().split("/")
    return any(fnmatch.fnmatchcase("/".join(names[i:]), pattern) for i in range(len(names)))


_NOT_WORKTREE = ("--cached", "--staged", "--merge-base", "--no-index")
"""``git diff`` options that compare a commit (or files outside the index): not a worktree
diff; git takes any prefix of a long option (``--cach``)."""


def worktree_diff(args: list[str]) -> bool:
    """True for git's words (``diff`` first) of a diff of the working tree against the index.

    No revision (every word before ``--`` an option, or a glob with none of ``:@^~`` nor
    ``..``), no :data:`_NOT_WORKTREE` option: git then shows only files its index lists.
    """
    if args[:1] != ["diff"]:
        return False
    for word in args[1:]:
        if word == "--":
            return True
        if word.startswith("--"):
            name = word.partition("=")[0]
            if len(name) > 2 and any(one.startswith(name) for one in _NOT_WORKTREE):
                return False
        elif not word.startswith("-") and (not _GLOB.search(word) or ".." in word or any(
                c in word for c in ":@^~")):
            return False  # a revision, or a word git may read as one
    return True


@functools.lru_cache(maxsize=1024)
def _matching_example(pattern: str) -> str | None:
    """The first sensitive path ``pattern`` (lower case, ``*`` spanning ``/``) matches."""
    literal = _GLOB.split(pattern, 1)[0]
    lead = literal.rpartition("/")[0]
    lead = f"{lead}/" if lead else ""
    for example in EXAMPLES:
        for path in (example, f"x/{example}", f"{example}/x", f"x/{example}/y"):
            for tried in (lead + path, path):
                if fnmatch.fnmatchcase(tried, pattern):
                    return tried
    return None


_GREP_BEYOND = ("--untracked", "--no-index", "--recurse-submodules")
"""``git grep`` options that search files its index does not list (any prefix)."""
_GREP_VALUED = "efABCm"
_GREP_LONG_VALUED = frozenset({"--max-depth", "--threads", "--max-count", "--context",
                               "--after-context", "--before-context"})


def worktree_grep(args: list[str]) -> bool:
    """True for git's words (``grep`` first) of a ``git grep`` of the files its index lists.

    As :func:`worktree_diff`: no revision (every operand before ``--`` but the pattern a glob
    with none of ``:@^~`` nor ``..``), no :data:`_GREP_BEYOND` option (``--cached`` searches the
    same paths). The pattern is the first operand unless ``-e`` or ``-f`` gives one.
    """
    if args[:1] != ["grep"]:
        return False
    operands: list[str] = []
    given = False
    i = 1
    while i < len(args):
        word = args[i]
        if word == "--":
            break
        if word.startswith("--"):
            name = word.partition("=")[0]
            if len(name) > 2 and any(one.startswith(name) for one in _GREP_BEYOND):
                return False
            i += 2 if name in _GREP_LONG_VALUED and "=" not in word else 1
            continue
        if word.startswith("-") and word != "-":
            short = short_value(args, i, _GREP_VALUED)
            given = given or short.letter in ("e", "f")
            i = short.next
            continue
        operands.append(word)
        i += 1
    for word in operands[0 if given else 1:]:
        if not _GLOB.search(word) or ".." in word or any(c in word for c in ":@^~"):
            return False  # a revision, or a word git may read as one
    return True


_NAMES_OPTIONS = {
    "log": re.compile(
        r"--(?:oneline|stat(?:=.*)?|numstat|shortstat|name-only|name-status|summary|follow"
        r"|format=.*|pretty(?:=.*)?|max-count=.*|skip=.*|since=.*|until=.*|after=.*|before=.*"
        r"|author=.*|committer=.*|grep=.*|all|branches(?:=.*)?|tags(?:=.*)?|no-merges|merges"
        r"|reverse|graph|decorate(?:=.*)?|no-decorate|abbrev-commit|no-abbrev-commit|date=.*"
        r"|relative-date|first-parent|topo-order|date-order|no-color|color(?:=.*)?"
        r"|full-history|no-renames|dirstat(?:=.*)?|ancestry-path|left-right)"
        r"|-\d+|-n\d*|-[i]"),
    "ls-files": re.compile(
        r"--(?:cached|deleted|modified|others|ignored|killed|exclude-standard|full-name"
        r"|error-unmatch|directory|no-empty-directory|recurse-submodules|sparse|deduplicate"
        r"|exclude=.*|abbrev(?:=.*)?)|-[cdmoikztvx]+"),
}
"""Per git subcommand, the options after which it prints names, commit subjects and counts and
no file's contents (not ``git log -p``/``-u``/``-U``/``-L``/``-S``/``-G``/``--raw``/``--check``/
``-m``/``--cc``/``--word-diff``, nor ``git ls-files -s``/``--format``/``-X FILE``): any other
option may print contents, so it keeps asking."""
_NAMES_VALUED = {"log": frozenset({"-n"}), "ls-files": frozenset({"-x"})}
"""Of those, the ones written apart from their value (``git log -n 3``, ``ls-files -x PAT``)."""


def names_only(args: list[str]) -> bool:
    """True for a ``git log`` / ``git ls-files`` that prints names, subjects and counts only.

    ``args``: git's words, the subcommand first; its every option one of
    :data:`_NAMES_OPTIONS`: then no pathspec of it reads a file.
    """
    options = _NAMES_OPTIONS.get(args[0]) if args else None
    if options is None:
        return False
    i = 1
    while i < len(args):
        word = args[i]
        if word == "--":
            return True
        if word.startswith("-") and word != "-":
            if not options.fullmatch(word):
                return False
            i += 2 if word in _NAMES_VALUED[args[0]] else 1
            continue
        i += 1
    return True
