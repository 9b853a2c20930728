"""Harmless shell lines an allow rule covers run; the unsafe neighbours still ask, naming why.

A for loop over a glob with allowed body commands (the header runs no program; ``"$f"`` is one
of the header's words, judged as paths there) and ``gh api``'s endpoint (a path of the API,
not a file).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.approval import ApprovalContext, PermissionRules, decide


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x\n")
    (tmp_path / ".env").write_text("KEY=1\n")
    return tmp_path


def _verdict(project: Path, command: str, *allow: str) -> tuple[str, str]:
    verdict = decide(ApprovalContext(mode="smart_approve", tool_name="shell", read_only=False,
                                     working_dir=project, arguments={"command": command},
                                     rules=PermissionRules(allow=allow),
                                     data_dir=project.parent / "data"))
    return verdict.action, verdict.reason


def test_a_for_loop_over_a_glob_with_allowed_commands_runs(project: Path) -> None:
    for command in ('for f in src/*.py; do wc -l "$f"; done',
                    'for f in src/*.py\ndo\n  wc -l "${f}"\ndone'):
        assert _verdict(project, command, "shell(wc*)")[0] == "run", command


@pytest.mark.parametrize(("command", "named"), [
    ('for f in src/*.py; do rm "$f"; done', "rm $f is covered by no allow rule"),
    ('for f in .env; do wc -l "$f"; done', ".env is a sensitive file"),
    ('for f in /etc/host*; do wc -l "$f"; done', "outside the project"),
    ('for f in src/*.py; do f=/etc/hosts; wc -l "$f"; done', "f=/etc/hosts"),
    ('for f in src/*.py; do wc -l $f; done', "$f may be outside the project"),
    ('for f in *; do cd /etc; wc -l "$f"; done', "cd"),
    ('\\for f in x; do wc -l "$f"; done', "for f in x is covered by no allow rule"),
    ('for f in $(rm x); do wc -l "$f"; done', "rm x is covered by no allow rule"),
])
def test_a_loop_that_may_do_more_still_asks(project: Path, command: str, named: str) -> None:
    action, reason = _verdict(project, command, "shell(wc*)", "shell(cd*)")
    assert action == "ask", command
    assert named in reason, reason


def test_gh_api_endpoint_is_no_file(project: Path) -> None:
    for command in ("gh api /user", "gh api -X GET /repos/o/r/issues", "gh api ../../.env"):
        assert _verdict(project, command, "shell(gh api*)")[0] == "run", command


@pytest.mark.parametrize("command", ["gh api /user --input /etc/hosts",
                                     "gh api graphql -F q=@/etc/hosts"])
def test_gh_api_still_asks_about_a_file_it_reads(project: Path, command: str) -> None:
    action, reason = _verdict(project, command, "shell(gh api*)")
    assert action == "ask"
    assert "/etc/hosts is outside the project" in reason


def test_sort_o_names_the_file_it_writes(project: Path) -> None:
    for command in ("sort -o lnk notes.txt", "sort -olnk notes.txt"):
        action, reason = _verdict(project, command, "shell(sort*)")
        assert action == "ask"
        assert reason.endswith("sort -o writes its output to the file named lnk, which no "
                               "allow rule covers"), reason


def test_sed_backups_into_a_project_dir_run_and_outside_ask_naming_the_dir(
        project: Path) -> None:
    assert _verdict(project, "sed -i'bak/*' s/a/b/ notes.txt", "shell(sed*)")[0] == "run"
    action, reason = _verdict(project, "sed -i'/etc/*' s/a/b/ notes.txt", "shell(sed*)")
    assert action == "ask"
    assert "/etc is outside the project" in reason
    action, reason = _verdict(project, "sed -i'../x/*' s/a/b/ notes.txt", "shell(sed*)")
    assert action == "ask"  # a dot component: judged as the word, as before


@pytest.mark.parametrize("command", ["(( x = 1 ))", "(" * 500 + "ls" + ")" * 500, "( " * 500])
def test_a_line_with_no_command_names_the_line_not_an_empty_name(project: Path,
                                                                  command: str) -> None:
    action, reason = _verdict(project, command, "shell(ls*)")
    assert action == "ask"
    assert reason == "smart_approve: the line is covered by no allow rule"


def test_tar_extracting_into_home_says_it_is_outside_not_a_sensitive_read(
        project: Path) -> None:
    for command in ("tar -xf x.tar -C ~", "tar xf x.tar -C ~", "tar -xf x.tar --directory ~"):
        action, reason = _verdict(project, command, "shell(tar*)")
        assert action == "ask", command
        assert reason.startswith("smart_approve: ~ is outside the project"), reason
    action, reason = _verdict(project, "tar -czf out.tgz -C ~ .", "shell(tar*)")
    assert action == "ask"  # creating reads what -C names: a sensitive file below ~ may be
    assert "sensitive file" in reason or "outside the project" in reason


def test_docker_volume_is_judged_by_its_host_side(project: Path) -> None:
    rules = ("shell(docker run*)", "shell(ls*)")  # the command docker run starts: its own rule
    assert _verdict(project, "docker run --rm --volume=$PWD/src:/w:ro alpine ls", *rules)[0] == (
        "run")
    action, reason = _verdict(project, "docker run --rm -v /etc:/w alpine ls", *rules)
    assert action == "ask"
    assert "/etc is outside the project" in reason
    action, reason = _verdict(project, "docker run --rm -v $PWD:/w alpine ls", *rules)
    assert "$PWD:/w" not in reason  # the mount is the project; /w is the container's


def test_docker_run_names_the_program_it_starts_not_the_image(project: Path) -> None:
    action, reason = _verdict(project, "docker run --rm -v $PWD:/w --name box alpine rm -rf /w",
                              "shell(docker run*)", "shell(ls*)")
    assert action == "ask"
    assert "docker run runs rm, which no allow rule covers" in reason


def test_git_ls_files_of_a_suffix_pathspec_hands_on_no_env(project: Path) -> None:
    rules = ("shell(wc*)", "shell(git ls-files*)", "shell(xargs*)")
    for command in ("wc -l $(git ls-files '*.py')", "git ls-files '*.py' | xargs wc -l"):
        assert _verdict(project, command, *rules)[0] == "run", command
    for command in ("git ls-files '*.env' | xargs wc -l", "git ls-files '*' | xargs wc -l",
                    "wc -l $(git ls-files *.py)"):  # unquoted: bash globs it first
        action, reason = _verdict(project, command, *rules)
        assert action == "ask", command
        assert ".env" in reason
