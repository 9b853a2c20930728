"""Programs that run a command given in their arguments, and interpreters' inline code.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. A *runner*
starts another program named somewhere in its arguments (``fakeroot rm x``, ``chroot / rm x``,
``strace -o log rm x``, ``docker exec box rm x``); its options are too many and too varied to
model, so every word that could start the command is tried (:func:`runner_starts`): a deny or
ask rule catches the command wherever it starts, an allow rule still reads the command as
written. ``ssh HOST CMD…`` runs ``CMD…`` as a command line of the remote shell
(:mod:`goosectx.shell_remote`). An interpreter's inline code (``python3 -c CODE``, ``perl -e CODE``,
``awk 'PROGRAM'``) runs whatever its text says: :func:`inline_code` gives the text, so the
rules can ask about code that names a program they deny or ask about. What the command text
shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.awk_program import awk_runs, awk_texts
from goosectx.code_options import (
    IPYTHON,
    NODE_LOADERS,
    PYTHON_MODULE,
    UNREADABLE,
    data_code,
    module_code,
)
from goosectx.code_options import STDIN as CODE_STDIN
from goosectx.git_config_writes import writes_git_config
from goosectx.line_options import cluster_lines
from goosectx.option_table import OPTIONS, Does, long_options
from goosectx.option_writes import option_writes
from goosectx.protected_paths import Where
from goosectx.shell_assign import DECLARATIONS
from goosectx.shell_builtins import reads_stdin, script_stream
from goosectx.shell_git import git_hidden, git_lines, variable_lines
from goosectx.shell_given import given_hidden, given_lines
from goosectx.shell_launchers import LAUNCHERS, TERMINAL_EMULATORS, launcher_scripts
from goosectx.shell_options import (
    long_option,
    option_commands,
    package_lines,
    short_value,
    value_at,
)
from goosectx.shell_packages import apt_options
from goosectx.shell_pagers import man_lines, pager_keys
from goosectx.shell_runner_options import dotenv_start, watch_lines
from goosectx.shell_scripts import runs_in_language
from goosectx.shell_sed import sed_runs, sed_script
from goosectx.shell_transfers import transfer_commands, transfer_lines
from goosectx.shell_unwrap import env_split_strings, handed

CONTAINERS = frozenset({"docker", "podman", "nerdctl", "kubectl"})
"""Container tools: what their ``exec`` / ``run`` runs may be anything in the container."""
SUBCOMMAND_RUNNERS = {
    "docker": ("exec", "run"), "podman": ("exec", "run"), "nerdctl": ("exec", "run"),
    "kubectl": ("exec", "run", "debug"), "uv": ("run",), "poetry": ("run",), "pipenv": ("run",),
    "pdm": ("run",), "hatch": ("run",), "rye": ("run",), "conda": ("run",), "mamba": ("run",),
    "micromamba": ("run",), "bundle": ("exec",), "direnv": ("exec",), "toolbox": ("run",),
    "distrobox": ("enter",), "nix": ("develop", "shell", "run"),
    # package managers and environment tools (``npm exec -- rm x``, ``aws-vault exec p -- rm x``)
    "npm": ("exec", "x"), "pnpm": ("exec", "dlx"), "yarn": ("exec", "dlx"), "bun": ("x",),
    "pipx": ("run",), "mise": ("exec", "x"), "asdf": ("exec",), "pixi": ("run", "exec"),
    "tox": ("exec",), "devbox": ("run",), "docker-compose": ("exec", "run"),
    "podman-compose": ("exec", "run"), "op": ("run",), "aws-vault": ("exec",),
    "dotenvx": ("run",), "perf": ("stat", "record", "trace", "ftrace", "iostat"),
    "rr": ("record",), "ip": ("exec",), "machinectl": ("shell",), "doppler": ("run",),
    "infisical": ("run",), "chamber": ("exec",), "sops": ("exec-env", "exec-file")}
"""Tools whose subcommand runs a command: only after it (``docker rm box`` runs no ``rm``,
``uv run rm x`` does)."""
RUNNERS = frozenset({
    "fakeroot", "fakechroot", "chroot", "unshare", "nsenter", "setpriv", "runuser", "taskset",
    "chrt", "prlimit", "faketime", "strace", "ltrace", "valgrind", "firejail",
    "bwrap", "proot", "schroot", "catchsegv", "numactl", "cgexec", "sshpass", "sg", "script",
    "pkexec", "gosu", "su-exec", "setuidgid", "chpst", "tini", "dumb-init", "xvfb-run",
    "dbus-run-session", "caffeinate", "entr", "watchexec", "setarch", "linux32", "linux64",
    "i386", "x86_64", "gdb", "parallel", "ssh", "autossh", "mosh", "npx", "pnpx", "bunx",
    "uvx", "dotenv", "cpulimit", "trickle", "ccache", "distcc", "hyperfine", "arch", "scl",
    "cross-env", "env-cmd", "concurrently", "nodemon", "runcon", "sandbox-exec", "lldb", "sem",
    "lckdo", "daemonize", "start-stop-daemon", "capsh", "tsp", "rlwrap", "nq", "xe", "rush",
    "pee", "systemd-nspawn", *SUBCOMMAND_RUNNERS, *LAUNCHERS})
"""Programs that run another program given in their arguments."""
LINE_RUNNERS = frozenset({"parallel", "entr", "watchexec", "pixi", "hatch", "devbox", "sem",
                          "sops", "hyperfine", "scl", "concurrently", "nodemon", "capsh",
                          "rush", "pee", *TERMINAL_EMULATORS})
"""Runners that may run a word holding a blank as a shell command line: ``parallel 'rm {}'
::: x``, ``entr -s``, ``watchexec`` (a shell by default), ``pixi run`` (its task shell),
``hatch run``, ``devbox run``, ``sops exec-env F 'CMD'``, ``hyperfine 'CMD'``, ``concurrently
'CMD' …``, ``nodemon --exec 'CMD'``, ``scl enable X 'CMD'``, ``capsh -- -c 'CMD'`` (bash),
``rush 'rm {}'``, ``pee 'rm x' cat`` (each of its words a line for ``sh -c``)."""
SU_LIKE = ("su", "runuser", "sg", "script", "nix-shell", "npx", "vagrant")
"""Programs whose ``-c STRING`` / ``--command=STRING`` is a command line of its own; their
other words (a user, a group, a log file) are not the command."""
MAX_STARTS = 32
"""Most words of one runner tried as the start of its command; beyond it the command is one
the rules cannot read."""

INTERPRETER = re.compile(r"(python|pypy|node|nodejs|bun|perl|ruby|php|lua|luajit|Rscript|R"
                          r"|osascript|pwsh|powershell|julia|elixir|erl|guile|racket|sbcl|clisp"
                          r"|groovy|emacs)[\d.]*[a-z]?")
_AWK = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_CODE_FLAGS = {"python": "c", "pypy": "c", "node": "ep", "nodejs": "ep", "bun": "ep",
               "perl": "eE", "ruby": "e", "php": "rBRE", "lua": "e", "luajit": "e",
               "Rscript": "e", "R": "e", "osascript": "e", "pwsh": "c", "powershell": "c",
               "julia": "eE", "elixir": "e", "erl": "", "guile": "c", "racket": "e", "sbcl": "",
               "clisp": "x", "groovy": "e", "emacs": ""}
_LONG_CODE = ("--eval", "--print", "--command", "-Command", "--expression")
_OPAQUE = frozenset({"julia", "elixir", "erl", "guile", "racket", "sbcl", "clisp", "groovy",
                     "emacs"})
"""Languages whose ways to run a program the rules do not model (``run(`rm f`)``,
``System.cmd``, ``os:cmd``, ``(shell-command …)``): any inline code of theirs may run one."""


def runner_starts(name: str, args: list[str], computed: list[bool]) -> list[int] | None:
    """Where in ``args`` (a runner's arguments) its command may start, or ``None``.

    ``None``: more candidates than :data:`MAX_STARTS`. Each word that is no option (``-x``)
    is a candidate, up to the third in a row (an option's value and a positional or two come
    before the command; a command's own arguments after it are not read as commands), a word
    after ``--`` too. A word holding a blank is not (bash runs it as one file name: no rule's
    program). A tool's command follows its running subcommand (:data:`SUBCOMMAND_RUNNERS`);
    there a word bash computes right after an option (``-v $PWD:/w``) or first (the
    container, ``docker exec "$CID"``) is not read as a program named at run time.
    """
    start = 0
    verbs = SUBCOMMAND_RUNNERS.get(name)
    if name == "dotenv" and (at := dotenv_start(args)) is not None:
        return [at] if at < len(args) else []  # dotenv run CMD, dotenv -e F -- CMD: CMD
    if verbs is not None:
        at = next((i for i, a in enumerate(args) if a in verbs), None)
        if at is None:
            return []
        start = at + 1
    starts: list[int] = []
    run = 0  # non-option words in a row
    for i in range(start, len(args)):
        word = args[i]
        if word == "--" or (word.startswith("-") and word != "-"):
            run = 0
            continue
        run += 1
        if run > 3:
            break
        after_option = i > start and args[i - 1].startswith("-") and args[i - 1] != "--"
        if computed[i] and verbs is not None and (after_option or not starts):
            continue
        if any(c.isspace() for c in word):
            continue
        starts.append(i)
        if len(starts) > MAX_STARTS:
            return None
    return starts


VIM = re.compile(r"(?:[gr]?(?:vim|view)|vi|ex|nvim|vimdiff)(?:\.(?:tiny|basic|nox|gtk3?))?")
"""Every name vim answers to (``vim.tiny``, ``rview``, ``nvim``): its ``-c '!CMD'`` runs CMD
(:func:`option_lines`) and its own commands are read by :mod:`goosectx.shell_languages`."""


def option_lines(name: str, args: list[str]) -> list[str]:
    """Command lines a program runs from its options' values.

    :func:`goosectx.line_options.cluster_lines` (``rsync -avze CMD``) and
    :func:`goosectx.shell_options.option_commands` (``--to-comm=…``: any prefix getopt
    takes), git's (:func:`goosectx.shell_git.git_lines`), a command variable
    ``export`` or a wrapper hands on (``env``, ``sudo``: :func:`goosectx.shell_unwrap.handed`;
    :func:`goosectx.shell_git.variable_lines`), an editor's ``-c
    '!cmd'`` / ``+'!cmd'`` (vim runs the shell command), and ``sg GROUP 'CMD'`` (sg runs its
    second operand with ``sh -c``).
    """
    lines: list[str] = []
    if name == "git":
        return git_lines(args)
    if name in DECLARATIONS or name == "env":  # export EDITOR=…, env GIT_SSH_COMMAND=… git
        return variable_lines(args if name in DECLARATIONS else handed(name, args))
    lines += variable_lines(handed(name, args))  # sudo --user root GIT_SSH_COMMAND=… git
    if name == "man":  # man -aP 'cmd' ls: shell_pagers
        return [*man_lines(args), *option_commands(name, args)]
    if name == "sg":
        operands = [a for a in args if a not in ("-", "-c")]
        return operands[1:2]
    if VIM.fullmatch(name):
        for i, word in enumerate(args):
            value = (word[1:] if word.startswith("+") else
                     value_at(args, i + 1) if word in ("-c", "--cmd") else None)
            if value is not None:
                command = value.lstrip(": ")
                if command.startswith("!") or command.startswith(("r !", "r!", "w !", "w!")):
                    lines.append(command.split("!", 1)[1])
        return lines
    return [*lines, *cluster_lines(name, args), *option_commands(name, args),
            *package_lines(name, args), *transfer_lines(name, args),  # scp -o ProxyCommand=…
            *watch_lines(name, args), *given_lines(name, args)]  # socat - EXEC:'rm x'; gh alias


STDIN = CODE_STDIN
""":func:`inline_code` of an interpreter that reads its program from standard input
(``python3 - <<EOF``, ``echo … | perl``, ``python3 /dev/stdin``, ``perl <(…)``): the rules
cannot see it."""
AWK_RUNS = "\0awk runs"
""":func:`inline_code` of an awk program that may run a command (``print | c``)."""
COMPUTED = "\0computed"
""":func:`inline_code` that bash computes at run time (``python3 -c "$(cat x)"``, ``perl -e
"$CODE"``): the rules cannot see it."""
_VALUED = {"python": "WXQ", "pypy": "WXQ", "perl": "I", "ruby": "IrCEFKTUWx",
           "node": "r", "nodejs": "r", "bun": "r", "php": "cdzt", "lua": "l", "luajit": "lj"}
"""Interpreters' options that take the next word as their value (``python3 -W ignore``)."""
_UNCLUSTERED = frozenset({"node", "nodejs", "bun"})
"""Interpreters whose code options take no glued value: ``node -pe CODE`` (``--print
--eval``), ``-ep``, ``bun -pe``: a word holding a code letter takes the next word as its code."""
_ATTACHED = {"perl": "iMmCdDFx"}
"""Options whose value, if any, is the rest of their word only (``perl -i.bak``, ``-MPOSIX``)."""
_PERL_DIGITS = re.compile(r"l[0-7]*|0(?:[xX][0-9a-fA-F]*|[0-7]*)")
"""perl's ``-l[OCTAL]`` and ``-0[DIGITS]`` take only digits: ``-lne CODE`` is ``-l -n -e``."""


def _without_digit_options(word: str) -> str:
    """``word`` (a perl cluster) without its ``-l`` / ``-0`` and their digits (``-l0ne`` → ``-ne``).

    Up to a letter that takes the rest of the word (``-i``, ``-e`` …).
    """
    k = 1
    kept = "-"
    while k < len(word) and word[k] not in "eEI" + _ATTACHED["perl"]:
        found = _PERL_DIGITS.match(word, k)
        if found:
            k = found.end()
        else:
            kept, k = kept + word[k], k + 1
    return kept + word[k:]


def inline_code(name: str, args: list[str], fed: bool = True) -> str | None:
    """The inline code an interpreter runs (``python3 -c CODE``, ``awk 'PROG' f``), or ``None``.

    Every ``-c`` / ``-e`` … value of an interpreter (``perl -lne CODE``: a cluster ending in
    the letter), joined; :data:`STDIN` when it reads its program from standard input (no
    script, or ``-``, or a script path that may be a stream: ``fed`` is :attr:`Part.fed`,
    :func:`goosectx.shell_builtins.reads_stdin`); an awk program is its first word that is no
    option, unless ``-f`` names a file; a sed script (:func:`_sed_script`) when it runs
    commands (the ``e`` command or flag).
    """
    if name in _AWK:
        return _awk_program(args, fed)
    if name in ("sed", "gsed"):
        return _sed_script(args, fed)
    if IPYTHON.fullmatch(name):  # ipython -c '!rm x': python -m IPython's
        return module_code("IPython", args, fed)
    found = INTERPRETER.fullmatch(name)
    if found is None:
        return None
    if any(a in ("--version", "-V", "--help", "-h", "-v", "-version") for a in args[:1]):
        return None  # python3 --version
    family = found[1]
    letters, valued = _CODE_FLAGS[family], _VALUED.get(family, "")
    codes: list[str] = []
    loaded: list[str] = []  # node --import data:…: code beside the program
    i = 0
    maybe_value, skipped = -1, False
    while i < len(args):
        word = args[i]
        if word == "-":
            return ("\n".join(codes + loaded) if codes else "") or STDIN
        module = PYTHON_MODULE.fullmatch(word) if family in ("python", "pypy") else None
        if module is not None:  # python3 -m timeit CODE: code_options
            name = module[1] or value_at(args, i + 1) or ""
            code = module_code(name, args[i + (1 if module[1] else 2):], fed)
            if code == STDIN:  # echo … | python3 -m pdb x.py: pdb's commands
                return STDIN
            return "\n".join([*codes, *loaded, *filter(None, [code])]) or (
                None if code is None else "")
        if i == maybe_value:
            i, skipped = i + 1, True  # node --title x -e CODE: x may be the value, or the script
            continue
        if not word.startswith("-") or word == "--":
            if word == "--" and not codes:
                script = value_at(args, i + 1)
                return STDIN if script is None or reads_stdin(script, fed) else (
                    "\n".join(loaded) or None)
            if not codes and reads_stdin(word, fed):  # python3 /dev/stdin, perl <(…)
                return STDIN
            return "\n".join(codes + loaded) or None  # the script and its arguments
        value: str | None = None
        option, equals, attached = word.partition("=")
        if word.startswith(_LONG_CODE) or word == "-eval" and family in ("erl", "emacs"):
            separate = "=" not in word  # --eval CODE, --eval=CODE
            value = value_at(args, i + 1) if separate else word.partition("=")[2]
            i += 2 if separate else 1
        elif family in ("node", "nodejs", "bun") and option in NODE_LOADERS:
            given = attached if equals else value_at(args, i + 1) or ""
            i += 1 if equals else 2
            if (code := data_code(given)) == UNREADABLE:
                return COMPUTED  # a base64 body that does not decode
            if code is not None:  # --import data:text/javascript,…
                loaded.append(code)
        elif word.startswith("--"):
            after = value_at(args, i + 1)  # a long option's value or the script: read on
            maybe_value = -1 if equals or after is None or after.startswith("-") or reads_stdin(
                after, fed) else i + 1
            i += 1
        elif family in _UNCLUSTERED and any(c in letters for c in option[1:]):
            value = attached if equals else value_at(args, i + 1)  # node -pe CODE
            i += 1 if equals else 2
        else:  # -lne CODE: the letters before a valued one are flags
            cluster = [*args[:i], _without_digit_options(word), *args[i + 1:]] if (
                family == "perl") else args
            short = short_value(cluster, i, letters + valued, _ATTACHED.get(family, ""))
            value = short.value if short.letter and short.letter in letters else None
            i = short.next
        if value is not None:
            codes.append(value)
    if not codes and (skipped or family in _UNCLUSTERED and "--test" in args):
        return "\n".join(loaded) or None  # node --inspect x.js; node --test: its test files
    return ("\n".join(codes + loaded) if codes else "") or STDIN


def _program_files(args: list[str], short: str, *longs: str) -> list[str]:
    """The values of every ``-f FILE`` / ``-nf FILE`` / ``--file=FILE`` (``--fil=``) in ``args``."""
    files: list[str] = []
    for i, word in enumerate(args):
        long = any(long_option(word, option) for option in longs)  # --fil=-: a prefix too
        if word == short or long and "=" not in word:
            files.append(value_at(args, i + 1) or "")
        elif long:
            files.append(word.partition("=")[2])
        elif (flags := re.fullmatch(r"-([a-zA-Z]*?)" + short[1] + "(.*)", word)) and not any(
                c in "eFvlWiCIo" for c in flags[1]):  # -nf FILE, -fFILE; not -vf=1
            files.append(flags[2] or value_at(args, i + 1) or "")
    return files


def _program_file(args: list[str], short: str, long: str) -> str | None:
    """The value of the first ``-f FILE`` / ``--file=FILE`` in ``args``, or ``None``."""
    return next(iter(_program_files(args, short, long)), None)


_FILE_PROGRAMS = {name: longs for name in OPTIONS if (longs := long_options(name, Does.RUNS_FILE))}
"""Programs whose ``-f FILE`` is the program they run (``awk -f prog.awk``, a makefile), and
their long options for it: :data:`goosectx.option_table.OPTIONS`' ``Does.RUNS_FILE``."""


def hidden_program(name: str, args: list[str], fed: bool = True,
                   where: Where | None = None, remote: bool = False) -> str | None:
    r"""Why ``name`` runs a program the rules cannot see, or ``None``.

    ``awk -f /dev/stdin``, ``sed -f $f``, ``make -f -``: a ``-f`` file that
    :func:`goosectx.shell_builtins.reads_stdin` may be standard input, a pipe or computed;
    ``env -S 'rm\_x'``: a string env splits with its own escapes (``\_`` is a space) or
    variables (``${X}``), not as the rules read it.
    """
    if why := (git_hidden(args) if name == "git" else None) or (
            None if remote else writes_git_config(name, args, where)):  # ssh dev tee x: not ours
        return why  # git -c core.hooksPath=h; echo … >> .git/config
    if why := pager_keys(name, args) or transfer_commands(name, args, fed) or apt_options(
            name, args) or launcher_scripts(name, args) or option_writes(
            name, args, None if remote else where) or given_hidden(name, args):
        return why  # less '+!cmd' f; ctest -S x.cmake; git diff --output=F
    if name == "env" and any(re.search(r"[\\$]", s) for s, _after in env_split_strings(args)):
        return "env -S splits a string with escapes or variables the rules do not read"
    longs = _FILE_PROGRAMS.get(name)
    streams = [script_stream(path, fed) for path in _program_files(args, "-f", *longs or ())]
    if longs and (stream := next(filter(None, streams), None)):
        return f"{name} runs a program file that may be {stream}"
    return None


def _sed_script(args: list[str], fed: bool) -> str | None:
    if reads_stdin(_program_file(args, "-f", "--file") or "", fed):
        return STDIN  # sed -f /dev/stdin: its script (an `e` command too) comes from a pipe
    script = sed_script(args)  # e, s///e after any address: shell_sed
    return script if script is not None and sed_runs(script) else None


def _awk_program(args: list[str], fed: bool) -> str | None:
    """An awk call's program texts (:func:`goosectx.awk_program.awk_texts`), or a stand-in.

    :data:`STDIN` for ``-f`` a stream (a ``-f`` file is not read), :data:`AWK_RUNS` when one
    may run a command (:func:`goosectx.awk_program.awk_runs`).
    """
    if any(reads_stdin(one, fed) for one in _program_files(args, "-f", "--file")):
        return STDIN
    return AWK_RUNS if awk_runs(args) else "\n".join(awk_texts(args)) or None


_RUNS_COMMANDS = re.compile(
    r"\b(?:system|exec\w*|popen\w*|spawn\w*|subprocess|shell_exec|passthru|proc_open|"
    r"child_process|execSync|execFile|getline|Runtime|Open3|pty|os\.(?:exec|spawn|popen|system)"
    r"|commands|qx)\b|`|%x")
"""Code that runs a command (``os.system``, ``subprocess``, backticks, awk's ``| getline`` …)."""


def code_runs(name: str, code: str) -> bool:
    """True when ``name``'s inline ``code`` may run a command, or is unseen.

    A sed script :func:`inline_code` gives runs one; other code when it holds
    :data:`_RUNS_COMMANDS` or its language's own (:mod:`goosectx.shell_scripts`).
    """
    found = INTERPRETER.fullmatch(name)
    if code and found and found[1] in _OPAQUE:
        return True  # julia -e 'run(`rm f`)': their libraries are not read
    if name in _AWK:  # awk_program's reading: print | c, not print "system"
        return code in (STDIN, COMPUTED, AWK_RUNS)
    return code in (STDIN, COMPUTED) or name in ("sed", "gsed") or _RUNS_COMMANDS.search(
        code) is not None or runs_in_language(name, code)  # open(F, "|…"), eval: shell_scripts
