"""Terminal multiplexers and detachers: the commands they start, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_wrappers` reads a program that runs a command it is given. Read like
``sh -c``'s: the shell command of a tmux command that starts one (``tmux new-session -d 'CMD'``,
``new-window``, ``split-window`` and its default aliases ``split-pane`` / ``splitp``,
``respawn-pane``, ``run-shell``, ``pipe-pane``, ``display-popup``, ``if-shell``'s condition,
``detach-client -E CMD``, ``tmux -c 'CMD'``; also through ``byobu`` and ``byobu-tmux``), the
program ``screen [OPTIONS] CMD …`` starts (``byobu-screen`` too), ``dtach -n|-c|-A|-N SOCKET
CMD …``, ``abduco -n|-c|-A NAME CMD …`` and ``zellij run [--] CMD …`` (``zellij action
new-pane``). Unreadable: keys or text typed into a session (``tmux send-keys``, ``zellij action
write-chars``, ``dtach -p``, ``abduco -p``), tmux commands (``source-file``, ``if-shell``'s, a
key binding, a hook, a ``#(…)`` format), a tmux command name it does not know (``new-s``: an
abbreviation), screen's ``-X``/``-Q`` commands and ``-c`` file. What the command text shows, not a
sandbox.

Core module: no printing.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from goosectx.shell_options import short_value, value_at

TERMINALS = frozenset({"tmux", "byobu", "byobu-tmux", "screen", "byobu-screen", "dtach",
                       "abduco", "zellij"})
"""Programs that run a command, or commands, they are given in a session of their own."""


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


# -- tmux --------------------------------------------------------------------------------
_TMUX_GLOBAL_VALUED = "cfLST"
"""tmux's own options that take a value (``-c SHELL-COMMAND``, ``-f FILE``, ``-L socket``)."""
_TMUX_NAMES = {
    "attach": "attach-session", "bind": "bind-key", "breakp": "break-pane",
    "capturep": "capture-pane", "clearhist": "clear-history", "clearphist": "clear-prompt-history",
    "confirm": "confirm-before", "deleteb": "delete-buffer", "detach": "detach-client",
    "menu": "display-menu", "display": "display-message", "popup": "display-popup",
    "displayp": "display-panes", "findw": "find-window", "has": "has-session", "if": "if-shell",
    "joinp": "join-pane", "killp": "kill-pane", "killw": "kill-window", "lastp": "last-pane",
    "last": "last-window", "linkw": "link-window", "lsb": "list-buffers", "lsc": "list-clients",
    "lscm": "list-commands", "lsk": "list-keys", "lsp": "list-panes", "ls": "list-sessions",
    "lsw": "list-windows", "loadb": "load-buffer", "lockc": "lock-client", "lock": "lock-server",
    "locks": "lock-session", "movep": "move-pane", "movew": "move-window", "new": "new-session",
    "neww": "new-window", "nextl": "next-layout", "next": "next-window", "pasteb": "paste-buffer",
    "pipep": "pipe-pane", "prevl": "previous-layout", "prev": "previous-window",
    "refresh": "refresh-client", "rename": "rename-session", "renamew": "rename-window",
    "resizep": "resize-pane", "resizew": "resize-window", "respawnp": "respawn-pane",
    "respawnw": "respawn-window", "rotatew": "rotate-window", "run": "run-shell",
    "saveb": "save-buffer", "selectl": "select-layout", "selectp": "select-pane",
    "selectw": "select-window", "send": "send-keys", "setb": "set-buffer",
    "setenv": "set-environment", "set": "set-option", "setw": "set-window-option",
    "showb": "show-buffer", "showenv": "show-environment", "showmsgs": "show-messages",
    "show": "show-options", "showphist": "show-prompt-history", "showw": "show-window-options",
    "source": "source-file", "splitw": "split-window", "start": "start-server",
    "suspendc": "suspend-client", "swapp": "swap-pane", "swapw": "swap-window",
    "switchc": "switch-client", "unbind": "unbind-key", "unlinkw": "unlink-window",
    "wait": "wait-for",
    # the default command-alias option: split-pane, splitp, info, server-info, choose-window…
    "split-pane": "split-window", "splitp": "split-window", "info": "show-messages",
    "server-info": "show-messages", "choose-window": "choose-tree", "choose-session": "choose-tree"}
"""tmux 3.3's short names of its commands and its default command aliases, to the full name."""
_TMUX_OTHERS = frozenset({
    "choose-buffer", "choose-client", "clock-mode", "command-prompt", "copy-mode",
    "customize-mode", "kill-server", "kill-session", "send-prefix", "server-access", "set-hook",
    "show-hooks", "choose-tree", *_TMUX_NAMES.values()})
"""Every tmux command's full name: another word (an abbreviation such as ``new-s``, a newer
command, an alias set by ``command-alias``) is one the rules cannot read."""
_TMUX_RUNS = {
    "new-session": "cefFnstxy", "new-window": "ceFnt", "split-window": "celtFp",
    "respawn-pane": "cet", "respawn-window": "cet", "run-shell": "cdt", "pipe-pane": "t",
    "display-popup": "bcdehsStTwxy", "if-shell": "t", "detach-client": "Est"}
"""tmux commands whose operands are a shell command (and its arguments), with their options
that take a value (``detach-client -E CMD``: the value is the command)."""
_TMUX_HIDES = ("send-keys", "send-prefix", "source-file", "bind-key", "set-hook",
               "command-prompt", "confirm-before", "display-menu", "set-option",
               "set-window-option", "paste-buffer", "load-buffer", "choose-tree",
               "choose-client", "choose-buffer", "display-panes", "set-environment")
"""tmux commands that run text the rules cannot read: keys typed into a shell, tmux commands
(a file, a binding, a hook, a menu, prompt or chooser's template), an option whose format may
run ``#(…)``, or the environment of the shells it starts."""


def _tmux(args: list[str], computed: list[bool]) -> Started:
    """The shell commands a ``tmux`` command line starts (``;`` separates tmux commands)."""
    started = Started()
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        short = short_value(args, i, _TMUX_GLOBAL_VALUED)
        if "C" in short.flags:
            started.unreadable = "tmux -C reads tmux commands from its standard input"
        if short.letter == "c" and short.value is not None:
            started.lines.append(short.value)  # tmux -c 'CMD': run by the default shell
        elif short.letter == "f" and short.value != "/dev/null":
            started.unreadable = "tmux runs the tmux commands of a file (-f)"
        i = short.next
    i += i < len(args) and args[i] == "--"
    command: list[str] = []
    start, exact = i, True  # where its words begin in args; each as bash gives it
    for k, word in enumerate([*args[i:], ";"], i):
        if not word.endswith(";") or word.endswith("\\;"):
            command.append(word[:-2] + ";" if word.endswith("\\;") else word)  # x\; is x;
            exact = exact and not word.endswith("\\;")
            continue
        if word != ";":
            command.append(word[:-1])  # `new-window x;` ends a tmux command too
            exact = False
        started.unreadable = started.unreadable or _tmux_command(
            command, started, start if exact else None, any(computed[start:k + 1]))
        command, start, exact = [], k + 1, True
    if started.unreadable is None and any("#(" in a for a in args):
        started.unreadable = "a tmux format runs the shell command of its #(…)"
    return started


def _tmux_command(words: list[str], started: Started, at: int | None,
                  computed: bool) -> str | None:
    r"""Read one tmux command into ``started``; why it cannot be read, or ``None``.

    ``at``: where ``words`` begin in tmux's arguments when each is the word bash gives (not
    ``x\;``, ``x;``); ``computed``: bash computes one of them (``$X``, a glob or brace).
    """
    if not words:
        return None
    written, args = words[0], words[1:]
    name = _TMUX_NAMES.get(written, written)
    if name not in _TMUX_OTHERS:
        return f"tmux {written} is no tmux command name the rules know (an abbreviation, an alias)"
    if name in _TMUX_HIDES:
        return f"tmux {written} runs text the rules cannot read"
    valued = _TMUX_RUNS.get(name)
    if valued is None:
        return None  # ls, attach -t x, kill-session: no command
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            i += 1
            break
        short = short_value(args, i, valued)
        if "C" in short.flags:  # run-shell -C: a tmux command
            return f"tmux {name} -C runs a tmux command the rules cannot read"
        if name == "detach-client" and short.letter == "E":
            started.lines += filter(None, [short.value])
        i = short.next
    if name == "detach-client":
        return None  # its operands are no command
    operands = args[i:]
    if name == "if-shell":
        if len(operands) > 1:
            return "tmux if-shell runs tmux commands the rules cannot read"
        operands = operands[:1]
    if len(operands) == 1:
        started.lines.append(operands[0])  # one word: run by the shell, as sh -c runs it
    elif operands and at is not None:  # several: the program's words, $X still computed
        started.slices.append((at + len(words) - len(operands), at + len(words)))
    elif operands and computed:  # a line of their values would quote $X into a literal word
        return f"tmux {written} runs words bash computes, which the rules cannot read here"
    elif operands:
        started.lines.append(shlex.join(operands))  # several: run as the program's words
    return None


# -- screen, dtach, abduco, zellij -------------------------------------------------------
def _screen(args: list[str]) -> Started:
    """``screen [OPTIONS] CMD ARGS…``: CMD's words; ``-X``/``-Q`` commands, a ``-c`` file hide it.

    Options are read as screen.c's main() reads them: ``-r``/``-R``/``-x`` take the next word
    as the session's name unless it starts with ``-`` (``screen -x sess -X stuff …``), ``-S``
    takes one only when none was given yet, and the options go on after them. A ``-X`` or
    ``-Q`` word anywhere is unreadable.
    """
    if "-X" in args or "-Q" in args:
        return Started(unreadable="screen -X/-Q runs screen commands the rules cannot read")
    lines: list[str] = []
    named = False  # a session name was given: a later -S takes no word
    i = 0
    while i < len(args) and args[i].startswith("-"):
        word, i = args[i], i + 1
        if word == "--":
            break
        if word in ("-Logfile", "-logfile"):
            i += 1
            continue
        if word in ("-ls", "-list", "-wipe", "-v", "-version"):
            return Started()
        for k, c in enumerate(word[1:], 1):
            after = value_at(args, i)
            if c in "XQ":
                return Started(unreadable=f"screen -{c} runs screen commands the rules cannot read")
            if c in "cep":  # its value: the rest of the word, or the next one
                value, i = (word[k + 1:], i) if word[k + 1:] else (after, i + 1)
                if c == "c" and value != "/dev/null":
                    return Started(unreadable="screen runs the screen commands of a file (-c)")
                break
            if c in "sStTh" and not (c == "S" and named):  # the next word: -s SHELL, -S NAME
                lines += [shlex.quote(after)] if c == "s" and after else []
                named, i = named or c == "S", i + 1
            elif c in "rRx" and not named and after is not None and not after.startswith("-"):
                named, i = True, i + 1  # -r NAME: its session, then more options
    return Started(lines, slices=[(i, len(args))] if i < len(args) else [])


def _dtach(args: list[str]) -> Started:
    """``dtach -n|-c|-A|-N SOCKET [-e CHAR] [-E] [-r METHOD] [-z] CMD …``; ``-p`` types stdin."""
    if args[:1] == ["-p"]:
        return Started(unreadable="dtach -p types its standard input into a session")
    if args[:1] not in (["-n"], ["-c"], ["-A"], ["-N"]):
        return Started()  # -a SOCKET: attach
    i = 2
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-e", "-r") else 1
    return Started(slices=[(i, len(args))] if i < len(args) else [])


def _abduco(args: list[str]) -> Started:
    """``abduco [-e KEY] [-fqrl] -n|-c|-A NAME [CMD …]``; ``-p`` types stdin into a session."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if "p" in args[i][1:]:
            return Started(unreadable="abduco -p types its standard input into a session")
        if args[i][-1:] in ("n", "c", "A"):
            start = i + 2
            return Started(slices=[(start, len(args))] if start < len(args) else [])
        i += 2 if args[i] == "-e" else 1
    return Started()


_ZELLIJ_VALUED = ("--config", "-c", "--config-dir", "--data-dir", "--layout", "-l",
                  "--new-session-with-layout", "-n", "--session", "-s", "--max-panes")
"""zellij's own options that take a value (before its subcommand)."""
_ZELLIJ_RUN_VALUED = ("--cwd", "--direction", "-d", "--name", "-n", "--height", "--width", "--x",
                      "--y", "--pinned", "--plugin", "-p")
"""The options of ``zellij run`` / ``action new-pane`` that take a value (``-c`` is a flag)."""


def _zellij(args: list[str]) -> Started:
    """``zellij [OPTIONS] run|r [OPTIONS] [--] CMD …``, ``zellij action new-pane … -- CMD``."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _ZELLIJ_VALUED else 1
    verb, action = value_at(args, i), value_at(args, i + 1)
    if verb in ("action", "ac") and action in ("write-chars", "write"):
        return Started(unreadable="zellij action types text into a pane")
    if verb in ("action", "ac") and action in ("new-pane", "run"):
        i += 1
    elif verb not in ("run", "r"):
        return Started()
    i += 1
    if "--" in args[i:]:
        return Started(slices=[(args.index("--", i) + 1, len(args))])
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _ZELLIJ_RUN_VALUED else 1
    return Started(slices=[(i, len(args))] if i < len(args) else [])


def terminal_commands(name: str, args: list[str], computed: list[bool]) -> Started:
    """The commands terminal program ``name`` (one of :data:`TERMINALS`) starts from ``args``.

    ``computed``: for each of ``args``, whether bash computes it (``$X``, a glob or brace).
    """
    if name in ("tmux", "byobu", "byobu-tmux"):
        return _tmux(args, computed)
    if name in ("screen", "byobu-screen"):
        return _screen(args)
    if name == "dtach":
        return _dtach(args)
    if name == "abduco":
        return _abduco(args)
    return _zellij(args) if name == "zellij" else Started()

