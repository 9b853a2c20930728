"""Programs that run a command they are given in a form of their own, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. Where the form
is clear the command is read like ``sh -c``'s (:func:`started_commands`): ``find … -exec CMD
;``, ``fd … -x CMD`` / ``-X CMD`` (``--exec``, ``--exec-batch``), the shell command of a tmux
command that starts one (``tmux new-session -d 'CMD'``, ``new-window``, ``split-window``,
``respawn-pane``, ``run-shell``, ``pipe-pane``, ``display-popup``, ``if-shell``'s condition,
``tmux -c 'CMD'``), the program ``screen [OPTIONS] CMD …`` starts, and the string of ``env -S
STRING ARGS…`` (:func:`env_split_line`). What such a program would run from text the rules
cannot read makes the command unreadable (asked about under shell deny/ask rules): keys typed
into a pane (``tmux send-keys``), tmux commands (``source-file``, ``if-shell``'s, a key
binding, a hook, a ``#(…)`` format), screen's ``-X`` commands and ``-c`` file, an expect script
(``expect -c 'spawn …'``, or one read from standard input), and ``make --eval`` / ``-E`` recipe
text, also given in ``MAKEFLAGS`` (:func:`makeflags_eval`). ``rg --pre CMD`` runs the program
CMD on each file it searches. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from goosectx.shell_builtins import reads_stdin

STARTERS = frozenset({"tmux", "byobu", "screen", "expect"})
"""Programs that run a command, or commands, they are given (no command-prefix rule is
offered for them: ``shell(tmux*)`` would allow anything)."""
_FD = frozenset({"fd", "fdfind"})
_FD_FLAGS = "HIuisgFalLp01q"
"""fd's short options that take no value: ``-Hx CMD`` is ``-H -x CMD``."""


@dataclass(slots=True)
class Started:
    """What one program starts from its arguments.

    Attributes:
        lines: Command lines it runs as ``sh -c`` would (read as commands of their own).
        slices: ``(start, end)`` of ``args`` holding a command's words (``fd -x rm {}``).
        unreadable: Why it runs text the rules cannot read, or ``None``.
    """

    lines: list[str] = field(default_factory=list)
    slices: list[tuple[int, int]] = field(default_factory=list)
    unreadable: str | None = None


def started_commands(name: str, args: list[str], fed: bool = True) -> Started:
    """The commands ``name`` starts from ``args`` (its words after the program).

    ``fed``: the command is :attr:`goosectx.shell_words.Part.fed` (an expect script at a
    computed path may be its stream; :func:`goosectx.shell_builtins.reads_stdin`).
    """
    if name == "find":
        options = ("-exec", "-execdir", "-ok", "-okdir")
        return Started(slices=_exec_slices(args, options, (";", "+")))
    if name in _FD:
        return _fd(args)
    if name in ("make", "gmake") and any(_make_eval(a) for a in args):
        return Started(unreadable=f"{name} --eval runs recipe text the rules do not read")
    if name == "rg":
        return _rg(args)
    if name in ("tmux", "byobu"):
        return _tmux(args)
    if name == "screen":
        return _screen(args)
    if name == "expect":
        return _expect(args, fed)
    return Started()


def _make_eval(flag: str) -> bool:
    """True when ``flag`` is make's ``--eval`` (``--ev``: an unambiguous prefix) or ``-sE TEXT``."""
    return flag.startswith("--ev") or re.fullmatch(r"-[bBdeikLnpqrRsStvw]*E.*", flag) is not None


_MAKEFLAGS = re.compile(r"(?:GNU)?MAKEFLAGS(?:\+|\?|:{1,3})?=(.*)", re.DOTALL)


def makeflags_eval(word: str) -> str | None:
    """Why ``word`` sets ``MAKEFLAGS`` / ``GNUMAKEFLAGS`` to flags holding make's eval, or ``None``.

    Make reads those variables (from its environment, and a ``make MAKEFLAGS=…`` operand) as
    its own options: ``MAKEFLAGS='--eval=t: ; rm x' make t``. The first word of the value may
    be single letters without a ``-`` (``Et:…`` is ``-Et:…``); words after ``--`` are variables.
    """
    found = _MAKEFLAGS.match(word)
    for k, flag in enumerate(found[1].split() if found else []):
        if flag == "--":
            return None
        if _make_eval(flag if k or flag.startswith("-") or "=" in flag else "-" + flag):
            return "it sets MAKEFLAGS to make --eval recipe text"
    return None


def _rg(args: list[str]) -> Started:
    """``rg --pre CMD``: ripgrep runs the program CMD (no shell) on every file it searches.

    ``--pre CMD`` is read like ``find -exec``'s program; ``--pre=CMD`` too, unless bash
    computes or globs the word (``--pre=$X``: unreadable).
    """
    started = Started()
    for i, word in enumerate(args):
        if word == "--":
            break
        if word == "--pre" and i + 1 < len(args):
            started.slices.append((i + 1, i + 2))
        elif word.startswith("--pre="):
            program = word.partition("=")[2]
            if re.search(r"[$`*?\[{]", program):
                started.unreadable = "rg --pre's program is named at run time or by a glob"
            elif program:
                started.lines.append(shlex.quote(program))
    return started


def runs_given_command(name: str, args: list[str]) -> bool:
    """True when ``name`` runs a command given in ``args`` (:func:`started_commands`)."""
    found = started_commands(name, args)
    return name in STARTERS or bool(found.lines or found.slices or found.unreadable)


def _exec_slices(args: list[str], options: tuple[str, ...],
                 ends: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where each ``OPTION CMD … END`` command of ``args`` is (``find -exec rm {} ;``)."""
    slices: list[tuple[int, int]] = []
    i = 0
    while i < len(args):
        if args[i] in options:
            j = i + 1
            while j < len(args) and args[j] not in ends:
                j += 1
            if j > i + 1:
                slices.append((i + 1, j))
            i = j
        i += 1
    return slices


def _fd(args: list[str]) -> Started:
    """``fd PATTERN -x CMD …`` / ``-X``: every word after the option (up to ``;``) is CMD's.

    ``-xCMD`` / ``--exec=CMD`` give its program in the same word: the command is read from
    a line of that word and the words after it.
    """
    for i, word in enumerate(args):
        rest = args[i + 1:]
        end = rest.index(";") if ";" in rest else len(rest)
        if word in ("--exec", "--exec-batch") or re.fullmatch(f"-[{_FD_FLAGS}]*[xX]", word):
            return Started(slices=[(i + 1, i + 1 + end)] if end else [])
        attached = re.fullmatch(f"-[{_FD_FLAGS}]*[xX](.+)", word) or re.fullmatch(
            "--exec(?:-batch)?=(.+)", word)
        if attached:
            return Started(lines=[shlex.join([attached[1], *rest[:end]])])
        if word == "--":
            break
    return Started()


# -- tmux --------------------------------------------------------------------------------
_TMUX_GLOBAL_VALUED = "cfLST"
"""tmux's own options that take a value (``-c SHELL-COMMAND``, ``-f FILE``, ``-L socket``)."""
_TMUX_RUNS = {
    "new-session": "cefFnstxy", "new": "cefFnstxy", "new-window": "ceFnt", "neww": "ceFnt",
    "split-window": "celtFp", "splitw": "celtFp", "respawn-pane": "cet", "respawnp": "cet",
    "respawn-window": "cet", "respawnw": "cet", "run-shell": "cdt", "run": "cdt",
    "pipe-pane": "t", "pipep": "t", "display-popup": "bcdehsStTwxy", "popup": "bcdehsStTwxy",
    "if-shell": "t", "if": "t"}
"""tmux commands whose operands are a shell command (and its arguments), with their options
that take a value."""
_TMUX_HIDES = ("send-keys", "send", "send-prefix", "source-file", "source", "bind-key", "bind",
               "set-hook", "command-prompt", "confirm-before", "confirm", "display-menu",
               "menu", "set-option", "set", "set-window-option", "setw", "paste-buffer",
               "pasteb", "load-buffer", "loadb", "choose-tree", "choose-client", "choose-buffer",
               "choose-window", "choose-session", "display-panes", "displayp",
               "set-environment", "setenv")
"""tmux commands that run text the rules cannot read: keys typed into a shell, tmux commands
(a file, a binding, a hook, a menu, prompt or chooser's template), an option whose format may
run ``#(…)``, or the environment of the shells it starts."""


def _tmux(args: list[str]) -> Started:
    """The shell commands a ``tmux`` command line starts (``;`` separates tmux commands)."""
    started = Started()
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        cut = next((k for k, c in enumerate(args[i][1:], 1) if c in _TMUX_GLOBAL_VALUED), None)
        if "C" in args[i][1:cut]:
            started.unreadable = "tmux -C reads tmux commands from its standard input"
        value = None if cut is None else args[i][cut + 1:] or _at(args, i + 1)
        if cut is not None and args[i][cut] == "c" and value is not None:
            started.lines.append(value)  # tmux -c 'CMD': run by the default shell
        elif cut is not None and args[i][cut] == "f" and value != "/dev/null":
            started.unreadable = "tmux runs the tmux commands of a file (-f)"
        i += 2 if cut == len(args[i]) - 1 else 1
    i += i < len(args) and args[i] == "--"
    command: list[str] = []
    for word in [*args[i:], ";"]:
        if not word.endswith(";") or word.endswith("\\;"):
            command.append(word[:-2] + ";" if word.endswith("\\;") else word)  # x\; is x;
            continue
        if word != ";":
            command.append(word[:-1])  # `new-window x;` ends a tmux command too
        started.unreadable = started.unreadable or _tmux_command(command, started)
        command = []
    if started.unreadable is None and any("#(" in a for a in args):
        started.unreadable = "a tmux format runs the shell command of its #(…)"
    return started


def _tmux_command(words: list[str], started: Started) -> str | None:
    """Read one tmux command into ``started``; why it cannot be read, or ``None``."""
    if not words:
        return None
    name, args = words[0], words[1:]
    if name in _TMUX_HIDES or name not in _TMUX_RUNS and any(
            full.startswith(name) for full in (*_TMUX_RUNS, *_TMUX_HIDES)):
        return f"tmux {name} runs text the rules cannot read"  # an abbreviation too (new-s)
    valued = _TMUX_RUNS.get(name)
    if valued is None:
        return None  # ls, attach -t x, kill-session: no command
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            i += 1
            break
        cut = next((k for k, c in enumerate(args[i][1:], 1) if c in valued), None)
        if "C" in args[i][1:cut]:  # run-shell -C: a tmux command
            return f"tmux {name} -C runs a tmux command the rules cannot read"
        i += 2 if cut == len(args[i]) - 1 else 1
    operands = args[i:]
    if name in ("if-shell", "if"):
        if len(operands) > 1:
            return "tmux if-shell runs tmux commands the rules cannot read"
        operands = operands[:1]
    if len(operands) == 1:
        started.lines.append(operands[0])  # one word: run by the shell, as sh -c runs it
    elif operands:
        started.lines.append(shlex.join(operands))  # several: run as the program's words
    return None


# -- screen, expect ------------------------------------------------------------------------
_SCREEN_VALUED = "ehpsStT"
"""screen's options that take a value (``-S NAME``, ``-t TITLE``, ``-s SHELL``)."""


def _screen(args: list[str]) -> Started:
    """``screen [OPTIONS] CMD ARGS…``: CMD's words; ``-X`` commands and a ``-c`` file hide it."""
    lines: list[str] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):
        word = args[i]
        if word == "--":
            i += 1
            break
        if word in ("-Logfile", "-logfile"):
            i += 2
            continue
        if word in ("-ls", "-list", "-wipe", "-v", "-version"):
            return Started()
        cut = next((k for k, c in enumerate(word[1:], 1) if c in _SCREEN_VALUED + "cX"), None)
        if cut is not None and word[cut] == "X":
            return Started(unreadable="screen -X runs screen commands the rules cannot read")
        if cut is not None and word[cut] == "c" and (word[cut + 1:] or _at(args, i + 1)) != (
                "/dev/null"):
            return Started(unreadable="screen runs the screen commands of a file (-c)")
        if cut is not None and word[cut] == "s":  # -s SHELL: run when no command is given
            shell = word[cut + 1:] or _at(args, i + 1)
            lines += [shlex.quote(shell)] if shell else []
        i += 2 if cut == len(word) - 1 else 1
    return Started(lines, slices=[(i, len(args))] if i < len(args) else [])


def _expect(args: list[str], fed: bool) -> Started:
    """An expect script runs any command (``spawn``, ``exec``): asked about, except a file's.

    A script file is not read either way (as ``bash script.sh``); inline ``-c`` commands, an
    interactive session (``-i``) and a script from standard input or a path the rules cannot
    see is a file are unreadable.
    """
    stdin = Started(unreadable="expect runs a script it reads from its standard input or a "
                               "path the rules cannot see is a file")
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--" or not word.startswith("-") or word in ("-f", "-b"):
            script = _at(args, i + 1) if word.startswith("-") else word
            return stdin if script is None or reads_stdin(script, fed) else Started()
        if word == "-v":
            return Started()  # its version
        if "c" in word[1:] or "i" in word[1:] or word == "-":
            return Started(unreadable="expect runs a script the rules do not read (-c, -i)")
        i += 2 if word == "-D" else 1
    return stdin


# -- env -S --------------------------------------------------------------------------------
def env_split_line(args: list[str]) -> str | None:
    r"""The command line ``env … -S STRING ARGS…`` runs, or ``None`` (no ``-S``).

    env splits STRING into words and reads them as its own arguments, followed by ARGS:
    ``env -S 'python3 -u' x.py`` runs ``env python3 -u x.py``. A word starting with ``#``
    makes the rest of STRING a comment (ARGS still follow it); a string with ``\`` or ``$``
    is unreadable (:func:`goosectx.shell_runners.hidden_program`).
    """
    skip = False
    for i, word in enumerate(args):
        if skip:  # the value of env's -u / -C
            skip = False
            continue
        cluster = re.match(r"-([a-zA-Z]*?)([uCaS])(.*)", word)
        if word in ("--unset", "--chdir", "--argv0") or cluster and cluster[2] != "S" and (
                not word.startswith("--")):
            skip = not (cluster and cluster[3])  # -u NAME, -C DIR (or -uNAME)
            continue
        if not word.startswith("-") and "=" not in word:
            return None  # env's command: a -S after it is the command's
        string, after = None, i + 1
        if word.startswith("--split-string"):
            string = word.partition("=")[2] if "=" in word else _at(args, i + 1)
            after += "=" not in word
        elif cluster and not word.startswith("--"):
            string = cluster[3] or _at(args, i + 1)
            after += not cluster[3]
        if string is not None:
            comment = re.search(r"(?:^|[ \t])#", string)  # env's comment: ARGS still follow
            string = string[:comment.start()] if comment else string
            return " ".join(["env", string, *(shlex.quote(a) for a in args[after:])])
    return None


def _at(args: list[str], i: int) -> str | None:
    return args[i] if i < len(args) else None
