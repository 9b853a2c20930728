"""A shell allow rule does not run a line reading a secret through a glob form bash knows.

fresh25c H1/H2/H3/H9/M1: under ``shell(cat*)``, ``cat .[^a]nv`` (bash's ``[^…]``),
``cat .[[:alpha:]]nv`` (a POSIX class), ``bash -O dotglob -c 'cat *'``, ``export
GLOBIGNORE=:; cat *``, ``cat {~+/..,x}/notes.json``, ``dd if=~+/../notes.json``,
``cat /proc/self/cwd/../x`` and ``cat notes2`` (a hard link to ``~/.ssh/id_rsa``) ran unasked
and the model got the secret; ``cat .[!a]nv`` asked. Now each asks; common lines still run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules


@pytest.fixture
def work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "sub").mkdir()
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text("[core]\n")
    (work / ".env").write_text("API_TOKEN=x\n")
    (work / "sub" / "id_rsa").write_text("KEY\n")
    (work / "src" / "a.py").write_text("print(1)\n")
    (work / "b.py").write_text("print(2)\n")
    (work / "notes.txt").write_text("notes\n")
    (tmp_path / "notes.json").write_text("{}\n")
    return work


def _action(work: Path, command: str, *rules: str) -> str:
    allow = rules or ("shell(cat*)",)
    return shell_verdict(PermissionRules(allow=allow), command, "smart_approve",
                         working_dir=work).action


@pytest.mark.parametrize("command", [
    "cat .[^a]nv", "cat .[^x]it/config", "cat sub/[^x]d_rsa", "cat .[[:alpha:]]nv",
    "cat .[[:lower:]]nv", "cat .[[=e=]]nv", "cat .[[.e.]]nv", "cat .[![:upper:]]nv",
    "cat .[!a]nv", "cat sub/[[:alpha:]]*",
])
def test_a_bracket_form_bash_knows_asks_when_it_matches_a_sensitive_file(
        work: Path, command: str) -> None:
    assert _action(work, command) == "ask"


@pytest.mark.parametrize(("command", "rules"), [
    ("bash -O dotglob -c 'cat *'", ("shell(bash*)",)),
    ("bash -O globstar -c 'cat **'", ("shell(bash*)",)),
    ("bash -O nocaseglob -c 'cat .EN[V]'", ("shell(bash*)",)),
    ("bash -O extglob -c 'cat .@(env)'", ("shell(bash*)",)),
    ("shopt -s dotglob; cat *", ("shell(shopt*)", "shell(cat*)")),
    ("export GLOBIGNORE=:; cat *", ("shell(export*)", "shell(cat*)")),
    ("GLOBIGNORE=x; cat *", ("shell(GLOBIGNORE*)", "shell(cat*)")),
    ("BASHOPTS=dotglob bash -c 'cat *'", ("shell(*)",)),
])
def test_a_line_setting_glob_options_asks_about_its_globs(
        work: Path, command: str, rules: tuple[str, ...]) -> None:
    assert _action(work, command, *rules) == "ask"


@pytest.mark.parametrize(("command", "rules"), [
    ("cat {~+/..,x}/notes.json", ("shell(cat*)",)),
    ("cat {~0/..,x}/notes.json", ("shell(cat*)",)),
    ("cat {~-,x}/y", ("shell(cat*)",)),
    ("cat {~+1,x}/y", ("shell(cat*)",)),
    ("dd if=~+/../notes.json", ("shell(dd*)",)),
    ("dd if=~-/notes.json", ("shell(dd*)",)),
])
def test_a_tilde_bash_expands_in_braces_or_after_equals_is_judged(
        work: Path, command: str, rules: tuple[str, ...]) -> None:
    assert _action(work, command, *rules) == "ask"


@pytest.mark.parametrize("command", [
    "cat /proc/self/cwd/notes.txt", "cat /proc/self/cwd/../notes.json",
    "cat /proc/thread-self/cwd/x", "cat /proc/1/cwd/x", "cat /proc/self/root/etc/hostname",
    "cat /dev/fd/3", "cat /proc/self/fd/3", "cat /proc/*/cwd/x",
])
def test_a_proc_path_naming_the_shells_own_dirs_asks(work: Path, command: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work / "src")  # resumed from a subdir: goosectx's cwd is not the shell's
    assert _action(work, command) == "ask"


def test_a_hard_linked_project_file_asks_as_a_view_of_it_does(work: Path) -> None:
    os.link(work / "notes.txt", work / "notes2")
    assert _action(work, "cat notes2") == "ask"
    assert _action(work, "cat note*") == "ask"
    assert _action(work, "cat b.py") == "run"


@pytest.mark.parametrize(("command", "rules"), [
    ("ls", ("shell(ls*)",)), ("cat src/a.py", ("shell(cat*)",)), ("cat *.py", ("shell(cat*)",)),
    ("git status", ("shell(git status*)",)), ("npm test", ("shell(npm test*)",)),
    ("ls [a-z]*", ("shell(ls*)",)), ("cat [^.]*.py", ("shell(cat*)",)),
    ("cat [[:alpha:]].py", ("shell(cat*)",)), ("cat src/[!.]*", ("shell(cat*)",)),
    ("cat {~+,src}/a.py", ("shell(cat*)",)), ("dd if=~+/b.py", ("shell(dd*)",)),
    ("cat /dev/null b.py", ("shell(cat*)",)), ("bash -c 'cat *.py'", ("shell(bash*)", "shell(cat*)")),
])
def test_common_lines_still_run_unasked(work: Path, command: str,
                                        rules: tuple[str, ...]) -> None:
    assert _action(work, command, *rules) == "run"


def test_a_link_to_the_shells_own_dir_asks(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work / "src")
    (work / "here").symlink_to("/proc/self/cwd")
    (work / "there").symlink_to("here")
    assert _action(work, "cat here/../notes.json") == "ask"
    assert _action(work, "cat there/notes.txt") == "ask"
    assert _action(work, "cd /proc/self/cwd && cat ../notes.json", "shell(cd*)",
                   "shell(cat*)") == "ask"
    (work / "a.py").symlink_to("src/a.py")  # a link inside the project still runs
    assert _action(work, "cat a.py") == "run"


@pytest.mark.parametrize(("command", "expected"), [
    ("bash -ic 'cat *'", "ask"), ("bash -l -c 'cat *'", "ask"), ("bash --login -c 'cat *'", "ask"),
    ("bash -c 'ls -l *'", "run"), ("bash -e -c 'grep -i x *'", "run"),
])
def test_a_bash_reading_the_users_bashrc_asks_about_its_globs(work: Path, command: str,
                                                               expected: str) -> None:
    assert _action(work, command, "shell(bash*)", "shell(cat*)", "shell(ls*)",
                   "shell(grep*)") == expected


@pytest.mark.parametrize(("command", "rules"), [
    ("dd if={.env,x}", ("shell(dd*)",)), ("dd {if=.env,x}", ("shell(dd*)",)),
    ("dd if={~+/..,x}/notes.json", ("shell(dd*)",)), ("curl -d @{.env,x} x", ("shell(curl -d*)",)),
])
def test_a_brace_in_a_name_equals_word_is_judged_by_each_value(
        work: Path, command: str, rules: tuple[str, ...]) -> None:
    assert _action(work, command, *rules) == "ask"


def test_a_brace_of_project_files_after_equals_still_runs(work: Path) -> None:
    assert _action(work, "dd if={b,notes}.py", "shell(dd*)") == "run"


def test_an_equivalence_class_or_collating_symbol_may_match_anything(work: Path) -> None:
    """bash 5.2 matches ``[[=e=]]`` oddly (as nothing at all): not modelled, so asked about."""
    verdict = shell_verdict(PermissionRules(allow=("shell(cat*)",)), "cat [[=x=]]*.py",
                            "smart_approve", working_dir=work)
    assert verdict.action == "ask"
    assert "[[=e=]] or [[.e.]], not checked here" in (verdict.read_why or "")
