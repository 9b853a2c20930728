"""The files ``patch`` and ``git apply`` write: the ones their diff names, read from the diff.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. ``patch -p1 <
x.diff``, ``patch -i x.diff``, ``git apply x.diff`` write whatever the diff's ``--- ``/``+++ ``/
``diff --git``/``rename to`` lines name, ``-pN`` leading parts stripped (``patch`` without
``-p``: every strip taken; ``git apply``: 1 unless ``-p`` says), below ``-d``/``--directory``.
A diff that exists and is small (:data:`MAX_DIFF_BYTES`) is read and each name judged as a
write target (:func:`goosectx.protected_paths.protected_write`; a sensitive file too); one in a
here-document or here-string is read from the line; one that cannot be read (missing, too big,
a pipe, a name bash makes at run time) makes the call one the rules cannot read, so it asks
under a rule and in auto mode under a deny rule. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import os
import re
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

from goosectx.diff_appliers import Applied, applied, appliers
from goosectx.git_printed_diffs import printed_by_git
from goosectx.prompts import find_repo_root
from goosectx.protected_paths import Where, protected_write
from goosectx.sensitive import expand_user
from goosectx.shell_dirs import Unknown
from goosectx.shell_git import git_subcommand
from goosectx.shell_lexer import lex, unexpanded
from goosectx.shell_words import Part, Word
from goosectx.tree_writers import READERS, may_write, unpacked_name, writes_unnamed
from goosectx.written_names import SENSITIVE, sensitive_or_outside

MAX_DIFF_BYTES = 1_000_000
"""The largest diff file read; a bigger one is a diff that cannot be read here."""
_HEADER = re.compile(r"^(?:\+\+\+|---|\*\*\*|Index:) (.+)$|^diff --git (\S+) (\S+)\s*$|"
                     r"^(?:rename|copy) (?:to|from) (.+)$", re.MULTILINE)
"""The lines of a unified, context or git diff that name a file (``*** NAME`` is a context
diff's old name, which GNU patch takes when that file exists; ``Index: NAME`` too)."""
_C_ESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.DOTALL)
_C_CHARS = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r"}


def diff_names(text: str) -> list[str]:
    """The file names ``text``'s diff headers give, as written (``a/x``, ``b/x``)."""
    names: list[str] = []
    for match in _HEADER.finditer(text):
        for raw in filter(None, match.groups()):
            raw = raw.split("\t", 1)[0].strip()
            if len(raw) > 1 and raw[0] == '"' and '"' in raw[1:]:  # git's C-quoted "a/\164x"
                raw = _c_unquoted(raw[1:raw.index('"', 1) if raw[-1] != '"' else -1])
                found = [raw]
            else:  # patch ends an unquoted name at whitespace: "*** x  2024-01-01 …" is x
                found = [raw, raw.split(" ", 1)[0]]
            names += [name for name in found if name and name != "/dev/null"]
    return list(dict.fromkeys(names))


def _c_unquoted(quoted: str) -> str:
    r"""A C-quoted diff name as patch and git read it: ``.gi\164`` is ``.git``, ``\t`` a tab.

    Octal escapes are bytes (a UTF-8 name is written byte by byte).
    """
    out = bytearray()
    pos = 0
    for match in _C_ESCAPE.finditer(quoted):
        out += quoted[pos:match.start()].encode("utf-8", "surrogateescape")
        code = match.group(1)
        out += (bytes([int(code, 8) & 0xFF]) if code[0] in "01234567"
                else _C_CHARS.get(code, code).encode("utf-8", "surrogateescape"))
        pos = match.end()
    out += quoted[pos:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "surrogateescape")


def _stripped(name: str, strip: int | None) -> list[str]:
    parts = [p for p in name.split("/") if p]
    levels = range(len(parts)) if strip is None else [strip]
    root = "/" if name.startswith("/") else ""  # -p0 keeps /etc/x (git --unsafe-paths writes it)
    return [os.path.join(root if k == 0 else "", *parts[k:]) for k in levels if k < len(parts)]


def judge_names(name: str, names: list[str], how: Applied, where: Where | None,
                source: str) -> str | None:
    """Why ``name`` writing the files ``names`` (a diff's, as written) asks, or ``None``."""
    if any(re.search(r"[$`*?\[]", v) for v in how.backup.values()):
        return (f"{name}'s backup files are named by a path bash makes at run time: where it "
                "writes them is not known")
    for written in names:
        for path in [top for one in _stripped(written, how.strip) for top in _from_top(
                name, os.path.join(how.directory, one) if how.directory else one, where)]:
            if why := protected_write(name, path, where):
                return f"{why} (the diff {source} names it)"
            said = sensitive_or_outside(path, where)
            if said == SENSITIVE or said and how.unsafe_paths:  # git apply --unsafe-paths
                return f"{name} writes {path}, which {said} (the diff {source} names it)"
            if why := _backup_writes(name, path, how, where):
                return f"{why} (a backup of {path}, which the diff {source} names)"
    return None


def _from_top(name: str, path: str, where: Where | None) -> list[str]:
    """``path`` as a diff names it, and for ``git`` the same name below each repository's top.

    ``git apply`` in a subdirectory takes a git diff's names from the top of the work tree
    (``diff --git a/sub/x``, run in ``sub``, writes ``sub/x``), a plain diff's from where it
    runs: both are judged. ``patch`` takes every name from where it runs.
    """
    if name != "git" or where is None or os.path.isabs(path):
        return [path]
    tops = {top for base in where.dirs if isinstance(base, Path) and (
        top := find_repo_root(base)) is not None and top != base}
    return [path, *sorted(os.path.join(top, path) for top in tops)]


def _backup_writes(name: str, path: str, how: Applied, where: Where | None) -> str | None:
    """Why ``patch -B/-Y/-z`` writing the backup of ``path`` asks, or ``None``."""
    head, tail = os.path.split(path)
    backups = [how.backup["prefix"] + path if "prefix" in how.backup else "",
               os.path.join(head, how.backup["basename"] + tail) if "basename" in how.backup
               else "", path + how.backup["suffix"] if "/" in how.backup.get("suffix", "") else ""]
    for backup in filter(None, backups):
        if why := protected_write(name, os.path.normpath(backup), where):
            return why
        if said := sensitive_or_outside(backup, where):
            return f"{name} writes {os.path.normpath(backup)}, which {said}"
    return None


def diff_writes(name: str, args: list[str], where: Where | None, fed: bool,
                line: str, here: str = "") -> str | None:
    """Why ``name ARGS`` applying a diff may write a protected file, or ``None``.

    Its diff files are read (:func:`diff_file_writes`); with none it reads its input: its own
    here-document or here-string (``here``: :attr:`goosectx.shell_words.Part.here`) is read
    from ``line`` when bash expands nothing in it; another stream (``curl … | patch``) cannot
    be read. A plain ``< FILE`` is judged by its redirection: :func:`redirected_diff`.
    """
    how = applied(name, args)
    if how is None or how.output:
        return None
    where = git_moved(args, where) if name == "git" else where  # git -C sub apply y.diff
    for original in how.written:  # patch .git/config fix.diff
        if why := protected_write(name, original, where):
            return why
    for file in how.files:
        if why := diff_file_writes(name, how, file, where, line):
            return why
    if how.files or not fed:
        return None  # patch < x.diff: judged as the redirection's; no input: nothing
    if not here and printed_by_git(name, args, how, line, where):
        return None  # git stash show -p | git apply: judged as git stash apply (git_printed_diffs)
    if not here:
        return (f"{name} applies a diff it reads from a pipe or stream, which cannot be read "
                "here: the files it writes are not known")
    if here == "expands" or here == "body" and re.search(r"[$`]", unexpanded(line)):
        return (f"{name} applies a diff from a here-document or here-string that bash expands "
                "($, $( ), backticks), which cannot be read here: the files it writes are not "
                "known")
    return judge_names(name, diff_names(line), how, where, "in the line")


def git_moved(args: list[str], where: Where | None) -> Where | None:
    """``where`` as git's ``-C DIR`` options move it: each from the one before (``-C a -C b``).

    git reads the diff file and writes the files it names there: ``git -C sub apply y.diff``
    applies ``sub/y.diff``. A dir bash makes at run time (``-C "$X"``) is not known here.
    """
    if where is None:
        return None
    at, dirs, i = git_subcommand(args), where.dirs, 0
    while i < at:
        value = args[i + 1] if args[i] == "-C" and i + 1 < at else None
        if value and re.search(r"[$`]", value):
            dirs = (Unknown(f"git -C {value}"),)
        elif value:
            dirs = tuple(base if isinstance(base, Unknown) else Path(os.path.normpath(
                base / expand_user(value))) for base in dirs)
        i += 2 if value is not None else 1
    return Where(where.root, dirs)


def diff_file_writes(name: str, how: Applied, file: str, where: Where | None,
                     line: str = "", names_at: Where | None = None) -> str | None:
    """Why applying the diff ``file`` (read in each dir of ``where``) asks, or ``None``.

    ``line``: the command line, whose other commands may write ``file`` first
    (:func:`written_first`); ``names_at``: where the diff's names are taken, when not in
    ``where`` (``git -C .git apply < x.diff``: git's dir).
    """
    if where is None:
        return None
    at = where if names_at is None else names_at
    unread = f"{name} applies the diff {file}, which cannot be read here"
    written = expand_user(file)
    if re.search(r"[$`*?\[]", file) or file.startswith(("/dev/", "/proc/")):
        return f"{unread} (its name is made at run time or is a stream): the files it writes " \
               "are not known"
    writer, from_line = written_first(line, file, where)
    if writer:
        return (f"{unread} as it will be: `{writer}` before it in the line may write it, so "
                "the files it writes are not known")
    if from_line and (why := judge_names(name, diff_names(line), how, at, "in the line")):
        return why
    for base in (where.root,) if written.is_absolute() else where.dirs:
        if isinstance(base, Unknown):
            return f"{unread} (after {base.after}): the files it writes are not known"
        path = Path(os.path.normpath(base / written))
        try:
            if from_line and not path.exists():
                continue  # made by the line from its here-document, judged above
            text = _diff_text(path)
        except OSError:
            return f"{unread}: the files it writes are not known"
        if text is None:
            return f"{unread} (missing or past {MAX_DIFF_BYTES:,} bytes): the files it " \
                   "writes are not known"
        if why := judge_names(name, diff_names(text), how, at, file):
            return why
    return None


def _diff_text(path: Path) -> str | None:
    """The diff in the file ``path``, or ``None``: no regular file, or past the size limit.

    :data:`MAX_DIFF_BYTES`; an ``OSError`` when it cannot be read is the caller's.
    """
    if not path.is_file() or path.stat().st_size > MAX_DIFF_BYTES:
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def redirected_diff(program: list[str], file: str, where: Where | None,
                    line: str = "") -> str | None:
    """``patch -p1 < FILE``: why the diff ``FILE`` given to ``program`` (its words) asks.

    A group's or compound command's input (``{ patch -p1; } < F``, ``(…) < F``, ``done < F``)
    is the input of each diff applier in ``line`` (taken as in the group: more asks, none
    fewer).
    """
    group = not program or program[-1] in _CLOSERS
    programs = [[w.value for w in part.words] for part in _parts(line)] if group else [program]
    for words in programs:  # do patch -p1 < x, sudo patch -p1 < x, { git -C d apply; } < x
        for name, how in appliers(words):
            names_at = git_moved(_after_git(words), where) if name == "git" else None
            if not (how.files or how.output) and (
                    why := diff_file_writes(name, how, file, where, line, names_at)):
                return why
    return None


def _after_git(words: list[str]) -> list[str]:
    """The words after the first ``git`` of ``words`` (``sudo git -C d apply``: ``-C d apply``)."""
    at = next((k for k, w in enumerate(words) if w.rsplit("/", 1)[-1] == "git"), len(words))
    return words[at + 1:]


_CLOSERS = frozenset({"}", "done", "fi", "esac"})
_EXPANSION = re.compile(r"\$\(…\)|`…`|\$\{[^}]*\}|\$[\w@*#?$!-]*")
_LOOPS = frozenset({"while", "until", "for", "do", "select"})
_LEADING = frozenset({"{", "(", "!", "then", "else", "do", "if", "elif", "while", "until"})


@lru_cache(maxsize=16)
def _parts(line: str) -> tuple[Part, ...]:
    return tuple(lex(line)) if line else ()


def _names(word: Word, file: str) -> bool:
    """True when ``word`` may name the file ``file`` (its name, a dir of it, a glob, a $X)."""
    base, value = os.path.basename(file), word.value
    dirs = {os.path.normpath(os.path.dirname(file) or ".")}
    if word.expands or word.pattern:
        tail = _EXPANSION.sub("*", value).rstrip("/").rsplit("/", 1)[-1]
        return fnmatchcase(base, tail) or not tail
    return value.endswith(base) or bool(re.search(
        rf"(?<![\w.-]){re.escape(base)}(?![\w.-])", value)) or os.path.normpath(value) in dirs


def written_first(line: str, file: str, where: Where | None = None) -> tuple[str | None, bool]:
    """The command of ``line`` that may write ``file`` before a diff applier reads it, or None.

    And whether ``file`` is written from a here-document of the line (``cat > F <<'EOF'``,
    ``tee F <<'EOF'``), whose names are then judged too.

    A part before the applier's last reading of ``file`` (every part in a loop, or when the
    applier is inside a command string) naming it, a dir of it, or a glob or ``$X`` that may
    name it: ``cp x.diff fix.diff && patch < fix.diff``, ``curl -so fix.diff URL && git apply
    fix.diff``, ``cat > fix.diff``, ``gunzip fix.diff.gz``; one that writes files it does not
    name (:func:`goosectx.tree_writers.writes_unnamed`: ``tar xf x.tar``, ``git stash pop``);
    another applier whose diff (read in ``where``) names a file of that name, or which writes
    it (``patch -o fix.diff …``). Not ``< F`` and the programs that only read
    (:data:`goosectx.tree_writers.READERS`): ``git apply --check F && git apply F`` runs.
    """
    parts = _parts(line)
    kept = [[w for w in part.words if w.value not in _LEADING] for part in parts]
    applying = [appliers([w.value for w in words]) for words in kept]  # once per part
    reads = [k for k, part in enumerate(parts) if any(_names(w, file) for w in part.words) and (
        part.words[0].value == "<" or applying[k])]
    looped = any(w.value in _LOOPS for part in parts for w in part.words[:1])
    end = len(parts) if looped or not reads else reads[-1]
    from_line = False
    for k, part in enumerate(parts[:end]):
        words = kept[k]
        values = [w.value for w in words]
        if not values or values[0] in ("<", "for", "select", "case", *READERS):
            continue
        if found := applying[k]:
            if _applier_writes(found, parts, part, file, where):
                return part.text, False
            continue
        if writes_unnamed(values) or any(_names(w, file) or _unpacks(values, w, file)
                                         for w in words[1:]):  # > F: [">", F]
            writer = next((p for p in parts[k:] if p.words[:1] and p.words[0].value not in (
                "<", ">", ">>")), part) if values[0] == ">" else part
            if writer.here and writer.words[0].value in ("cat", "tee") and _literal(
                    writer, line):
                from_line = True  # cat > F <<'EOF': the diff is the body, read from the line
                continue
            return part.text, False
        if values[0] not in (">", ">>") and may_write(values):
            return part.text, False  # sed -i, xargs, rename, curl -OJ: may write it unnamed
    return None, from_line


def _unpacks(values: list[str], word: Word, file: str) -> bool:
    """True when ``word`` is a file a decompressor of ``values`` unpacks to ``file``."""
    unpacked = unpacked_name(values, word.value)
    return unpacked is not None and _names(Word(unpacked, unpacked), file)


def _applier_writes(found: list[tuple[str, Applied]], parts: tuple[Part, ...], part: Part,
                    file: str, where: Where | None) -> bool:
    """True when an applier before the one reading ``file`` may write it.

    It writes ``file`` (``patch -o fix.diff …``, ``patch fix.diff a.diff``), or its own diff
    (read in ``where``; one not read asks on its own) names a file whose name is ``file``'s
    (``git apply a.diff && git apply fix.diff``, a.diff making it).
    """
    sources = [f for _name, how in found for f in how.files] or [
        p.words[1].value for p in parts if p.input_of is part and p.words[1:]]
    if any(_names(Word(w, w), file) for _name, how in found for w in (*how.written, how.output)
           if w):
        return True
    base = os.path.basename(file)
    for source in sources:
        if os.path.normpath(source) == os.path.normpath(file):
            continue  # git apply --check F && git apply F: the same diff
        for dir_ in where.dirs if where is not None else ():
            try:
                text = _diff_text(dir_ / expand_user(source)) if isinstance(dir_, Path) else None
            except OSError:
                text = None
            if text is None:
                continue
            if any(os.path.basename(n) == base for n in diff_names(text)):
                return True
    return False


def _literal(part: Part, line: str) -> bool:
    """True when ``part``'s here-document or here-string is text bash expands nothing in."""
    return part.here == "literal" or part.here == "body" and not re.search(
        r"[$`]", unexpanded(line))
