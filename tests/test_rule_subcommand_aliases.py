"""A deny or ask rule on a subcommand catches the tool's other names for it.

Round 8 of the approval testers: ``--deny 'shell(npm install*)'`` let ``npm i x`` and ``npm
add x`` run, ``shell(pip install*)`` let ``python3 -m pip install`` / ``pip3`` / ``uv pip``,
``shell(docker rm*)`` let ``docker container rm``, ``shell(helm uninstall*)`` let ``helm
delete``, ``shell(terraform destroy*)`` let ``terraform apply -destroy``, ``shell(git push*)``
let ``git subtree push`` (:mod:`goosectx.subcommand_aliases`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules
from goosectx.subcommand_aliases import equal_forms

CAUGHT = [
    ("shell(npm install*)", "npm i left-pad"), ("shell(npm install*)", "npm -g i left-pad"),
    ("shell(npm install*)", "npm add left-pad"), ("shell(npm install*)", "npm isntall x"),
    ("shell(npm i*)", "npm install left-pad"),
    ("shell(pip install*)", "python3 -m pip install requests"),
    ("shell(pip install*)", "python3.12 -m pip install requests"),
    ("shell(pip install*)", "pip3 install requests"),
    ("shell(pip install*)", "/usr/bin/pip3 install requests"),
    ("shell(pip install*)", "uv pip install requests"),
    ("shell(pip3 install*)", "pip install requests"),
    ("shell(docker rm*)", "docker container rm web"),
    ("shell(docker container rm*)", "docker rm web"),
    ("shell(docker push*)", "docker image push me/app"),
    ("shell(docker rmi*)", "docker image rm me/app"),
    ("shell(podman rm*)", "podman container rm web"),
    ("shell(docker compose down*)", "docker-compose down -v"),
    ("shell(docker-compose down*)", "docker compose down -v"),
    ("shell(helm uninstall*)", "helm delete prod"), ("shell(helm uninstall*)", "helm un prod"),
    ("shell(terraform destroy*)", "terraform apply -destroy -auto-approve"),
    ("shell(terraform destroy*)", "terraform -chdir=infra apply -destroy"),
    ("shell(git push*)", "git subtree push --prefix=docs origin gh-pages"),
    ("shell(git push*)", "git -C . subtree push -P docs origin main"),
    ("shell(cargo run*)", "cargo r --release"),
    ("shell(brew uninstall*)", "brew rm wget"),
    # test29c: options before the subcommand, more other names
    ("shell(git push*)", "git subtree -P lib push origin main"),
    ("shell(git push*)", "git subtree --prefix=lib push origin main"),
    ("shell(git push*)", "git subtree --prefix lib --squash push origin main"),
    ("shell(npm install*)", "npm it"), ("shell(npm install*)", "npm install-test"),
    ("shell(pip install*)", "python -I -m pip install x"),
    ("shell(pip install*)", "python3 -mpip install x"),
    ("shell(pip install*)", "python -Im pip install x"),  # a cluster ending in m
    ("shell(pip install*)", "python3 -X utf8 -m pip install x"),
    ("shell(pip install*)", "python3 -m pip -q install x"),
    ("shell(docker rm*)", "docker container remove c"),
    ("shell(docker rmi*)", "docker image remove me/app"),
    ("shell(docker volume rm*)", "docker volume remove data"),
    ("shell(terraform destroy*)", "terraform apply --destroy"),
    ("shell(terraform destroy*)", "terraform apply -destroy=true"),
]


@pytest.mark.parametrize(("rule", "command"), CAUGHT, ids=[f"{r}: {c}" for r, c in CAUGHT])
def test_a_deny_rule_catches_the_tools_other_names(tmp_path: Path, rule: str,
                                                   command: str) -> None:
    verdict = shell_verdict(PermissionRules(deny=(rule,)), command, "auto", working_dir=tmp_path)
    assert verdict.action == "deny", (command, verdict.reason)
    asked = shell_verdict(PermissionRules(ask=(rule,)), command, "auto", working_dir=tmp_path)
    assert asked.action == "ask", (command, asked.reason)


LEFT = [
    ("shell(npm install*)", "npm run build"), ("shell(npm install*)", "npm init"),
    ("shell(pip install*)", "pip list"), ("shell(pip install*)", "python3 -m pytest"),
    ("shell(docker rm*)", "docker container ls"), ("shell(helm uninstall*)", "helm list"),
    ("shell(terraform destroy*)", "terraform apply"),
    ("shell(terraform destroy*)", "terraform plan -destroy"),
    ("shell(git push*)", "git subtree pull -P docs origin main"),
    ("shell(git push*)", "git subtree -P push pull origin main"),
    ("shell(npm install*)", "npm test"), ("shell(pip install*)", "python3 -I -m pytest -q"),
    ("shell(pip install*)", "python3 -c 'import pip' install"),
    ("shell(docker rm*)", "docker volume remove data"),
    ("shell(terraform destroy*)", "terraform apply -destroy=false"),
]


@pytest.mark.parametrize(("rule", "command"), LEFT, ids=[f"{r}: {c}" for r, c in LEFT])
def test_other_subcommands_are_not_caught(tmp_path: Path, rule: str, command: str) -> None:
    verdict = shell_verdict(PermissionRules(deny=(rule,)), command, "auto", working_dir=tmp_path)
    assert verdict.action == "run", (command, verdict.reason)


def test_an_allow_rule_still_matches_the_command_as_written(tmp_path: Path) -> None:
    """``shell(npm i*)`` allows ``npm i`` but is no allow rule for ``npm install``'s other forms
    the user did not write: other names widen deny and ask rules only."""
    rules = PermissionRules(allow=("shell(pip install*)",))
    assert shell_verdict(rules, "pip install x", "smart_approve",
                         working_dir=tmp_path).action == "run"
    assert shell_verdict(rules, "uv pip install x", "smart_approve",
                         working_dir=tmp_path).action == "ask"


def test_equal_forms_lists_each_other_name_once() -> None:
    forms = equal_forms("npm i x")
    assert "npm install x" in forms and "npm add x" in forms
    assert len(forms) == len(set(forms)) and "npm i x" not in forms
    assert equal_forms("ls -la") == [] and equal_forms("npm") == []


STARTED = [("shell(npm install*)", "npx npm i x", "npm install x"),
           ("shell(npm install*)", "uv run npm i x", "npm install x"),
           ("shell(docker rm*)", "npx docker container rm c", "docker rm c")]


@pytest.mark.parametrize(("rule", "command", "clause"), STARTED,
                         ids=[c for _r, c, _f in STARTED])
def test_what_a_runner_may_start_is_read_under_its_other_names(
        tmp_path: Path, rule: str, command: str, clause: str) -> None:
    """test29c: ``npx npm install x`` asked under a deny rule on ``npm install``; ``npx npm i
    x`` ran — the may-start check now reads the other names too."""
    verdict = shell_verdict(PermissionRules(deny=(rule,)), command, "auto", working_dir=tmp_path)
    assert verdict.action == "ask", verdict.reason
    assert f"may start `{clause}`, which {rule} names" in verdict.reason
    assert shell_verdict(PermissionRules(deny=(rule,)), "npx prettier --check .", "auto",
                         working_dir=tmp_path).action == "run"
