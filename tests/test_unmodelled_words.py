"""The write-target backstop reads the words an unmodelled program's options are spelt in.

test29c HIGH 9: ``mytool -o.git/hooks/pre-commit``, ``-xo.git/…``, ``out=.git/…``,
``dest:.git/…``, ``-o "$PWD/.git/…"`` and ``-o etclink/cron.d/x`` (a link to ``/etc``) ran in
auto mode under a deny rule. MEDIUM: ``bazel build //...`` and an input option outside the
project (``--config ~/.config/x``, ``-I /usr/include``, ``ffmpeg -i /tmp/in.mp4``) asked "may
write": outside paths now ask only where they may be written; the git dir, a virtualenv,
node_modules and sensitive files still ask for any word, said as given, not written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict
from test_protected_writes_modelled import HOOK


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository with a .env and a link to /etc."""
    work = tmp_path / "proj"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / ".env").write_text("API_KEY=x\n")
    (work / "etclink").symlink_to("/etc")
    return work


def _reason(work: Path, command: str) -> str:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=work)
    assert verdict.action == "ask", (command, verdict.reason)
    return verdict.reason


@pytest.mark.parametrize(("command", "shown"), [
    (f"mytool -o{HOOK}", HOOK), (f"mytool -xo{HOOK}", HOOK), (f"mytool -O{HOOK}", HOOK),
    (f"mytool out={HOOK}", HOOK), (f"mytool 'dest={HOOK}'", HOOK), (f"mytool dest:{HOOK}", HOOK),
    (f"mytool -o $PWD/{HOOK}", f"$PWD/{HOOK}"), (f'mytool -o "$PWD/{HOOK}"', f"$PWD/{HOOK}"),
    (f"mytool -o ${{PWD}}/{HOOK}", f"${{PWD}}/{HOOK}"), (f"mytool -o ~+/{HOOK}", f"~+/{HOOK}"),
    ("protoc --python_out=.git/hooks x.proto", ".git/hooks"),
])
def test_a_glued_keyed_or_pwd_word_naming_a_hook_asks(project: Path, command: str,
                                                      shown: str) -> None:
    program = command.split()[0]
    assert _reason(project, command).startswith(
        f"{program} is not known to goosectx: it may write {shown} (a hook is a command")


def test_a_link_leading_outside_the_project_is_judged_where_it_leads(project: Path) -> None:
    assert _reason(project, "mytool -o etclink/cron.d/x").startswith(
        "mytool is not known to goosectx: it may write etclink/cron.d/x, which is outside the "
        "project")
    assert "outside the project" in _reason(project, "mytool -o $PWD/../x")


@pytest.mark.parametrize(("command", "said"), [
    (f"mytool --config={HOOK}", f"it is given {HOOK} (a hook is a command a later git runs) "
                                "and what it does with it is not known"),
    (f"mytool file:{HOOK}", f"it is given {HOOK} (a hook"),
    (f"mytool @{HOOK}", f"it is given {HOOK} (a hook"),
    ("uvicorn app:main --env-file .env", "it is given .env, which is a sensitive file and what "
                                         "it does with it is not known"),
])
def test_a_protected_path_given_to_an_input_option_asks_without_saying_write(
        project: Path, command: str, said: str) -> None:
    reason = _reason(project, command)
    assert said in reason, reason
    assert "may write" not in reason


@pytest.mark.parametrize("command", [
    "bazel build //...", "bazel test //src:all", "bazel run //cmd/server -- --port 8080",
    "buck2 build //app:main", "bazel query @repo//x:all", "pants test ::",
    "black --config ~/.config/black src", "protoc -I /usr/include --python_out=src x.proto",
    "protoc -I/usr/include x.proto", "terraform plan -var-file=/etc/tf/prod.tfvars",
    "ffmpeg -i /tmp/in.mp4 out.mp4", "hadolint --config ~/.config/hadolint.yaml Dockerfile",
    "ansible-playbook -i ~/inventory site.yml", "mytool --input /dev/stdin",
    "mytool -o src/x -Wall", "mytool out=build/x", "mytool -o $PWD/build/x",
])
def test_inputs_outside_and_labels_still_run(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", (command, verdict.reason)


@pytest.mark.parametrize(("command", "shown"), [
    ("pandoc README.md -o /tmp/readme.pdf", "/tmp/readme.pdf"),
    ("mytool --force /etc/passwd", "/etc/passwd"), ("vite build --outDir /tmp/dist", "/tmp/dist"),
    ("mytool -o //etc/cron.d/x", "//etc/cron.d/x"), ("mytool -o/tmp/x", "/tmp/x"),
    ("mytool --out a:/etc/x", "/etc/x"),
])
def test_an_output_or_operand_outside_the_project_still_asks(project: Path, command: str,
                                                             shown: str) -> None:
    assert f"it may write {shown}, which is outside the project" in _reason(project, command)


@pytest.mark.parametrize(("command", "said"), [
    ("D=.git; E=$D/hooks; mytool $E/pre-commit", "it may write $E/pre-commit"),
    ("D=.g; D+=it; mytool $D/config", "it may write $D/config"),
    ('for f in .git/*; do mytool -o "$f"; done', "it may write $f"),
    ("D=.git; cd $D && mytool -o config", "it may write config in a dir not known here"),
    ('cd "$X" && mytool config', "it may write config in a dir not known here"),
    ("mytool --out=a:.git/hooks/pre-commit", ".git/hooks/pre-commit (a hook"),
    ("mytool --files 'a .git/hooks/pre-commit'", "it may write .git/hooks/pre-commit"),
])
def test_a_path_made_by_the_line_or_listed_is_judged(project: Path, command: str,
                                                    said: str) -> None:
    reason = _reason(project, command)
    assert said in reason, reason


@pytest.mark.parametrize("command", [
    "mytool --out=a:build/x", "mytool --files 'a b c'", "D=src; E=$D/x; mytool $E",
    "cd src && mytool x", "D=bu; D+=ild; mytool $D/x",
])
def test_a_made_or_listed_path_in_the_project_still_runs(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", (command, verdict.reason)
