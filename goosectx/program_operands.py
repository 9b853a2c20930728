r"""The words of a grep, sed or awk call that are a pattern or program, not a path; git's messages.

docs/architecture.md §4 (clause "permission rules"). The path checks under an allow rule
(:mod:`goosectx.shell_paths`, :mod:`goosectx.sensitive_shell`, :mod:`goosectx.recursive_reads`)
judge the words that may name files. grep's pattern, sed's script and awk's program are text:
``grep -n '/api/users' f``, ``sed -n '/print/p' f`` and ``awk '/re/ {print NR}' f`` name no
path outside the project, and ``grep -rn '.' src`` reads ``src`` only. :func:`program_operand`
finds that operand (the first one, when no ``-e`` / ``-f`` / ``--regexp`` / ``--file`` /
``--expression`` / ``--source`` gives the program); :func:`not_paths` adds the values of
``grep -e`` / ``sed -e`` / ``awk -e`` and awk's ``-v NAME=value``, ``-F SEP`` and ``NAME=value``
operands (``awk '{print $NF}' FS=/ f``: an assignment, not a file). An option whose value is
not known to be one is read as a flag, so a word is never taken for a pattern when it may be a
file (``grep -A 3 x /etc/hosts`` judges ``x`` and ``/etc/hosts``). What awk and sed programs do
is read by :mod:`goosectx.awk_program` and :mod:`goosectx.sed_script`.
git's message options are text too (:func:`git_messages`).

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.awk_program import AWK
from goosectx.shell_git import git_subcommand
from goosectx.shell_options import long_option, short_value
from goosectx.split_outputs import csplit_patterns

_GREP = frozenset({"grep", "egrep", "fgrep", "rgrep"})
_SEDS = frozenset({"sed", "gsed"})
_SHORT = {"grep": "efmABCdD", "sed": "efl", "awk": "fFvilEeW"}
"""Short options taking a value (the rest of the word, or the next word)."""
_ATTACHED = {"sed": "i", "awk": "dDLop"}
"""Short options whose value, if any, is the rest of their word (``sed -ie``: suffix ``e``)."""
_LONG = {"grep": ("--regexp", "--file", "--max-count", "--after-context", "--before-context",
                  "--context", "--devices", "--directories", "--label", "--include",
                  "--exclude", "--exclude-from", "--exclude-dir", "--binary-files",
                  "--group-separator"),
         "sed": ("--expression", "--file", "--line-length"),
         "awk": ("--file", "--field-separator", "--assign", "--include", "--load", "--exec",
                 "--source")}
"""Long options taking a value (``--opt=V`` or ``--opt V``)."""
_GIVES_PROGRAM = {"e", "f", "E", "--regexp", "--file", "--expression", "--source", "--exec"}
"""Options after which no operand is the program (``grep -e X f``, ``awk -f p f``)."""
_TEXT = {"grep": {"e", "--regexp"}, "sed": {"e", "--expression"},
         "awk": {"e", "--source", "v", "--assign", "F", "--field-separator"}}
"""Options whose value is text, not a path."""
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _language(program: str) -> str | None:
    name = program.rsplit("/", 1)[-1]
    return "grep" if name in _GREP else "sed" if name in _SEDS else "awk" if name in AWK else None


def _read(args: list[str]) -> tuple[str, list[int], set[int], bool] | None:
    """``args`` (the program first) read as its options and operands.

    Its language, its operands' indices, the indices of option values that are text, and
    whether an option gives the program.
    """
    language = _language(args[0]) if args else None
    if language is None:
        return None
    short, longs = _SHORT[language], _LONG[language]
    operands: list[int] = []
    text: set[int] = set()
    given = False
    i = 1
    while i < len(args):
        word = args[i]
        if word == "--":
            operands += range(i + 1, len(args))
            break
        option, at = "", i + 1
        if word.startswith("--"):
            option = next((o for o in longs if long_option(word, o)), "")
            at = i if "=" in word or not option else i + 1
        elif word.startswith("-") and word != "-":
            for k in range(1, len(word)):
                if word[k] in _ATTACHED.get(language, ""):
                    break  # sed -i.bak, gawk -d[FILE]: the rest of the word only
                if word[k] in short:
                    option, at = word[k], i if word[k + 1:] else i + 1
                    break
        elif language == "awk":  # awk reads no option after its first operand
            operands += range(i, len(args))
            break
        else:
            operands.append(i)
        given = given or option in _GIVES_PROGRAM
        if option in _TEXT[language]:
            text.add(at)
        i = at + 1 if option and at != i else i + 1
    return language, operands, text, given


_RSYNC_PATTERNS = ("--exclude", "--include")
_RSYNC_RULES = re.compile(r"--(?:filter|include|exclude-from|files-from)|-[^-]*[fF]")
"""rsync options whose rules a plain ``--exclude`` list does not stand for alone."""


def rsync_patterns(args: list[str]) -> dict[int, str]:
    """The patterns of ``rsync --exclude PAT`` / ``--include=PAT``, by index in ``args``.

    ``args``: its name first. A pattern names no file rsync reads (``--exclude .git``): the
    word is matched, not opened.
    """
    found: dict[int, str] = {}
    for i, word in enumerate(args[1:], 1):
        if word == "--":
            break
        if word in _RSYNC_PATTERNS and i + 1 < len(args):
            found[i + 1] = args[i + 1]
        elif word.partition("=")[0] in _RSYNC_PATTERNS and "=" in word:
            found[i] = word.partition("=")[2]
    return found


def rsync_skipped(args: list[str]) -> frozenset[str]:
    """The dirs ``rsync ARGS`` (its name first) never enters: ``--exclude .git`` (``.git/``).

    Only names (no glob, no ``/`` but a trailing one, which rsync matches at every depth), and
    only when no include, filter or list option may bring them back.
    """
    if any(_RSYNC_RULES.match(a) for a in args[1:] if a != "--"):
        return frozenset()
    return frozenset(pattern.rstrip("/") for pattern in rsync_patterns(args).values()
                     if re.fullmatch(r"[\w.-]+/?", pattern) and pattern.strip("./"))


def program_operand(args: list[str]) -> int | None:
    """The index in ``args`` (the program's words, its name first) of its pattern or program."""
    read = _read(args)
    if read is None or read[3] or not read[1]:
        return None
    return read[1][0]


def not_paths(args: list[str]) -> set[int]:
    """The indices in ``args`` (its name first) of the words that are text, not paths.

    Also csplit's pattern operands (:func:`goosectx.split_outputs.csplit_patterns`).
    """
    if args and args[0].rsplit("/", 1)[-1] == "csplit":
        return csplit_patterns(args)
    if args and args[0].rsplit("/", 1)[-1] == "rsync":
        return set(rsync_patterns(args))
    if args[:2] and args[0].rsplit("/", 1)[-1] == "gh" and args[1:2] == ["api"]:
        return _gh_endpoint(args)
    if args and args[0].rsplit("/", 1)[-1] == "git":
        return git_messages(args)
    read = _read(args)
    if read is None:
        return set()
    language, operands, text, given = read
    found = set(text)
    if operands and not given:
        found.add(operands[0])
    if language == "awk":
        found |= {i for i in operands[0 if given else 1:] if _ASSIGNMENT.match(args[i])}
    return found


def file_operands(args: list[str]) -> list[str]:
    """The operands of a grep, sed or awk call (``args``: its name first) that name files."""
    read = _read(args)
    if read is None:
        return []
    text = not_paths(args)
    return [args[i] for i in read[1] if i not in text]


_GH_API_VALUED = frozenset({"-X", "--method", "-H", "--header", "-f", "--raw-field", "-F",
                            "--field", "-q", "--jq", "-t", "--template", "--input", "-p",
                            "--preview", "--hostname", "--cache"})
"""``gh api``'s options that take the next word as their value."""


def _gh_endpoint(args: list[str]) -> set[int]:
    """``gh api``'s endpoint operand (``gh api /user``): a path of the API, not a file.

    Its options' values are judged as ever (``--input F``, ``-F body=@F`` read files).
    """
    i = 2
    while i < len(args):
        if args[i] == "--":
            return {i + 1} if i + 1 < len(args) else set()
        if not args[i].startswith("-"):
            return {i}
        i += 2 if args[i] in _GH_API_VALUED else 1
    return set()


_GIT_MESSAGE_VALUED = {"commit": ("mFCct", "Su"), "tag": ("mFu", "n"), "merge": ("mFsX", "S"),
                       "commit-tree": ("mFp", "S"), "notes": ("mFCc", ""), "stash": ("m", "")}
"""git's subcommands with a message option (``-m MSG``, ``--message=MSG``): their short options
that take a value (the rest of the word or the next word) and those that take only the rest
of the word (``-S[KEYID]``, ``-u[MODE]``). Not ``revert`` / ``cherry-pick``: their ``-m`` is a
parent's number; ``-F`` / ``--file`` is a file the message is read from."""
_GIT_LONG_VALUED = ("--file", "--template", "--pathspec-from-file", "--reuse-message",
                    "--reedit-message", "--fixup", "--squash", "--author", "--date", "--cleanup",
                    "--trailer", "--local-user", "--strategy", "--strategy-option",
                    "--into-name", "--ref", "--message")
"""Long options of those subcommands that take the next word as their value."""


def git_messages(args: list[str]) -> set[int]:
    """The indices in ``args`` (``git`` first) of the words holding a message: text, no path.

    ``git commit -m "$(cat <<'END' …)"``, ``git tag -a v1 -m MSG``, ``-am MSG``, ``-mMSG``,
    ``--message=MSG`` (or a prefix of it): what the message's ``$( )`` runs is judged as a
    command of its own (``git commit -m "$(cat .env)"`` reads ``.env`` by ``cat``).
    """
    at = 1 + git_subcommand(args[1:])
    valued, attached = _GIT_MESSAGE_VALUED.get(args[at] if at < len(args) else "", ("", ""))
    found: set[int] = set()
    i = at + 1
    while valued and i < len(args) and args[i] != "--":
        word = args[i]
        if word.startswith("--"):
            option = next((o for o in _GIT_LONG_VALUED if long_option(word, o)), "")
            if option == "--message":
                found.add(i if "=" in word else i + 1)
            i += 2 if option and "=" not in word else 1
        elif word.startswith("-") and len(word) > 1:
            short = short_value(args, i, valued, attached)
            if short.letter == "m":
                found.add(i if short.next == i + 1 else i + 1)
            i = short.next
        else:
            i += 1
    return {k for k in found if k < len(args)}


def volume_host(args: list[str], i: int) -> str | None:
    """The host side of docker's or podman's ``-v HOST:CONTAINER[:OPTS]`` at ``args[i]``.

    ``docker run -v $PWD:/w alpine``: ``$PWD`` is what the host gives; ``/w`` is a path in the
    container, no file here. ``None``: ``args[i]`` is no such value (``args[0]``: the program).
    """
    if args[0].rsplit("/", 1)[-1] not in ("docker", "podman") or i < 1:
        return None
    value = args[i]
    if args[i - 1] in ("-v", "--volume"):
        spec = value
    elif value.startswith("--volume="):
        spec = value.removeprefix("--volume=")
    else:
        return None
    return spec.split(":", 1)[0]
