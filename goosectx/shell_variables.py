"""Variables holding a command or a program that programs other than git run, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: the lists
:func:`goosectx.shell_git.variable_lines` reads besides git's own. A pager, an editor, a
browser or a remote shell named by a variable is run by the program the line starts
(``PAGER='rm x' man ls``, ``GH_PAGER=…``, ``RSYNC_RSH='rm x' rsync …``,
``FZF_DEFAULT_COMMAND=…``), options a program reads from a variable may name one
(``TAR_OPTIONS='--to-command=…'``, ``MANOPT='-P …'``), and ``SHELL`` names the shell gdb
(``shell``, ``run``), vim (``:!``), ``script``, ``flock -c``, ``parallel``, tmux and screen
start; a ``SHELL`` that is a shell (``SHELL=/bin/zsh``) runs what the rules already read.
What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

PROGRAM_COMMANDS = frozenset({
    "GH_PAGER", "GH_EDITOR", "GH_BROWSER", "BROWSER", "AWS_PAGER", "PSQL_PAGER", "PSQL_EDITOR",
    "PERLDOC_PAGER", "BAT_PAGER", "DELTA_PAGER", "KUBE_EDITOR", "SVN_EDITOR", "HGEDITOR",
    "CVSEDITOR", "SUDO_EDITOR", "FCEDIT", "RSYNC_RSH", "RSYNC_CONNECT_PROG",
    "FZF_DEFAULT_COMMAND", "JJ_EDITOR", "JJ_PAGER", "GLAB_PAGER", "TF_CLI_ARGS_PAGER"})
"""Variables whose value a program other than git runs as a command line."""
PROGRAM_FILES = frozenset({"SHELL", "SUDO_ASKPASS", "CVS_RSH"})
"""Variables whose value is a program another program runs (no shell)."""
OPTION_VARIABLES = {"TAR_OPTIONS": "tar", "MANOPT": "man", "LESS": "less", "MORE": "more"}
"""Variables holding options a program reads as if given first on its command line
(``TAR_OPTIONS='--to-command=…'``, ``MANOPT='-P …'``): read as that program's line; ``MORE``
is less's when less runs as ``more`` (``MORE='+!cmd' more f`` runs cmd)."""
_SHELL_NAME = re.compile(r"(?:[bdkz]?a?sh|r?bash|mksh|lksh|yash|posh|osh|t?csh|fish|nu|pwsh"
                         r"|xonsh|elvish|ysh|busybox)[\d.]*")


def login_shell(name: str, value: str) -> bool:
    """True when ``value`` of ``name`` is ``SHELL`` naming a shell (``SHELL=/bin/zsh``).

    The shell runs what the rules read as a ``-c`` string already; another program
    (``SHELL=/bin/rm``) is read as what the line runs.
    """
    return name == "SHELL" and _SHELL_NAME.fullmatch(value.rsplit("/", 1)[-1]) is not None
