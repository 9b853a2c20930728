"""Bash's builtins and variables that run text stored elsewhere, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. Some builtins
take a command line in an option (``compgen -C 'rm x' w``, ``complete -C``, ``mapfile -C``):
:func:`builtin_lines` gives it, to be read like ``bash -c``'s. Others run text the command line
does not show, so the rules cannot read what runs (:func:`hidden_commands`): a key bound to a
command (``bind -x``), a command from the shell's history (``fc``), a program read from
standard input, a pipe or a process substitution, named as such or by a computed path the
command line sends a stream to (``source /dev/stdin``, ``. <(…)``, ``bash /dev/fd/3``,
``f=/dev/stdin; . $f <<<…``: :func:`script_stream`; ``. "$PWD/x.sh"`` is a file), a
variable whose value bash expands as a prompt or startup file when it runs commands (``PS4``
under ``set -x``, ``PROMPT_COMMAND``, ``BASH_ENV``, ``ENV``: :func:`sets_prompt`), and a
variable whose name bash computes, which may be one of those (:func:`computed_name`). How a
shell started with options reads its commands: :func:`shell_line` (``bash -x -c -- STRING``)
and :func:`shell_script` (a script, or standard input). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from itertools import takewhile

from goosectx.shell_assign import plain_value
from goosectx.shell_jobs import scheduled_job
from goosectx.shell_names import bound_name
from goosectx.shell_options import short_value

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "ash", "rbash", "mksh", "lksh",
                    "oksh", "pdksh", "ksh93", "yash", "posh", "osh", "bosh", "hush"})
"""Shells whose ``-c STRING`` is a command line of its own (``busybox`` and ``toybox`` are
wrappers: their first word is the program, ``busybox sh -c …`` a shell); csh, pwsh, nu … are
:data:`goosectx.shell_languages.COMMAND_LANGUAGES`."""
_SAFE_SETTINGS = frozenset({"errexit", "nounset", "pipefail", "xtrace", "verbose", "noclobber"})
"""``set -o NAME`` settings that change how a line goes on, never what it runs or reads."""
_SETTING = re.compile(r"[-+][euxvC]*(o?)")


def sets_shell_options(words: list[str]) -> bool:
    """True for ``set -euo pipefail``, ``set -e``, ``set +x`` (``words`` as written).

    bash's own settings: they run no program and name no file, so no allow rule need cover
    them. Not ``set -o`` another setting, ``set -- ARGS``, nor ``set`` alone (it prints every
    variable, a secret's too).
    """
    if len(words) < 2 or words[0] != "set":
        return False
    i = 1
    while i < len(words):
        found = _SETTING.fullmatch(words[i])
        if found is None or len(words[i]) < 2:
            return False
        if found[1] and (i + 1 >= len(words) or words[i + 1] not in _SAFE_SETTINGS):
            return False
        i += 2 if found[1] else 1
    return True


_OPTION_VALUED = {"compgen": "oAGWFCXPSV", "complete": "oAGWFCXPS", "mapfile": "dnOsuCc",
                  "readarray": "dnOsuCc"}
"""Builtins whose ``-C`` value is a command line they run, and their options that take a
value (``compgen -W WORDS``, ``mapfile -n COUNT``)."""
_SHELL_VALUED = ("-o", "+o", "-O", "+O", "--rcfile", "--init-file")
"""A shell's options that take the next word as their value."""
_PIPE_NAME = re.compile(r"(?:^|/)(?:stdin|stdout|stderr|fd/.+|\d+)$")
"""The end of a path that names a file descriptor (``/dev/stdin``, ``/proc/self/fd/0``,
``./stdin`` after ``cd /dev``, ``0`` after ``cd /proc/self/fd``)."""
_UNSEEN = re.compile(r"^~|[$`*?\[{(]|(?:^|/)(?!\.\.?/)[^/]+/\.\.(?:/|$)")
"""A path the rules cannot see the file of: bash computes it (``$f``, ``$(…)``, ``~/``, a
glob, ``<(…)``), or a ``..`` after a name, which a symbolic link may take elsewhere
(``/tmp/link/../stdin``; a leading ``../x`` climbs from the working dir as written)."""
_COMPUTED = re.compile(r"[$`*?\[{(~\\]")
"""Characters that make bash compute a word (or its file name) from what is not written."""
_PROMPT = re.compile(r"(?:-[A-Za-z]*v)?(?:[A-Za-z_]\w*=)?(PS[0124]|PROMPT_COMMAND|BASH_ENV|ENV)"
                     r"(?:\[[^\]]*\])?(?:\+?=|$)")
"""A word that sets (or names, for ``read``/``printf -v``/``declare -n``) a variable whose value
bash expands, running its ``$( )``, as a prompt (``PS4`` under ``set -x``) or a startup file
(``BASH_ENV`` of the bash it starts, ``ENV`` of an interactive one in POSIX mode)."""
_NAMES_VALUED = {"read": "adinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc"}
"""Builtins whose operands are variable names, and their options that take a value."""
_DECLARES = frozenset({"declare", "typeset", "local", "readonly", "export", "unset"})
"""Builtins whose operands are ``NAME`` or ``NAME=VALUE`` (``declare -n r=NAME``: a name)."""
_FORMS_SUBSTITUTION = re.compile(r"[$`]|\\(?:[0-7]|x|u|U)")
"""Text that can make ``$(`` or a backquote once printf writes it (``\\044`` is ``$``)."""


def stream_path(path: str) -> bool:
    """True when ``path`` (a word after quote removal) names standard input or a pipe as written.

    ``-``, a process substitution ``<(…)``, a path ending in ``stdin``, ``stdout``, ``stderr``,
    ``fd/N`` or a number (``/dev/stdin``, ``/dev//./fd/3``, ``/proc/self/root/dev/stdin``,
    ``./stdin`` after ``cd /dev``, ``~/../../dev/stdin``).
    """
    return bool(path) and (path == "-" or path.startswith(("<(", ">(")) or _PIPE_NAME.search(
        posixpath.normpath(path)) is not None)


def unseen_path(path: str) -> bool:
    """True when the rules cannot see which file ``path`` names.

    Bash computes it (``$f``, ``"$(…)"``, ``~/…``, a glob) or a ``..`` after a name may take it
    elsewhere (``/x/../y``).
    """
    return _UNSEEN.search(path) is not None


def script_stream(path: str, fed: bool = True) -> str | None:
    """How a script or program file ``path`` may be a stream the command line gives, or ``None``.

    A path that names one as written (:func:`stream_path`) always; a path the rules cannot see
    (:func:`unseen_path`) only when the command is ``fed`` (:attr:`Part.fed`: a here-string,
    a pipe into it …): otherwise it is a file on disk like ``bash script.sh``, whose stdin
    (closed for the tools) carries nothing. The clause names the reason.
    """
    if stream_path(path):
        return "standard input or a pipe"
    if fed and path and unseen_path(path) and not named_file(path):
        return "a computed, ~ or .. path that may be a stream the command line opens or names"
    return None


def named_file(path: str) -> bool:
    """True when ``path`` ends in a name as written, with no ``..`` on the way to it.

    ``~/.claude/hook.py``, ``"$PWD/tools/x.py"``: whatever directory bash computes, the file
    is the one of that name in it — a stream only if that file already is one (a link to
    ``/dev/stdin`` made earlier), as for a literal ``x.py``. The names of streams
    (``stdin``, ``fd/0``, ``0``) are :func:`stream_path`'s.
    """
    head, _, name = path.rpartition("/")
    return bool(head) and bool(name) and _COMPUTED.search(name) is None and ".." not in (
        head.split("/"))


def reads_stdin(path: str, fed: bool = True) -> bool:
    """True when ``path`` (a script's word after quote removal) may be a stream the line gives.

    :func:`script_stream` as a yes or no.
    """
    return script_stream(path, fed) is not None


def sets_prompt(value: str, computed: bool = False, binder: bool = True) -> str | None:
    """The prompt or startup variable ``value`` (one word) sets or names, or ``None``.

    Not ``ENV=prod`` or ``PS4='+ '``: a plain value (:func:`goosectx.shell_assign.plain_value`)
    runs nothing when bash expands it, unless bash computes the word (``computed``). A word
    that only names one (``PS4``, ``r=PS4``, ``-vPS4``) counts when its command may set the
    variable an operand names (``binder``: :func:`binds_names`), not as ``grep -rn ENV src``'s
    pattern.
    """
    found = _PROMPT.match(value)
    if found is None:
        return None
    if value[found.end() - 1:found.end()] != "=":
        return found[1] if binder else None
    return None if not computed and plain_value(found[1], value[found.end():]) else found[1]


_BINDERS = frozenset({"read", "mapfile", "readarray", "getopts", "select", "for"})
"""Commands whose operands name variables they set (``read PS4``, ``for PS4 in …``)."""
_BINDING_OPTIONS = {"printf": "v", "wait": "p", "declare": "n", "typeset": "n", "local": "n"}
"""Commands that set the variable an operand names only with one of these options
(``printf -vPS4 x``, ``wait -p PS4``, ``declare -n r=PS4``: a reference through which an
assignment to ``r`` sets ``PS4``)."""
_PRINTS = "pfF"
"""A declaration's options that make it print (``declare -p PS1``, ``typeset -f``): it sets
nothing, its operands are names only (bash prints ``NAME=VALUE: not found``)."""


def printed_from(values: list[str]) -> int:
    """Where a simple command's words (values) become names a declaration only prints.

    ``declare -p PS4='$(rm x)'``, ``typeset -f f``, ``declare -p -n r=PS4``: with ``-p`` (or
    ``-f`` / ``-F``) ``declare``, ``typeset`` and ``local`` print, assign nothing (bash says
    ``PS4=…: not found``); the index of the word after the builtin. ``len(values)``: none.
    Leading assignments, ``builtin`` and ``command`` are skipped.
    """
    at = next((i for i, value in enumerate(values) if not (_is_assignment(value) or value in (
        "builtin", "command"))), len(values))
    if at == len(values) or values[at] not in ("declare", "typeset", "local"):
        return len(values)
    letters = "".join(takewhile(lambda w: w != "--" and w[:1] == "-", values[at + 1:]))
    return at + 1 if any(c in letters for c in _PRINTS) else len(values)


def binds_names(values: list[str]) -> bool:
    """True when a simple command (its words' values) may set a variable an operand names.

    :data:`_BINDERS`, and the commands of :data:`_BINDING_OPTIONS` given their option, a
    declaration only when it does not print (:data:`_PRINTS`). A bare name gives a variable
    no new value: ``export PS4``, ``readonly PS1``, ``declare -x PS4`` mark the value it
    already has (from goosectx's environment, or set by an earlier command of the line, which
    is judged itself), ``local PS4`` gives the function an unset copy. Leading assignments,
    ``command``, ``builtin`` and ``time`` are skipped.
    """
    at = next((i for i, value in enumerate(values) if not (_is_assignment(value) or value in (
        "builtin", "command", "time", "-p", "--"))), None)
    if at is None:
        return False
    value = values[at]
    letters = "".join(takewhile(lambda w: w != "--" and w[:1] == "-", values[at + 1:]))
    if value in _BINDING_OPTIONS:
        return _BINDING_OPTIONS[value] in letters and (value in ("printf", "wait") or not any(
            c in letters for c in _PRINTS))
    return value in _BINDERS


def computed_name(words: list[tuple[str, str, bool]]) -> str | None:
    """Why a builtin sets a variable the rules cannot name, or ``None``.

    ``words``: one simple command's words as ``(raw, value, computed)``. A variable name
    operand of ``printf -v``, ``read``, ``mapfile``, ``declare``/``typeset``/``local``/
    ``readonly``/``export``/``unset`` (a ``declare -n`` target too) that bash computes
    (``printf -v "PS$n"``, ``read ${n:-PS4}``, ``export "PS${n}=$x"``) may be a prompt
    variable, or a subscript that runs a ``$( )``; so may a ``printf -v`` whose literal format
    and arguments can form ``[`` and ``$(`` (``printf -v x 'a[%s(rm x)]' '$'``). With ``-n``, an
    operand naming a prompt or startup variable is unreadable whatever its value (``declare
    -n PS4=R``: bash expands R's value as the prompt; ``BASH_CMDS`` / ``BASH_ALIASES`` are
    :func:`goosectx.shell_assign.binds_name`'s, ``PS3`` is printed unexpanded).
    """
    while words and (_is_assignment(words[0][1]) or words[0][1] in ("builtin", "command")):
        words = words[1:]
    if not words or printed_from([w[1] for w in words]) == 1:  # declare -p -n r=PS4: prints
        return None
    name, args = words[0][1], words[1:]
    names: list[tuple[str, str, bool]] = []  # (raw, value, computed) of each name operand
    i = 0
    while i < len(args) and args[i][1] != "--" and args[i][1][:1] in "-+" and len(args[i][1]) > 1:
        option = args[i][1]
        valued = "v" if name == "printf" else _NAMES_VALUED.get(name, "")
        cut = next((k for k, c in enumerate(option[1:], 1) if c in valued), None)
        if cut is not None and option[0] == "-":
            value = ((args[i][0], option[cut + 1:], args[i][2]) if cut < len(option) - 1 else
                     args[i + 1] if i + 1 < len(args) else None)  # -vNAME: the name after v
            if value is not None and option[cut] in "va":  # printf -v NAME, read -a NAME
                names.append(value)
            i += 1 if cut < len(option) - 1 else 2
            continue
        i += 1
    operands = args[i + (i < len(args) and args[i][1] == "--"):]
    if name in _NAMES_VALUED or name in _DECLARES:
        names += operands
    nameref = name in _DECLARES - {"export", "unset"} and any(
        a[1][:1] == "-" and "n" in a[1] for a in args[:i])
    for _raw, operand, _computed in names if nameref else []:
        target = re.sub(r"[=+\[].*", "", operand, flags=re.DOTALL)
        if _PROMPT.fullmatch(target):  # declare -n PS4=R: bash expands R's value as the prompt
            return (f"{name} -n makes {target} a reference: bash expands or runs the value of "
                    "the variable it names")
    for raw, _value, computed in names:
        text = raw.replace('"', "").replace("'", "")
        head, _, tail = text.partition("=")
        if computed and ("$" in head or "`" in head or nameref and re.search(r"[$`]", tail)):
            return f"{name} sets a variable whose name bash computes (it may be a prompt variable)"
    literal = "".join(a[1] for a in operands if not a[2]) if name == "printf" and names else ""
    if re.search(r"\[|\\(?:[0-7]|x|u)", literal) and _FORMS_SUBSTITUTION.search(literal):
        return "printf -v may write an array subscript holding a command substitution"
    return bound_name(name, [value for _raw, value, _c in names], nameref)


def _is_assignment(value: str) -> bool:
    return re.match(r"[A-Za-z_]\w*(?:\[[^\]]*\])?\+?=", value) is not None


def builtin_lines(name: str, args: list[str]) -> list[str]:
    """The command lines builtin ``name`` runs from its options (``compgen -C 'rm x' w``)."""
    valued = _OPTION_VALUED.get(name)
    if valued is None:
        return []
    lines: list[str] = []
    i = 0
    while i < len(args):  # bash reads options up to the first word that is none
        word = args[i]
        if word == "--" or len(word) < 2 or word[0] not in "-+":
            break
        short = short_value(args, i, valued)  # -W WORDS, -AcommandC: the rest is the value
        if short.letter == "C" and short.value:
            lines.append(short.value)
        i = short.next
    return lines


def hidden_commands(name: str, args: list[str], fed: bool = True) -> str | None:
    """Why builtin ``name`` runs commands its arguments do not show, or ``None``.

    ``fed``: the command is :attr:`Part.fed` (a computed ``source`` path may be its stream).
    A job scheduler too (``at``, ``crontab``: :func:`goosectx.shell_jobs.scheduled_job`).
    """
    if job := scheduled_job(name, args):
        return job
    if name == "bind" and any(a.startswith("-") and "x" in a[1:] for a in args):
        return "it binds a key to a command (bind -x)"
    if name == "fc" and not any(a.startswith("-") and "l" in a[1:] for a in args):
        return "it runs commands from the shell's history (fc)"
    if name in ("source", "."):
        script = args[1] if args[:1] == ["--"] else args[0] if args else ""
        stream = script_stream(script, fed)
        if stream:
            return f"{name} runs the commands it reads from {stream}"
    return None


def shell_line(args: list[str]) -> str | None:
    """The command string of ``bash [OPTIONS] -c [OPTIONS] [--] STRING``, or ``None`` (no -c).

    As bash reads it: options (``-x``, ``-o pipefail``, ``--norc``) may come before and after
    ``-c``, ``--`` or ``-`` ends them, and the first word after them is the string
    (``bash -c -- 'rm x'``); fish's ``--command[=STRING]`` too.
    """
    i, command = 0, False
    while i < len(args):
        word = args[i]
        if word in ("--", "-"):
            i += 1
            break
        if word.startswith("--command="):
            return word.partition("=")[2]
        if not word.startswith(("-", "+")) or word == "+":
            break
        command = command or word == "--command" or word[0] == "-" and "c" in word[1:] and (
            not word.startswith("--"))
        valued = word in _SHELL_VALUED or re.fullmatch(r"[-+][a-zA-Z]*[oO]", word)
        i += 2 if valued else 1  # -o VALUE, -O VALUE, --rcfile FILE
    return args[i] if command and i < len(args) else None


def shell_script(args: Iterable[str]) -> str | None:
    """The script a shell started without ``-c`` runs, or ``None``.

    ``None``: it reads its commands from standard input (no script operand, ``-s``, ``-i``).
    """
    words = list(args)
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("--", "-"):  # bash's `-` ends its options as `--` does
            return words[i + 1] if i + 1 < len(words) else None
        if not word.startswith(("-", "+")) or word == "+":
            return word
        if word.startswith("--") or not re.search(r"[sioO]", word):
            i += 1 + (word in _SHELL_VALUED)
            continue
        if "s" in word[1:] or "i" in word[1:]:
            return None  # -s: commands from stdin; -i: interactive
        i += 2  # -o VALUE, -O VALUE
    return None
