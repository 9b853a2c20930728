r"""Differential fuzzing of the shell permission rules against real bash.

A grammar biased to bash's tricky syntax (every kind of quote, ``$'…'``, escapes,
backslash-newline, comments, separators, groups, substitutions, here-documents, redirections,
assignments, arithmetic, ``[[ ]]``, ``case``, loops, functions, aliases, wrappers, braces, globs,
Unicode blanks and control characters) makes command lines around a few program names. Real
bash is asked which programs each line runs, and :func:`goosectx.permissions.match_rules`
what it decides; a line the rules ALLOW on which bash runs anything the allow rules do not
cover, or a line on which bash runs ``rm`` that a ``shell(rm *)`` deny rule neither denies nor
asks about, is a bypass.

What bash runs is asked of :mod:`shell_oracle` (see there how, safely).

Run it: ``.venv/bin/python tests/shell_fuzz.py --cases 20000 --seed 1`` (prints the divergences,
minimised); ``tests/test_shell_fuzz.py`` runs 150 fixed-seed lines on every test run and,
with ``GOOSECTX_FUZZ_BASH=1``, a long run.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from shell_oracle import Bash, Ran, runs_rm

from goosectx.permissions import PermissionRules, match_rules, matching_rules
from goosectx.shell_program import SYSTEM_PROGRAM

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
            "eval --", "bash -o pipefail -c", "busybox", "bash -c --", "sh -c -x", "bash -xc",
            "sh -c -", "jobs -x"]
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
                opener = self.pick(["$((", "$(\\\n("])  # bash deletes the \\<newline> first
                return opener + self.pick(["1+2", "x<<2", "$(" + self.simple() + ")", "a[1]",
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
                opener = self.pick(["((", "(\\\n("])  # bash deletes the \\<newline> first
                return opener + self.pick(["x<<2", "x = $(" + self.simple() + ")", "1",
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
         "ls # rm v", "ls 'a b' \"c d\" $'e' $\"f\"", "A=b ls", "env -S'ls x'", "ls\\\nx",
         "(\\\n(1<<2))\nrm v", "echo $(\\\n(1<<2))\nrm v"]
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
    """True when an allow rule covers the program bash ran with these arguments.

    A program in a system dir by its name too (``/bin/ls``: ``shell(ls*)``, as the rules read it).
    """
    form = " ".join(_shown(a) for a in argv)
    named = (form,)
    if argv and SYSTEM_PROGRAM.fullmatch(argv[0]):
        named += (" ".join(_shown(a) for a in (argv[0].rsplit("/", 1)[1], *argv[1:])),)
    return bool(matching_rules(rules.allow, "shell", named))


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
