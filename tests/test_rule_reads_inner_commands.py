"""Under a hand-written allow rule for a program that runs other commands, their reads are judged.

``shell(bash*)`` let ``bash -c 'cat /etc/hosts'`` and ``sh -c 'cat .env'`` run unasked: the
path checks did not read the string ``bash -c`` runs. ``find . -exec cat {} \\;`` read the
project's ``.env`` unasked, and ``ls -a | xargs cat`` any file its input names. Now the string
is read as a line of its own (in the dir its command runs in), ``find -exec`` / ``fd -x`` walk
their dirs as ``grep -r`` does, and ``xargs CMD`` asks: its files come from its input
(docs/architecture.md §4). No rule is offered for these programs; the rules here are the kind a
user writes by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.approval import ApprovalVerdict
from goosectx.permissions import PermissionRules
from goosectx.shell_paths import outside_words


@pytest.fixture
def work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("print(1)\n")
    (work / ".env").write_text("KEY=1\n")
    return work


def _verdict(work: Path, command: str, *rules: str) -> ApprovalVerdict:
    """The verdict under ``rules``, a rule of several comma-joined rules split."""
    allow = tuple(one for rule in rules for one in rule.split(","))
    return shell_verdict(PermissionRules(allow=allow), command, "smart_approve",
                         working_dir=work)


@pytest.mark.parametrize(("command", "rule", "said"), [
    ("bash -c 'cat /etc/hosts'", "shell(bash*),shell(cat*)", "/etc/hosts is outside the project"),
    ("sh -c 'cat .env'", "shell(sh*),shell(cat*)", ".env is a sensitive file"),
    ("bash -c 'cat ~/.ssh/id_rsa'", "shell(bash*),shell(cat*)",
     "~/.ssh/id_rsa is a sensitive file"),
    ("bash -c 'cd /etc && cat shadow'", "shell(bash*),shell(cd*),shell(cat*)",
     "shadow is a sensitive file"),
    ("bash -c \"sh -c 'cat .env'\"", "shell(bash*),shell(sh*),shell(cat*)",
     ".env is a sensitive file"),
    ("nice bash -c 'head ../x'", "shell(nice*),shell(bash*),shell(head*)",
     "../x is outside the project"),
    ("find . -name .env -exec cat {} \\;", "shell(find*),shell(cat*)", "sensitive file"),
    ("find . -type f -exec cat {} +", "shell(find*),shell(cat*)",
     ". (holding .env) is a sensitive file"),
    ("find -L . -execdir grep KEY {} ;", "shell(find*),shell(grep*)", "(holding .env)"),
    ("fd . -x cat", "shell(fd*),shell(cat*)", "(holding .env)"),
])
def test_what_an_allowed_program_runs_is_judged(work: Path, command: str, rule: str,
                                               said: str) -> None:
    verdict = _verdict(work, command, rule)
    assert verdict.action == "ask", (command, verdict.reason)
    assert said in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", [
    "echo a.py | xargs -n1 head", "cat list.txt | xargs cat", "xargs cat < list.txt",
    "echo x | parallel cat",
    "find src | grep -o '/etc/hosts' | xargs cat",  # -o cuts a name: any text
    "find src | sed s/a/b/ | xargs cat",  # sed may write any name
    "bash -c 'cat list.txt; find src' | xargs cat",  # not only find's names
    "find $DIR | xargs cat"])
def test_xargs_running_a_reader_asks(work: Path, command: str) -> None:
    verdict = _verdict(work, command, "shell(*)")
    assert verdict.action == "ask", (command, verdict.reason)
    assert "it takes the files it reads from its input" in verdict.reason


def test_xargs_may_be_given_a_path_outside(work: Path) -> None:
    found = [why for _word, why in outside_words("echo /etc/hosts | xargs cat", work)]
    assert found == ["xargs cat (it takes the files it reads from its input) may be outside "
                     "the project"]


@pytest.mark.parametrize(("command", "rules"), [
    ("bash -c 'cat src/a.py'", ("shell(bash*)", "shell(cat*)")),
    ("bash -c ls", ("shell(bash*)", "shell(ls*)")),
    ("sh -c 'cd src && cat a.py'", ("shell(sh*)", "shell(cd*)", "shell(cat*)")),
    ("find src -name '*.py' -exec wc -l {} +", ("shell(find*)", "shell(wc*)")),
    ("find . -name '*.py'", ("shell(find*)",)),  # names only: no file read
    ("ls | xargs echo", ("shell(ls*)", "shell(xargs*)", "shell(echo*)")),
    ("ls | xargs", ("shell(ls*)", "shell(xargs*)")),
    ("ls", ("shell(ls*)",)), ("cat src/a.py", ("shell(cat*)",)),
    ("git status", ("shell(git status*)",)), ("npm test", ("shell(npm test*)",)),
])
def test_the_safe_ones_still_run(work: Path, command: str, rules: tuple[str, ...]) -> None:
    verdict = _verdict(work, command, *rules)
    assert verdict.action == "run", (command, verdict.reason)


def test_find_exec_below_a_dir_holding_no_sensitive_file_runs(work: Path) -> None:
    assert _verdict(work, "find src -exec cat {} +", "shell(find*),shell(cat*)").action == "run"
    assert _verdict(work, "find . -exec cat {} +", "shell(find*),shell(cat*)").action == "ask"


@pytest.mark.parametrize(("command", "said"), [
    ("export PYTHONSTARTUP=/etc/hosts", "/etc/hosts is outside the project"),
    ("declare -x LD_PRELOAD=../evil.so", "../evil.so is outside the project"),
    ("export INPUTRC=~/other.inputrc", "is outside the project"),
    ("typeset -x LD_LIBRARY_PATH=/opt/other/lib", "/opt/other/lib is outside the project"),
    ("readonly GIT_ASKPASS=/tmp/other/askpass", "/tmp/other/askpass is outside the project"),
])
def test_a_declaration_naming_a_file_outside_asks(work: Path, command: str, said: str) -> None:
    verdict = _verdict(work, command, "shell(export*)", "shell(declare*)", "shell(typeset*)",
                       "shell(readonly*)")
    assert verdict.action == "ask", (command, verdict.reason)
    assert said in verdict.reason


@pytest.mark.parametrize("command", [
    "export NODE_ENV=test", "export FOO", "declare -x A=1 B=src/a.py",
    "export REV=$(git rev-parse HEAD)", "echo /etc/hosts", "test -f /etc/hosts",
    "printf '%s\\n' ../x"])
def test_declarations_and_the_file_free_builtins_still_run(work: Path, command: str) -> None:
    verdict = _verdict(work, command, "shell(export*)", "shell(declare*)", "shell(echo*)",
                       "shell(test*)", "shell(printf*)", "shell(git rev-parse*)")
    assert verdict.action == "run", (command, verdict.reason)


def test_find_exec_over_a_link_leading_outside_asks(work: Path, tmp_path: Path) -> None:
    (tmp_path / "other.txt").write_text("another project's\n")
    (work / "src" / "notes.txt").symlink_to(tmp_path / "other.txt")
    verdict = _verdict(work, "find src -name '*.txt' -exec cat {} +", "shell(find*)",
                       "shell(cat*)")
    assert verdict.action == "ask"
    assert f"src (holding src/notes.txt → {tmp_path / 'other.txt'}) is outside the project" in (
        verdict.reason)
    assert _verdict(work, "find src -name '*.txt'", "shell(find*)").action == "run"


def test_command_strings_nested_past_the_depth_read_ask(work: Path) -> None:
    line = "cat src/a.py"
    for _ in range(6):
        line = "bash -c " + "'" + line.replace("'", "'\\''") + "'"
    verdict = _verdict(work, line, "shell(bash*)", "shell(cat*)")
    assert verdict.action == "ask" and "commands nested too deeply" in verdict.reason
    assert _verdict(work, "bash -c \"bash -c 'cat src/a.py'\"", "shell(bash*)",
                    "shell(cat*)").action == "run"



@pytest.mark.parametrize("command", [
    "find . -type f | xargs wc -l", "find . -name '.e*' | grep -v test | xargs wc -l",
    "git ls-files | xargs wc -l | sort -n | tail -20", "rg --files --hidden src | xargs cat",
    "fd -H -e py | xargs -n1 head", "ls src | nice xargs cat", "ls | parallel cat"])
# rg and fd list no dotfile without --hidden / -H (test_piped_names_hidden)
def test_xargs_fed_by_a_lister_is_judged_by_the_files_below(work: Path, command: str) -> None:
    verdict = _verdict(work, command, "shell(*)")
    assert verdict.action == "ask"  # .env lies below the working dir
    assert "(holding .env) is a sensitive file" in verdict.reason, verdict.reason
    (work / ".env").unlink()
    verdict = _verdict(work, command, "shell(*)")
    assert verdict.action == "run", (command, verdict.reason)


def test_xargs_fed_by_find_over_a_link_leading_outside_asks(work: Path, tmp_path: Path) -> None:
    (tmp_path / "other.txt").write_text("another project's\n")
    (work / "src" / "notes.txt").symlink_to(tmp_path / "other.txt")
    verdict = _verdict(work, "find src -name '*.txt' | xargs cat", "shell(*)")
    assert verdict.action == "ask" and "is outside the project" in verdict.reason
