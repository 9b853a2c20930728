"""A value the command line sets, expanded into a string bash parses again: code unread.

docs/architecture.md §4, clause 2. ``Y='x; rm f'; eval "echo $Y"`` and ``D='. && rm f';
bash -c "cd $D && make"``: the outer bash expands ``$Y`` into the text ``eval`` (``sh -c``,
``su -c``, ``ssh``'s remote command, ``tmux``'s, ``xargs sh -c``, ``parallel`` …) parses, so
the value is code. The rules read the command text only: a variable the line does not set
(``bash -c "cd $HOME && make"``) is the user's environment, not the model's, and is read as
before; a single-quoted string (``bash -c 'echo $Y'``) reaches the inner shell as written,
which expands ``$Y`` as a value. But a variable this line sets (``NAME=``, ``read``, ``for``,
``printf -v``, ``declare``/``export``/``local``, ``mapfile``, ``getopts``, ``set --``, a
``declare -n`` nameref, ``$_``, ``BASH_REMATCH``, ``PWD`` after ``cd`` …) and expands inside
such a string hides the model's code: asked; so does a default value holding command syntax
(``eval "echo ${Y:-x; rm f}"``).

Read from the text, not the words: a name set anywhere in the line, a string of ``bash -c
'…'`` included, counts (over-reading only asks), but for one the string alone sets outside a
loop. The strings are the inner lines :mod:`goosectx.shell_command` read from words bash
computes (``_Reading.reparsed``); ``permissions.call_subjects`` gives it the whole line.

Core module: no printing.
"""

from __future__ import annotations

import re

__all__ = ["assigned_names", "hidden_code"]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ASSIGNS = re.compile(rf"(?<![\w$%:-])({_NAME})(?:\[[^\]\n]*\])?\+?=|\$\{{({_NAME}):?=")
"""``NAME=``, ``a[i]+=``, ``${NAME:=…}`` (not ``--opt=``, ``${x%=}``)."""
_SETS = re.compile(r"(?<![\w.-])(read|mapfile|readarray|declare|typeset|local|export|readonly|"
                   r"printf|getopts|for|select)\s+([^;&|()\n]*)")
"""A builtin or loop that sets the names among its words (``read -r a b``, ``for f in``)."""
_IMPLIED = {"read": ("REPLY",), "mapfile": ("MAPFILE",), "readarray": ("MAPFILE",),
            "getopts": ("OPTARG",)}
_POSITIONAL = re.compile(r"(?<![\w.-])set\s+(?:[-+][A-Za-z]+\s+|[-+]o\s+\w+\s+)*(?:--\s*)?"
                         r"[^-+\s;&|)]|(?<![\w.-])set\s+--\s")
"""``set -- a b`` / ``set a b``: it sets ``$1`` …, not ``set -e``."""
_BASH_SETS = ((re.compile(r"=~"), ("BASH_REMATCH",)),
              (re.compile(r"(?<![\w.-])(?:cd|pushd|popd)(?![\w.-])"),
               ("PWD", "OLDPWD", "DIRSTACK")))
"""Variables bash sets from the line's text: ``[[ s =~ re ]]``, ``cd 'a; rm f'``."""
_WORD_NAME = re.compile(rf"(?<![\w$%])(-?{_NAME})")
_EXPANDS = re.compile(rf"\$(?:\{{[#]?)?({_NAME}|[0-9@*])")
_BRACED = re.compile(rf"\$\{{[#!]?(?:{_NAME}|[0-9@*])")
_TAILS = 64  # an option word longer than this may hold any name (read -rrrr…A)


def _expansion_code(line: str) -> bool:
    """True when a ``${NAME…}`` holds command syntax before its ``}``: ``${Y:-x; rm f}``.

    Text written in the line, put into the value of an expansion (a default, a replacement);
    not a ``$( )``, a part of its own. One pass from the end (no regex backtracking).
    """
    close = meta = len(line)
    for i in range(len(line) - 1, -1, -1):
        if line[i] == "}":
            close = i
        elif line[i] in ";&|<>\n":
            meta = i
        elif line[i] == "$" and meta < close and _BRACED.match(line, i):
            return True
    return False


def assigned_names(command: str) -> frozenset[str]:
    """The names ``command`` may set (more than it does: a name read in excess only asks)."""
    unquoted = re.sub(r"[\\'\"]", "", command)  # eval 'Y'=1 sets Y
    names = {a or b for a, b in _ASSIGNS.findall(command + "\n" + unquoted)} | {"_"}  # $_
    for found, set_by_bash in _BASH_SETS:
        names.update(set_by_bash if found.search(command) else ())
    for builtin, rest in _SETS.findall(command):
        words = rest.split(" in ", 1)[0] if builtin in ("for", "select") else rest
        for word in _WORD_NAME.findall(words):  # printf -vY, read -raA: a tail may be one
            tails = range(1, len(word)) if word.startswith("-") else [0]
            names.update(["*"] if len(word) > _TAILS else
                         (word[k:] for k in tails if not word[k].isdigit()))
        names.update(_IMPLIED.get(builtin, ()))
    if _POSITIONAL.search(command):
        names.update("123456789@*")
    return frozenset(names)


_LOOP = re.compile(r"(?<![\w.-])(?:for|while|until|select)(?![\w.-])")


def _set_outside(line: str, command: str) -> frozenset[str]:
    r"""The names ``command`` sets outside ``line``, a string of it (as written, less ``\``).

    A name the string alone sets (``bash -c "for f in $D/*; do echo \$f; done"``) has no
    value of the line's when bash puts the string together, unless a loop repeats it
    (``for i in 1 2; do eval "Y=…; echo $Y"; done``); a string not found keeps every name.
    """
    plain = command.replace("\\", "")
    outside = plain.replace(line, " ", 1) if line and line in plain else command
    return assigned_names(command if _LOOP.search(outside) else outside)


def hidden_code(reparsed: list[str], command: str) -> list[str]:
    """Why a line bash computed part of expands a variable ``command`` sets, or nothing.

    ``reparsed``: the inner lines read from words bash computes (``eval "echo $Y"`` →
    ``echo $Y``); ``command``: the whole command line.
    """
    for line in reparsed:
        if _expansion_code(line):
            return ["it puts text holding command syntax into an expansion (${Y:-x; rm f}) in "
                    "a string bash reads as commands: the value is code the rules cannot read"]
        names = _set_outside(line, command)
        found = next((n for n in _EXPANDS.findall(line) if n in names or "*" in names), None)
        if found:
            return [f"it expands ${found}, which the line sets, in a string bash reads as "
                    "commands: the value is code the rules cannot read"]
    return []
