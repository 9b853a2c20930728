"""An allow rule for a runner covers the runner only: the program it starts needs its own rule.

runs28: ``shell(uv run*)`` let ``uv run rm -rf src`` run unasked, and so did ``fakeroot``,
``strace``, ``docker exec``, ``poetry run``, ``npx``, ``bundle exec``, ``taskset`` …; the
wrappers (``env``, ``timeout``, ``find -exec``) already asked. Now a runner's command is read
after its options (``strace -o log pytest``: ``-o`` takes ``log``) and matched against the
allow rules as a command of its own; a rule that spells the runner up to the program
(``shell(uv run pytest*)``) covers it. ``sudo --user root pytest`` no longer reads ``root``
as sudo's program; ``/bin/rm`` is covered by ``shell(rm*)`` (``./rm`` is not); and with no
rule at all the question says what an option does (``tar --index-file writes …``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import ALLOW_ALL_DENY_RM, shell_verdict
from rules_support import action as verdict
from test_rule_started_commands import _verdict
from test_rule_started_commands import work as work  # the fixture: a project with src/a.py

from goosectx.permissions import PermissionRules

ASKED = [
    ("uv run rm -rf src", "shell(uv run*)", "uv run runs rm"),
    ("uv run --with pytest rm -rf src", "shell(uv run*),shell(pytest*)", "uv run runs rm"),
    ("uv run -w pytest rm -rf src", "shell(uv run*),shell(pytest*)", "uv run runs rm"),
    ("uv run -q --python 3.12 rm -rf src", "shell(uv run*)", "uv run runs rm"),
    ("uv run --not-an-option pytest rm", "shell(uv run*),shell(pytest*)", "uv run runs rm"),
    ("uv run env rm -rf src", "shell(uv run*),shell(env*)", "env runs rm"),
    ("poetry run rm -rf src", "shell(poetry run*)", "poetry run runs rm"),
    ("pipenv run rm -rf src", "shell(pipenv run*)", "pipenv run runs rm"),
    ("npx rimraf src", "shell(npx*)", "npx runs rimraf"),
    ("npx -p rimraf rimraf src", "shell(npx*)", "npx runs rimraf"),
    ("pnpm exec rimraf src", "shell(pnpm exec*)", "pnpm exec runs rimraf"),
    ("bundle exec rm -rf src", "shell(bundle exec*)", "bundle exec runs rm"),
    ("conda run -n base rm -rf src", "shell(conda run*)", "conda run runs rm"),
    ("direnv exec . rm -rf src", "shell(direnv exec*)", "direnv exec runs rm"),
    ("fakeroot rm -rf src", "shell(fakeroot*)", "fakeroot runs rm"),
    ("fakeroot -l lib.so rm -rf src", "shell(fakeroot*)", "fakeroot runs rm"),
    ("strace -f -o log rm -rf src", "shell(strace*)", "strace runs rm"),
    ("strace --output log rm -rf src", "shell(strace*)", "strace runs rm"),
    ("ltrace -o out rm -rf src", "shell(ltrace*)", "ltrace runs rm"),
    ("valgrind --tool=memcheck rm -rf src", "shell(valgrind*)", "valgrind runs rm"),
    ("taskset -c 0 rm -rf src", "shell(taskset*)", "taskset runs rm"),
    ("taskset --cpu-list 0 rm -rf src", "shell(taskset*)", "taskset runs rm"),
    ("unshare -r rm -rf src", "shell(unshare*)", "unshare runs rm"),
    ("nsenter -t 1 -m rm -rf src", "shell(nsenter*)", "nsenter runs rm"),
    ("runuser -u bob -- rm -rf src", "shell(runuser*)", "runuser runs rm"),
    ("docker exec box rm -rf /w/src", "shell(docker exec*)", "docker exec runs rm"),
    ("docker exec -it -u root box rm -rf /w", "shell(docker exec*)", "docker exec runs rm"),
    ("docker compose exec -T web rm -rf /w", "shell(docker compose exec*)",
     "docker exec runs rm"),
    ("kubectl exec -it pod -c app -- rm -rf /w", "shell(kubectl exec*)", "kubectl exec runs rm"),
    ("mpirun -n 4 rm -rf src", "shell(mpirun*)", "mpirun runs"),
    ("xterm -e rm -rf src", "shell(xterm*)", "xterm runs rm"),
    ("parallel rm -rf ::: src", "shell(parallel*)", "parallel runs rm"),
    ("parallel ::: 'rm -rf src'", "shell(parallel*)", "parallel runs rm"),
    ("watchexec 'rm -rf src'", "shell(watchexec*)", "watchexec runs rm"),
    ("hyperfine 'rm -rf src'", "shell(hyperfine*)", "hyperfine runs rm"),
    ("chrt -f 10 rm -rf src", "shell(chrt*)", "chrt runs rm"),
    ("numactl -N 0 rm -rf src", "shell(numactl*)", "numactl runs rm"),
    ("mise exec node@20 -- rm -rf src", "shell(mise exec*)", "mise exec runs rm"),
    ("nix develop -c rm -rf src", "shell(nix develop*)", "nix develop runs rm"),
    # runners no round read: cargo watch's shell line, secret managers' commands
    ("cargo watch -x check -s 'rm -rf src'", "shell(cargo*)", "cargo runs rm"),
    ("cargo watch --shell='rm -rf src'", "shell(cargo*)", "cargo runs rm"),
    ("cargo watch -- rm -rf src", "shell(cargo*)", "cargo runs rm"),
    ("cargo watch --use-shell ./x.sh -x test", "shell(cargo*)", "cargo runs ./x.sh"),
    ("doppler run -- rm -rf src", "shell(doppler run*)", "doppler run runs rm"),
    ("infisical run -- rm -rf src", "shell(infisical run*)", "infisical run runs rm"),
    ("chamber exec svc -- rm -rf src", "shell(chamber exec*)", "chamber exec runs rm"),
    ("sops exec-env secrets.yaml 'rm -rf src'", "shell(sops*)", "sops exec-env runs rm"),
]


@pytest.mark.parametrize(("command", "rules", "named"), ASKED,
                         ids=[f"{rules}: {command}" for command, rules, _ in ASKED])
def test_what_a_runner_starts_needs_its_own_allow_rule(work: Path, command: str, rules: str,
                                                       named: str) -> None:
    found = _verdict(work, command, rules)
    assert found.action == "ask", (command, found.reason)
    assert named in found.reason, found.reason
    assert found.read_why is not None and named in found.read_why  # the question says it


def test_the_question_names_the_runner_and_its_rule(work: Path) -> None:
    found = _verdict(work, "uv run rm -rf src", "shell(uv run*)")
    assert found.read_why == ("uv run runs rm, which no allow rule covers "
                              "(shell(uv run*) covers the rest of the line)")


EVERYDAY = [
    ("uv run pytest -q", "shell(uv run*),shell(pytest*)"),
    ("uv run pytest -k rm tests/test_a.py", "shell(uv run*),shell(pytest*)"),
    ("uv run -q --frozen --with rich python app.py", "shell(uv run*),shell(python*)"),
    ("uv run --python 3.12 -- pytest", "shell(uv run*),shell(pytest*)"),
    ("uv run --not-an-option pytest -q", "shell(uv run*),shell(pytest*)"),
    ("poetry run pytest", "shell(poetry run*),shell(pytest*)"),
    ("pipenv run pytest", "shell(pipenv run*),shell(pytest*)"),
    ("bundle exec rspec spec/a_spec.rb", "shell(bundle exec*),shell(rspec*)"),
    ("npx -p typescript tsc --noEmit", "shell(npx*),shell(tsc*)"),
    ("pnpm exec vitest run", "shell(pnpm exec*),shell(vitest*)"),
    ("conda run -n base pytest", "shell(conda run*),shell(pytest*)"),
    ("docker exec -it box pytest -q", "shell(docker exec*),shell(pytest*)"),
    ("docker compose exec -T web pytest", "shell(docker compose exec*),shell(pytest*)"),
    ("kubectl exec -it pod -c app -- pytest", "shell(kubectl exec*),shell(pytest*)"),
    ("strace -f -e trace=openat -s 200 -o log pytest -q", "shell(strace*),shell(pytest*)"),
    ("ltrace -o out make", "shell(ltrace*),shell(make*)"),
    ("valgrind --leak-check=full make check", "shell(valgrind*),shell(make*)"),
    ("fakeroot -- make install", "shell(fakeroot*),shell(make*)"),
    ("taskset -c 0 pytest", "shell(taskset*),shell(pytest*)"),
    ("taskset -p 0x3 1234", "shell(taskset*)"),
    ("unshare --mount --pid --fork pytest", "shell(unshare*),shell(pytest*)"),
    ("nsenter -t 1 -m make", "shell(nsenter*),shell(make*)"),
    ("runuser -u bob -- make", "shell(runuser*),shell(make*)"),
    ("parallel 'pytest {}' ::: a b", "shell(parallel*),shell(pytest*)"),
    ("docker ps -a", "shell(docker ps*)"),
    ("chrt -f 10 pytest", "shell(chrt*),shell(pytest*)"), ("chrt -p 1234", "shell(chrt*)"),
    ("numactl --cpunodebind 0 --membind=0 pytest", "shell(numactl*),shell(pytest*)"),
    ("mise exec node@20 -- node x.js", "shell(mise exec*),shell(node*)"),
    ("nix develop -c make", "shell(nix develop*),shell(make*)"),
    ("cargo watch -x check -x 'test -q'", "shell(cargo*)"),
    ("cargo watch -w src -s 'cargo test'", "shell(cargo*)"),
    ("doppler run -- pytest", "shell(doppler run*),shell(pytest*)"),
    ("sops exec-env secrets.yaml pytest", "shell(sops*),shell(pytest*)"),
    ("sops -d secrets.yaml", "shell(sops*)"),
    # a runner's rule that spells the program covers it
    ("uv run pytest -q", "shell(uv run pytest*)"),
    ("bundle exec rspec spec/a_spec.rb", "shell(bundle exec rspec*)"),
    ("timeout 60 pytest -q", "shell(timeout 60 pytest*)"),
    ("find . -exec rm {} +", "shell(find . -exec rm*)"),
    # project scripts by name: the project's own commands, trusted as before
    ("npm run test", "shell(npm run*)"), ("make test", "shell(make*)"),
]


@pytest.mark.parametrize(("command", "rules"), EVERYDAY,
                         ids=[f"{rules}: {command}" for command, rules in EVERYDAY])
def test_everyday_runner_lines_run_with_the_rules_a_user_writes(work: Path, command: str,
                                                                rules: str) -> None:
    found = _verdict(work, command, rules)
    assert found.action == "run", (command, found.reason)


@pytest.mark.parametrize(("command", "rules", "named"), [
    ("uv run pytest -q", "shell(uv run *)", "uv run runs pytest"),
    ("uv run pytest -q", "shell(uv run py*)", "uv run pytest -q is covered by no allow rule"),
    ("uv run pytest -q; uv run rm -rf src", "shell(uv run pytest*)", "uv run rm -rf src"),
    ("find . -exec rm {} + -exec python3 x.py {} +", "shell(find . -exec rm*)",
     "find -exec runs python3"),
])
def test_a_rule_spelling_one_program_covers_that_program_only(work: Path, command: str,
                                                              rules: str, named: str) -> None:
    found = _verdict(work, command, rules)
    assert found.action == "ask", found.reason
    assert named in found.reason, found.reason


def test_a_deny_rule_still_asks_about_a_runners_command() -> None:
    for command in ("uv run rm x", "strace -o log rm x", "docker exec box rm x",
                    "doppler run -- rm x", "sops exec-env s.yaml 'rm x'"):
        assert verdict(ALLOW_ALL_DENY_RM, command) == "ask", command
    for command in ("cargo watch -s 'rm x'", "cargo watch -- rm x"):  # read as it runs
        assert verdict(ALLOW_ALL_DENY_RM, command) == "deny", command


@pytest.mark.parametrize(("command", "expected"), [
    ("sudo --user root pytest", "run"), ("sudo --user=root pytest", "run"),
    ("sudo -u root pytest", "run"), ("sudo -uroot pytest", "run"), ("sudo --login pytest", "run"),
    ("sudo --preserve-env=PATH pytest", "run"), ("sudo --preserve-env pytest", "run"),
    ("sudo --chdir src pytest", "run"), ("sudo -D src pytest", "run"), ("sudo -- pytest", "run"),
    ("sudo --us root pytest", "run"),  # a prefix getopt takes for --user
    ("sudo --user root rm -rf src", "ask"), ("sudo --chdir src rm -rf x", "ask"),
    ("sudo --preserve-env rm -rf src", "ask"), ("sudo --host h rm -rf src", "ask"),
    ("sudo -- rm -rf src", "ask"),
])
def test_sudos_long_options_are_read_one_way(work: Path, command: str, expected: str) -> None:
    """``sudo --user root pytest`` asked "sudo runs root": --user was read both ways."""
    found = _verdict(work, command, "shell(sudo*),shell(pytest*)")
    assert found.action == expected, (command, found.reason)
    if expected == "ask":
        assert "sudo runs rm" in found.reason, found.reason


@pytest.mark.parametrize(("command", "rules", "expected"), [
    ("find . -name '*.pyc' -exec /bin/rm {} +", "shell(find*),shell(rm*)", "run"),
    ("find . -name '*.pyc' -exec /usr/bin/rm -f {} +", "shell(find*),shell(rm*)", "run"),
    ("/usr/bin/rm -f a.pyc", "shell(rm*)", "run"),
    ("/usr/local/bin/black src", "shell(black*)", "run"),
    ("/bin/rm a.pyc", "shell(/bin/rm*)", "run"),
    ("find . -exec ./rm {} +", "shell(find*),shell(rm*)", "ask"),
    ("./rm a.pyc", "shell(rm*)", "ask"),
    ("/bin/../tmp/rm a.pyc", "shell(rm*)", "ask"),
    ("/opt/bin/rm a.pyc", "shell(rm*)", "ask"),
    ("/usr/bin/sed -n -i 1p src/a.py", "shell(sed -n*)", "ask"),
    ("sudo /bin/rm a.pyc", "shell(sudo*),shell(rm*)", "run"),
    ("fd -e pyc -x /bin/rm", "shell(fd*),shell(rm*)", "run"),
    ("cat /usr/bin/rm", "shell(cat*)", "ask"),  # read, not run: outside the project
])
def test_a_program_in_a_system_dir_is_covered_by_its_names_rule(
        work: Path, command: str, rules: str, expected: str) -> None:
    found = _verdict(work, command, rules)
    assert found.action == expected, (command, found.reason)


def test_a_project_program_by_path_is_named_in_the_question(work: Path) -> None:
    found = _verdict(work, "find . -exec ./rm {} +", "shell(find*),shell(rm*)")
    assert found.read_why is not None and "find -exec runs ./rm" in found.read_why


@pytest.mark.parametrize(("command", "named"), [
    ("tar -cf a.tar --index-file=idx src", "tar --index-file writes its output to the file named"),
    ("sort -o out data.txt", "sort -o writes its output to the file named"),
    ("date -s now", "date -s changes the system's settings"),
    ("git diff --output=Makefile", "git --output names a file or directory it writes"),
    ("sqlite3 db \"select writefile('x', 'y')\"", "sqlite3 runs a dot-command or function"),
])
def test_with_no_rule_the_question_says_what_the_option_does(work: Path, command: str,
                                                             named: str) -> None:
    """Before, the question said only "the call may change something"."""
    found = shell_verdict(PermissionRules(), command, "smart_approve", working_dir=work)
    assert found.action == "ask"
    assert found.read_why is not None and named in found.read_why, found
    assert named in found.reason


def test_with_no_rule_a_plain_command_is_asked_about_as_before(work: Path) -> None:
    found = shell_verdict(PermissionRules(), "tar -cf a.tar src", "smart_approve",
                          working_dir=work)
    assert (found.action, found.reason, found.read_why) == (
        "ask", "the call may change something: approval needed", None)
