"""Short options in a cluster read as getopt (or the program's own parser) reads them.

Approval round 7 (clus28): a code, command or target-directory option inside a cluster
(``node -pe CODE``, ``rsync -ave CMD``, ``tar xvIf CMD a.tar``, ``cp -vt .git/hooks f``) or
with its value glued (``nc -le/bin/rm``, ``cp -t.git/hooks f``) is read as its plain form is:
asked about or denied under ``run --mode auto --deny 'shell(rm *)'``, as ``-e CMD`` alone is.
"""

from __future__ import annotations

import pytest
from rules_support import action, check_under_deny_rm, deny_rm_cases, shell_verdict

from goosectx.permissions import PermissionRules

_NODE = 'require("child_process").execSync("rm victim")'


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(denied=[], asked=[
    f"node -pe '{_NODE}'", f"node -ep '{_NODE}'", f"nodejs -pe '{_NODE}'",
    f"node -r dotenv/config -pe '{_NODE}'", "bun -p 'Bun.$`rm x`'", "bun -pe 'Bun.$`rm x`'",
    "bun -e 'Bun.$`rm x`'",
], still_run=["node -pe 1", "node -pe 'process.version'", "bun -p '1 + 1'", "node x.js"]))
def test_node_and_bun_code_options_in_one_word_take_the_next_word(command: str,
                                                                  expected: str) -> None:
    check_under_deny_rm(command, expected)


def test_node_pe_is_asked_about_for_its_code_not_a_glued_value() -> None:
    reason = shell_verdict(PermissionRules(deny=("shell(rm *)",)), f"node -pe '{_NODE}'").reason
    assert "inline node code runs commands" in reason


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(denied=[], asked=[
    "cp -vt .git/hooks pre-commit", "cp -at .git/hooks x", "cp -t.git/hooks x",
    "cp -rt.git/hooks d", "mv -t.git/hooks x", "mv -ft .git/hooks x", "ln -st .git/hooks x",
    "install -Dt.git/hooks x", "install -m 755 -Dt .git/hooks x", "cp -t .git/hooks x",
    "cp --target-directory=.git/hooks x",
], still_run=[
    "cp -ta .git/hooks x",  # getopt: -t takes "a" (the rest of its word); .git/hooks is a source
    "cp -St .git/hooks/x y",  # -S takes "t" as the backup suffix: no target directory
    "cp -vt build/ a b", "cp -av src dst", "install -Dm755 x bin/x",
]))
def test_a_target_directory_in_a_cluster_or_glued_is_read_as_getopt_does(command: str,
                                                                          expected: str) -> None:
    check_under_deny_rm(command, expected)


def test_a_hook_written_through_cp_vt_is_asked_about_beside_an_allow_rule_for_cp() -> None:
    verdict = shell_verdict(PermissionRules(allow=("shell(cp*)",)),
                            "cp -vt .git/hooks pre-commit", "smart_approve")
    assert verdict.action == "ask"
    assert "a hook is a command a later git runs" in verdict.reason
    assert action(PermissionRules(allow=("shell(cp*)",)), "cp -vt build a",
                  "smart_approve") == "run"


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(denied=[
    "rsync -ave 'rm x' a h:b", "rsync -avze 'rm x' a h:b", "rsync -e'rm x' a h:b",
    "rsync a h:b -ave 'rm x'", "tar -xvI 'rm x' -f a.tar", "tar -cvF 'rm x' -f a.tar",
    "tar xvIf 'rm x' a.tar", "tar xvfI a.tar 'rm x'", "tar -xvf a.tar -I'rm x'",
    "zip -rTT 'rm x' a.zip d", "zip -TT 'rm x' a.zip d", "xe -as 'rm x'", "flock -nc 'rm x' l",
    "nc -le/bin/rm 80", "nc -vle /bin/rm 80", "nc -lc 'rm x'", "ncat -lve 'rm x'",
    "ncat -lvc 'rm x'", "nc -e /bin/rm h 80",
], asked=[], still_run=[
    "rsync -av a h:b", "rsync -avB 1024 a h:b", "tar xvf a.tar", "tar -czf a.tgz d",
    "tar xvfC a.tar out", "zip -r a.zip d", "zip -T a.zip", "nc -lv 80", "nc -w 3 h 80",
    "nc -zv h 22", "ncat -lk 8080", "flock -n l true",
]))
def test_a_command_option_in_a_cluster_is_read_like_the_option_alone(command: str,
                                                                     expected: str) -> None:
    check_under_deny_rm(command, expected)


@pytest.mark.parametrize("command", [
    "nc -se /bin/rm 80",  # -s takes "e" (a source address); /bin/rm is the host
    "rsync -fe 'rm x' h:b",  # -f takes the filter rule "e"; 'rm x' is a source file
    "tar -xfe 'rm x'",  # -f takes the archive "e"; 'rm x' is a member
    "zip -bTT 'rm x' d",  # -b takes "TT" (its temporary dir); 'rm x' is the archive
])
def test_a_letter_that_is_another_option_s_value_is_not_a_command(command: str) -> None:
    assert action(PermissionRules(deny=("shell(rm *)",)), command) == "run"


@pytest.mark.parametrize("command", ["rsync -ave 'rm x' a h:b", "rsync -avze 'rm x' a h:b"])
def test_rsync_clustered_e_is_asked_about_beside_an_allow_rule_for_rsync(command: str) -> None:
    verdict = shell_verdict(PermissionRules(allow=("shell(rsync*)",)), command, "smart_approve")
    assert verdict.action == "ask"
    assert "rsync runs rm" in verdict.reason
