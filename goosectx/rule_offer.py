"""The permission rule the approval question offers (``p`` / ``s``), and for what not.

docs/architecture.md §4. :func:`suggested_rule` gives ``shell(git status*)`` for ``git status
--short``. An allow rule matches a command's words only (``permissions.match_rules``), so
``shell(tar*)`` allows every ``tar`` command, ``tar -xf x.tar --to-command='rm f'`` too. Three
answers, one per program:

* a prefix rule (``shell(ls*)``, ``shell(git status*)``, ``shell(docker ps*)``) where nothing
  later on the line can make the program run code or write a file (:data:`PREFIX_PROGRAMS`,
  git's read-only subcommands :data:`GIT_READS`, those :data:`OFFERS` names);
* the command as it is (``shell(make test)``), a rule that repeats but cannot grow, for every
  other program (``rm``, ``cp``, ``chmod``, ``./build.sh``), the programs of :data:`OFFERS` —
  build tools, test runners and linters (``pytest -p MODULE`` loads code), package managers,
  ``kubectl``, ``helm``, ``terraform``, ``docker build``, ``gh pr merge`` … (what Codex's
  "approve for this session" keeps) — and git's other subcommands (``git clean -n``, ``git log
  --output=F``);
* no rule for a program that runs a command, a program or code given in its arguments or
  options: :data:`RUNS_ANYTHING`, built from the tables the shell reading keeps for such
  programs (shells, interpreters, wrappers, runners, ``tar --to-command``, ``sort
  --compress-program``, pagers, databases, terminals …) and the programs those tables do not
  list; :data:`GIT_RUNS` the git subcommands that do (``git grep -O``, ``git fetch
  --upload-pack``, ``git config core.pager``); ``docker run``, ``kubectl exec``, ``nix run``,
  ``npm exec``. tests/test_rule_offer.py walks the shell tables, so a program added there is
  never offered a prefix rule.

Core module: no printing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from goosectx.option_programs import COMPILER
from goosectx.shell_builtins import SHELLS, builtin_lines
from goosectx.shell_databases import DATABASES
from goosectx.shell_languages import COMMAND_LANGUAGES
from goosectx.shell_lexer import Part, lex
from goosectx.shell_multicall import MULTICALL
from goosectx.shell_options import COMMAND_OPTIONS, PROGRAM_OPTIONS
from goosectx.shell_pagers import PAGERS
from goosectx.shell_program import KEYWORDS
from goosectx.shell_runners import (
    CONTAINERS,
    INTERPRETER,
    LINE_RUNNERS,
    RUNNERS,
    SU_LIKE,
    SUBCOMMAND_RUNNERS,
    VIM,
)
from goosectx.shell_terminals import TERMINALS
from goosectx.shell_unwrap import WRAPPERS
from goosectx.shell_variables import OPTION_VARIABLES
from goosectx.shell_wrappers import FD, STARTERS, runs_given_command

__all__ = ["COMPILER", "GIT_READS", "GIT_RUNS", "OFFERS", "PREFIX_PROGRAMS",
           "RUNS_ANYTHING", "SUBCOMMAND_TOOLS", "suggested_rule"]

_EXACT: frozenset[str] = frozenset()
"""No subcommand keeps a prefix rule: every command of the program is offered as it is."""
_DOCKER_READS = frozenset({"ps", "images", "version", "info", "logs", "stats", "top",
                           "events", "history", "port", "diff", "search"})
"""docker's subcommands that only read (its global options, ``-H``, ``--config``, go before them:
``docker ps -H x`` is refused). Not ``inspect``: it prints a container's environment, its
secrets too, so it is offered as it is."""

OFFERS: Mapping[str, frozenset[str]] = {
    # Build and test tools: they run the project's code (a Makefile, build.rs, package.json's
    # scripts, a Dockerfile's RUN steps) and take options that run any program or file (``make
    # CC=…``, ``cargo --config``, ``go build -toolexec``, ``npm --script-shell``, ``docker
    # build -f``): the rule is the command the user saw, which repeats but cannot grow.
    **dict.fromkeys(("make", "gmake", "cmake", "ctest", "ninja", "meson", "cargo", "go", "npm",
                     "pnpm", "yarn", "tox", "dotnet", "mix", "rails", "bundle", "rake", "gradle",
                     "mvn", "ant", "sbt", "bazel", "bazelisk", "just", "swift", "rustc", "tcc"),
                    _EXACT),  # and the C compilers: COMPILER
    # Test runners, linters and formatters: they load code an option or a config file names
    # (``pytest -p MODULE``, ``-c FILE``, ``--rootdir`` with a conftest, ``--pyargs``; ``pylint
    # --init-hook``, ``--load-plugins``; ``mypy --config-file`` plugins; ``coverage run``;
    # ``jest|eslint|prettier --config x.js``; ``mocha|rspec --require``; ``pre-commit -c``'s
    # hooks) or write any file one names (``flake8|ruff --output-file``, ``tsc --outDir``,
    # ``black`` and ``ruff format`` rewrite what they are given): the command as it is too.
    **dict.fromkeys(("pytest", "py.test", "nox", "mypy", "pylint", "flake8", "ruff", "black",
                     "coverage", "pre-commit", "jest", "vitest", "mocha", "eslint", "prettier",
                     "tsc", "phpunit", "rspec"), _EXACT),
    # Package managers: an install runs the package's build or install code, and a local
    # file or URL as the package is any code (``pip install URL``, ``brew install ./x.rb``,
    # ``dpkg -i x.deb``); ``uv``, ``pip`` and ``pipenv`` take ``--python PATH`` (a program they
    # run), ``poetry self add URL`` a plugin, ``nix build`` builds (and ``nix-build`` too) any
    # expression; ``nix run|shell|develop`` and ``nix-shell`` run a command: no rule.
    **dict.fromkeys(("pip", "pip3", "uv", "poetry", "pipenv", "gem", "apt", "apt-get", "aptitude",
                     "dpkg", "nix", "nix-build"), _EXACT),
    "brew": frozenset({"list"}),  # any other brew command may load a formula's Ruby code
    # Cluster tools: every kubectl and helm command takes ``--kubeconfig FILE``, whose ``exec``
    # credential plugin is a command they run, and terraform runs providers' code; ``kubectl
    # exec|run|debug`` run a command in a container: no rule.
    **dict.fromkeys(("kubectl", "helm", "terraform"), _EXACT),
    # Container tools: docker's read-only subcommands keep a prefix rule (``shell(docker
    # ps*)``); ``docker build`` runs a Dockerfile, ``docker cp`` writes any file, ``docker
    # compose up`` starts what a compose file says: the command as it is; ``docker run|exec``:
    # no rule. podman and nerdctl take their global options anywhere (``podman ps --runtime
    # PATH``, a program podman runs): the command as it is, every subcommand.
    "docker": _DOCKER_READS,
    "docker-compose": frozenset({"ps", "logs", "images", "top", "version"}),
    **dict.fromkeys(("podman", "nerdctl", "podman-compose"), _EXACT),
    # GitHub CLI: its read-only pairs keep a prefix rule; ``gh pr checkout|merge`` change
    # things, ``gh api`` calls any endpoint, ``gh extension`` and ``gh alias --shell`` run code.
    "gh": frozenset({"pr list", "pr view", "pr status", "pr diff", "pr checks", "issue list",
                     "issue view", "issue status", "run list", "run view", "repo view",
                     "release list", "release view", "workflow list", "workflow view",
                     "status"}),
}
"""The one table of programs offered the command as it is (``shell(make test)``), a rule that
cannot grow, not the prefix rule other programs are: for each, the subcommands (one or two
words) that still keep a prefix rule because nothing on their line can make them run code or
write a file (``shell(docker ps*)``, ``shell(gh pr list*)``). What Codex's "approve for this
session" keeps (the exact command); Claude Code offers its prefix rule only where the prefix
is safe."""

SUBCOMMAND_TOOLS = frozenset({
    "git", "npm", "pnpm", "yarn", "cargo", "go", "docker", "podman", "nerdctl", "kubectl", "uv",
    "pip", "poetry", "gh", "terraform", "dotnet", "bundle", "rails", "mix", "nix", "brew", "apt",
    "helm"})
"""Commands whose second word is a subcommand (``git status``): a command of one of them
without it (``docker --help``, ``cargo``) is offered no rule."""

_UNLISTED = frozenset({
    "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "tclsh", "osascript",
    "su", "eval", "awk", "gawk", "mawk", "nawk", "busybox-awk", "source", ".", "trap", "fc",
    "bind", "rg", "find", "pipx",
    # a command, a program or code given in an option or a variable on the command line
    "make", "gmake", "sed", "gsed", "ed", "red", "scp", "sftp", "at", "batch", "crontab",
    "man", "cc", "c++", "gcc", "g++", "clang", "clang++", "gfortran", "tcc", "ld", "ld.gold",
    "ld.lld", "lld", "rustc", "rustup", "cargo", "go", "npm", "pnpm", "yarn", "pip", "pip3",
    "gem", "cmake", "ctest", "tox", "apt", "apt-get", "aptitude", "dpkg", "ssh-agent",
    "dbus-launch", "xdg-open", "open", "mongosh", "mongo", "compgen", "complete", "mapfile",
    "readarray", "nc", "netcat", "nc.traditional", "socat",
})
"""Programs that run what their arguments say and that no shell table lists: ``make
CC='rm f'``, ``sed 's/x/y/e'``, ``gcc -wrapper``, ``cargo --config``, ``go build -toolexec``,
``npm test --script-shell``, ``pip install URL`` (its build code), ``cmake -E``, ``tox -x``,
``apt-get -o APT::Update::Pre-Invoke::=…``, ``dpkg --pre-invoke``, ``ssh-agent CMD``."""

RUNS_ANYTHING = frozenset(
    SHELLS | COMMAND_LANGUAGES | MULTICALL | WRAPPERS.keys() | STARTERS | FD | TERMINALS
    | (RUNNERS - SUBCOMMAND_RUNNERS.keys()) | (LINE_RUNNERS - SUBCOMMAND_RUNNERS.keys())
    | set(SU_LIKE) | COMMAND_OPTIONS.keys() | PROGRAM_OPTIONS.keys() | PAGERS | DATABASES
    | set(OPTION_VARIABLES.values()) | _UNLISTED)
"""Programs that run whatever their arguments say: no prefix rule is offered for them (those of
:data:`OFFERS` are offered the command as it is, the rest nothing).

``find``, ``fd`` and ``rg`` too: ``shell(fd*)``, offered for a plain ``fd -e py``, would allow
``fd -e py -x rm -rf {}`` (``find -exec``, ``rg --pre``); ``shell(tar*)``, offered for ``tar
-tf x.tar``, would allow ``tar -xf x.tar --to-command='rm f'``."""

GIT_RUNS = frozenset({
    "config", "rebase", "difftool", "mergetool", "grep", "clone", "fetch", "pull", "push",
    "ls-remote", "archive", "send-pack", "fetch-pack", "submodule", "bisect", "filter-branch",
    "send-email", "instaweb", "daemon", "help", "web--browse", "remote", "credential"})
"""git subcommands that run a command given on their line (``grep -O``, ``rebase -x``,
``difftool -x``, ``clone -u``, ``fetch --upload-pack``, ``push --receive-pack``, ``archive
--exec``, ``submodule foreach``, ``bisect run``, ``filter-branch --tree-filter``) or store
one that later git commands run (``config core.pager``, ``remote add x ext::…``)."""

GIT_READS = frozenset({
    "status", "ls-files", "ls-tree", "rev-parse", "describe", "show-ref", "count-objects",
    "check-ignore", "check-attr", "merge-base", "name-rev", "verify-commit", "verify-tag",
    "version", "var", "for-each-ref"})
"""git subcommands that only read, whatever follows: offered a prefix rule (``shell(git
status*)``). Not ``cat-file``: ``--batch-all-objects --batch`` prints every blob of the
history, a committed ``.env`` too, as ``git log -p`` does; it is offered as it is. Every other
one is offered the command as it is — ``git clean -n`` must not give ``shell(git clean*)``,
which would run ``git clean -fdx`` (the untracked ``.env`` and notes gone), nor ``git reset
HEAD f`` ``shell(git reset*)`` (``git reset --hard``); likewise ``checkout``, ``restore``,
``rm``, ``branch -D``, ``tag -d``, ``update-ref``, ``gc``, ``worktree``, ``add``, ``commit``;
and the ones that write any file an option names: the diff and log options' ``--output=FILE``
(``git log -1 --output=$HOME/.bashrc``), ``format-patch -o DIR``, ``fast-export
--export-marks=FILE``, ``bundle create FILE`` (``git log --oneline`` → ``shell(git log
--oneline)``, never ``shell(git log*)``)."""

PREFIX_PROGRAMS = frozenset({
    "ls", "cat", "head", "tail", "wc", "cmp", "comm", "stat", "du", "df", "pwd", "echo", "printf",
    "which", "whoami", "id", "groups", "uname", "uptime", "free", "ps", "pgrep", "cut", "nl", "od",
    "hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "basename",
    "dirname", "realpath", "readlink", "jq", "column", "join", "paste", "fold", "fmt", "expand",
    "unexpand", "rev", "tac", "strings", "seq", "true", "false", "sleep", "printenv", "nproc",
    "locale", "tr", "pstree", "lsblk", "lscpu", "whereis", "cal"})
"""The programs offered a prefix rule (``shell(ls*)``, ``shell(cat*)``): each only reads and
prints, whatever options or arguments follow (``tree -o F``, ``sort -o F``, ``uniq IN OUT``,
``xxd -r IN OUT`` and ``file -C`` write a file, ``ldd`` may run the program, ``getent shadow``
reads the password hashes by a database name, not a path: not here; nor
``grep`` and ``diff``, whose ``-r`` reads every file below a directory — the sensitive-file
check judges the paths a command names, not what lies below them, so ``shell(grep*)`` would let
``grep -r KEY .`` read the project's ``.env``). Any other program outside the subcommand tools
— ``rm``, ``cp``, ``mv``, ``chmod``, ``truncate``, ``mkdir``, ``./build.sh`` — is offered the
command as it is (``shell(rm -rf build)``): ``shell(rm*)`` for ``rm -rf build`` would later
delete anything the model names. Where a prefix rule reads outside the working dir, the
approval asks anyway (read scoping)."""

_PLAIN_WORD = re.compile(r"[\w./:,=@%+^~#-]+")
"""A word an exact rule spells as the command does: no blank, quote or glob character."""

_PROGRAM_PATTERNS = (INTERPRETER, VIM, re.compile(r"(?:cuda-)?gdb(?:-multiarch)?"),
                     re.compile(r"(?:tclsh|wish|jimsh)[\d.]*"), COMPILER)
"""Program names by pattern: ``python3.12``, ``nvim``, ``gdb-multiarch``, ``tclsh8.6``,
``x86_64-linux-gnu-gcc-12``."""


def _offer(name: str) -> frozenset[str] | None:
    """What :data:`OFFERS` says of ``name``, a compiler's every command as it is; ``None``."""
    return OFFERS.get(name, _EXACT if COMPILER.fullmatch(name) else None)


def _runs_anything(name: str) -> bool:
    """True when the program ``name`` runs what its arguments say (no rule is offered)."""
    return name in RUNS_ANYTHING or any(p.fullmatch(name) for p in _PROGRAM_PATTERNS)


def suggested_rule(tool_name: str, arguments: Mapping[str, Any]) -> str | None:
    """The rule ``p`` / ``s`` offers for a shell call: its first words and ``*``, or itself.

    ``git status --short`` → ``shell(git status*)``; ``ls -la`` → ``shell(ls*)``; the command
    as it is, no ``*``, for a program of :data:`OFFERS` (``make test`` → ``shell(make test)``,
    ``pytest -q`` → ``shell(pytest -q)``, ``docker build .``, ``kubectl get pods``, ``gh pr
    merge 3``; its read-only subcommands keep theirs: ``shell(docker ps*)``, ``shell(gh pr
    list*)``) and a git subcommand that is not read-only (not in :data:`GIT_READS`: ``git log
    --oneline`` → ``shell(git log --oneline)``), or ``None`` when a word has a
    blank, quote or glob character.
    ``None`` for a compound command, another tool, text the shell cannot parse, a command with
    leading ``VAR=value`` assignments, a subcommand tool without its subcommand (``docker
    --help``), a program that runs a command given on its line (``docker run``, ``kubectl
    exec``, ``nix run``, ``npm exec``) and any other that runs whatever its arguments say
    (:data:`RUNS_ANYTHING`: ``bash -c``, ``python3 -c``, ``sudo``, ``env``, ``xargs``, ``find``,
    ``tar``, ``compgen -C``, ``tmux`` …; :data:`GIT_RUNS`: ``git grep``): a rule for it would
    allow almost anything.
    """
    if tool_name != "shell" or not isinstance(arguments.get("command"), str):
        return None
    parts = [p for p in lex(arguments["command"]) if p.words or p.unreadable]
    if len(parts) > 1:
        return _whole_line(arguments["command"], parts)
    if len(parts) != 1 or parts[0].unreadable or any(
            w.expands or w.pattern for w in parts[0].words[:2]):
        return None
    words = [w.value for w in parts[0].words]
    program = words[0] if words else ""
    name = program.rsplit("/", 1)[-1]
    runs = _runs_anything(name)
    if (not re.fullmatch(r"[\w./+-]+", program) or "=" in program or runs and _offer(name) is None
            or program in KEYWORDS or program.startswith("-")
            or builtin_lines(name, words[1:])  # compgen -C CMD, mapfile -C CMD
            or runs_given_command(name, words[1:])  # tmux new 'CMD', fd -x CMD, make --eval
            or name == "git" and (len(words) > 1 and words[1].startswith("-")
                                  or len(words) > 1 and words[1] in GIT_RUNS)):
        return None
    keep = [program]
    if name in SUBCOMMAND_TOOLS | SUBCOMMAND_RUNNERS.keys():
        if len(words) < 2 or not re.fullmatch(r"[a-z][a-z0-9_-]*", words[1]):
            return None  # shell(docker*) would allow docker run too
        keep.append(words[1])  # a subcommand: git status, npm test, cargo build
    verbs = SUBCOMMAND_RUNNERS.get(name, ())
    if any(w in verbs for w in words[1:]):  # uv run CMD: a rule for CMD after it, or none
        if runs or name in CONTAINERS | {"direnv", "distrobox", "nix"} or keep[-1] not in verbs or (
                len(words) < 3):
            return None  # docker exec …, npm exec …, uv --quiet run …: it runs anything
        inner = suggested_rule(tool_name, {"command": arguments["command"].split(None, 2)[2]})
        return None if inner is None else f"shell({' '.join(keep)} {inner[len('shell('):]}"
    reads = _offer(name)
    if reads is not None and (kept := _read_only_subcommand(words, reads)):
        return f"shell({' '.join([program, *kept])}*)"  # shell(docker ps*), shell(gh pr list*)
    if (reads is not None or name == "git" and keep[-1] not in GIT_READS
            or len(keep) == 1 and name not in PREFIX_PROGRAMS
            or name in SUBCOMMAND_RUNNERS.keys() - SUBCOMMAND_TOOLS):  # doppler secrets get
        if not all(_PLAIN_WORD.fullmatch(w) for w in words):
            return None  # git log --format='%h %s': no exact rule spells it
        return f"shell({' '.join(words)})"  # no `*`: make CC=…, git log --output=F are asked
    return f"shell({' '.join(keep)}*)"


_LINE_OPERATORS = frozenset({"|", "&&", "||", ";", "2>&1", ">/dev/null", "2>/dev/null",
                             "&>/dev/null"})
"""What may join the parts of a command line an exact rule spells: no redirection to a file,
no substitution, no background ``&``."""


def _whole_line(command: str, parts: list[Part]) -> str | None:
    """The rule for a line of several commands: the line as it is, or ``None``.

    ``npm test 2>&1 | tail -20`` → ``shell(npm test 2>&1 | tail -20)``, when each part alone
    is offered a rule (its prefix or itself) and the line is plain words and
    :data:`_LINE_OPERATORS` one blank apart. ``permissions.match_rules`` allows only that
    very line by it (no ``*``): a part added, changed or reordered asks.
    """
    line = command.strip()
    tokens = line.split(" ")
    if not all(_PLAIN_WORD.fullmatch(t.removesuffix(";")) or t in _LINE_OPERATORS
               for t in tokens):
        return None
    if any(p.unreadable or suggested_rule("shell", {"command": p.text}) is None for p in parts):
        return None
    return f"shell({line})"


def _read_only_subcommand(words: list[str], reads: frozenset[str]) -> list[str]:
    """The subcommand words of ``words`` that :data:`OFFERS` keeps a prefix rule for, or ``[]``.

    Two words first (``gh pr list``), then one (``docker ps``).
    """
    for size in (2, 1):
        if len(words) > size and " ".join(words[1:1 + size]) in reads:
            return words[1:1 + size]
    return []
