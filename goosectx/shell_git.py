"""Command lines git runs from its own command line and environment, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. git runs
shell command text given as configuration (``git -c core.sshCommand='…' fetch``,
``core.pager``, ``core.editor``, ``core.fsmonitor``, ``diff.external``, a ``textconv`` or
``filter`` driver, a ``!`` alias or credential helper …), as an option (``git ls-remote
--upload-pack='…'``, ``--receive-pack``, ``git archive --exec``) or from its environment
(``GIT_SSH_COMMAND``, ``GIT_PAGER``/``PAGER``, ``GIT_EDITOR``/``EDITOR``/``VISUAL``,
``GIT_EXTERNAL_DIFF`` …; ``GIT_SSH`` and the askpass programs are a program's name):
:func:`git_lines` and :func:`variable_lines` give those lines, read like ``sh -c``'s.
:func:`git_hidden` tells what git would run from text the rules cannot read: a hooks
directory, an included config file, a value taken from the environment (``--config-env``),
an ``ext::`` remote (its command has escapes of its own) or the protocol setting that allows
one, another repository's config (``--git-dir``); :func:`config_variable` the same given in
the environment (``GIT_CONFIG_KEY_0=include.path``, ``GIT_CONFIG_GLOBAL=/tmp/c``,
``GIT_DIR=…``); a config file or hook written by a redirection or a file tool:
:mod:`goosectx.git_config_writes`. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from goosectx.git_autocorrect import runs_as
from goosectx.shell_options import long_option, value_at
from goosectx.shell_variables import (
    OPTION_VARIABLES,
    PROGRAM_COMMANDS,
    PROGRAM_FILES,
    login_shell,
)

_COMMAND_KEYS = re.compile(
    r"core\.(?:sshcommand|pager|editor|askpass|gitproxy|fsmonitor|alternaterefscommand)"
    r"|sequence\.editor|diff\.external|diff\..*\.(?:command|textconv)|merge\..*\.driver"
    r"|filter\..*\.(?:clean|smudge|process)|pager\..*|(?:mergetool|difftool|man|browser)\..*\.cmd"
    r"|trailer\..*\.(?:command|cmd)|gpg\.(?:.*\.)?program|gpg\.ssh\.defaultkeycommand"
    r"|credential\.(?:.*\.)?helper"
    r"|remote\..*\.(?:uploadpack|receivepack|vcs)|submodule\..*\.update|web\.browser"
    r"|interactive\.difffilter|uploadpack\.packobjectshook|alias\..*"
    r"|sendemail\.(?:.*\.)?(?:tocmd|cccmd|smtpserver|sendmailcmd)")
"""Config keys (lower case) whose value may be a command git runs (``pager.log``,
``filter.x.smudge``, ``remote.origin.uploadpack``)."""
_HIDDEN_KEYS = re.compile(r"core\.hookspath|include\.path|includeif\..*|protocol\.(?:ext\.)?allow"
                          r"|init\.templatedir")
"""Config keys that make git run text the rules cannot read: a hooks directory, another
config file, ``ext::`` remotes allowed (a URL rewritten to one holds ``ext::``), a template
directory whose hooks ``git clone`` / ``init`` copy and run."""
_MADE = re.compile(r"[$`]")
_MADE_KEY = ("a config key bash makes at run time, which may be one whose value git runs as a "
             "command (core.pager, an alias)")
"""A setting's key with an expansion (``git -c "$K=rm"``): its value's command is not known."""
_CONFIG_FILE_VARIABLES = frozenset({"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"})
"""Variables naming a config file git reads instead of the user's or the system's."""
_NO_FILE = frozenset({"", "/dev/null"})
_OWN_GIT_DIR = frozenset({".git", "./.git"})
"""``GIT_DIR`` / ``--git-dir`` values that name the repository git finds anyway."""
_CONFIG_RUNS = "it may set a command git runs (core.pager, a ! alias) the rules cannot read"
_SETTINGS = frozenset({"true", "false", "yes", "no", "on", "off", "0", "1", "", "never",
                       "always", "auto"})
"""Values that are settings, not commands (``core.fsmonitor=false``, ``color.pager=no``)."""
_GIT_VALUED = ("-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env",
               "--super-prefix", "--attr-source")
"""git's own options that take the next word as their value (``git --git-dir .git push``: the
subcommand is ``push``); git matches them whole, no prefix."""
_CONFIG_VALUED = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment",
                            "--value", "--url"})
"""``git config`` options that take the next word as their value (``git config -f .git/config
alias.p push``: the key is ``alias.p``)."""
_CONFIG_READS = ("--get", "--unset", "--list", "--rename-section", "--remove-section",
                 "--edit")
"""``git config`` options under which its operands are no ``KEY VALUE`` written."""
_TEMPLATED = frozenset({"clone", "init", "init-db"})
"""Subcommands whose ``--template DIR`` copies that directory's hooks into the repository."""
_PACK_OPTIONS = ("--upload-pack", "--receive-pack", "--exec")
_SUB_LONGS = {"difftool": ("--extcmd",), "grep": ("--open-files-in-pager",),
              "send-email": ("--to-cmd", "--cc-cmd", "--sendmail-cmd", "--header-cmd",
                             "--smtp-server")}
"""Subcommands' long options whose value is a command line (``git grep --open-files-in-pager``)."""
_SUB_SHORTS = {"rebase": "x", "difftool": "x", "clone": "u", "grep": "O"}
"""Subcommands' short options whose value is one (``git clone -u 'CMD' URL``; ``grep -OCMD``)."""
_SHELL_VARIABLES = frozenset({"GIT_SSH_COMMAND", "GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR",
                              "VISUAL", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF",
                              "GIT_PROXY_COMMAND", "MANPAGER", "SYSTEMD_PAGER",
                              *PROGRAM_COMMANDS})
"""Variables whose value git (or another program) runs as a shell command line (the other
programs': :data:`goosectx.shell_variables.PROGRAM_COMMANDS`)."""
_PROGRAM_VARIABLES = frozenset({"GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", *PROGRAM_FILES})
"""Variables whose value is a program git (or another program) runs (no shell)."""


def _config_line(setting: str) -> str | None:
    """The command line of one ``KEY=VALUE`` git setting, or ``None`` (no command)."""
    key, _, value = setting.partition("=")
    key = key.lower()
    if not _COMMAND_KEYS.fullmatch(key) or value.lower() in _SETTINGS:
        return None
    if key.startswith(("alias.", "credential.", "submodule.")):
        return value[1:] if value.startswith("!") else None  # a git command / helper's name
    return value.removeprefix("!")


def _setting_lines(setting: str) -> list[str]:
    """The command lines one ``KEY=VALUE`` setting may make a later git run.

    :func:`_config_line`'s, and for an alias of a git command the git command line it stands
    for (``alias.p=push`` gives ``git push``): said where the alias is used or not, for a
    setting written to a config file or given in the environment.
    """
    key, _, value = setting.partition("=")
    if key.lower().startswith("alias.") and value and not value.startswith("!"):
        return [f"git {value}"]
    line = _config_line(setting)
    return [line] if line else []


def git_subcommand(args: list[str]) -> int:
    """Where git's subcommand is in ``args`` (``len(args)`` when there is none)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GIT_VALUED else 1
    return i


def alias_expansions(args: list[str]) -> list[list[str]]:
    """The git commands ``git ARGS`` may run through the aliases its ``-c`` options set.

    The subcommand's alias expanded as git does (``-c alias.p=push p origin`` gives ``push
    origin``; an alias standing for another alias is expanded again, ``-c alias.a=push -c
    alias.b=a b`` gives ``push``; git's own options in an alias are left out; a loop, which git
    refuses, gives nothing), and every alias's git command alone, used or not: an alias set
    elsewhere (the environment, a config file) may stand for it (``GIT_CONFIG_KEY_0=alias.b
    GIT_CONFIG_VALUE_0=a git -c alias.a=push b``). A ``!`` alias is a command line,
    :func:`git_lines`'s.
    """
    aliases: dict[str, list[str]] = {}
    for i, word in enumerate(args[:git_subcommand(args)]):
        name, eq, value = (args[i + 1] if word == "-c" and i + 1 < len(args) else "").partition("=")
        if eq and name.lower().startswith("alias.") and not value.startswith("!"):
            aliases[name[6:].lower()] = value.split()
    out = [words[git_subcommand(words):] for words in aliases.values()]
    words, seen = args[git_subcommand(args):], set()
    while words and (name := words[0].lower()) in aliases and name not in seen:
        seen.add(name)
        words = [*aliases[name], *words[1:]]
        words = words[git_subcommand(words):]
    if seen and words and words[0].lower() not in seen:
        out.insert(0, words)
    return [words for words in out if words]


def _config_write(args: list[str]) -> tuple[str, str] | None:
    """The ``KEY``, ``VALUE`` that ``git ARGS`` writes if it is ``git config [set] KEY VALUE``."""
    at = git_subcommand(args)
    if args[at:at + 1] != ["config"] or any(
            a.startswith(_CONFIG_READS) or a in ("-l", "-e") for a in args[at + 1:]):
        return None
    operands = [a for i, a in enumerate(args[at + 1:], at + 1)
                if not a.startswith("-") and args[i - 1] not in _CONFIG_VALUED]
    if operands[:1] in (["set"], ["add"]):
        operands = operands[1:]  # git config set KEY VALUE (git 2.46)
    return (operands[0], operands[1]) if len(operands) > 1 and "." in operands[0] else None


def git_lines(args: list[str]) -> list[str]:
    """The command lines ``git ARGS`` runs from its options and operands.

    ``-c KEY=VALUE`` of :data:`_COMMAND_KEYS`, ``--upload-pack`` / ``--receive-pack`` /
    ``--exec`` (any prefix git takes), ``rebase|difftool -x CMD``, ``clone -u CMD``, ``grep
    -OCMD``, ``send-email --to-cmd=CMD`` …, ``filter-branch
    --*-filter CMD``, ``submodule foreach CMD``, ``bisect run CMD…`` and ``git config KEY
    VALUE`` of such a key (a later git command on the line may run it); and the command a
    subcommand stands for (``send-pack`` pushes) or could be autocorrected to (``psuh``:
    :func:`goosectx.git_autocorrect.runs_as`).
    """
    lines: list[str] = []
    at = git_subcommand(args)
    sub = args[at] if at < len(args) else ""
    for i, word in enumerate(args):
        if word == "--":
            break
        value = args[i + 1] if i + 1 < len(args) else ""
        if (line := _config_line(_setting(args, i, at))):  # -c K=V, clone --config K=V
            lines.append(line)
        elif any(long_option(word, o) for o in (*_PACK_OPTIONS, *_SUB_LONGS.get(sub, ()))) or (
                sub == "filter-branch" and re.fullmatch(r"--[a-z-]*(?:filter|setup)(=.*)?", word)):
            lines.append(word.partition("=")[2] if "=" in word else value)
        elif (short := _SUB_SHORTS.get(sub)) and re.fullmatch(f"-[a-zA-Z]*{short}.*", word):
            attached = word.partition(short)[2]
            lines.append(attached or ("" if short == "O" else value))
    rest = [a for a in args[at + 2:] if not a.startswith("-")]
    if (written := _config_write(args)) is not None:  # git config alias.x '!rm y': a later git
        lines += _setting_lines("=".join(written))  # runs it; alias.p push: a later `git p` pushes
    if sub == "bisect" and args[at + 1:at + 2] == ["run"]:
        lines.append(shlex.join(args[at + 2:]))
    elif sub == "submodule" and "foreach" in args[at + 1:at + 2] and rest:
        lines.append(" ".join(rest))
    lines += [shlex.join(["git", *words]) for words in alias_expansions(args)]
    if not any(a.lower().startswith(f"alias.{sub.lower()}=") for a in args[:at]):
        lines += [shlex.join(["git", *args[:at], other, *args[at + 1:]]) for other in runs_as(sub)]
    return [line for line in lines if line]


def _setting(args: list[str], i: int, at: int) -> str:
    """The ``KEY=VALUE`` that ``args[i]`` sets for this git, or ``""``.

    ``-c K=V`` (git's, clone's), ``clone --config K=V`` (any prefix git takes: ``--conf=K=V``),
    ``clone -cK=V``: the clone's config, which its checkout's hooks already obey.
    """
    word = args[i]
    if word == "-c":
        return args[i + 1] if i + 1 < len(args) else ""
    if i <= at or args[at:at + 1] != ["clone"]:
        return ""
    if long_option(word, "--config"):
        return word.partition("=")[2] if "=" in word else value_at(args, i + 1) or ""
    return word[2:] if word[:2] == "-c" and word[2:3] != "-" else ""


def git_hidden(args: list[str]) -> str | None:
    """Why ``git ARGS`` runs text the rules cannot read, or ``None``.

    Besides the settings and options below, ``--git-dir`` naming another repository than the
    one found here: git reads that repository's config (``core.pager``, a ``!`` alias …).
    """
    for i, word in enumerate(args[:git_subcommand(args)]):
        git_dir = (word.partition("=")[2] if word.startswith("--git-dir=") else
                   args[i + 1] if word == "--git-dir" and i + 1 < len(args) else None)
        if git_dir is not None and git_dir not in _OWN_GIT_DIR:
            return f"git --git-dir names a repository whose config git reads: {_CONFIG_RUNS}"
    at = git_subcommand(args)
    sub = args[at] if at < len(args) else ""
    key, value = _config_write(args) or ("", "")
    if _HIDDEN_KEYS.fullmatch(key.lower()) and value not in ("", "/dev/null", "never"):
        return f"git config {key} makes later git commands run commands the rules cannot read"
    for i, word in enumerate(args):
        key, _, value = _setting(args, i, at).partition("=")  # git -c K=V, clone --config
        if _HIDDEN_KEYS.fullmatch(key.lower()) and value not in ("", "/dev/null", "never"):
            return f"git -c {key} makes git run commands the rules cannot read"
        if _MADE.search(key):  # git -c "$K=rm": core.pager, maybe
            return f"git -c {key}: {_MADE_KEY}"
        env_key = (word.partition("=")[2] or (args[i + 1] if i + 1 < len(args) else "")
                   ).rpartition("=")[0].lower() if word.startswith("--config-env") else ""
        if _COMMAND_KEYS.fullmatch(env_key) or _HIDDEN_KEYS.fullmatch(env_key):
            return "git --config-env takes a command from a variable the rules cannot read"
        option, eq, attached = word.partition("=")
        template = (attached if eq else value_at(args, i + 1) or "") if (
            sub in _TEMPLATED and long_option(option, "--template")) else ""
        if template:  # git clone --template=/tmp/t: its hooks run during the clone
            return f"git {sub} --template copies hooks the rules cannot read, which git runs"
        if word.startswith("--exec-path="):
            return "git --exec-path runs its commands from a directory the rules cannot read"
        if "ext::" in word:
            return "git runs the command of an ext:: remote, which the rules do not read"
    return None


def config_variable(word: str) -> str | None:
    """Why a ``NAME=VALUE`` word points git at config the rules cannot read, or ``None``.

    ``GIT_CONFIG_GLOBAL=/tmp/c`` (``GIT_CONFIG_SYSTEM``, ``GIT_CONFIG``: a config file, not
    ``/dev/null``), ``GIT_DIR=../x/.git`` or ``GIT_COMMON_DIR=…`` (another repository's
    config; git reads the common dir's), and the settings
    ``git -c`` would ask about given in the environment: ``GIT_CONFIG_KEY_0=include.path``,
    ``GIT_CONFIG_PARAMETERS="'core.hooksPath'='h'"`` (their commands: :func:`variable_lines`).
    """
    found = re.match(r"([A-Za-z_]\w*)\+?=(.*)", word, re.DOTALL)
    if found is None:
        return None
    name, value = found[1], found[2]
    if name in _CONFIG_FILE_VARIABLES and value not in _NO_FILE:
        return f"it sets {name}, which names a config file git reads: {_CONFIG_RUNS}"
    if name == "GIT_TEMPLATE_DIR" and value not in _NO_FILE:
        return f"it sets {name}, whose hooks git clone and init copy and run"
    if name == "GIT_EXEC_PATH" and value:  # as git --exec-path=DIR
        return f"it sets {name}: git runs its commands from a directory the rules cannot read"
    if name in ("GIT_DIR", "GIT_COMMON_DIR") and value not in _OWN_GIT_DIR:
        return f"it sets {name}, which names a repository whose config git reads: {_CONFIG_RUNS}"
    keys = [value] if re.fullmatch(r"GIT_CONFIG_KEY_\d+", name) else []
    if name == "GIT_CONFIG_PARAMETERS":
        try:
            keys = [s.partition("=")[0] for s in shlex.split(value)]
        except ValueError:
            return "it sets GIT_CONFIG_PARAMETERS, which the rules cannot read"
    hidden = next((k for k in keys if _HIDDEN_KEYS.fullmatch(k.lower())), None)
    if hidden is not None:
        return f"it sets {name} to {hidden}, which makes git run commands the rules cannot read"
    made = next((k for k in keys if _MADE.search(k)), None)  # GIT_CONFIG_KEY_0=$K
    return None if made is None else f"it sets {name} to {made}: {_MADE_KEY}"


def _assigned_values(words: list[str]) -> dict[str, str]:
    """The value each name has after the ``NAME=VALUE`` / ``NAME+=VALUE`` words, in order.

    bash's ``NAME+=VALUE`` appends to the value before it (``GIT_SSH_COMMAND=r
    GIT_SSH_COMMAND+='m f'`` is ``rm f``); one without a value before it here starts with
    ``"$NAME"``, a value the rules cannot read (``GIT_PAGER=r; GIT_PAGER+='m f' git log``).
    """
    values: dict[str, str] = {}
    for word in words:
        if found := re.match(r"([A-Za-z_]\w*)(\+?)=(.*)", word, re.DOTALL):
            before = values.get(found[1], f'"${found[1]}"') if found[2] else ""
            values[found[1]] = before + found[3]
    return values


def variable_lines(words: list[str], assigned: list[str] | None = None) -> list[str]:
    """The command lines of ``NAME=VALUE`` words that set a variable git runs as a command.

    ``GIT_SSH_COMMAND='ssh -i key'`` gives ``ssh -i key``; ``GIT_SSH=/usr/bin/rm`` the
    program, quoted; ``GIT_CONFIG_PARAMETERS`` (``git -c``'s settings) and a
    ``GIT_CONFIG_VALUE_n`` with its ``GIT_CONFIG_KEY_n`` (among ``words`` and ``assigned``, the
    other assignments of the same command) the lines of those settings (:func:`_setting_lines`:
    an alias's git command too, used or not); a ``GIT_CONFIG_VALUE_n`` whose key is not
    shown, its value read as a command and as an alias's. Each name's value is the one it has
    after them all (:func:`_assigned_values`: ``NAME+=…`` appends; appended to a value not
    shown, ``GIT_CONFIG_PARAMETERS``'s appended settings are read, and a program variable's
    program is read as appended and as named at run time: ``GIT_SSH+=m`` is asked about).
    """
    lines: list[str] = []
    values = _assigned_values(assigned or words)  # GIT_PAGER=r GIT_PAGER+='m f': `rm f`
    keys = {name[15:]: v for name, v in values.items()
            if name.startswith("GIT_CONFIG_KEY_") and '"$' not in v}  # KEY_0+=.p: not known
    for word in words:
        found = re.match(r"([A-Za-z_]\w*)\+?=", word)
        name = found[1] if found else ""
        whole = values.get(name, "")
        value = re.fullmatch(r"GIT_CONFIG_VALUE_(\d+)", name)
        if not whole:
            continue
        if name in _SHELL_VARIABLES:
            lines.append(whole)
        elif value and value[1] not in keys:  # a value of a key not shown: a command, an alias
            lines += [whole, *_setting_lines(f"alias.x={whole}")]
        elif value:
            lines += _setting_lines(f"{keys[value[1]]}={whole}")
        elif name == "GIT_CONFIG_PARAMETERS":  # 'core.pager'='…' 'user.name'='x'
            try:  # +='…' to a value not shown: the settings appended
                settings = shlex.split(whole.removeprefix(f'"${name}"'))
            except ValueError:
                settings = [whole]
            lines += [line for s in settings for line in _setting_lines(s)]
        elif name in OPTION_VARIABLES:  # TAR_OPTIONS='--to-command=…': tar's own line
            lines.append(f"{OPTION_VARIABLES[name]} {whole}")
        elif name in _PROGRAM_VARIABLES and not login_shell(name, whole):
            added = whole.removeprefix(f'"${name}"')  # GIT_SSH+=m: "$GIT_SSH"m, its name computed
            lines += [shlex.quote(added)] + ([f'"${name}"{shlex.quote(added)}'] if (
                added != whole) else [])  # SHELL=/bin/rm gdb: shell_variables
    return lines


_GIT_C = re.compile(r"git -C (\S+) (.+)")


def in_own_dir(form: str, working_dir: Path) -> str | None:
    """``git status`` for the allow form ``git -C DIR status``, DIR ``.`` or the working dir.

    git runs there as it would without ``-C``: an allow rule for ``git status`` covers it.
    ``None``: no such form (another dir, or ``-C`` after another option).
    """
    found = _GIT_C.fullmatch(form)
    if found is None or found[1] != "." and os.path.normpath(found[1]) != os.path.normpath(
            working_dir):
        return None
    return f"git {found[2]}"
