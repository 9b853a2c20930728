"""An allow rule for awk or sed covers reading and printing, nothing more (the trusted surface).

A fresh-eyes tester ran, under ``shell(awk*)`` and ``shell(sed -n*)``, ``awk
'BEGIN{system("touch …")}'``, ``sed -n '1e touch …' f``, ``sed -n 'w .git/HEAD' f`` (emptied
the repository's HEAD), ``sed -n 'r .env' f`` (printed the secrets), ``sed -n -i 1p Makefile``
(emptied it), ``awk 'BEGIN{print "x" > ".git/HEAD"}'``, ``awk 'BEGIN{getline l <
"/outside"}'`` and ``awk -i inplace …``: all ran unasked. Now awk's program and sed's script
are read (goosectx/awk_program.py, goosectx/sed_script.py) and what goes beyond reading the
operand files and printing asks. The same tester's false positives: a sed script, awk program
or grep pattern starting with ``/`` was judged as a path outside the project, grep's pattern
``.`` as the current dir holding ``.env``, awk's ``FS=/`` operand as a path
(goosectx/program_operands.py); these now run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import action_under_deny_rm, shell_verdict

from goosectx.permissions import PermissionRules

ALLOW = PermissionRules(allow=(
    "shell(ls*)", "shell(cat*)", "shell(grep*)", "shell(head*)", "shell(sed -n*)",
    "shell(awk*)", "shell(gawk*)"))
"""The tester's allow rules (the ones these commands meet)."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / ".git").mkdir()
    (work / "src" / "app.py").write_text("print('/api/users')\n")
    (work / ".env").write_text("KEY=1\n")
    (work / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (work / "Makefile").write_text("all:\n")
    (work / "data.csv").write_text("a/b,1\n")
    return work


def _verdict(project: Path, command: str,
             rules: PermissionRules = ALLOW) -> tuple[str, str]:
    verdict = shell_verdict(rules, command, "smart_approve", working_dir=project)
    return verdict.action, verdict.reason


@pytest.mark.parametrize("command", [
    # B1: awk runs a command
    "awk 'BEGIN{system(\"touch /tmp/pwned\")}'", "awk '{print | \"sh\"}' src/app.py",
    "awk 'BEGIN{\"date\" | getline d; print d}'", "gawk 'BEGIN{print \"x\" |& \"cat\"}'",
    "awk 'BEGIN{f = \"system\"; @f(\"touch x\")}'",
    "awk '{ if (x) /\"/; system(\"touch x\"); y = \"/\" }' src/app.py",  # a regex after if (…)
    # B2: sed runs a command
    "sed -n '1e touch /tmp/pwned' src/app.py", "sed -n 's/^/touch x/ep' src/app.py",
    # B3: sed writes or reads a file the path checks do not see
    "sed -n 'w .git/HEAD' src/app.py", "sed -n 'r .env' src/app.py",
    "sed -n -e 1p -e 'R .env' src/app.py", "sed -n 's/a/b/w .git/HEAD' src/app.py",
    "sed -n '1W Makefile' src/app.py", "sed -n -f script.sed src/app.py",
    # B4: sed writes in place under a rule written for sed -n
    "sed -n -i 1p Makefile", "sed -n --in-place=.bak 1p Makefile", "sed -n --in-pl 1p Makefile",
    "sed -n -z -i 1p Makefile", "sed -n -s -i 1p Makefile", "sed -n -i.bak 1p Makefile",
    "sed -n -E -i 1p Makefile",
    # B5: awk's file input and output, program files, extensions
    "awk 'BEGIN{print \"x\" > \".git/HEAD\"}'", "awk '{print >> \"Makefile\"}' src/app.py",
    "awk '{printf \"%s\", $0 > $1}' src/app.py", "awk '{print(\"x\") > \"Makefile\"}' f",
    "awk 'BEGIN{getline l < \"/etc/hostname\"; print l}'",
    "awk 'BEGIN{getline < (\".e\" \"nv\"); print}'", "awk '{getline a[1] < \".env\"}' f",
    "awk 'BEGIN{ARGV[1] = \".env\"; ARGC = 2} {print}'", "awk -i inplace '{print \"z\"}' Makefile",
    "awk -f prog.awk src/app.py", "awk --include=lib '{print}' f", "awk -l ordchr '{print}' f",
    "awk --load ordchr '{print}' f", "awk '@include \"lib\"; {print}' f", "awk -E prog.awk f",
    "awk --exec=prog.awk f", "awk -o '{print}' f", "mawk -W exec prog f",
    "awk \"$PROG\" src/app.py",
])
def test_what_goes_beyond_reading_and_printing_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", (command, reason)


@pytest.mark.parametrize("command", [
    "sed -n '1,20p' src/app.py", "sed -n 's/a/b/gp' src/app.py", "sed -n '/print/p' src/app.py",
    "sed -n '$=' src/app.py", "sed -n 'w /dev/stdout' src/app.py", "sed -n -E '/^x/,/y/p' src/app.py",
    "awk '{print $1}' src/app.py", "awk -F: '$3>0' src/app.py", "awk '$3 > 100 {print $1}' data.csv",
    "awk -F, '{s+=$2} END {print s}' data.csv", "awk '/re/ {print NR}' src/app.py",
    "awk '{print $NF}' FS=/ data.csv", "awk -F / '{print $1}' data.csv",
    "awk -v sep=/ '{print $1 sep}' data.csv", "awk '{print (NR > 1)}' data.csv",
    "awk '{print > \"/dev/stderr\"}' data.csv", "awk '{n = (a + b) / 2; print n / 3}' data.csv",
    "awk 'length($0) > 72' src/app.py", "awk '!seen[$0]++' src/app.py",
    "awk '{a[$1]++} END {for (k in a) print k, a[k]}' data.csv", "awk '{print ENVIRON[\"HOME\"]}' f",
    "grep -n foo src/app.py", "grep -n '/api/users' src/app.py", "grep -n '//' src/app.py",
    "grep -rn '.' src", "grep -rn -e '/api' src", "grep -c '/' data.csv",
])
def test_reading_and_printing_still_runs(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert (action, reason.split(":")[0]) == ("run", "allowed by a permission rule"), reason


@pytest.mark.parametrize(("command", "said"), [
    ("grep -rn KEY .", ". (holding .env) is a sensitive file"),
    ("grep -r KEY", ". (holding .env) is a sensitive file"),
    ("grep -r -- '.' .", ". (holding .env) is a sensitive file"),
    ("grep -A 3 x /etc/hosts", "/etc/hosts is outside the project"),
    ("grep -f pats /etc/hosts", "/etc/hosts is outside the project"),
    ("grep -n x .env", ".env is a sensitive file"),
    ("sed -n 1p /etc/hosts", "/etc/hosts is outside the project"),
    ("awk '{print}' /etc/hosts", "/etc/hosts is outside the project"),
    ("awk '{print}' -F /etc/hosts", "/etc/hosts is outside the project"),  # an operand: awk
    ("awk '{print}' FS=, .env", ".env is a sensitive file"),
])
def test_a_pattern_is_no_path_but_the_files_still_are(project: Path, command: str,
                                                      said: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert said in reason, reason


@pytest.mark.parametrize("command", [
    "sed -e p -ie /etc/hosts",  # -i's suffix is `e`: /etc/hosts is a file, written in place
    "sed -i.e -e p /etc/hosts", "sed -i -- 1p /etc/hosts", "sed -e p -- /etc/hosts",
])
def test_a_file_after_sed_s_in_place_suffix_is_still_judged(project: Path, command: str) -> None:
    action, reason = _verdict(project, command, PermissionRules(allow=("shell(sed*)",)))
    assert action == "ask", reason
    assert "/etc/hosts is outside the project" in reason, reason


@pytest.mark.parametrize(("rule", "command", "expected"), [
    ("shell(sed*)", "sed -i 's/a/b/' Makefile", "run"),  # the user's own rule: sed, any way
    ("shell(sed -i*)", "sed -i 's/a/b/' Makefile", "run"),
    ("shell(sed -n -i*)", "sed -n -i 1p Makefile", "run"),
    ("shell(sed -n*)", "sed -n -i 1p Makefile", "ask"),
    ("shell(sed -E*)", "sed -E -i 's/a/b/' Makefile", "ask"),
    ("shell(sed*)", "sed 'w .git/HEAD' src/app.py", "ask"),
])
def test_writing_in_place_is_covered_only_where_the_rule_allows_it(
        project: Path, rule: str, command: str, expected: str) -> None:
    action, reason = _verdict(project, command, PermissionRules(allow=(rule,)))
    assert action == expected, reason


@pytest.mark.parametrize("command", [
    "sed 's/a/b/w out.txt' f", "sed '/x/r extra.txt' f", "awk '{print > \"out\"}' f",
    "sed -i 's/a/b/' f", "awk -f prog.awk f",
])
def test_deny_rules_still_judge_commands_run_not_files_written(command: str) -> None:
    assert action_under_deny_rm(command) == "run"


@pytest.mark.parametrize("command", [
    "awk 'BEGIN{system(\"r\" \"m x\")}'", "awk '{print | c}' f", "sed '1e rm x' f",
])
def test_deny_rules_still_ask_about_a_command_run(command: str) -> None:
    assert action_under_deny_rm(command) == "ask"


@pytest.mark.parametrize("command", [
    "awk 'BEGIN{system(\"rm x\")}'", "awk '{print | \"rm x\"}' f",
])
def test_deny_rules_deny_a_command_awk_spells_as_one_string(command: str) -> None:
    assert action_under_deny_rm(command) == "deny"  # as bash -c 'rm x' (fp27)
