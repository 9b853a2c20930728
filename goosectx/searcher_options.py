"""Which words of an ``rg`` / ``ag`` / ``ack`` command are the paths it searches below.

docs/architecture.md §4 (clause "permission rules"). ``rg -uu -m 5 KEY`` searches the working
dir: ``5`` is ``-m``'s value and ``KEY`` the pattern, so the walk for sensitive files
(:mod:`goosectx.recursive_reads`) must take ``.``, not ``5``. rg's options that take a value
(ripgrep 13's ``--help`` and 14's additions) are read as rg reads them: ``--opt=V``, ``--opt
V``, ``-mN`` glued or ``-m N``, in a cluster (``-nA 2``); long options exactly (rg takes no
prefix). The first operand is the pattern unless ``-e``/``-f``/``--regexp``/``--file`` gives
it. A long option not known here may take the next word: the walk then takes ``.`` too
(asks more, never less). ``ag`` and ``ack`` are read with their own short valued letters.
``rg --pre CMD`` runs CMD on every file searched: :func:`runs_program` says so.

Core module: no printing.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from pathlib import Path

from goosectx.shell_options import short_value

RG_VALUED_SHORT = "ABCdEefgjMmrtT"
"""rg's short options that take a value: ``-A 2``, ``-m5``, ``-g '!x'``, ``-t py``."""
RG_VALUED_LONG = frozenset({
    "--after-context", "--before-context", "--context", "--color", "--colors",
    "--context-separator", "--dfa-size-limit", "--encoding", "--engine",
    "--field-context-separator", "--field-match-separator", "--file", "--glob", "--iglob",
    "--ignore-file", "--max-columns", "--max-count", "--max-depth", "--maxdepth",
    "--max-filesize", "--path-separator", "--pre", "--pre-glob", "--regex-size-limit",
    "--regexp", "--replace", "--sort", "--sortr", "--threads", "--type", "--type-not",
    "--type-add", "--type-clear", "--hostname-bin", "--hyperlink-format", "--generate",
})
"""rg's long options that take the next word as their value when written without ``=``."""
RG_FLAGS = frozenset({
    "--auto-hybrid-regex", "--binary", "--block-buffered", "--byte-offset", "--case-sensitive",
    "--column", "--count", "--count-matches", "--crlf", "--debug", "--files",
    "--files-with-matches", "--files-without-match", "--fixed-strings", "--follow",
    "--glob-case-insensitive", "--help", "--heading", "--hidden", "--ignore-case",
    "--ignore-file-case-insensitive", "--include-zero", "--invert-match", "--json",
    "--line-buffered", "--line-number", "--line-regexp", "--max-columns-preview", "--mmap",
    "--multiline", "--multiline-dotall", "--no-config", "--no-filename", "--no-heading",
    "--no-ignore", "--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-files",
    "--no-ignore-global", "--no-ignore-messages", "--no-ignore-parent", "--no-ignore-vcs",
    "--no-line-number", "--no-messages", "--no-mmap", "--no-pcre2-unicode", "--no-require-git",
    "--no-unicode", "--null", "--null-data", "--one-file-system", "--only-matching",
    "--passthru", "--pcre2", "--pcre2-version", "--pretty", "--quiet", "--search-zip",
    "--smart-case", "--stats", "--text", "--trim", "--type-list", "--unrestricted",
    "--version", "--vimgrep", "--with-filename", "--word-regexp", "--no-context-separator",
    "--no-block-buffered", "--no-line-buffered", "--no-binary", "--no-hidden", "--no-follow",
    "--no-search-zip", "--no-text", "--no-crlf", "--no-pcre2", "--no-multiline",
    "--no-multiline-dotall", "--no-auto-hybrid-regex", "--no-ignore-file-case-insensitive",
    "--no-glob-case-insensitive", "--no-max-columns-preview", "--no-column", "--no-trim",
    "--no-stats", "--no-one-file-system", "--no-fixed-strings", "--no-invert-match",
    "--no-include-zero", "--no-byte-offset", "--require-git", "--unicode",
    "--pcre2-unicode", "--no-encoding", "--no-pre", "--passthrough",
    "--sort-files", "--no-sort-files", "--ignore-dot", "--ignore-exclude", "--ignore-files",
    "--ignore-global", "--ignore-parent", "--ignore-vcs", "--messages", "--ignore-messages",
})
"""rg's long options that take no value (13's and 14's, their ``--no-`` forms)."""
_SHORT = {"rg": RG_VALUED_SHORT, "ag": "ABCGgmpW", "ack": "ABCgm", "ack-grep": "ABCgm"}
"""Per searcher, its short options that take a value (ag's ``-G RE``, ack's ``-g RE``)."""
_PATTERN_GIVERS = ("e", "f")
_PATTERN_LONGS = ("--regexp", "--file")


def searched_dirs(name: str, args: list[str]) -> list[str]:
    """The words a searcher named ``name`` searches below: its path operands, or ``.``.

    ``rg -m 5 KEY`` → ``["."]``; ``rg KEY src`` → ``["src"]``; ``rg -e KEY src`` →
    ``["src"]``; ``rg --frobnicate X KEY`` → ``["KEY", "."]`` (``X`` may be the value of an
    option not known here, so ``KEY`` may be a path and ``.`` the dir searched).
    """
    valued = _SHORT.get(name, "")
    operands: list[str] = []
    given = unsure = False
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            operands.extend(args[i + 1:])
            break
        if word.startswith("--") and len(word) > 2:
            option, eq, _value = word.partition("=")
            given |= option in _PATTERN_LONGS
            if eq or option in RG_FLAGS and name == "rg":
                i += 1
                continue
            if option in RG_VALUED_LONG and name == "rg":
                i += 2
                continue
            unsure = True  # ag's --depth 3, an option not known here: the next may be a value
            i += 1
            continue
        if word.startswith("-") and len(word) > 1:
            short = short_value(args, i, valued)
            given |= short.letter in _PATTERN_GIVERS
            i = short.next
            continue
        operands.append(word)
        i += 1
    paths = operands if given else operands[1:]
    if unsure and operands:
        return [*operands, "."]
    return paths or ["."]


def runs_program(name: str, args: list[str]) -> str | None:
    """The ``--pre`` word of an ``rg`` command (``--pre CMD``: CMD runs on each file), or ``None``.

    rg 14 reads ``--pre=CMD`` and ``--pre CMD``; ``--no-pre`` undoes it (counted anyway).
    """
    if name != "rg":
        return None
    for word in args:
        if word == "--":
            break
        if word.partition("=")[0] == "--pre":
            return word
    return None



def _base_glob(glob: str) -> str:
    """A glob as matched against a base name: ``**/*.py`` is ``*.py`` (gitignore's rules)."""
    while glob.startswith("**/"):
        glob = glob[3:]
    return glob


def hidden_whitelist(args: list[str]) -> bool | Callable[[str, bool], bool]:
    """Which hidden names rg's ``args`` whitelist though rg skips hidden ones: all, none, a filter.

    ``-g GLOB`` / ``--glob`` / ``--iglob`` (not ``!GLOB``) whitelist the names they match
    (``-g '.env'``, ``-g '*'``); a glob with a ``/`` is not matched here (all);
    ``--type-add`` and ``--ignore-file`` may whitelist any (all). A built-in ``-t`` type
    matches no hidden secret (``rg --type-list``), and never a dir.
    """
    globs: list[tuple[str, bool]] = []
    i = 0
    while i < len(args) and args[i] != "--":
        word = args[i]
        value: str | None = None
        folded = False
        if word.startswith("--"):
            option, eq, given = word.partition("=")
            if option in ("--type-add", "--ignore-file"):
                return True
            if option in ("--glob", "--iglob"):
                value = given if eq else (args[i + 1] if i + 1 < len(args) else None)
                folded = option == "--iglob"
                i += 0 if eq else 1
            elif option in RG_VALUED_LONG and not eq:
                i += 1
        elif word.startswith("-") and len(word) > 1:
            short = short_value(args, i, RG_VALUED_SHORT)
            value = short.value if short.letter == "g" else None
            i = short.next
            if value is not None:
                globs.append((value, False))
            continue
        if value is not None:
            globs.append((value, folded))
        i += 1
    every = "--glob-case-insensitive" in args[:i]  # -g as --iglob
    kept = [(_base_glob(glob).lower() if folded or every else _base_glob(glob), folded or every)
            for glob, folded in globs if not glob.startswith("!")]
    if not kept:
        return False
    if any("/" in glob for glob, _folded in kept):
        return True

    def whitelisted(name: str, _is_dir: bool) -> bool:
        return any(fnmatch.fnmatchcase(name.lower() if folded else name, glob)
                   for glob, folded in kept)

    return whitelisted


_TYPES: dict[str, tuple[str, ...]] = {
    "py": ("*.py", "*.pyi", "*.pyw"), "rust": ("*.rs",), "go": ("*.go",),
    "js": ("*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"), "ts": ("*.ts", "*.tsx", "*.cts", "*.mts"),
    "md": ("*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx", "*.ron"),
    "java": ("*.java", "*.jsp", "*.jspx", "*.properties"),
    "json": ("*.json", "composer.lock", "*.sarif"), "jsonl": ("*.jsonl",),
    "yaml": ("*.yaml", "*.yml"), "toml": ("*.toml", "Cargo.lock"), "css": ("*.css", "*.scss"),
    "html": ("*.ejs", "*.htm", "*.html"), "txt": ("*.txt",), "sql": ("*.psql", "*.sql"),
    "lua": ("*.lua",), "kotlin": ("*.kt", "*.kts"), "swift": ("*.swift",), "cs": ("*.cs",),
    "csv": ("*.csv",), "protobuf": ("*.proto",), "scala": ("*.sbt", "*.scala"), "tf": ("*.tf",),
    "php": ("*.php", "*.php3", "*.php4", "*.php5", "*.phpt", "*.phtml"),
}
"""rg's built-in types read here (``rg --type-list``, ripgrep 13 and 14, a superset): each
glob an extension or a plain name, none a dotfile. ``markdown`` is ``md``. Another type
(``sh`` takes ``.bashrc``, ``c``'s ``*.[chH]``) is not read: its walk reads every file."""
_TYPES["markdown"] = _TYPES["md"]
_UNREAD_GLOB = frozenset("/[]{}\\")
"""A glob holding one of these is not matched here (anchored, a class, alternatives, an escape)."""


def searcher_kept(name: str, args: list[str]) -> Callable[[str, bool], bool] | None:
    """Which files ``rg ARGS`` reads (dirs it enters) by its ``-g`` globs and ``-t`` types.

    rg's overrides (``-g``/``--glob``/``--iglob``, gitignore-style, ``!`` excludes): of the
    globs matching a name the last one wins; a file none matches is skipped when any glob is
    positive. With no glob matching, a ``-t`` type keeps only the files its globs match
    (:data:`_TYPES`; ``-T`` only leaves out more: not counted). A dir is entered unless a
    negative glob is the last to match it. ``None``: it reads every file (no filter, or one not
    read here: a glob of :data:`_UNREAD_GLOB`, an empty one, ``-g`` beside ``--iglob``, a
    type not known, ``--type-add``,
    ``--type-clear``, ``--no-glob-case-insensitive``, a ``RIPGREP_CONFIG_PATH``, ``-L``).
    """
    if name != "rg" or os.environ.get("RIPGREP_CONFIG_PATH"):
        return None
    globs: list[tuple[str, bool]] = []  # (glob, case folded)
    types: list[str] = []
    i = 0
    while i < len(args) and args[i] != "--":
        word = args[i]
        value: str | None = None
        if word.startswith("--"):
            option, eq, given = word.partition("=")
            if option in ("--type-add", "--type-clear", "--no-glob-case-insensitive",
                          "--follow"):
                return None
            if option in ("--glob", "--iglob", "--type"):
                value = given if eq else (args[i + 1] if i + 1 < len(args) else None)
                if value is None:
                    return None
                if option == "--type":
                    types.append(value)
                else:
                    globs.append((value, option == "--iglob"))
            i += 1 if eq or option not in RG_VALUED_LONG else 2
            continue
        if word.startswith("-") and len(word) > 1:
            short = short_value(args, i, RG_VALUED_SHORT)
            if "L" in short.flags:
                return None  # -L follows links: the walk takes every file below them
            if short.letter in ("g", "t") and short.value is None:
                return None
            if short.letter == "g" and short.value is not None:
                globs.append((short.value, False))
            elif short.letter == "t" and short.value is not None:
                types.append(short.value)
            i = short.next
            continue
        i += 1
    return _kept(globs, types, "--glob-case-insensitive" in args[:i])


def _kept(globs: list[tuple[str, bool]], types: list[str],
          every: bool) -> Callable[[str, bool], bool] | None:
    """The filter of :func:`searcher_kept` from its globs and types, ``None`` if not read here."""
    if not globs and not types or any(t not in _TYPES for t in types) or len(
            {folded for _glob, folded in globs}) > 1:
        return None  # rg adds every -g before every --iglob: their order is not the line's
    rules: list[tuple[str, bool, bool]] = []  # (base-name glob, positive, case folded)
    for glob, folded in globs:
        negated = glob.startswith("!")
        base = _base_glob(glob[negated:])
        if not base or _UNREAD_GLOB.intersection(base):
            return None
        folded |= every
        rules.append((base.lower() if folded else base, not negated, folded))
    positive = any(keeps for _glob, keeps, _folded in rules)
    typed = [glob.lower() for kind in types for glob in _TYPES[kind]]

    def kept(name: str, is_dir: bool) -> bool:
        for glob, keeps, folded in reversed(rules):
            if fnmatch.fnmatchcase(name.lower() if folded else name, glob):
                return keeps
        if is_dir or not positive and not typed:
            return True
        return not positive and any(fnmatch.fnmatchcase(name.lower(), glob) for glob in typed)

    return kept


IGNORE_FILES = (".gitignore", ".ignore", ".rgignore", ".agignore", ".git/info/exclude")
"""The ignore files rg (ag) reads in a dir it searches and in each dir above it."""


class Whitelists:
    """Whether an ignore file in a dir or above it has a ``!`` line (``!.env``).

    rg then searches the hidden names it whitelists; which ones is not worked out here: every
    hidden name in that dir counts (asks more, never less). Git's global ignore file
    (``$XDG_CONFIG_HOME/git/ignore``) counts for every dir; a ``core.excludesFile`` set
    elsewhere is not read.
    """

    def __init__(self) -> None:
        self.found: dict[Path, bool] = {}
        config = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
        self.everywhere = _has_whitelist(Path(config) / "git" / "ignore")

    def __call__(self, directory: Path) -> bool:
        """True when an ignore file in ``directory`` or above it may whitelist a hidden name."""
        if self.everywhere:
            return True
        if (known := self.found.get(directory)) is not None:
            return known
        above = directory.parent != directory and self(directory.parent)
        result = self.found[directory] = above or any(
            _has_whitelist(directory / name) for name in IGNORE_FILES)
        return result


def _has_whitelist(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as lines:
            return any(line.lstrip().startswith("!") for line in lines)
    except OSError:
        return False
