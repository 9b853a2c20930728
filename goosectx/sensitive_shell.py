"""The words of a shell command line that name a sensitive file, as bash would run it.

docs/architecture.md §4 (clause "permission rules"). :func:`sensitive_words` reads the line
once with :func:`goosectx.shell_dirs.command_dirs` (bash's words, and the dirs each part may
run in after a ``cd``; ``bash -c '…'`` and the like read as lines of their own) and judges
every word by :func:`goosectx.sensitive.is_sensitive`; a recursive read (``grep -r``,
``find … -exec``) by the files below the dirs it reads (:mod:`goosectx.recursive_reads`); a
command that takes its arguments from its input (``xargs cat``) may be given any file.

Core module: no printing, no ``cli`` imports.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from goosectx.find_words import find_exec_printed, find_patterns
from goosectx.git_clean import git_clean_kept
from goosectx.git_pathspecs import names_only
from goosectx.glob_words import MAX_NAMES, pattern_paths, value_names
from goosectx.grep_filters import filter_words, grep_kept
from goosectx.hidden_names import hidden_names
from goosectx.inline_reads import code_reads
from goosectx.piped_names import (
    SUBSTITUTED_SPLIT,
    line_sets_nothing,
    piped_listing,
    piped_unknown,
    substituted_listing,
    substituted_unknown,
)
from goosectx.program_operands import not_paths
from goosectx.recursive_reads import (
    RUNS_ON_FOUND,
    SPLIT_NAME,
    Printed,
    follows_links,
    hidden_read,
    recursive_operands,
    sensitive_below_dir,
    top_level_only,
    untouched_dirs,
)
from goosectx.searcher_options import runs_program, searcher_kept
from goosectx.sensitive import expand_user, resolve, sensitive_judge, shown
from goosectx.sensitive_loaders import env_loads
from goosectx.shell_dirs import (
    Dir,
    Unknown,
    Walked,
    argument_value,
    chdir_dirs,
    cluster_words,
    command_dirs,
    command_words,
    stdin_arguments,
)
from goosectx.shell_unwrap import WRAPPERS, unwrap
from goosectx.shell_words import Word
from goosectx.unseen_globs import unseen_matches

_GREPS = ("grep", "egrep", "fgrep", "rgrep")
METADATA_ONLY = frozenset({"ls", "stat", "readlink", "realpath"})
"""Programs that read a file's metadata (name, size, mode, times, a link's target), never its
contents, whatever their options (GNU ls, stat: ``stat -f`` the file system's; readlink and
realpath print where a link leads, ``-f`` / ``-e`` through every link): a sensitive file they
name is no read. Written as the program itself (not ``./ls``, nor wrapped: ``nice
ls``); a function or alias named so makes the line one the rules cannot read. ``file`` reads
a file's first bytes: not one of them."""
NAMES_ONLY = frozenset({"echo", "printf", "basename", "dirname"})
"""Programs whose words are strings they print or cut, never a file they open (``echo .env``,
``basename src/.env``): a sensitive name among them is no read. Written as the program itself,
as :data:`METADATA_ONLY`, on a line with no command substitution (``cat $(echo .env)`` reads
what echo prints: there the name is judged as ever)."""
ANY_MAY_BE = "any may be)"
"""How a shown word ends when the files it names are not known here: the approval says it
"may name a sensitive file" (``approval._sensitive_named``)."""


def sensitive_words(command: str, working_dir: Path, *, data_dir: Path | None = None,
                    config_file: Path | None = None,
                    walked: Walked | None = None,
                    unseen: bool = False) -> Iterator[tuple[str, str]]:
    """Each word of ``command`` that names a sensitive file: ``(word, how it is shown)``.

    Every word of every part (an option's ``--name=VALUE`` by its value, ``if=F`` and ``@F``
    by ``F`` too), a relative one taken in each dir the part may run in (``cd .git && cat
    config`` names ``.git/config``); a glob or brace word by every name it can expand to
    (``.en? (matching .env)``); in a dir not known here (after ``cd -``) a relative word may
    be any (``x (after cd -: any may be)``). ``walked``: the line's walk, when the caller has it.
    ``unseen``: the files it ran on are not here (an imported transcript's command): a glob
    word counts by the sensitive names it may match too (:mod:`goosectx.unseen_globs`).
    """
    judge = sensitive_judge(data_dir, config_file)
    own = tuple(path for path in (config_file, data_dir) if path is not None)
    walked = list(command_dirs(command, working_dir)) if walked is None else walked
    parts = [part for part, _dirs in walked]
    judged: dict[tuple[Word, tuple[Dir, ...]], str | None] = {}
    neutral = line_sets_nothing(parts) and "POSIXLY_CORRECT" not in os.environ
    substitutes = "$(" in command or "`" in command  # cat $(echo .env): echo's words are read
    for k, (part, dirs) in enumerate(walked):
        if (words := command_words(part.words)) and (name := _name(words[:1])) in ("env", "sudo"):
            dirs = chdir_dirs(name, [w.value for w in words[1:]], dirs)  # env -C .git cat config
        program = _unwrapped(part.words)  # nice grep -r x .: grep's words
        plain = neutral and len(program) == len(command_words(part.words))  # no env X=1 grep
        for base in dirs:
            kept = grep_kept(program[1:], base, plain) if isinstance(base, Path) and _name(
                program) in _GREPS else top_level_only(program) or searcher_kept(  # diff a b: a/x
                _name(program), [w.value for w in program[1:]]) or (  # rg -g '*.py': *.py files
                git_clean_kept([w.value for w in program[1:]], base) if isinstance(
                    base, Path) and _name(program) == "git" else None)  # git clean -n, -fd
            yield from _below_recursive(recursive_operands(program), base, working_dir,
                                        own, untouched_dirs(program),
                                        _find_printed(program),  # find -name '*.py' -exec
                                        hidden=hidden_read(program), kept=kept,
                                        follows=follows_links(program) or _name(
                                            program) in RUNS_ON_FOUND)  # -exec cat link
        if (fed := stdin_arguments(part.words)) is not None:
            listed = piped_listing(parts, k)  # find . | xargs cat: the files below .
            if listed is None:
                printf = "".join(f"; {one}" for one in [piped_unknown(parts, k)] if one)
                yield fed, (f"{fed} (it takes the files it reads from its input{printf}: "
                            f"{ANY_MAY_BE}")  # find -printf '%h/.env' | xargs cat: why too
            else:
                for base in dirs:
                    yield from _below_recursive(listed.dirs, base, working_dir, own,
                                                listed.skip, listed.printed, split=SPLIT_NAME,
                                                hidden=listed.hidden,  # rg -l x | xargs wc
                                                follows=True)  # xargs cat link: its target
        if (substituted := substituted_listing(parts, k)) is not None:
            listed = substituted[1]  # wc -l $(find . -name '*.py'): the names find prints
            for base in dirs:
                yield from _below_recursive(listed.dirs, base, working_dir, own, listed.skip,
                                            listed.printed, split=SUBSTITUTED_SPLIT,
                                            hidden=listed.hidden, follows=True)
        if (unknown := substituted_unknown(parts, k)) is not None:  # cat $(find -printf …)
            yield unknown[0].value, f"{unknown[0].value} ({unknown[1]}: {ANY_MAY_BE}"
        if (pre := runs_program(_name(program), [w.value for w in program[1:]])) is not None:
            line = " ".join(w.value for w in program)  # rg --pre CMD: CMD opens every file
            yield line, f"{line} ({pre} runs a program on each file it searches: {ANY_MAY_BE}"
        known = tuple(d for d in dirs if isinstance(d, Path))
        yield from code_reads([w.value for w in program], known, judge, command, working_dir)
        yield from env_loads([w.value for w in program], known, judge, working_dir)  # dotenv run
        if (why := hidden_names(program, dirs[0] if plain and len(dirs) == 1 and isinstance(
                dirs[0], Path) else None)) is not None:  # git diff -- '*.yml': its index
            line = " ".join(w.value for w in program)
            yield line, f"{line} ({why}: {ANY_MAY_BE}"
        lead = len(part.words) - len(command_words(part.words))  # `then`, `X=1` before it
        patterns = find_patterns(program)  # find . -name .env: a name to match, none read
        patterns += [program[i] for i in not_paths([w.value for w in program])]  # grep KEY .
        if _name(program) == "git" and names_only([w.value for w in program[1:]]):
            patterns += program[2:]  # git log --oneline -- .env: its commits' subjects
        if _name(program) in _GREPS and all(isinstance(base, Path) for base in dirs):
            patterns += [w for w in program if all(  # grep --exclude=.env: a glob to match
                any(w is one for one in filter_words(program[1:], base, plain))
                for base in dirs if isinstance(base, Path))]
        metadata = len(part.words) > lead and (part.words[lead].value in METADATA_ONLY or (
            part.words[lead].value in NAMES_ONLY and not substitutes))
        for k, word in enumerate(part.words):
            if any(word is pattern for pattern in patterns) or metadata and k > lead:
                continue  # ls -la .env, stat .env: its name, size and times, no contents
            searched = dirs
            if k < lead or k == lead and "/" not in word.value:
                searched = tuple(d for d in dirs if not isinstance(d, Unknown))
                if not searched:
                    continue  # the program, looked up in $PATH, or syntax: not in the dir
            if (word, searched) not in judged:  # cat src/*.py src/*.py …: each judged once
                judged[word, searched] = _sensitive_word(word, searched, working_dir, judge,
                                                         command, unseen=unseen)
            if (found := judged[word, searched]) is not None:
                yield word.value, found


def _name(words: list[Word]) -> str:
    """The name of the program ``words`` run (``/usr/bin/grep``: ``grep``), ``""`` for none."""
    return words[0].value.rsplit("/", 1)[-1] if words else ""


def _unwrapped(words: list[Word]) -> list[Word]:
    """The words of the program ``words`` runs, wrappers looked through (``nice -n5 grep``)."""
    words = command_words(words)
    for _ in range(8):
        name = words[0].value.rsplit("/", 1)[-1] if words else ""
        if name not in WRAPPERS:
            break
        words = unwrap(name, words[1:])[0]
    return words


def _sensitive_word(word: Word, dirs: tuple[Dir, ...], working_dir: Path,
                    judge: Callable[[Path], str | None], line: str,
                    clustered: bool = True, unseen: bool = False) -> str | None:
    """How ``word`` is shown when it names a sensitive file from one of ``dirs``, else ``None``.

    ``unseen``: a glob word by the sensitive names it may match too, none of them here.
    """
    raw = word.value
    for other in cluster_words(raw) if clustered else ():  # grep -cf.env: -f's value
        if found := _sensitive_word(replace(word, value=other), dirs, working_dir, judge, line,
                                    False, unseen):
            return raw + found.removeprefix(other)
    if raw.startswith("/") or raw.startswith("~") and not raw.startswith(("~+", "~-")):
        dirs = (working_dir,)  # it names the same file wherever the command runs
    for base in dirs:
        if isinstance(base, Unknown):
            if raw and not raw.startswith("-"):
                return f"{raw} (after {base.after}: {ANY_MAY_BE}"
            continue
        value = argument_value(raw, base)
        if value is None:
            return f"{raw} (a directory stack entry: {ANY_MAY_BE}"
        if not value or value.startswith("-") or "\0" in value:
            return None
        if any(judge(base / expand_user(one)) for one in named_values(value)):
            return raw
        if not word.pattern:
            continue
        named = pattern_paths(value, base, line)
        if isinstance(named, str):
            return f"{raw} ({named}: {ANY_MAY_BE}"
        for one in named:
            if judge(one):
                return f"{raw} (matching {shown(one, working_dir)})"
        for one in unseen_matches(named) if unseen else ():  # cat .[e]nv, run elsewhere
            if judge(one):
                return f"{raw} (may match {shown(one, working_dir)})"
    return None


def _below_real(directory: Path, anchor: Path, *args: Any) -> Iterator[Path | None]:
    """:func:`sensitive_below_dir` of ``directory``, and of where it leads through a link.

    ``grep -r KEY lib`` with ``lib → .git`` reads ``.git/config``: the names below the real
    dir are judged from the real working dir too, unless they are the same names.
    """
    yield from sensitive_below_dir(directory, anchor, *args)
    real, real_anchor = resolve(directory), resolve(anchor)
    same = directory == anchor or anchor in directory.parents
    if not (same and real == real_anchor / directory.relative_to(anchor)) and real != directory:
        yield from sensitive_below_dir(real, real_anchor, *args)


def _find_printed(program: list[Word]) -> Printed | None:
    """The names ``find … -exec`` runs its command on (:func:`find_exec_printed`), else all."""
    return find_exec_printed([w.value for w in program[1:]]) if _name(program) == "find" else None


def _below_recursive(operands: list[str] | None, base: Dir, working_dir: Path,
                     own: tuple[Path, ...] = (),
                     skip: frozenset[str] = frozenset(),
                     printed: Printed | None = None,
                     split: re.Pattern[str] | None = None, hidden: bool | Printed = True,
                     kept: Printed | None = None,
                     follows: bool = False) -> Iterator[tuple[str, str]]:
    """The dir words of a recursive read (``grep -r``, ``find -exec``) with a sensitive file below.

    Taken in ``base``, the dir the command runs in. ``own``: goosectx's config file and data
    dir, sensitive wherever they are (``grep -r x .config`` from ``~``); ``skip``: names of dirs
    the command never enters (:func:`goosectx.recursive_reads.untouched_dirs`); ``printed``:
    the names a lister piped into ``xargs`` (or in a ``$(…)``) prints (``find . -name
    '*.md'``), ``split`` for such a listing: a name ``xargs`` (bash) splits (``a .env b.md``)
    may be any; ``hidden=False``:
    hidden names are skipped (``rg KEY``); ``kept``: the files it reads (``grep -r
    --include``); ``follows``: a link below counts by its target too (``diff``, ``grep -R``).

    ``grep -r KEY .`` → ``(".", ". (holding .env)")``: it names no sensitive file but reads one
    (:mod:`goosectx.recursive_reads`).
    """
    for value in operands or ():
        if isinstance(base, Unknown):
            yield value, f"{value} (read below, after {base.after}: {ANY_MAY_BE}"
            return
        directory = Path(os.path.abspath(base / expand_user(value)))
        if "\0" in value or not directory.is_dir():
            continue
        if printed is not None and any(printed(name, True) for name in (
                directory.name, os.path.basename(value.rstrip("/")) or value)):
            printed = None  # find sub -name sub: it prints sub, xargs grep -r reads below
        if reached := _own_below(directory, own, printed):
            yield value, f"{value} (holding {shown(reached, working_dir)})"
            continue
        anchor = Path(os.path.abspath(working_dir))
        for found in _below_real(directory, anchor, skip, printed, split, hidden, kept,
                                 follows):
            if found is not None and split is not None and split.search(found.name):
                who = "xargs splits" if split is SPLIT_NAME else "bash splits or globs"
                yield value, (f"{value} (holding {shown(found, working_dir)}, a name {who} "
                              f"into others: {ANY_MAY_BE}")
            elif found is None:
                yield value, (f"{value} (over {MAX_NAMES:,} names below it, too many to check: "
                              f"{ANY_MAY_BE}")
            else:
                led = f" → {resolve(found)}" if follows and os.path.islink(found) else ""
                yield value, f"{value} (holding {shown(found, working_dir)}{led})"
            break


def _own_below(directory: Path, own: tuple[Path, ...],
               printed: Printed | None = None) -> Path | None:
    """The first of ``own`` (goosectx's config file, data dir) that exists below ``directory``.

    As written and resolved, so a link to it or from it counts (asking more, never less). With
    ``printed`` (``find . -name '*.md' | xargs …``) a file counts when it or a dir on the way
    to it is printed; a dir (the data dir, whose files any name may match) always counts.
    """
    from goosectx.sensitive import inside, resolve

    real = resolve(directory)
    for path in own:
        written = Path(os.path.abspath(path))
        if not os.path.lexists(written):
            continue
        for top, below in ((directory, written), (real, resolve(written))):
            if not inside(below, top):
                continue
            names = below.relative_to(top).parts
            if printed is None or below.is_dir() or any(
                    printed(name, i < len(names) - 1) for i, name in enumerate(names)):
                return written
    return None


def named_values(value: str) -> list[str]:
    """The paths one argument word may name; none an option (``-x``).

    :func:`goosectx.glob_words.value_names`: itself, what follows its first ``=`` (``dd
    if=F``), a leading ``@`` (``curl -d @F``, ``gcc @F``), curl's ``-F name=@F`` and ``file:``
    URLs.
    """
    return [one for one in value_names(value) if not one.startswith("-")]
