"""Common, harmless commands run under the allow rules that name them; what reads a secret still asks.

A fresh-eyes tester found the path checks asking about ``grep -rn TODO . --include='*.py'``,
``find . -name .env``, ``ls -la .venv/bin/python`` and ``wc -l $(find . -name '*.py')`` in a
project holding ``.env`` (each makes users turn the checks off), and a line with a part no
allow rule covers not naming that part (docs/architecture.md §4, permission rules). Beside
each false positive fixed here: the commands it must not let through.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.approval import ApprovalVerdict
from goosectx.permissions import PermissionRules

RULES = ("shell(ls*)", "shell(cat*)", "shell(grep*)", "shell(find*)", "shell(wc*)",
         "shell(stat*)", "shell(head*)", "shell(xargs*)", "shell(cd*)", "shell(sort*)")
"""The tester's allow rules: the programs, not the files they read."""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A small project: sources, a ``.env``, a ``.git`` and a venv whose python links out."""
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / "src" / "main.py").write_text("# TODO fix\n")
    (work / "src" / "util.py").write_text("def util():\n    return 1\n")
    (work / ".env").write_text("SECRET_KEY=supersecret123\n")
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text("[core]\n")
    outside = tmp_path / "pyenv" / "bin"
    outside.mkdir(parents=True)
    (outside / "python3.11").write_text("#!/bin/sh\n")
    (outside / "lib").mkdir()
    (work / ".venv" / "bin").mkdir(parents=True)
    os.symlink(outside / "python3.11", work / ".venv" / "bin" / "python3")
    os.symlink("python3", work / ".venv" / "bin" / "python")
    os.symlink(outside / "lib", work / ".venv" / "lib")  # a dir link leading out
    return work


def _verdict(work: Path, command: str, rules: tuple[str, ...] = RULES) -> ApprovalVerdict:
    return shell_verdict(PermissionRules(allow=rules), command, "smart_approve",
                         working_dir=work)


def _runs(work: Path, command: str) -> None:
    verdict = _verdict(work, command)
    assert verdict.action == "run", (command, verdict.reason)


def _asks(work: Path, command: str, said: str) -> None:
    verdict = _verdict(work, command, ("shell(*)",))  # every program allowed: the paths ask
    assert verdict.action == "ask", (command, verdict.reason)
    assert said in verdict.reason, (command, verdict.reason)


# F1: grep's --include / --exclude / --exclude-dir decide which files below a dir it reads.

@pytest.mark.parametrize("command", [
    "grep -rn TODO . --include='*.py'",
    "grep -rn --include='*.py' TODO .",
    "grep -rn --include '*.py' TODO",
    "grep -rn TODO . --incl='*.py'",  # a prefix getopt takes
    "grep -rn TODO . --exclude=.env --exclude-dir=.git --exclude-dir=.venv",
    "grep -rn TODO . --exclude-dir=.git --exclude='.env*' --exclude-dir=.venv",
    "grep -rn TODO --include=*.py .",  # an unquoted glob no file matches stays as written
    "grep -rn -e TODO src", "grep -rn --regexp=TODO -e x src", "grep -rnf src/main.py src",
])
def test_grep_filters_keep_a_recursive_grep_off_the_secrets(work: Path, command: str) -> None:
    _runs(work, command)


@pytest.mark.parametrize(("command", "said"), [
    ("grep -rn KEY . --include='.env'", "(holding .env) is a sensitive file"),
    ("grep -rn KEY . --include='*'", "(holding .env)"),
    ("grep -rn KEY . --include='.en?'", "(holding .env)"),
    ("grep -rn KEY . --exclude=.env", "(holding .git/config)"),  # .git is read
    ("grep -rn KEY . --exclude-dir=.git", "(holding .env)"),
    # the first of --include/--exclude an --exclude: a file neither matches is read (GNU grep)
    ("grep -rn KEY . --exclude=foo --include='*.py'", "(holding .env)"),
    ("grep -rn KEY . --include='*.py' --include='.env'", "(holding .env)"),
    # the last match wins: .env is excluded, then included again
    ("grep -rn KEY . --exclude='.env' --include='.e*'", "(holding .env)"),
    ("grep -rn -e --include=*.py KEY .", "(holding .env)"),  # -e's value: the pattern
    ("grep -rn --regexp --include=*.py KEY .", "(holding .env)"),
    ("grep -rn -f --include=x KEY .", "(holding .env)"),
    ("grep -rn KEY . -- --include='*.py'", "(holding .env)"),  # after --: a file
    ("grep -rn KEY . --include='[.]env'", "(holding .env)"),  # [ and \\: not worked out
    ("grep -rn KEY . --exclude-from=x --include='*.py'", "(holding .env)"),
    ("grep -rn KEY . --exclude-d=x --exclude=y --include='*.py'", "(holding .env)"),
    # POSIXLY_CORRECT stops option parsing at the first operand: --include= is a file then
    ("POSIXLY_CORRECT=1 grep -rn KEY . --include='*.py'", "(holding .env)"),
    ("export POSIXLY_CORRECT=1; grep -rn KEY . --include='*.py'", "(holding .env)"),
    ("env POSIXLY_CORRECT=1 grep -rn KEY . --include='*.py'", "(holding .env)"),
    ("grep -rn KEY .env --include='*.py'", ".env is a sensitive file"),  # named: as ever
    ("grep -rn KEY . --exclude=.env --exclude-dir=.gi", "(holding .git/config)"),
    ("grep -rn KEY --exclude .env", "(holding .git/config)"),
    ("grep -rn -e --exclude .env", "sensitive file"),  # a file: -e's value before
    ("grep -r KEY --exclude foo", "(holding .env)"),  # foo is --exclude's: grep reads .
    ("grep -r --context 3 KEY", "(holding .env)"),
    ("grep -r -e KEY", "(holding .env)"),  # no operand: the working dir
    ("grep -r -f src/main.py", "(holding .env)"),
])
def test_grep_filters_that_still_read_a_secret_ask(work: Path, command: str,
                                                   said: str) -> None:
    _asks(work, command, said)


@pytest.mark.parametrize("command", ["grep -R KEY . --exclude=.env --exclude-dir=.git",
                                     "grep -nR KEY . --include='*.py'",
                                     "egrep --dereference-recursive KEY .venv", "rg -L KEY",
                                     "rg --follow KEY ."])
def test_a_read_following_links_below_a_dir_asks_about_one_leading_out(
        work: Path, command: str) -> None:
    """``grep -R`` reads through ``.venv/lib`` → a dir outside (``grep -r`` skips links)."""
    _asks(work, command, "→")
    _runs(work, "grep -rn TODO . --include='*.py'")


def test_grep_filters_yield_to_posixly_correct_in_the_environment(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POSIXLY_CORRECT", "1")
    _asks(work, "grep -rn KEY . --include='*.py'", "(holding .env)")
    _runs(work, "grep -rn --include='*.py' KEY .")  # before the first operand: an option


def test_an_included_secret_deep_in_an_excluded_looking_dir_asks(work: Path) -> None:
    (work / "src" / "keys").mkdir()
    (work / "src" / "keys" / "server.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    _asks(work, "grep -rn KEY src --include='*.pem'", "(holding src/keys/server.pem)")
    _runs(work, "grep -rn KEY src --include='*.py'")
    _runs(work, "grep -rn KEY src --exclude-dir=keys")
    (work / "src" / ".ssh").mkdir()
    (work / "src" / ".ssh" / "keys.py").write_text("")  # a name included, in a secret dir
    _asks(work, "grep -rn KEY . --include='*.py'", "(holding src/.ssh/keys.py)")


# F2: find's -name/-path/-regex operands are patterns; printing a name reads nothing.

@pytest.mark.parametrize("command", [
    "find . -name .env", "find . -iname '.ENV'", "find . -path './.git/config'",
    "find . -name .env -type f -print", "find src .venv -name id_rsa",
    "find . -regex '.*/\\.env'", "find . -name '*.pem' -o -name .env",
    "find . -newer .env",  # its times are compared, its bytes never read (fp27)
])
def test_find_printing_names_runs(work: Path, command: str) -> None:
    _runs(work, command)


@pytest.mark.parametrize(("command", "said"), [
    ("find . -name .env -exec cat {} \\;", "sensitive file"),
    ("find . -name .env -delete", "sensitive file"),
    ("find . -name .env | xargs cat", "(holding .env)"),
    ("find . -name .env -print0 | xargs -0 head", "(holding .env)"),
    ("find .env", ".env is a sensitive file"),  # a starting point: as named
    ("find . -name x -fprint .env", "find -fprint writes its output to the file named"),
    ("cat $(find . -name .env)", "(holding .env)"),
])
def test_find_reading_or_feeding_what_it_finds_asks(work: Path, command: str,
                                                   said: str) -> None:
    _asks(work, command, said)


# F3: ls -l / ls -d / stat look at a link itself, not at where it leads.

@pytest.mark.parametrize("command", [
    "ls -la .venv/bin/python", "ls -l .venv/bin/python3", "ls -ld .venv/lib",
    "ls .venv/bin/python", "stat .venv/bin/python", "stat -c %N .venv/bin/python",
    "ls -l .venv/bin/*", "ls -d .venv/lib", "ls -l --all .venv/lib",
])
def test_looking_at_a_link_itself_runs(work: Path, command: str) -> None:
    _runs(work, command)


@pytest.mark.parametrize(("command", "said"), [
    ("ls .venv/lib", "is outside the project"),  # ls follows a dir link without -l/-d
    ("ls -l .venv/lib/", "is outside the project"),  # a trailing slash follows it
    ("ls -lL .venv/bin/python", "is outside the project"),
    ("ls -l -H .venv/lib", "is outside the project"),
    ("ls -l --dereference .venv/bin/python", "is outside the project"),
    ("ls -l --deref .venv/bin/python", "is outside the project"),
    ("ls -l --format=long .venv/lib", "is outside the project"),  # an option not read
    ("stat -L .venv/bin/python", "is outside the project"),
    ("stat --dereference .venv/bin/python", "is outside the project"),
    ("stat -f .venv/bin/python", "is outside the project"),
    ("cat .venv/bin/python", "is outside the project"),
    ("ls -l .venv/lib/x", "is outside the project"),  # through the link
    ("ls -l ../pyenv", "is outside the project"),
    ("ls -l .venv/bin/../../..", "is outside the project"),
    ("nice ls -l .venv/bin/python", "is outside the project"),  # a wrapper: not read
    ("ls .venv/lib -l", "is outside the project"),  # -l a file under POSIXLY_CORRECT
])
def test_following_a_link_out_still_asks(work: Path, command: str, said: str) -> None:
    _asks(work, command, said)


# F4: $(lister) is judged by the names the lister prints, as `lister | xargs` is.

@pytest.mark.parametrize("command", [
    "wc -l $(find . -name '*.py')", "wc -l $(find src -type f)", "head -5 $(find src)",
    "wc -l \"$(find src -name main.py)\"", "cd src && wc -l $(find . -name '*.py')",
    "wc -l $(find . -name '*.py' | sort)", "wc -l $(find . -name '*.py' | grep -v test)",
])
def test_a_lister_in_a_substitution_is_judged_by_its_names(work: Path, command: str) -> None:
    _runs(work, command)


@pytest.mark.parametrize(("command", "said"), [
    ("wc -l $(find . -type f)", "(holding .env)"),
    ("cat $(find . -name '.e*')", "(holding .env)"),
    ("cat $(ls -a)", "(holding .env)"),
    ("cat $(echo .env)", "sensitive file"),
    ("cat $(echo src/main.py)", "may be outside the project"),
    ("cat $(cat list.txt)", "may be outside the project"),
    ("cat $(find . -name '*.py' | sed s/x/y/)", "may be outside the project"),
    ("cat $(find src) $(echo /etc/hosts)", "may be outside the project"),
    ("cat $(find $(echo /etc) -name hosts)", "may be outside the project"),
    ("cat x$(find src -name '*.py')", "may be outside the project"),
    ("cat $(find src -name '*.py' -exec echo /etc/hosts \\;)", "outside the project"),
    ("cat $(find src -name '*.py' -printf '%f')", "names made from a format"),
    ("cat $(find src -ls)", "may be outside the project"),
    ("find src -printf '%f' | xargs cat", "from its input"),
    ("cat \"$(find $(echo /etc) -name hosts)\"", "may be outside the project"),
    ("cat $(find src -name '*.py') `echo /etc/hosts`", "may be outside the project"),
    ("cat $(find . -name '*.py') > $(echo /etc/x)", "may be outside the project"),
    ("cat $(find .venv -name 'py*')", "is outside the project"),
    ("find .venv -name 'py*' | xargs cat", "is outside the project"),
    ("find -L . -name '*.py' | xargs cat", "(holding .venv/lib →"),  # a dir link it enters
    ("cat $(find -L .venv -name '*.py')", "(holding .venv/lib →"),
    ("IFS=p; cat $(find src -name '*.py')", "may be outside the project"),
    ("cat $(find .venv -name python)", "is outside the project"),  # a link out is found
])
def test_a_substitution_that_may_name_a_secret_asks(work: Path, command: str,
                                                    said: str) -> None:
    _asks(work, command, said)


def test_a_found_name_bash_splits_or_globs_asks(work: Path) -> None:
    (work / "src" / ".e*").write_text("")  # bash globs the name $(…) gives: .env
    _asks(work, "cat $(find src -name '*')", "a name bash splits")
    _runs(work, "find src -name '*'")


# F5: the question names the part no allow rule covers.

def test_the_question_names_the_part_no_rule_covers(work: Path) -> None:
    verdict = _verdict(work, "grep -rn x src | sort", ("shell(grep*)",))
    assert verdict.action == "ask"
    assert verdict.reason == ("smart_approve: sort is covered by no allow rule (shell(grep*) "
                              "covers the rest of the line)")
    assert verdict.read_why == ("sort is covered by no allow rule (shell(grep*) covers the rest "
                                "of the line)")  # the question's "asked because …"
    two = _verdict(work, "cd src && grep -rn x . | sort -u", ("shell(cd*)", "shell(grep*)"))
    assert "sort -u is covered by no allow rule (shell(cd*), shell(grep*) cover" in two.reason
    alone = _verdict(work, "sort x", ("shell(grep*)",))  # no part covered: the line is named
    assert alone.reason == "smart_approve: sort x is covered by no allow rule"
    auto = shell_verdict(PermissionRules(allow=("shell(grep*)",)), "grep -rn x src | sort",
                         "auto", working_dir=work)
    assert auto.action == "run"  # the mode still decides


def test_the_grep_filter_model_never_reads_less_than_gnu_grep(tmp_path: Path) -> None:
    """200 seeded --include/--exclude/--exclude-dir mixes: every file GNU grep reads is one
    the model says it reads (it may say more: ``--exclude-dir=.*`` skips ``.`` itself)."""
    import random
    import shutil
    import subprocess

    from goosectx.grep_filters import grep_kept
    from goosectx.shell_lexer import lex

    grep = shutil.which("grep")
    version = subprocess.run([grep or "grep", "--version"], capture_output=True, text=True,
                             check=False).stdout if grep else ""
    if "GNU grep) 3." not in version:
        pytest.skip("needs GNU grep 3.x")
    for name in ("a.py", "b.txt", ".env", ".env.local", "sub/c.py", "sub/.env", "sub/deep/d.pem",
                 ".git/config", ".hid/x.py", "sub/deep/e.PY"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    globs = ["*.py", ".env", ".env*", "*", "*.PY", "sub", ".*", "deep", "s*", "*.pem", "?.py",
             ".git", "*e*"]
    rng = random.Random(26)
    for _ in range(200):
        filters = [f"--{rng.choice(('include', 'exclude', 'exclude-dir'))}={rng.choice(globs)}"
                   for _ in range(rng.randint(1, 4))]
        command = ["grep", "-rl", "x", ".", *filters]
        read = set(subprocess.run(command, cwd=tmp_path, capture_output=True, text=True,
                                  check=False).stdout.split())
        kept = grep_kept(lex(" ".join(f"'{w}'" for w in command))[0].words[1:], tmp_path, True)
        modelled = set()
        for top, dirs, files in os.walk(tmp_path):
            dirs[:] = [d for d in dirs if kept is None or kept(d, True)]
            modelled |= {"./" + str((Path(top) / f).relative_to(tmp_path)) for f in files
                         if kept is None or kept(f, False)}
        assert read <= modelled, (filters, sorted(read - modelled))
