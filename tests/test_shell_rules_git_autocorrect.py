"""A git subcommand is read as what git may run it as (runx28: autocorrect, send-pack, templates).

Under ``--mode auto --deny 'shell(git push*)'`` each of these pushed: a misspelled subcommand
git autocorrects (``help.autocorrect`` set on the line, in the environment or in the repo's
config: ``git psuh``), ``git send-pack`` and ``git http-push``. ``git clone --template=DIR``
(``init``, ``init.templateDir``, ``GIT_TEMPLATE_DIR``) runs the template's hooks: asked about.
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, action, shell_verdict

from goosectx.git_autocorrect import runs_as
from goosectx.permissions import PermissionRules

DENY_PUSH = PermissionRules(deny=("shell(git push*)",))
ASK_PUSH = PermissionRules(allow=("shell(git*)",), ask=("shell(git push*)",))

PUSHES = [
    "git psuh origin HEAD:refs/heads/e2e",
    "git -c help.autocorrect=immediate psuh origin HEAD:refs/heads/e2e",
    "git --config-env=help.autocorrect=AC psuh origin HEAD",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=help.autocorrect GIT_CONFIG_VALUE_0=immediate "
    "git psuh origin HEAD",
    "git pus origin", "git -C . pshu origin", "git send-pack origin HEAD:refs/heads/sp",
    "git http-push https://example.com/r.git HEAD", "bash -c 'git psuh origin'",
    # by their git-core programs (approval round 7: RAN)
    "/usr/lib/git-core/git-send-pack x", "/usr/lib/git-core/git-http-push x",
    "git-http-push x", "git-send-pack --all x",
]


@pytest.mark.parametrize("command", PUSHES)
def test_a_command_git_runs_as_push_is_denied_and_asked(command: str) -> None:
    assert action(DENY_PUSH, command) == "deny", command
    assert action(ASK_PUSH, command) == "ask", command


@pytest.mark.parametrize("command", ["git status", "git lfs pull", "git log --oneline",
                                     "git -c alias.psuh=status psuh", "git stauts",
                                     "git-upload-pack x", "/usr/lib/git-core/git-status"])
def test_other_git_commands_still_run(command: str) -> None:
    assert action(DENY_PUSH, command) == "run", command
    assert action(ASK_PUSH, command) == "run", command


def test_autocorrect_guesses_as_git_scores_them() -> None:
    assert runs_as("psuh") == ["push"]  # a swap of neighbours costs nothing
    assert runs_as("stauts") == ["status"]
    assert runs_as("pus") == ["push"]  # a unique prefix of a common command
    assert runs_as("pu") == []  # a prefix of pull and push: git runs neither
    assert runs_as("push") == runs_as("lfs") == runs_as("xyzzyplugh") == []
    assert runs_as("p" + "u" * 10_000) == []  # far longer than any command: never a guess


TEMPLATES = [
    "git clone --template=/tmp/t a b", "git clone --template /tmp/t a b",
    "git clone --templ=/tmp/t a b", "git init --template=/tmp/t",
    "git -c init.templateDir=/tmp/t init", "git -c init.templatedir=/tmp/t clone a b",
    "GIT_TEMPLATE_DIR=/tmp/t git clone a b",
]


@pytest.mark.parametrize("command", TEMPLATES)
def test_a_template_directory_is_asked_about(command: str) -> None:
    verdict = shell_verdict(DENY_RM, command)
    assert verdict.action == "ask", command
    assert "hooks" in verdict.reason or "templateDir" in verdict.reason.replace("templatedir",
                                                                               "templateDir")


@pytest.mark.parametrize("command", ["git clone a b", "git init", "git init --template="])
def test_clone_and_init_without_a_template_run(command: str) -> None:
    assert action(DENY_RM, command) == "run", command
