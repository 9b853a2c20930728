"""rg's option values are no search paths, diff and ``grep -R`` read what links below lead to,
and metadata-only commands are no reads (docs/architecture.md §4, permission rules).

A fresh-eyes tester found ``rg -uu -m 5 OPENAI`` reading ``.env`` and ``.git/config`` under
``shell(rg*)`` (``5`` was taken for the dir searched), ``diff -r fixtures/a fixtures/b``
printing ``~/.ssh/id_rsa`` and ``.env`` through links below ``fixtures/a``, and ``ls -la
.env`` / ``stat .env`` / ``file .venv/bin/python`` asking though they read no contents."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules
from goosectx.sensitive import is_sensitive

RG = PermissionRules(allow=("shell(rg*)",))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / "src" / "app.py").write_text("print(1)\n")
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text('[remote "origin"]\nurl = https://ghp_x@github.com\n')
    (work / ".env").write_text("OPENAI_API_KEY=sk-x\n")
    return work


def _action(work: Path, command: str, rules: PermissionRules = RG) -> tuple[str, str]:
    verdict = shell_verdict(rules, command, "smart_approve", working_dir=work)
    return verdict.action, verdict.reason


@pytest.mark.parametrize("command", [
    "rg -uu -m 5 OPENAI", "rg --hidden -A 2 github", "rg -n -C 3 --hidden OPENAI",
    "rg OPENAI -uu -g '!nothing'", "rg github -uu -g '!x'", "rg -uu github --max-depth 2",
    "rg OPENAI -uu --type-add 'e:.env' -te", "rg -uu OPENAI -t sh", "rg -uu -m5 OPENAI",
    "rg --hidden --max-count=5 OPENAI", "rg -uu --sort path OPENAI", "rg -nuuA2 OPENAI",
    "rg -uu -j 2 --colors 'match:fg:red' OPENAI", "rg -uu --frobnicate x OPENAI",
])
def test_rg_with_an_option_value_still_searches_the_working_dir(project: Path,
                                                                command: str) -> None:
    action, reason = _action(project, command)
    assert action == "ask", command
    assert "(holding .env)" in reason or "(holding .git/config)" in reason


@pytest.mark.parametrize("command", [
    "rg OPENAI -g '.env'", "rg OPENAI --iglob '.ENV'", "rg OPENAI --type-add 'e:.env' -te",
    "rg OPENAI -g '*'", "rg OPENAI -g '**/.env'", "rg OPENAI --glob-case-insensitive -g '.ENV'",
])
def test_rg_globs_whitelist_hidden_files_rg_otherwise_skips(project: Path,
                                                            command: str) -> None:
    # rg searches a hidden file a -g/--iglob/-t glob matches, --hidden or not
    assert _action(project, command)[0] == "ask", command


def test_an_ignore_file_whitelisting_a_hidden_name_makes_rg_read_it(project: Path) -> None:
    assert _action(project, "rg OPENAI")[0] == "run"
    (project / ".ignore").write_text("!.env\n")
    assert _action(project, "rg OPENAI")[0] == "ask"


@pytest.mark.parametrize("command", [
    "rg -m 5 OPENAI src", "rg -uu -A 2 OPENAI src", "rg -e OPENAI -uu src",
    "rg --max-depth 2 -uu OPENAI src", "rg -m 5 OPENAI", "rg OPENAI -g '*.py'",
    "rg OPENAI -g '**/*.py'",
])
def test_rg_naming_a_dir_without_secrets_runs(project: Path, command: str) -> None:
    assert _action(project, command)[0] == "run", command


def test_rg_pre_runs_a_program_on_each_file_and_asks(project: Path) -> None:
    assert _action(project, "rg --pre ./x.sh OPENAI src")[0] == "ask"
    assert _action(project, "rg --pre=cat OPENAI src")[0] == "ask"


def test_rg_pattern_file_is_judged_as_a_read(project: Path) -> None:
    assert _action(project, "rg -f .env src")[0] == "ask"
    assert _action(project, "rg --ignore-file .env x src")[0] == "ask"
    assert _action(project, "rg --ignore-file=.env x src")[0] == "ask"


def test_rg_glob_over_goosectx_config_in_the_project_asks(project: Path) -> None:
    config = project / "goosectx.toml"
    config.write_text('api_base = "http://x"\n')
    verdict = shell_verdict(RG, "rg api_base -g '*.toml'", "smart_approve",
                            working_dir=project)
    assert verdict.action == "run"  # no config_file known to this decision: a plain toml
    from goosectx.sensitive_shell import sensitive_words
    found = list(sensitive_words("rg api_base -g '*.toml'", project, config_file=config))
    assert found and "goosectx.toml" in found[0][1]


DIFF = PermissionRules(allow=("shell(diff*)", "shell(grep*)"))


@pytest.fixture
def linked(project: Path, tmp_path: Path) -> Path:
    home = tmp_path / "home" / ".ssh"
    home.mkdir(parents=True)
    (home / "id_rsa").write_text("BEGIN-KEY\n")
    (project / "fixtures" / "a").mkdir(parents=True)
    (project / "fixtures" / "b").mkdir()
    (project / "fixtures" / "b" / "notes").write_text("x\n")
    (project / "fixtures" / "b" / "conf").write_text("x\n")
    return project


@pytest.mark.parametrize("command", ["diff -r fixtures/a fixtures/b",
                                     "diff fixtures/a fixtures/b",
                                     "diff -ru fixtures/b fixtures/a", "grep -R KEY fixtures"])
def test_a_link_below_leading_out_asks(linked: Path, tmp_path: Path, command: str) -> None:
    os.symlink(tmp_path / "home" / ".ssh" / "id_rsa", linked / "fixtures" / "a" / "notes")
    action, reason = _action(linked, command, DIFF)
    assert action == "ask", command
    assert "notes" in reason


@pytest.mark.parametrize("command", ["diff -r fixtures/a fixtures/b",
                                     "diff fixtures/a fixtures/b", "grep -R KEY fixtures",
                                     "rg -L KEY fixtures"])
def test_a_link_below_to_a_sensitive_project_file_asks(linked: Path, command: str) -> None:
    os.symlink("../../.env", linked / "fixtures" / "a" / "conf")
    rules = PermissionRules(allow=("shell(diff*)", "shell(grep*)", "shell(rg*)"))
    action, reason = _action(linked, command, rules)
    assert action == "ask", command
    assert "conf" in reason


def test_a_dir_link_below_to_git_asks_when_followed(linked: Path) -> None:
    os.symlink("../../.git", linked / "fixtures" / "a" / "g")
    assert _action(linked, "grep -R url fixtures", DIFF)[0] == "ask"
    assert _action(linked, "diff -r fixtures/a fixtures/b", DIFF)[0] == "ask"


@pytest.mark.parametrize("command", ["diff -r fixtures/a fixtures/b",
                                     "grep -r KEY fixtures",
                                     "diff --no-dereference -r fixtures/a fixtures/b"])
def test_links_not_followed_or_harmless_run(linked: Path, command: str) -> None:
    (linked / "fixtures" / "a" / "notes").write_text("y\n")
    os.symlink("notes", linked / "fixtures" / "a" / "conf")  # a link to a plain file
    if "no-deref" in command or "grep -r" in command:
        os.symlink("../../.env", linked / "fixtures" / "a" / "env_link")
    assert _action(linked, command, DIFF)[0] == "run", command


@pytest.mark.parametrize("path", [
    ".venv/lib/python3.11/site-packages/pip/_vendor/certifi/cacert.pem",
    "/usr/lib/python3/dist-packages/certifi/cacert.pem",
    "node_modules/some-pkg/test/fixtures/ca.pem",
])
def test_a_pem_inside_an_installed_package_is_not_a_secret(path: str) -> None:
    assert not is_sensitive(Path("/work/proj") / path)


@pytest.mark.parametrize("path", ["certs/server.pem", "/home/u/.ssh/aws.pem",
                                  ".venv/lib/python3.11/site-packages/x/.env",
                                  "node_modules/pkg/id_rsa", "site-packages/x/server.key"])
def test_other_pems_and_secrets_stay_sensitive(path: str) -> None:
    assert is_sensitive(Path("/work/proj") / path)


def test_grep_over_a_venv_with_certifi_runs(project: Path) -> None:
    bundle = project / ".venv/lib/python3.11/site-packages/pip/_vendor/certifi"
    bundle.mkdir(parents=True)
    (bundle / "cacert.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    command = "grep -rn TODO --exclude=.env --exclude-dir=.git ."
    assert _action(project, command, PermissionRules(allow=("shell(grep*)",)))[0] == "run"
    (project / "certs").mkdir()
    (project / "certs" / "server.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    assert _action(project, command, PermissionRules(allow=("shell(grep*)",)))[0] == "ask"


META = PermissionRules(allow=("shell(ls*)", "shell(stat*)", "shell(file*)", "shell(cat*)",
                              "shell(head*)", "shell(less*)"))


@pytest.mark.parametrize("command", [
    "ls -la .env", "ls .env", "stat .env", "stat -c %n .env", "stat --printf '%s' .env",
    "stat -f .env", "ls -l .git/config", "file .venv/bin/python", "file -b .venv/bin/python",
])
def test_metadata_only_commands_run(project: Path, tmp_path: Path, command: str) -> None:
    (project / ".venv" / "bin").mkdir(parents=True)
    outside = tmp_path / "python3"
    outside.write_text("")
    os.symlink(outside, project / ".venv" / "bin" / "python")
    assert _action(project, command, META)[0] == "run", command


@pytest.mark.parametrize("command", [
    "cat .env", "head .env", "less .env", "file .env", "file -L .venv/bin/python",
    "ls -la .env; cat .env", "ls $(cat .env)",
])
def test_content_reads_still_ask(project: Path, tmp_path: Path, command: str) -> None:
    (project / ".venv" / "bin").mkdir(parents=True)
    outside = tmp_path / "python3"
    outside.write_text("")
    os.symlink(outside, project / ".venv" / "bin" / "python")
    assert _action(project, command, META)[0] == "ask", command


@pytest.mark.parametrize("command", [
    "find fixtures -type l -exec cat {} +", "find fixtures | xargs cat",
    "cat $(find fixtures -type l)", "fd . fixtures -x cat",
])
def test_a_program_opening_what_a_lister_finds_reads_a_link_by_its_target(
        linked: Path, command: str) -> None:
    os.symlink("../../.env", linked / "fixtures" / "a" / "conf")
    rules = PermissionRules(allow=("shell(find*)", "shell(xargs*)", "shell(cat*)",
                                   "shell(fd*)"))
    assert _action(linked, command, rules)[0] == "ask", command


def test_diff_without_r_reads_only_the_files_right_in_the_dirs(linked: Path) -> None:
    (linked / "fixtures" / "a" / "deep").mkdir()
    (linked / "fixtures" / "a" / "deep" / ".env").write_text("K=1\n")
    assert _action(linked, "diff fixtures/a fixtures/b", DIFF)[0] == "run"
    assert _action(linked, "diff -r fixtures/a fixtures/b", DIFF)[0] == "ask"
    (linked / "fixtures" / "a" / ".env").write_text("K=1\n")
    assert _action(linked, "diff fixtures/a fixtures/b", DIFF)[0] == "ask"


NAMES = PermissionRules(allow=("shell(echo*)", "shell(printf*)", "shell(basename*)",
                               "shell(dirname*)", "shell(cat*)", "shell(head*)"))


@pytest.mark.parametrize("command", [
    "echo .env", "printf '%s\\n' .env", "echo ~/.ssh/id_rsa", "basename .env",
    "dirname src/.env", "basename -s .env config.env",
])
def test_words_printed_as_strings_run(project: Path, command: str) -> None:
    """Tester A (round 4): ``echo .env`` asked ".env is a sensitive file" though echo,
    printf, basename and dirname never open their words."""
    assert _action(project, command, NAMES)[0] == "run", command


@pytest.mark.parametrize("command", [
    'echo "$(<.env)"', "echo $(cat .env)", "echo `head .env`", "echo .env; cat .env",
    "printf '%s' \"$(head .env)\"", "echo <.env", "echo .env | xargs cat",
])
def test_what_they_are_given_to_print_is_still_judged(project: Path, command: str) -> None:
    assert _action(project, command, NAMES)[0] == "ask", command


@pytest.mark.parametrize(("command", "action"), [
    ("cat .env.example", "run"), ("cat .env.sample", "run"), ("head .ENV.TEMPLATE", "run"),
    ("cat .env", "ask"), ("cat .env.local", "ask"), ("cat .env.production", "ask"),
    ("cat .env.example.local", "ask"),
])
def test_committed_env_templates_are_no_secret(project: Path, command: str, action: str) -> None:
    """Tester A (round 4): ``cat .env.example`` asked, though a project commits it."""
    assert _action(project, command, NAMES)[0] == action, command
