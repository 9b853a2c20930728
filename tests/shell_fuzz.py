r"""Differential fuzzing of the shell permission rules against real bash.

A grammar biased to bash's tricky syntax (every kind of quote, ``$'…'``, escapes,
backslash-newline, comments, separators, groups, substitutions, here-documents, redirections,
assignments, arithmetic, ``[[ ]]``, ``case``, loops, functions, aliases, wrappers, braces, globs,
Unicode blanks and control characters) makes command lines around a few program names. Real
bash is asked which programs each line runs, and :func:`goosectx.permissions.match_rules`
what it decides; a line the rules ALLOW on which bash runs anything the allow rules do not
cover, or a line on which bash runs ``rm`` that a ``shell(rm *)`` deny rule neither denies nor
asks about, is a bypass.

How bash is asked, safely (the tests run as root): ``bash --norc --noprofile`` with only
``PATH=/nonexistent HOME=/nonexistent`` in its environment (``env -i``), in an empty temporary
directory, stdin ``/dev/null``, killed after 2 s (``timeout 2``). Before the line is evaluated
every builtin is disabled (``enable -n``) but the few the harness and bash's own control flow
need (``builtin``, ``printf``, ``return``, ``eval``, ``command``, ``break``), so a program name
always reaches ``command_not_found_handle``, which writes its argv to fd 3 (a pipe) instead of
running anything. A program named by path would still run, so either (with a C compiler, as
root) bash runs as ``nobody`` with an ``LD_PRELOAD`` shim whose ``execve`` & co. report the
program and argv on fd 3 and exit instead of running it (checked on a probe before each line
is evaluated), or ``set -r`` (restricted: no output redirection to a file, no program named
with a ``/`` — bash's refusal, read from stderr, names it; a line with ``> /dev/null`` is then
"blind"). The line is evaluated twice, with every program succeeding and then failing, so
both sides of ``&&`` / ``||`` are seen. What an external wrapper bash runs (``env -S``,
``timeout``, ``xargs``, ``find -exec`` …) would exec is learnt by running the real wrapper under
the same shim (:class:`Wrappers`); ``bash -c`` / ``eval`` strings go back to bash.

Run it: ``.venv/bin/python tests/shell_fuzz.py --cases 20000 --seed 1`` (prints the divergences,
minimised); ``tests/test_shell_fuzz.py`` runs a fixed-seed few hundred on every test run and,
with ``GOOSECTX_FUZZ_BASH=1``, a long run.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goosectx.permissions import PermissionRules, match_rules, matching_rules
from goosectx.shell_command import SHELLS

BASH = shutil.which("bash") or "/bin/bash"
_KEEP = {"builtin", "printf", "return", "eval", "command", "break", "set", "enable"}
_PRELUDE = r"""
exec 3>&1 >/dev/null
{probe}
FUNCNEST=8
command_not_found_handle() {
  builtin printf -v __fz_argv '%s\37' "$@"; builtin printf '%s\36' "$__fz_argv" >&3
  return $__fz
}
enable -n {disable}
{restrict}
enable -n set enable
__fz=0; ( eval "$1" ); __fz=1; ( eval "$1" )
"""
_ENV = {"PATH": "/nonexistent", "HOME": "/nonexistent"}
_NOBODY: dict[str, Any] = (
    {"user": 65534, "group": 65534, "extra_groups": []} if os.geteuid() == 0 else {})
_RESTRICTED = re.compile(r"line \d+: (.*?): restricted: cannot specify `/' in command names$",
                         re.M)


def _builtins() -> list[str]:
    out = subprocess.run([BASH, "--norc", "--noprofile", "-c", "compgen -b"],
                         capture_output=True, text=True, check=True).stdout.split()
    return sorted(set(out) - _KEEP)


@dataclass(frozen=True, slots=True)
class Ran:
    """What bash ran for one line.

    Attributes:
        argvs: Each program bash tried to run, with its arguments (a program given by path:
            its path alone, from the restricted shell's refusal).
        timed_out: bash did not finish in time (what it ran before is still listed).
        blind: bash refused an output redirection (restricted): the command with it did not
            run, so the oracle saw less than bash would run.
    """

    argvs: tuple[tuple[str, ...], ...]
    timed_out: bool = False
    blind: bool = False


class Bash:
    """Asks real bash which programs a command line runs (see the module docstring)."""

    def __init__(self, restricted: bool | None = None) -> None:
        self.root = tempfile.mkdtemp(prefix="goosectx-fuzz-")
        self.dir = os.path.join(self.root, "empty")  # the commands' working dir
        os.mkdir(self.dir)
        os.chmod(self.root, 0o755)
        os.chmod(self.dir, 0o777)  # nobody's, for the output redirections bash makes
        self.wrappers = Wrappers(self.root, self.dir)
        # with the shim, as nobody: every exec is reported (a program named by path too) and
        # nothing runs, so bash need not be restricted and output redirections are seen
        self.restricted = (not self.wrappers.ready or os.geteuid() != 0 if restricted is None
                           else restricted)
        probe = ('/nonexistent/goosectx-probe; if (( $? != 85 )); then '
                 "builtin printf 'NO SHIM' >&3; exit 1; fi")
        self.script = (_PRELUDE.replace("{disable}", " ".join(_builtins()))
                       .replace("{restrict}", "set -r" if self.restricted else "")
                       .replace("{probe}", "" if self.restricted else probe))

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def run(self, line: str) -> Ran:
        """The programs bash runs for ``line`` (``line`` holds no NUL)."""
        argv = [BASH, "--norc", "--noprofile", "-c", self.script, "fuzz", line]
        timed_out = False
        # env -i PATH=/nonexistent HOME=/nonexistent, and timeout 2, without two more processes
        env, user = _ENV, {}
        if not self.restricted:
            env = {**_ENV, "LD_PRELOAD": self.wrappers.shim, "GOOSECTX_SHIM_FD": "3"}
            user = _NOBODY
        with subprocess.Popen(argv, cwd=self.dir, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              start_new_session=True, **user) as proc:  # type: ignore[call-overload]
            try:
                out, err = proc.communicate(timeout=2)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                out, err = proc.communicate()
                timed_out = True
        if not self.restricted:
            if not out.startswith(b"\35EXEC/nonexistent/goosectx-probe\37\36"):
                raise RuntimeError(f"the exec-reporting shim is not active: {out[:80]!r}")
            out = out.split(b"\36", 1)[1].replace(b"\35SHIM\36", b"").replace(b"\35EXEC", b"")
            for name in os.listdir(self.dir):  # what a redirection wrote: the next line's glob
                path = os.path.join(self.dir, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.unlink(path)
        argvs = [tuple(f.decode("utf-8", "surrogateescape") for f in record.split(b"\37")[:-1])
                 for record in out.split(b"\36")[:-1]]  # one write per program: never torn
        text = err.decode("utf-8", "surrogateescape")
        argvs += [(name,) for name in _RESTRICTED.findall(text)]
        return Ran(tuple(argvs), timed_out, "restricted: cannot redirect output" in text)


# -- what an external wrapper (env, timeout, xargs, find -exec …) would run -----------------
_SHIM_C = r"""/* Reports each exec a program attempts on stderr and exits instead of running it. */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int out = 2;  /* GOOSECTX_SHIM_FD, read when loaded */

static void report(const char *file, char *const argv[]) {
    static char buf[1 << 16];
    size_t n = 0;
    const char *head = "\035EXEC";
    memcpy(buf, head, 5); n = 5;
    for (int i = -1; i < 0 || argv[i]; i++) {
        const char *s = i < 0 ? file : argv[i];
        if (i == 0) continue;
        size_t len = strlen(s);
        if (n + len + 2 >= sizeof buf) break;
        memcpy(buf + n, s, len); n += len;
        buf[n++] = '\037';
    }
    buf[n++] = '\036';
    (void)!write(out, buf, n);
}

__attribute__((constructor)) static void loaded(void) {
    const char *fd = getenv("GOOSECTX_SHIM_FD");
    if (fd) out = atoi(fd);
    (void)!write(out, "\035SHIM\036", 6);
}

int execve(const char *f, char *const a[], char *const e[]) { (void)e; report(f, a); _exit(85); }
int execv(const char *f, char *const a[]) { report(f, a); _exit(85); }
int execvp(const char *f, char *const a[]) { report(f, a); _exit(85); }
int execvpe(const char *f, char *const a[], char *const e[]) { (void)e; report(f, a); _exit(85); }
int fexecve(int fd, char *const a[], char *const e[]) { (void)fd; (void)e; report("<fd>", a); _exit(85); }
#define VARARGS(name) \
int name(const char *f, const char *arg, ...) { \
    char *a[256]; int i = 0; va_list ap; va_start(ap, arg); a[i++] = (char *)arg; \
    while (a[i - 1] && i < 255) a[i++] = va_arg(ap, char *); a[i] = 0; va_end(ap); \
    report(f, a); _exit(85); }
VARARGS(execl)
VARARGS(execlp)
VARARGS(execle)
int posix_spawn(pid_t *p, const char *f, const posix_spawn_file_actions_t *fa,
                const posix_spawnattr_t *at, char *const a[], char *const e[]) {
    (void)p; (void)fa; (void)at; (void)e; report(f, a); _exit(85); }
int posix_spawnp(pid_t *p, const char *f, const posix_spawn_file_actions_t *fa,
                 const posix_spawnattr_t *at, char *const a[], char *const e[]) {
    (void)p; (void)fa; (void)at; (void)e; report(f, a); _exit(85); }
"""
REAL_WRAPPERS = ("env", "timeout", "nice", "nohup", "stdbuf", "setsid", "xargs", "find")
"""Wrappers run for real (with the shim) to learn what they exec: none of them writes a file
but nohup (nohup.out in the empty temp dir); find runs only without its writing actions."""
_FIND_WRITES = ("-delete", "-fprint", "-fprint0", "-fprintf", "-fls")


class Wrappers:
    """Runs a real wrapper program with an LD_PRELOAD shim that reports each exec it attempts
    (execvp, execve, posix_spawn …) on stderr and exits instead: what it would run, exactly.

    Needs a C compiler; each wrapper is used only once a probe showed the shim intercepts its
    exec (otherwise :meth:`run` answers ``None`` and the caller's rough model is used).
    """

    def __init__(self, root: str, workdir: str) -> None:
        self.dir = workdir
        self.shim = os.path.join(root, "shim.so")
        self.ready: dict[str, str] = {}
        compiler = shutil.which("cc") or shutil.which("gcc")
        if compiler is None:
            return
        source = self.shim[:-3] + ".c"
        Path(source).write_text(_SHIM_C, encoding="utf-8")
        if subprocess.run([compiler, "-shared", "-fPIC", "-o", self.shim, source],
                          capture_output=True).returncode != 0:
            return
        probes = {"find": [".", "-maxdepth", "0", "-exec", "/nonexistent/probe", ";"],
                  "timeout": ["5", "/nonexistent/probe"], "stdbuf": ["-o0", "/nonexistent/probe"]}
        for name in REAL_WRAPPERS:
            path = shutil.which(name)
            if path is None:
                continue
            seen = self._exec([path, *probes.get(name, ["/nonexistent/probe"])])
            if seen is not None and ("/nonexistent/probe",) in seen:
                self.ready[name] = path

    def _exec(self, argv: list[str]) -> list[tuple[str, ...]] | None:
        env = {**_ENV, "LD_PRELOAD": self.shim}
        try:
            done = subprocess.run(argv, cwd=self.dir, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=2, **_NOBODY)
        except subprocess.TimeoutExpired:
            return None
        err = done.stderr
        if not err.startswith(b"\35SHIM\36"):
            return None  # the shim was not loaded: nothing learnt (and nothing was run by path)
        return [tuple(f.decode("utf-8", "surrogateescape") for f in rec.split(b"\37")[:-1])
                for rec in re.findall(rb"\x1dEXEC([^\x1e]*)\x1e", err)]

    def run(self, argv: tuple[str, ...]) -> list[tuple[str, ...]] | None:
        """What the wrapper ``argv`` would exec (program as given, then its arguments)."""
        name = argv[0].rsplit("/", 1)[-1]
        if name not in self.ready or name == "find" and any(
                a.startswith(_FIND_WRITES) for a in argv) or any("\0" in a for a in argv):
            return None
        return self._exec([self.ready[name], *argv[1:]])


# -- the grammar ------------------------------------------------------------------------------
BLANKISH = ["\r", "\x0b", "\x0c", "\xa0", "\u2028", "\u3000", "\x1b", "\x7f", "\x85", "\t",
            "\u200b", "\x01"]
ARGS = ["-la", "-rf", "status", "/x", "y", "a b", "*", "?", "~", "~/z", "{a,b}", "x#y", "#c",
        "=", "A=b", "'", '"', "\\", "-c", "rm", "x", ";", "&", "|", "(", ")", "{", "}", "!",
        "--", "$", "-", "..", "[a]", "*.py", "%", "<", ">", "EOF", "done", "fi", "then",
        "ls", "git", "status"]
PROGRAMS = ["ls", "ls", "ls", "ls", "git status", "git", "rm", "rm", "curl", "x"]
WRAPPERS = ["env", "env -i", "sudo", "sudo -u x", "command", "exec", "xargs", "nohup",
            "timeout 5", "nice", "nice -n 5", "bash -c", "sh -c", "eval", "builtin", "time",
            "coproc", "!", "find . -exec", "trap", "source", ".", "then", "do", "{", "env -S",
            "env -iS", "env --split-string", "timeout --signal KILL 5", "xargs --max-args 1",
            "env a-b=1", "timeout -k 1 5", "find . -execdir", "nice --adjustment 3",
            "stdbuf -o0", "setsid", "xargs -I{}", "env -u X", "exec -a x", "command -p",
            "eval --", "bash -o pipefail -c", "busybox"]
ASSIGN_VALUES = ["b", "", "'x y'", "(x y)", "$(x)", "rm", "/x", "/bin/rm"]


@dataclass
class Grammar:
    """A random command-line maker biased to bash's tricky syntax."""

    rng: random.Random
    benign: float = 0.0  # how often a program is one the allow rules name
    depth: int = 0
    heredocs: list[tuple[str, str]] = field(default_factory=list)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, items: list[str]) -> str:
        return self.rng.choice(items)

    # words
    def quoted(self, text: str) -> str:  # noqa: C901 - one switch
        """``text`` written in one of bash's quoting styles (some of them wrong on purpose)."""
        style = self.rng.randrange(14)
        if style <= 4 or not text:
            out = text
        elif style == 5:
            out = "'" + text.replace("'", "'\\''") + "'"
        elif style == 6:
            out = '"' + re.sub(r'([$`"\\])', r"\\\1", text) + '"'
        elif style == 7:
            out = "$'" + "".join(f"\\x{ord(c):02x}" if self.chance(0.4) and ord(c) < 256
                                 else c for c in text.replace("'", "\\'")) + "'"
        elif style == 8:
            out = '$"' + text.replace('"', '\\"') + '"'
        elif style == 9:
            out = "".join("\\" + c if self.chance(0.5) else c for c in text)
        elif style == 10:  # split into pieces quoted each its own way
            cut = self.rng.randrange(len(text) + 1)
            out = self.quoted(text[:cut]) + self.quoted(text[cut:]) if self.depth < 3 else text
        elif style == 11:
            at = self.rng.randrange(len(text) + 1)
            out = text[:at] + "\\\n" + text[at:]
        elif style == 12:
            at = self.rng.randrange(len(text) + 1)
            out = text[:at] + self.pick(BLANKISH) + text[at:]
        else:
            at = self.rng.randrange(len(text) + 1)
            out = text[:at] + self.pick(["''", '""', "\\", "$", "{,}", "[", "]", "*"]) + text[at:]
        return out

    def expansion(self) -> str:
        self.depth += 1
        try:
            kind = self.rng.randrange(12)
            if kind == 0:
                return "$(" + self.list_() + ")"
            if kind == 1:
                return "`" + self.list_().replace("`", "\\`") + "`"
            if kind == 2:
                return "$((" + self.pick(["1+2", "x<<2", "$(" + self.simple() + ")", "a[1]",
                                          self.simple() + ") ", "'1'", "(1)+(2)"]) + "))"
            if kind == 3:
                return self.pick(["<(", ">("]) + self.list_() + ")"
            if kind == 4:
                return "${X:-" + self.pick(["`" + self.simple() + "`", "'}'", "\"}\"",
                                            "$(" + self.simple() + ")", self.word(),
                                            "'}'$(" + self.simple() + ")'{'"]) + "}"
            if kind == 5:
                return "\"$(" + self.list_() + ")\""
            return self.pick(["$X", "${X}", "$1", "~-", "~+", "~+/x", "$@", "$*", "$#", "$$", "$[1+1]", "${#X}",
                              "~", "~root", "$HOME", "\"$X\"", "${X#*}", "$_"])
        finally:
            self.depth -= 1

    def word(self, text: str | None = None) -> str:
        if text is None:
            if self.depth < 3 and self.chance(0.12):
                return self.expansion()
            text = self.pick(ARGS)
        return self.quoted(text)

    def program(self) -> str:
        name = self.pick(["ls", "git status"] if self.chance(self.benign) else PROGRAMS)
        if self.chance(0.05):
            name = self.pick(["/bin/", "./", "~/", "/usr/bin/", "~-/", "~+/"]) + name
        return " ".join(self.quoted(w) if self.chance(0.5) else w for w in name.split(" "))

    def redirection(self) -> str:
        op = self.pick([">", ">>", "2>", "&>", "<", "<>", ">|", "2>&1", ">&2", "&>>", "{fd}>",
                        "<<<", "0<", "3<&-", ">&", "1>"])
        if op in ("2>&1", ">&2", "3<&-"):
            return op
        target = self.pick(["/dev/null", "out", "/dev/null", "$X", "'/dev/null'", "x y",
                            "$(x)", "/dev/nul[l]"])
        return op + self.pick(["", " "]) + target

    def simple(self) -> str:
        words: list[str] = []
        if self.chance(0.05):
            words.append(self.redirection())  # before the command: a keyword is a program
        if self.chance(0.1 * (1 - self.benign)):
            words.append(f"{self.pick(['A', 'PATH', 'B', 'OLDPWD'])}{self.pick(['=', '+='])}"
                         f"{self.pick(ASSIGN_VALUES)}")
        if self.chance(0.15 * (1 - self.benign)):
            words.append(self.pick(WRAPPERS))
        words.append(self.program())
        for _ in range(self.rng.randrange(4)):
            words.append(self.word())
        if self.chance(0.15):
            words.append(self.redirection())
        if self.chance(0.07):
            delim = self.pick(["EOF", "E", "'EOF'", '"EOF"', "E\\OF", "EO\\\nF", "$'EOF'",
                               "E''OF", '$"EOF"', "${X}", "EOF;"])
            strip = self.chance(0.3)
            words.append(("<<-" if strip else "<<") + self.pick(["", " "]) + delim)
            self.heredocs.append((delim, "\t" if strip else ""))
        if self.chance(0.05):
            words.append("#" + self.word())
        sep = self.pick([" ", " ", " ", "\t", "  "])
        return sep.join(words)

    def body(self) -> str:
        """Here-document bodies owed after a newline."""
        out = []
        for delim, tab in self.heredocs:
            plain = re.sub(r"[\\'\"]|\n", "", delim)
            lines = [self.pick(["$(" + self.simple() + ")", self.simple(), "x", "`rm y`",
                                "EO\\", "EOF ", plain + "\\"]) for _ in range(2)]
            end = self.pick([plain, plain, tab + plain, "EO\\\nF", plain + " ", "EOF"])
            out.append("\n".join([*lines, end]))
        self.heredocs = []
        return "\n".join(out)

    def compound(self) -> str:  # noqa: C901 - one switch
        self.depth += 1
        try:
            kind = self.rng.randrange(22)
            if kind in (5, 7, 9, 11, 12, 13) and self.chance(self.benign):
                kind = 21  # a simple command: most of a benign line is one the rules allow
            lst = self.list_
            if kind == 0:
                return "( " + lst() + " )"
            if kind == 1:
                return "{ " + lst() + "; }"
            if kind == 2:
                return f"if {lst()}; then {lst()}; " + (f"else {lst()}; " if self.chance(.5)
                                                        else "") + "fi"
            if kind == 3:
                return f"for v in {self.word()} {self.word()}; do {lst()}; done"
            if kind == 4:
                return f"{self.pick(['while', 'until'])} {lst()}; do {lst()}; break; done"
            if kind == 5:
                pat = self.pick(["x", "(x)", "ls", "*", "a|b"])
                return f"case {self.word()} in {pat}) {lst()};; *) {lst()};; esac"
            if kind == 6:
                opener = self.pick(["f() { ", "function f { ", "ls() { ", "f() ( "])
                return opener + lst() + ("; )" if opener.endswith("( ") else "; }") + "; f"
            if kind == 7:
                return "[[ " + self.pick([self.word(), "-n " + self.word(), "x < y",
                                          "x =~ (a|b)", "$(" + self.simple() + ")"]) + " ]]"
            if kind == 8:
                return "((" + self.pick(["x<<2", "x = $(" + self.simple() + ")", "1",
                                         "ls<<EOF", "a[$(" + self.simple() + ")]",
                                         self.simple() + ") ", "x<<2 + ')' ", "x"]) + "))"
            if kind == 9:
                return self.pick(["alias ls=rm", "alias x='rm -f'", "unalias ls",
                                  "shopt -s expand_aliases", "hash -p /bin/rm ls",
                                  "enable -n ls", "set -k", "set -f"])
            if kind == 10:
                return "coproc " + self.pick(["", "ls ", "NAME "]) + "{ " + lst() + "; }"
            if kind == 11:
                return "A=(" + self.word() + " " + self.word() + ") " + self.simple()
            if kind == 12:
                return "time " + self.pick([self.simple(), "{ " + lst() + "; }", "-p ! " + lst()])
            if kind == 13:
                return "select v in a; do " + lst() + "; break; done"
            return self.simple()
        finally:
            self.depth -= 1

    def list_(self) -> str:
        items = [self.compound() if self.depth < 3 else self.simple()]
        for _ in range(self.rng.randrange(3) if self.depth < 3 else 0):
            sep = self.pick([" ; ", ";", " && ", " || ", " | ", " |& ", " & ", "\n", "&&",
                             "|"])
            if sep == "\n" and self.heredocs:
                sep = "\n" + self.body() + "\n"
            items.append(sep)
            items.append(self.compound())
        return "".join(items)

    def line(self) -> str:
        self.benign = self.rng.choice([0.0, 0.8, 0.95, 1.0])
        self.depth = 0
        self.heredocs = []
        text = self.list_()
        if self.heredocs:
            text += "\n" + self.body()
        if self.chance(0.3):
            text = self.mutated(self.pick([text, *SEEDS]))
        return text.replace("\0", "")


    def mutated(self, text: str) -> str:
        """``text`` with a few pieces of bash syntax put in, or characters cut out, anywhere."""
        for _ in range(self.rng.randint(1, 4)):
            at = self.rng.randrange(len(text) + 1)
            if self.chance(0.25) and text:
                text = text[:at] + text[at + self.rng.randint(1, 3):]
            else:
                text = text[:at] + self.pick(PIECES) + text[at:]
        return text


SEEDS = ["ls -la", "git status", "ls; rm -rf v", "((x<<2))\nrm v", "cat <<EOF\nrm v\nEOF\nls",
         "ls $(ls) `ls` <(ls)", "ls ${X:-a} \"$(ls)\"", "coproc ls { ls; }", "f() { rm v; }",
         "ls <<<x && git status || ls", "case x in x) ls;; esac", "for v in a; do ls; done",
         "ls # rm v", "ls 'a b' \"c d\" $'e' $\"f\"", "A=b ls", "env -S'ls x'", "ls\\\nx"]
PIECES = ["\n", ";", "&", "|", "|&", "&&", "||", "(", ")", "{ ", " }", "'", '"', "`", "$(", "$((",
          "))", "${", "}", "<<", "<<-", "<<<", "<(", ">(", "#", "\\", "\\\n", " ", "\t", "\r",
          "EOF", "rm", "ls", " rm v", "x", "!", "then", "do", "case", "in", "esac", ";;", "=", "+=",
          "~", "*", "?", "[", "]", ",", "{a,b}", "$'", '$"', "$X", "2>", ">/dev/null", "coproc ",
          "time ", "\xa0", "\u2028", "\x0b", "=(", "function ", "() ", "${X:-", "'}'", "$[",
          "\\'", "\\\"", "\\$", "[[ ", " ]]", "let ", "(( ", "declare -a A=(", "hash -p ",
          "{d}>", "a[", "]=", "$[1<<2]", "a[1<<2]=x ", "<<E", "\nE\n", "$((", ") )"]


# -- the comparison ---------------------------------------------------------------------------
ALLOW = PermissionRules(allow=("shell(ls*)", "shell(git status*)"))
DENY = PermissionRules(deny=("shell(rm *)",))
BOTH = PermissionRules(allow=ALLOW.allow, deny=DENY.deny)
_WORKDIR = Path("/nonexistent")


def _shown(value: str) -> str:
    if value and all(c.isprintable() and not c.isspace() and c not in "'\"\\" for c in value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def covered(rules: PermissionRules, argv: tuple[str, ...]) -> bool:
    """True when an allow rule covers the program bash ran with these arguments."""
    form = " ".join(_shown(a) for a in argv)
    return bool(matching_rules(rules.allow, "shell", (form,)))


_VALUED = {"sudo": "ugpChDrtUTR", "env": "uCS", "nice": "n", "timeout": "sk", "xargs": "adEILnPs",
           "doas": "uC", "stdbuf": "ioe", "time": "fo", "flock": "w", "watch": "nd"}
_COUNTED = {"timeout": 1, "flock": 1}  # positional words before the command


def _wrapped(name: str, args: tuple[str, ...]) -> tuple[str, ...]:
    """The command a wrapper program runs, roughly (an oracle of its own, not the matcher's)."""
    if name == "find":
        at = [i for i, a in enumerate(args) if a in ("-exec", "-execdir", "-ok", "-okdir")]
        return args[at[0] + 1:] if at else ()
    i, skip = 0, _COUNTED.get(name, 0)
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if name == "env" and re.match(r"[A-Za-z_]\w*=", a) or a == "-":
            i += 1
        elif a.startswith("-") and len(a) > 1:
            i += 2 if len(a) == 2 and a[1] in _VALUED.get(name, "") else 1
        else:
            break
    return args[i + skip:]


_WRAPPER_PROGRAMS = {"env", "sudo", "command", "exec", "xargs", "nohup", "timeout", "nice",
                     "time", "find", "doas", "stdbuf", "setsid", "flock", "watch", "builtin"}


def runs_rm(argvs: Iterable[tuple[str, ...]], bash: Bash, depth: int = 0) -> bool:
    """True when bash runs ``rm``, directly or (roughly) through a wrapper or ``sh -c``."""
    todo = list(argvs)
    while todo:
        argv = todo.pop()
        name = argv[0].rsplit("/", 1)[-1] if argv else ""
        if name == "rm":
            return True
        if name in _WRAPPER_PROGRAMS and depth < 4:
            real = bash.wrappers.run(argv)
            if real is None:
                todo.append(_wrapped(name, argv[1:]))
            elif runs_rm(real, bash, depth + 1):
                return True
        elif name == "eval" and depth < 2:
            todo.extend(bash.run(" ".join(argv[1:])).argvs)
        elif name == "trap" and depth < 2:  # trap ACTION SIGNAL…: one word alone is a signal
            action = [a for a in argv[1:] if a != "--"]
            todo.extend(bash.run(action[0]).argvs if len(action) > 1 else ())
        elif name in SHELLS and depth < 2 and "-c" in argv[1:]:
            inner = argv[argv.index("-c") + 1:argv.index("-c") + 2]
            if inner and runs_rm(bash.run(inner[0]).argvs, bash, depth + 1):
                return True
    return False


@dataclass(frozen=True, slots=True)
class Divergence:
    """A line on which the rules let through what bash runs."""

    kind: str  # "allow" (allowed, bash runs something else) or "deny" (rm not caught)
    line: str
    ran: tuple[tuple[str, ...], ...]


def check(line: str, bash: Bash, ran: Ran | None = None) -> list[Divergence]:
    """The divergences of the rules from bash on ``line`` (``[]`` when they agree)."""
    ran = ran or bash.run(line)
    out: list[Divergence] = []
    args = {"command": line}
    for rules in (ALLOW, BOTH):
        if match_rules(rules, "shell", args, _WORKDIR).kind == "allow" and not all(
                covered(rules, a) for a in ran.argvs):
            out.append(Divergence("allow", line, ran.argvs))
            break
    for rules in (DENY, BOTH):
        if match_rules(rules, "shell", args, _WORKDIR).kind not in ("deny", "ask") and runs_rm(
                ran.argvs, bash):
            out.append(Divergence("deny", line, ran.argvs))
            break
    return out


def minimise(line: str, still: Callable[[str], bool]) -> str:
    """A shorter line on which ``still`` holds (delta debugging over characters)."""
    chunk = max(1, len(line) // 2)
    while chunk >= 1:
        i, changed = 0, False
        while i < len(line):
            shorter = line[:i] + line[i + chunk:]
            if shorter != line and still(shorter):
                line, changed = shorter, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return line


def fuzz(cases: int, seed: int, bash: Bash) -> tuple[list[Divergence], dict[str, int]]:
    """Run ``cases`` generated lines; the divergences found and counts of what happened."""
    rng = random.Random(seed)
    found: list[Divergence] = []
    stats = {"cases": 0, "allowed": 0, "run_by_bash": 0, "bash_ran_something": 0, "timed_out": 0, "blind": 0}
    for _ in range(cases):
        line = Grammar(rng).line()
        stats["cases"] += 1
        args = {"command": line}
        verdicts = [match_rules(r, "shell", args, _WORKDIR).kind for r in (ALLOW, BOTH, DENY)]
        stats["allowed"] += verdicts[0] == "allow"
        if "allow" not in verdicts and None not in verdicts:
            continue  # denied or asked under every rule set: nothing slips through
        ran = bash.run(line)
        stats["run_by_bash"] += 1
        stats["bash_ran_something"] += bool(ran.argvs)
        stats["timed_out"] += ran.timed_out
        stats["blind"] += ran.blind
        found += check(line, bash, ran)
    return found, stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-minimise", action="store_true")
    opts = parser.parse_args(argv)
    bash = Bash()
    try:
        started = time.monotonic()
        found, stats = fuzz(opts.cases, opts.seed, bash)
        print(f"{stats} in {time.monotonic() - started:.1f} s; {len(found)} divergences")
        seen: set[tuple[str, str]] = set()
        for d in found:
            small = d.line if opts.no_minimise else minimise(
                d.line, lambda s, k=d.kind: any(x.kind == k for x in check(s, bash)))
            if (d.kind, small) in seen:
                continue
            seen.add((d.kind, small))
            print(f"{d.kind}: {small!r}  bash ran {bash.run(small).argvs!r}")
    finally:
        bash.close()
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
