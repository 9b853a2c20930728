"""The command a wrapper runs, and the command string of a shell, ``su -c``, ``env -S``, ``eval``.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. A well-known
wrapper (``command``, ``env``, ``sudo``, ``nice``, ``timeout 5``, ``xargs``, ``jobs -x`` …)
runs the command after its options (:func:`unwrap`); ``bash -c STRING``, ``su -c STRING``,
``env -S STRING``, ``eval`` and ``trap`` run a command line given as a string
(:func:`inner_line`). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from itertools import takewhile

from goosectx.shell_builtins import SHELLS, shell_line
from goosectx.shell_lexer import Word
from goosectx.shell_options import ENV_VALUED, long_option, short_value, su_line
from goosectx.shell_runner_options import GRAMMARS, MARKED, Grammar, runner_grammars
from goosectx.shell_words import ASSIGNMENT_WORD

# wrapper → (options that take a value, positional words before the command)
WRAPPERS: dict[str, tuple[str, int]] = {
    "command": ("", 0), "builtin": ("", 0), "exec": ("a", 0), "nohup": ("", 0),
    "env": ("uCSa", 0), "sudo": ("acugpCDrtUTR", 0), "doas": ("auC", 0), "nice": ("n", 0),
    "time": ("fo", 0), "timeout": ("sk", 1), "stdbuf": ("ioe", 0), "ionice": ("cnp", 0),
    "xargs": ("adEILnPs", 0), "watch": ("nq", 0), "chronic": ("", 0), "setsid": ("", 0),
    "unbuffer": ("", 0), "torsocks": ("", 0), "proxychains": ("f", 0), "flock": ("wE", 1),
    "busybox": ("", 0), "toybox": ("", 0), "jobs": ("", 0), "systemd-run": ("upEHMC", 0),
    "proxychains4": ("f", 0), "tsocks": ("", 0), "nocache": ("", 0), "eatmydata": ("", 0),
    "ifne": ("", 0), "ssh-agent": ("aEOPt", 0), "logsave": ("", 1), "systemd-inhibit": ("", 0),
    "dbus-launch": ("", 0), "run-one": ("", 0), "run-this-one": ("", 0),
    "keep-one-running": ("", 0), "run-one-constantly": ("", 0), "run-one-until-success": ("", 0),
    "run-one-until-failure": ("", 0), "timelimit": ("sSTt", 0), "envdir": ("", 1),
    "softlimit": ("mdslaopfcrt", 0), "setlock": ("", 1), "envuidgid": ("", 1),
    "with-lock-ex": ("", 1), "aa-exec": ("pn", 0), "run0": ("ugD", 0), "flatpak-spawn": ("", 0),
    # s6's chain-loaders, as daemontools' above (with-contenv: s6-overlay's)
    "with-contenv": ("", 0), "s6-setuidgid": ("", 1), "s6-envuidgid": ("", 1),
    "s6-applyuidgid": ("ugG", 0), "s6-envdir": ("", 1), "s6-softlimit": ("acdflmoprst", 0),
    "s6-setsid": ("d", 0), "s6-setlock": ("t", 1),
}
OPTIONAL_VALUES = {"sudo": "h", "xargs": "eil", "watch": "d"}
"""Wrappers' options whose value is optional: the rest of their word only (``xargs -iX``,
``-i``: no value; :func:`goosectx.shell_options.short_value`)."""
LONG_OPTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "timeout": (("--foreground", "--preserve-status", "--verbose", "--help", "--version"),
                ("--signal", "--kill-after")),
    "xargs": (("--null", "--no-run-if-empty", "--verbose", "--interactive", "--open-tty",
               "--exit", "--show-limits", "--max-lines", "--replace", "--eof", "--help",
               "--version"),
              ("--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars",
               "--process-slot-var")),
    "env": (("--ignore-environment", "--null", "--debug", "--default-signal", "--ignore-signal",
             "--block-signal", "--list-signal-handling", "--help", "--version"),
            ("--unset", "--chdir", "--split-string")),
    "nice": (("--help", "--version"), ("--adjustment",)),
    "time": (("--append", "--verbose", "--portability", "--quiet", "--help", "--version"),
             ("--format", "--output")),
    "stdbuf": (("--help", "--version"), ("--input", "--output", "--error")),
    "sudo": (("--askpass", "--background", "--bell", "--edit", "--help", "--login",
              "--remove-timestamp", "--reset-timestamp", "--list", "--non-interactive",
              "--preserve-groups", "--preserve-env", "--set-home", "--stdin", "--shell",
              "--validate", "--version"),
             ("--auth-type", "--close-from", "--login-class", "--chdir", "--group", "--host",
              "--other-user", "--prompt", "--chroot", "--role", "--type", "--command-timeout",
              "--user")),
}
"""Wrappers' long options as GNU getopt knows them: (flags, or whose value is optional and
given with ``=`` only; options that take the next word). A ``--long`` word one of them names
(whole, or by a prefix only it has) is read that one way; any other both ways."""
_GRAMMARS = {**{name: Grammar(valued, positionals, OPTIONAL_VALUES.get(name, ""),
                               *LONG_OPTIONS.get(name, ((), ())))
                 for name, (valued, positionals) in WRAPPERS.items()}, **GRAMMARS}
"""The wrappers' grammars (their tables above, made once) and the runners'
(:data:`goosectx.shell_runner_options.GRAMMARS`, read by ``NAME`` or ``NAME VERB``:
``unwrap("uv run", …)``)."""
_TWO_READINGS = {"sudo": "h"}
"""Options read both ways: sudo takes a word that is no option after a bare ``-h`` for its host
(its own parser, not getopt's), and ``-hu root`` is host ``u`` to getopt; each is also read as
the flag ``-h`` (``-h -u root``), so the rules see the program of either reading."""


HANDS_ON = frozenset({"env", "sudo", "doas", "run0", "systemd-run"})
"""Wrappers that hand the command they run the variables of their ``NAME=VALUE`` words (``env
A=1 CMD``, ``sudo A=1 CMD``; doas and run0 given such a word: read as sudo's, the safe
direction) and of ``--setenv=NAME=VALUE`` / ``-E NAME=VALUE`` (run0, systemd-run)."""
_SETENV = ("--setenv=", "-E")


def handed(name: str, args: list[str] | tuple[str, ...]) -> list[str]:
    """The ``NAME=VALUE`` words wrapper ``name ARGS`` hands the command it runs, in order.

    Read by :func:`unwrap`'s walk, each of its readings: the words before the command (``env
    -u X A=1``, an option's value too: ``systemd-run -E A=1``) and those that start it (``sudo
    --user root A=1 git``, ``env -- A=1 git``); ``run0 --setenv=A=1``'s value. Not
    :data:`HANDS_ON`: none.
    """
    if name not in HANDS_ON:
        return []
    words = [Word(a, a) for a in args]
    found: set[int] = set()
    for reading in unwrap(name, words):
        start = len(words) - len(reading)
        found.update(range(start))
        found.update(range(start, start + sum(1 for _ in takewhile(
            lambda w: ASSIGNMENT_WORD.match(w.value), reading))))
    split = {string for string, _after in env_split_strings(list(args))} if name == "env" else ()
    given = [args[i] for i in sorted(found) if args[i] not in split]  # env -S 'A=1 x': a line
    return [word for a in given for word in [a, *(a.removeprefix(p) for p in _SETENV if (
        name in ("run0", "systemd-run") and a.startswith(p)))] if ASSIGNMENT_WORD.match(word)]


_ENV_SPLIT = Grammar("uCa", 0, "", LONG_OPTIONS["env"][0], ENV_VALUED, "S", ("--split-string",))
"""env's options with ``-S STRING`` / ``--split-string=STRING`` as the line it runs."""


def env_split_strings(args: list[str]) -> Iterator[tuple[str, int]]:
    """Each ``STRING`` of env's ``-S STRING`` in ``args``, with where the words after it start.

    Walked by :func:`unwrap` as env's other options are: ``-S'rm x'``, ``-iS 'rm x'``,
    ``--split-string=…`` (any prefix getopt takes: ``--s=…``); ``-u NAME``, ``-C DIR``, ``-a
    ARG0`` (clustered too: ``-iuNAME``) and ``--unset`` / ``--chdir`` / ``--argv0`` skip their
    value; a word that is no option and no ``NAME=VALUE`` is the command, whose own ``-S`` is
    not env's. It goes on after a ``-S`` (the words of its string come first, so a later ``-S``
    may be the command's: reading it too only asks more).
    """
    words, start = [Word(a, a) for a in args], 0
    while start < len(words):
        at: list[int] = []
        first = unwrap("env", words, start, grammar=_ENV_SPLIT, given_at=at)[0]
        if not at or not first:  # no -S, or a -S with no string (env -S)
            return
        start = len(words) - len(first) + 1
        yield first[0].value, start


def env_split_line(args: list[str]) -> str | None:
    r"""The command line ``env … -S STRING ARGS…`` runs, or ``None`` (no ``-S``).

    env splits STRING into words and reads them as its own arguments, followed by ARGS:
    ``env -S 'python3 -u' x.py`` runs ``env python3 -u x.py``. A word starting with ``#``
    makes the rest of STRING a comment (ARGS still follow it); a string with ``\`` or ``$``
    is unreadable (:func:`goosectx.shell_runners.hidden_program`).
    """
    found = next(env_split_strings(args), None)
    if found is None:
        return None
    string, after = found
    comment = re.search(r"(?:^|[ \t])#", string)  # env's comment: ARGS still follow
    string = string[:comment.start()] if comment else string
    return " ".join(["env", string, *(shlex.quote(a) for a in args[after:])])


def inner_line(name: str, args: list[str]) -> str | None:
    """The command string of ``bash -c STRING``, ``su -c STRING``, ``env -S STRING``, ``eval``."""
    if name == "eval":
        return " ".join(args[1:] if args[:1] == ["--"] else args)  # eval -- CMD
    if name == "trap":
        commands = [a for a in args if not a.startswith("-")]
        return commands[0] if len(commands) > 1 else None
    if name in SHELLS:
        return shell_line(args)
    if name == "env":
        return env_split_line(args)
    return su_line(name, args)  # su -c, su --comm='…' (any prefix getopt takes)


def unwrap(name: str, words: list[Word], start: int = 0,  # noqa: C901, PLR0912
            budget: list[int] | None = None, grammar: Grammar | None = None,
            given_at: list[int] | None = None) -> list[list[Word]]:
    """The command a wrapper runs: its options, values and leading positionals skipped.

    A cluster of short options is read as getopt reads it (``sudo -Eu root rm``: ``-u``
    takes ``root``; :func:`goosectx.shell_options.short_value`). A ``--long`` option of
    :data:`LONG_OPTIONS` is read as getopt reads it (``timeout --signal KILL 5 rm``,
    ``--foreground 60 pytest``); for any other the first reading takes it as a flag and one more
    (at most 8) for each such option takes the next word as its value, since which of them take
    one is not known here, and for each option of :data:`_TWO_READINGS` (deny and ask rules
    match them all; an allow rule must cover the command of each).

    ``grammar``: the options of a runner the tables do not hold (``setarch``, ``su``:
    :mod:`goosectx.stdin_shells`), read past its positionals as GNU getopt permutes them
    (``setarch x86_64 -R``, ``su root -c CMD``); an option of its ``given``/``long_given``
    takes the command line the runner runs (``su -c CMD``), whose reading starts there;
    ``given_at`` is given the index of that option's word (the first reading is then the line
    and the words after it: :func:`env_split_strings`).
    """
    budget = [8] if budget is None else budget
    spec = grammar or _GRAMMARS[name]
    with_value, positionals = spec.valued + spec.given, spec.positionals
    args = [w.value for w in words]
    i = start
    others: list[list[Word]] = []
    while i < len(args):
        word = args[i]
        if grammar is not None and positionals and (word[:1] != "-" or word == "-") and not (
                name in ("su", "runuser") and word == "-"):
            positionals, i = positionals - 1, i + 1  # setarch ARCH -R: options after it
            continue
        if word == "--":
            i += 1
            break
        if name == "env" and "=" in word and not word.startswith("-"):
            i += 1  # env NAME=VALUE: any name, a-b=1 too
            continue
        if not word.startswith("-") or word == "-":
            if name in ("env", "su", "runuser") and word == "-":
                i += 1  # env -: an empty environment; su -, runuser -: a login shell
                continue
            break
        if word.startswith("--"):
            if any(long_option(word, o) for o in spec.long_given):  # su --command=CMD
                value = word.partition("=")[2]
                if given_at is not None:
                    given_at.append(i)
                return [[Word(value, value), *words[i + 1:]] if "=" in word else words[i + 1:],
                        *others]
            takes = _long_takes(spec, word)
            if takes is True:
                i += 2  # timeout --signal KILL 5 rm
                continue
            if takes is None and "=" not in word and i + 1 < len(args) and budget[0] > 0:
                budget[0] -= 1
                others += unwrap(name, words, i + 2, budget, grammar and grammar._replace(
                    positionals=positionals))
            i += 1  # --long=value, or a flag
            continue
        if name == "command" and ("v" in word or "V" in word):
            return [[]]  # command -v NAME: prints how NAME would run, runs nothing
        if name == "nice" and word[1:].isdigit():
            i += 1  # nice -10 CMD
            continue
        short = short_value(args, i, with_value, spec.optional)
        if short.letter and short.letter in spec.given:  # su -c CMD, script -qcCMD
            attached = short.next == i + 1 and short.value is not None
            if given_at is not None:
                given_at.append(i)
            return [[Word(short.value or "", short.value or ""), *words[i + 1:]] if (
                attached) else words[i + 1:], *others]
        if short.letter and short.letter in _TWO_READINGS.get(name, "") and budget[0] > 0:
            budget[0] -= 1
            flags = "-" + word[len(short.flags) + 2:]  # -hu root: also -h -u root
            others += (unwrap(name, words, i + 2, budget) if short.value is None else unwrap(
                name, [*words[:i], Word(flags, flags), *words[i + 1:]], i, budget))
        i = short.next
    return [words[i + positionals:], *others]


_INPUT_SOURCES = frozenset({":::", "::::", ":::+", "::::+"})
"""GNU parallel's (and sem's) separators: the words after them are its inputs."""


def runner_readings(name: str, words: list[Word], verb_at: int | None,
                    starts: list[int]) -> tuple[list[list[Word]], list[int]]:
    """The commands runner ``name WORDS`` may start, and where their forms are read from.

    An allow rule must cover each command. Read by its options' grammar
    (:func:`goosectx.shell_runner_options.runner_grammars`; ``verb_at``: the index of its
    running subcommand, ``uv run``); ``kubectl exec … -- CMD``: after the ``--``
    (:data:`~goosectx.shell_runner_options.MARKED`); any other runner from
    each word where its command may start (``starts``:
    :func:`goosectx.shell_runners.runner_starts`), for ``parallel CMD ::: A`` none among its
    inputs. The forms are read from each of ``starts``; for a runner read by its grammar
    (``chrt``, ``taskset``, ``numactl``, ``prlimit``, ``cpulimit``, ``strace`` …) first where its
    readings start, so the reason names its command (``chrt 5 env GIT_WORK_TREE=.git …``: at
    ``env``, before ``5``, its priority, which the backstop takes for a program it does not
    know; a deny rule matching a later candidate still asks: ``uv run pytest -k rm``).
    """
    args = [w.value for w in words]
    marks = MARKED.get(name if verb_at is None else f"{name} {args[verb_at]}", ())
    if (at := next((i for i in range(verb_at or 0, len(args)) if args[i] in marks), None)):
        return [words[at + 1:]], starts  # kubectl exec POD -c C -- CMD, nix develop -c CMD
    if name in ("parallel", "sem"):  # parallel -j 4 pytest {} ::: a: read by its grammar
        given = [one for one in unwrap(name, words) if one and one[0].value not in _INPUT_SOURCES]
        inputs = next((i for i, a in enumerate(args) if a in _INPUT_SOURCES), len(args))
        return given or [words[s:] for s in starts if s > inputs and (  # parallel ::: 'rm x'
            args[s] not in _INPUT_SOURCES)], starts
    keys = runner_grammars(name, args, verb_at)
    if keys is not None:
        start = 0 if verb_at is None else verb_at + 1
        readings = [reading for key in keys for reading in unwrap(key, words, start)]
        read = sorted({len(words) - len(one) for one in readings if one})
        return readings, [*read, *(s for s in starts if s not in read)]
    return [words[s:] for s in starts], starts


def _long_takes(spec: Grammar, word: str) -> bool | None:
    """Whether ``spec``'s ``--long`` option ``word`` takes the next word (``None``: not known).

    :data:`LONG_OPTIONS`: a word naming a known option whole, or by a prefix of one only;
    ``--opt=V`` takes no next word.
    """
    flags, valued = spec.flags, spec.long_valued
    option = word.partition("=")[0]
    found = [o for o in (*flags, *valued) if o == option] or [
        o for o in (*flags, *valued) if long_option(option, o)]
    if len(found) != 1:
        return None
    return found[0] in valued and "=" not in word


def watch_joins(own: list[str]) -> bool:
    """True when ``watch`` with options ``own`` runs its command's words as one shell line.

    watch joins them with blanks and runs the line with ``sh -c`` (``watch -n1 'ls; rm x'``
    runs ``rm``), unless ``-x`` / ``--exec`` makes it run them as a program.
    """
    i = 0
    while i < len(own):
        word = own[i]
        if word.startswith("--"):
            if long_option(word, "--exec"):
                return False
            i += 1
            continue
        short = short_value(own, i, WRAPPERS["watch"][0], OPTIONAL_VALUES["watch"])
        if "x" in short.flags:
            return False
        i = short.next
    return True
