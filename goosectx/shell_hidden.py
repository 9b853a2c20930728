"""Why one simple command does what its words do not show, for the permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: the checks
:func:`goosectx.shell_command.command_forms` asks of each program it reads, in order — a
builtin's or a program's hidden commands, a language's inline code, a protected path that
inline code names (:mod:`goosectx.inline_writes`) or an archive holds
(:mod:`goosectx.archive_members`), a write by a program
goosectx does not model, the files a diff names, a build file in another dir. What the
command text shows, not a sandbox. Core module: no printing.
"""

from __future__ import annotations

from goosectx.archive_members import archive_writes
from goosectx.diff_targets import diff_writes
from goosectx.git_config_writes import writes_git_config
from goosectx.git_environment import git_environment
from goosectx.inline_writes import inline_writes
from goosectx.install_places import install_environment
from goosectx.protected_paths import Where, build_elsewhere
from goosectx.shell_builtins import hidden_commands
from goosectx.shell_languages import language_commands
from goosectx.shell_remote import local_count, stdin_commands
from goosectx.shell_runners import hidden_program
from goosectx.shell_words import Word
from goosectx.stdin_shells import stdin_shell
from goosectx.unmodelled_writes import line_values, unmodelled_write


def hidden_reason(name: str, words: list[Word], *, fed: bool, where: Where | None,
                  remote: bool, line: str, here: str) -> str | None:
    """Why ``words`` (``name`` its program) runs or writes what the rules cannot see, or ``None``.

    ``fed``: its standard input is given; ``where``: the dir it runs in (``cd .git && tee
    HEAD``); ``remote``: in a container or on another host (no path here); ``line``: the whole
    line (a diff in a here-document); ``here``: the simple command's here-document or
    here-string text, for the top-level command only.
    """
    args = [w.value for w in words[1:]]
    return hidden_commands(name, args, fed) or stdin_shell(name, args) or (
        stdin_commands(words) if remote else None) or hidden_program(  # ssh h 'ssh o' < x
        name, args, fed, where, remote) or (None if remote else (  # cd .git && tee HEAD
            line_writes(name, args, where, line) or git_environment(name, args, where, line)
            or install_environment(name, args, where, line)  # GOBIN=.git/hooks go …
            or inline_writes(name, args, where) or archive_writes(name, args, where))) or (
        language_commands(name, words[1:], fed)) or (  # gdb -ex 'shell …', sqlite3 …
        None if remote else unmodelled_write(name, args[:local_count(  # pdsh -w h rm /x
            [name, *args]) - 1], where, line)) or (  # cmake -E x .git
        diff_writes(name, args, where, fed, line, here)) or (  # patch -i x.diff: its files
        build_elsewhere(name, args, where))  # cd "$X" && make: that dir's Makefile


def line_writes(name: str, args: list[str], where: Where | None, line: str) -> str | None:
    """Why ``name ARGS`` writes a protected path through a variable ``line`` sets, or ``None``.

    ``H=.git/hooks/pre-commit; cp x $H``, ``for h in .git/hooks/x; do tee "$h"; done``,
    ``D=.venv/lib/…; echo x > $D/evil.pth``: each word with such a variable is judged by
    :func:`goosectx.git_config_writes.writes_git_config` with each value the line gives it
    (:func:`goosectx.unmodelled_writes.line_values`); a variable the line does not set is
    judged as the word is (``$d/config`` may be in the git directory).
    """
    for i, arg in enumerate(args):
        for value in line_values(arg, line) if "$" in arg and line else ():
            if value != arg and (why := writes_git_config(
                    name, [*args[:i], value, *args[i + 1:]], where)):
                return why
    return None
