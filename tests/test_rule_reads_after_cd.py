"""Under shell allow rules, a relative path is judged in the dir a ``cd`` before it leads to.

``cd sub && cat ../notes.txt`` asked ("outside the project") though it reads the project's own
``notes.txt``, while the sensitive-file check followed each ``cd`` (and every earlier one, in
a subshell too). Both checks now share one walk of the line (``shell_dirs.command_dirs``,
docs/architecture.md §4): a ``cd`` moves the commands after it only where bash would run them
there, and a ``cd`` to a place not known here makes later relative words "may be" ones.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.approval import ApprovalVerdict
from goosectx.permissions import PermissionRules

CD_CAT = ("shell(cd*)", "shell(cat*)", "shell(ls*)", "shell(echo*)")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "work"
    (work / "sub" / "deeper").mkdir(parents=True)
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text("[remote] url = https://token@x\n")
    (work / "notes.txt").write_text("notes\n")
    (work / "sub" / "a.txt").write_text("a\n")
    (work / ".env").write_text("KEY=1\n")
    (tmp_path / "outside.txt").write_text("not the project's\n")
    monkeypatch.delenv("CDPATH", raising=False)
    monkeypatch.delenv("NOT_SET_HERE", raising=False)
    return work


def _verdict(work: Path, command: str, *rules: str) -> ApprovalVerdict:
    return shell_verdict(PermissionRules(allow=rules or CD_CAT), command, "smart_approve",
                         working_dir=work)


@pytest.mark.parametrize("command", [
    "cd sub && cat ../notes.txt",
    "cd sub/deeper && cat ../../notes.txt ../a.txt",
    "cd sub && cd .. && cat notes.txt",
    "cd ./sub && ls",
    "(cd .git && ls); cat config",  # the subshell's cd moves nothing after it
    "cd sub && echo $(cat ../notes.txt)",  # a substitution runs where its command runs
    "ls", "cat sub/a.txt", "cat notes.txt sub/a.txt",
])
def test_a_read_inside_the_project_runs_under_the_rules(work: Path, command: str) -> None:
    verdict = _verdict(work, command)
    assert verdict.action == "run", (command, verdict.reason)


@pytest.mark.parametrize(("command", "said"), [
    ("cd .. && cat x", ".. is outside the project"),
    ("cd sub && cat ../../outside.txt", "../../outside.txt is outside the project"),
    ("cd sub; cd ..; cd ..; cat outside.txt", "outside"),
    ("(cd sub && cat a.txt); cat ../outside.txt", "../outside.txt is outside the project"),
    ("(cd /tmp && cat x); cat y", "/tmp is outside the project"),
    # the cd may fail: then cat reads from where the line started
    ("cd nothere; cat ../outside.txt", "../outside.txt is outside the project"),
    ("cd sub || cat ../outside.txt", "../outside.txt is outside the project"),
    ("cd sub && cat a.txt || cat ../outside.txt", "../outside.txt is outside the project"),
    ("cd sub && ls; cat ../outside.txt", "../outside.txt is outside the project"),
    # in a pipeline or the background a cd moves nothing after it
    ("cd sub | cat ../outside.txt", "../outside.txt is outside the project"),
    ("cd sub & cat ../outside.txt", "../outside.txt is outside the project"),
])
def test_a_read_outside_after_a_cd_asks(work: Path, command: str, said: str) -> None:
    verdict = _verdict(work, command)
    assert verdict.action == "ask", command
    assert said in verdict.reason and "which the allow rule" in verdict.reason


def test_the_subshell_cd_is_the_one_named_not_the_read_after_it(work: Path) -> None:
    verdict = _verdict(work, "(cd /tmp && cat x); cat y")
    assert "/tmp" in verdict.reason and " y " not in verdict.reason


@pytest.mark.parametrize(("command", "said"), [
    ("cd /etc && cat shadow", "shadow is a sensitive file"),
    ("cd sub; cd ..; cat .env", ".env is a sensitive file"),
    ("cd .git && cat config", "config is a sensitive file"),
    ("cd sub && cat ../.env", "../.env is a sensitive file"),
    ("cd .git && echo $(cat config)", "config is a sensitive file"),
])
def test_a_sensitive_file_after_a_cd_asks(work: Path, command: str, said: str) -> None:
    verdict = _verdict(work, command)
    assert verdict.action == "ask", command
    assert said in verdict.reason


@pytest.mark.parametrize("command", [
    "time cd .git && cat config", "command cd .git && cat config",
    "builtin cd .git && cat config", "time -p cd .git; cat config"])
def test_a_cd_behind_time_command_or_builtin_moves_too(work: Path, command: str) -> None:
    verdict = _verdict(work, command, "shell(*)")
    assert verdict.action == "ask" and "config is a sensitive file" in verdict.reason


@pytest.mark.parametrize(("command", "said"), [
    ('cd "$NOT_SET_HERE" && cat notes.txt', 'notes.txt (after cd $NOT_SET_HERE: any may be)'),
    ("cd - && cat notes.txt", "notes.txt (after cd -: any may be)"),
    ("pushd sub && popd && cat notes.txt", "notes.txt (after popd: any may be)"),
    ("cd su* && cat notes.txt", "notes.txt (after cd su*: any may be)"),
    ("X=/etc; cd $X && cat notes.txt", "notes.txt (after cd $X: any may be)"),
    ("shopt -s cdable_vars; cd HOME && cat notes.txt", "(after cd HOME: any may be)"),
    # a later round starts where the last one's cd left
    ("cd sub && while true; do cat a.txt; cd ..; done", "(after a cd in a loop: any may be)"),
    ("{ for d in 1 2; do cat a.txt; cd ..; done; }", "(after a cd in a loop: any may be)"),
])
def test_a_cd_to_a_place_not_known_here_makes_later_words_may_be(work: Path, command: str,
                                                                said: str) -> None:
    verdict = _verdict(work, command, "shell(*)")
    assert verdict.action == "ask", (command, verdict.reason)
    assert said in verdict.reason and "may name a sensitive file" in verdict.reason


@pytest.mark.parametrize("command", [
    "read X; cat $X", "PWD=/etc; cat $PWD/hosts", "cat $OLDPWD/x"])
def test_a_variable_the_line_sets_may_be_anything(work: Path, command: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X", str(work / "sub"))  # the environment's value is not the one used
    monkeypatch.setenv("OLDPWD", str(work))
    verdict = _verdict(work, command, "shell(*)")
    assert verdict.action == "ask" and "may be outside the project" in verdict.reason


@pytest.mark.parametrize("command", [
    "for f in 1 2; do cat sub/a.txt; done", "cd sub && cat $PWD/../notes.txt",
    "cat $HOME_IN_PROJECT/notes.txt"])
def test_a_loop_without_cd_and_known_variables_still_run(work: Path, command: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME_IN_PROJECT", str(work))
    verdict = _verdict(work, command, "shell(*)")
    assert verdict.action == "run", (command, verdict.reason)


def test_cdpath_in_the_environment_makes_a_relative_cd_unknown(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CDPATH", "/etc")
    verdict = _verdict(work, "cd sub && cat a.txt")
    assert verdict.action == "ask" and "a.txt (after cd sub" in verdict.reason
    assert "may" in verdict.reason
    # bash looks no name starting with ./ or ../ up in CDPATH
    assert _verdict(work, "cd ./sub && cat a.txt").action == "run"


def test_cdpath_set_on_the_line_makes_a_relative_cd_unknown(work: Path) -> None:
    verdict = _verdict(work, "export CDPATH=/etc; cd ssh && cat id_rsa", *CD_CAT,
                       "shell(export*)")
    assert verdict.action == "ask"
