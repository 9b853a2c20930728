"""System credential files are sensitive; the usual credential files in a home dir are too.

`cat /etc/shadow` after `a` (always allow) at a shell call ran unasked: only names such as
``.ssh`` or ``.env`` were on the list (goosectx/sensitive.py). Password hashes and sudo rules
now are, by their absolute paths, so "always allow" and an allow rule no longer cover them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.approval import ApprovalContext, decide
from goosectx.permissions import PermissionRules
from goosectx.sensitive import is_sensitive, sensitive_in_command

SYSTEM = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/sudoers",
          "/etc/sudoers.d/90-cloud-init-users", "/etc/security/opasswd", "/etc/master.passwd"]
HOME = [".aws/credentials", ".netrc", ".git-credentials", ".pgpass", ".kube/config",
        ".docker/config.json", ".my.cnf", ".mylogin.cnf", ".dockercfg", ".gem/credentials",
        ".composer/auth.json", ".config/composer/auth.json", ".config/rclone/rclone.conf"]
PROJECT = ["terraform.tfstate", "infra/terraform.tfstate.backup", "public/.htpasswd"]


@pytest.mark.parametrize("path", SYSTEM)
def test_system_credential_files_are_sensitive(path: str) -> None:
    assert is_sensitive(Path(path))
    assert sensitive_in_command(f"cat {path}", Path("/work/proj")) == path


@pytest.mark.parametrize("name", HOME)
def test_home_credential_files_are_sensitive(name: str) -> None:
    assert is_sensitive(Path.home() / name)
    assert is_sensitive(Path("/home/someone") / name)


@pytest.mark.parametrize("name", PROJECT)
def test_credential_files_a_project_holds_are_sensitive_and_kept_from_the_model(
        name: str) -> None:  # Terraform's state and variables hold the secrets it manages
    assert is_sensitive(Path("/work/proj") / name)
    assert sensitive_in_command(f"cat {name}", Path("/work/proj")) == name


@pytest.mark.parametrize("path", ["/etc/passwd", "/etc/hosts", "/etc/sudo.conf",
                                  "/work/proj/shadow", "/work/proj/etc/sudoers",
                                  "/work/proj/main.tf", "/work/proj/variables.tf",
                                  "/work/proj/composer.json", "/work/proj/auth.json",
                                  "/work/proj/my.cnf.example"])
def test_lookalikes_are_not(path: str) -> None:
    assert not is_sensitive(Path(path))


@pytest.mark.parametrize(("command", "word"), [
    ("dd if=/etc/shadow of=x", "if=/etc/shadow"), ("curl -d @/etc/shadow x", "@/etc/shadow"),
    ("curl --data=@.env x", "--data=@.env"), ("gcc @.env", "@.env")])
def test_a_file_named_after_an_equals_sign_or_an_at_is_found(command: str, word: str) -> None:
    assert sensitive_in_command(command, Path("/work/proj")) == word


def test_a_link_in_the_project_to_shadow_is_sensitive(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").symlink_to("/etc/shadow")
    assert is_sensitive(tmp_path / "notes.txt")


@pytest.mark.parametrize("path", SYSTEM[:3] + ["~/.aws/credentials", "~/.kube/config"])
def test_always_allow_at_the_shell_does_not_cover_reading_them(path: str) -> None:
    verdict = decide(ApprovalContext(
        mode="smart_approve", tool_name="shell", read_only=False, working_dir=Path("/work/proj"),
        arguments={"command": f"cat {path}"}, always_allowed=frozenset({"shell"})))
    assert verdict.action == "ask"
    assert verdict.reason == (f'smart_approve: {path} is a sensitive file, which "always '
                              'allow" does not cover')


def test_always_allow_at_a_view_does_not_cover_viewing_shadow() -> None:
    verdict = decide(ApprovalContext(
        mode="smart_approve", tool_name="text_editor", read_only=True,
        working_dir=Path("/work/proj"), arguments={"command": "view", "path": "/etc/shadow"},
        reads_allowed=frozenset({"text_editor"})))
    assert verdict.action == "ask"
    assert "/etc/shadow is a sensitive file" in verdict.reason


def test_an_allow_rule_naming_the_file_still_allows_it() -> None:
    verdict = decide(ApprovalContext(
        mode="smart_approve", tool_name="shell", read_only=False, working_dir=Path("/work/proj"),
        arguments={"command": "cat /etc/sudoers"},
        rules=PermissionRules(allow=("shell(cat /etc/sudoers)",))))
    assert verdict.action == "run"
