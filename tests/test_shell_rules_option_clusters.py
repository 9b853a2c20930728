"""A cluster of short options (``-Eu root``) hides no program from the shell rules.

shell22 findings: under ``--mode auto --deny 'shell(rm *)'`` ``sudo -Eu root rm -rf /``,
``env -iu HOME rm x`` and ``timeout -vs KILL 5 rm x`` ran (only the cluster's first letter
was read, so ``root``, ``HOME``, ``KILL`` were taken for the program); ``xargs --rep=X sh -c X``
(a prefix of ``--replace``) ran the ``sh -c`` string its input names; ``git --git-dir .git
rebase -x 'rm x'`` read ``.git`` as git's subcommand and ran the ``rm``; ``vim.tiny -c '!rm
f'`` was asked about where ``vim -c '!rm f'`` was denied.
"""

from __future__ import annotations

import pytest
from rules_support import action, check_under_deny_rm, deny_rm_cases
from rules_support import action_under_deny_rm as verdict

from goosectx.permissions import PermissionRules

DENIED = [
    "sudo -Eu root rm -rf /", "sudo -AEu root rm x", "sudo -Eg wheel rm x", "sudo -Eu root -- rm x",
    "doas -nu root rm x", "env -iu HOME rm x", "env -iC / rm x", "env -vu HOME rm x",
    "timeout -vs KILL 5 rm x", "timeout -vk 5 10 rm x", "nice -n5 rm x",
    "echo a | xargs -rn 1 rm", "xargs -0rn 1 rm", "xargs -rI X rm X", "xargs -rIX rm X",
    # sudo's -h takes an optional value: a word after a bare -h may be its host or the program
    "sudo -h host rm x", "sudo -h rm x", "sudo -hu root rm x", "sudo -Eh host rm x",
    # git's global options that take the next word: the subcommand comes after it
    "git --git-dir .git rebase -x 'rm x' main", "git --work-tree . rebase -x 'rm x' main",
    "git --namespace n difftool -x 'rm x'", "git --super-prefix p/ clone -u 'rm x' u",
    "git --git-dir .git config alias.x '!rm y'", "git --config-env a=B grep -O'rm x' y",
    "git --git-dir .git grep --open-files-in-pager='rm x' y",
    "git --attr-source HEAD rebase -x 'rm x' main",
    # every name vim answers to runs -c '!CMD' as a shell command
    "vim.tiny -c '!rm f' -c q", "rview -c '!rm f' -c q", "nvim.gtk3 -c '!rm f' -c q",
    "rvim -c '!rm f' -c q", "vim -c '!rm f' -c q", "gvim -c '!rm f' -c q",
]
ASKED = [
    "echo 'rm f' | xargs --rep=X sh -c X", "echo 'rm f' | xargs --r=X sh -c X",
    "echo 'rm f' | xargs -rI {} sh -c {}", "echo 'rm f' | xargs -0rI X sh -c X",
    "echo 'rm f' | xargs -ri sh -c {}", "echo 'rm f' | xargs -0iX sh -c X",
]
STILL_RUN = [
    "sudo -Eu root ls", "sudo -h", "sudo -u root -E make install", "env -iu HOME ls",
    "timeout -vs KILL 5 make", "xargs -rn 1 echo", "xargs -0rI X cp X /tmp",
    "git --git-dir .git status", "git --work-tree . log", "vim.tiny -c 'wq' f",
    "ssh -vp 22 host ls", "tmux -Lx new-session -d 'make'",
]


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(DENIED, ASKED, STILL_RUN))
def test_a_rule_sees_the_program_behind_a_cluster_of_options(command: str,
                                                             expected: str) -> None:
    check_under_deny_rm(command, expected)


@pytest.mark.parametrize("command", [
    "git --git-dir .git push", "git --work-tree . push origin", "git --namespace n push",
    "git --config-env a=B push", "git --super-prefix p/ push", "git --git-dir=.git push"])
def test_the_readme_git_push_rule_holds_behind_valued_global_options(command: str) -> None:
    rules = PermissionRules(allow=("shell(git *)",), ask=("shell(git push*)",))
    assert action(rules, command) == "ask", command


@pytest.mark.parametrize("command", [
    "perl -lne 'system(\"rm x\")' f", "perl -i -pe 'system(\"rm x\")' f",
    "perl -l -e 'system(\"rm x\")'", "perl -l0ne 'system(\"rm x\")' f",
    "perl -0777 -ne 'system(\"rm x\")' f", "perl -I lib -e 'system(\"rm x\")'",
])
def test_perls_code_is_found_behind_its_flags_and_optional_values(command: str) -> None:
    # shell22c: `perl -lne CODE` ran: -l takes only octal digits and -i only the rest of its
    # word, but both were read as taking the next word (the code) as their value
    assert verdict(command) == "ask", command


@pytest.mark.parametrize("command", [
    "perl -lne 'print $1 if /(x)/' f", "perl -pi -e 's/a/b/' f", "perl -i.bak -pe 's/a/b/' f",
    "perl -ine 'system(1)'",  # -i takes "ne" as its backup suffix: the word is a script file
])
def test_perl_with_plain_code_still_runs(command: str) -> None:
    assert verdict(command) == "run", command
