r"""What real bash runs for a command line, asked safely: the oracle of tests/shell_fuzz.py.

:class:`Bash` answers which programs (with their argv) a line makes bash run; :func:`runs_rm`
whether ``rm`` is among them, through wrappers and ``sh -c`` too. Safely, since the tests run
as root: ``bash --norc --noprofile`` with only
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
the same shim (:class:`Wrappers`); ``bash -c`` / ``eval`` strings go back to bash (where a
shell's ``-c`` string starts is asked of real bash: :meth:`Bash.command_string`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from goosectx.shell_builtins import SHELLS

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

    def command_string(self, args: tuple[str, ...]) -> str | None:
        """The ``-c`` string real bash reads from ``args`` (``-c -- STRING``, ``-xc``, ``-o x``).

        Bash parses its options, then sources ``BASH_ENV`` before it runs the string: that file
        reports ``$BASH_EXECUTION_STRING`` and exits, so nothing else runs (and, should bash not
        read it, ``-r`` with ``PATH=/nonexistent`` lets it run no program; as root, as ``nobody``).
        ``None``: no ``-c``.
        """
        report = os.path.join(self.root, "report-string.sh")
        if not os.path.exists(report):  # between \35 and \36 on stderr (-x traces go there too)
            Path(report).write_text('builtin printf "\\35%s\\36" "${BASH_EXECUTION_STRING-}" '
                                    ">&2\nbuiltin exit 0\n", encoding="utf-8")
            os.chmod(report, 0o644)  # nobody reads it, whatever umask a test left behind
        try:
            done = subprocess.run([BASH, "--norc", "--noprofile", "-r", *args], cwd=self.dir,
                                  env={**_ENV, "BASH_ENV": report}, stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=5, check=False,
                                  **_NOBODY)  # type: ignore[call-overload]
        except subprocess.TimeoutExpired:
            return None
        found = re.search(rb"\x1d(.*?)\x1e", done.stderr, re.S)
        return found[1].decode("utf-8", "surrogateescape") or None if found else None

    def run(self, line: str, timeout_s: float = 2.0) -> Ran:
        """The programs bash runs for ``line`` (``line`` holds no NUL), killed after
        ``timeout_s`` (a generated line may loop; a hand-written check passes more, as a
        loaded machine can take seconds to start bash)."""
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
                out, err = proc.communicate(timeout=timeout_s)
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
        os.chmod(self.shim, 0o755)  # nobody loads it, whatever umask a test left behind
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
                                  capture_output=True, timeout=10, **_NOBODY)  # (a loaded CI)
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


# -- does a line run rm? -----------------------------------------------------------------------
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
                     "time", "find", "doas", "stdbuf", "setsid", "flock", "watch", "builtin",
                     "jobs"}  # jobs -x CMD: bash runs CMD
_DECLARATIONS = {"declare", "typeset", "local", "readonly", "export"}
"""Builtins that evaluate a ``NAME=(…)`` operand as an array assignment when NAME is an array
(modelled as if it always were)."""


def runs_rm(argvs: Iterable[tuple[str, ...]], bash: Bash, depth: int = 0) -> bool:
    """True when bash runs ``rm``, directly or (roughly) through a wrapper or ``sh -c``.

    A shell's ``-c`` string is the one real bash reads (:meth:`Bash.command_string`).
    """
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
        elif name in _DECLARATIONS and depth < 2:  # declare -a a='($(rm v))': bash evaluates it
            values = [a.partition("=")[2] for a in argv[1:] if re.match(r"\w+\+?=\(.*\)$", a, re.S)]
            todo.extend(x for v in values for x in bash.run(f"__fz_a={v}").argvs)
        elif name in SHELLS and depth < 2:
            inner = bash.command_string(argv[1:])
            if inner and runs_rm(bash.run(inner).argvs, bash, depth + 1):
                return True
    return False
