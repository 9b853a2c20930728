"""The deny backstop: under ``--deny 'shell(rm *)'`` a line that may run rm is asked about.

Whatever program runs it — one goosectx does not know (``rustup run``, ``pm2 start``,
``vglrun``), a subcommand that runs a command (``brew sh``, ``meson devenv``), a build tool's
setting (``make x CC=rm``, ``GOFLAGS=-toolexec=rm``) — and the reason names the part, the
program and what goosectx does not know; everyday commands that name rm or git as data still
run (docs/architecture.md §4).
"""

from __future__ import annotations

import pytest

from goosectx.permissions import PermissionRules
from tests.rules_support import DENY_RM, action, check_under_deny_rm, shell_verdict

UNKNOWN_RUNNERS = {
    "rustup run stable rm -rf src": "what rustup run runs",
    "gem exec rm -rf src": "what gem exec runs",
    "composer exec rm -rf src": "what composer exec runs",
    "brew sh -c 'rm -rf src'": "what brew sh runs",
    "brew bundle exec -- rm -rf src": "what brew bundle runs",
    "meson devenv -C build rm -rf src": "what meson devenv runs",
    "just --command rm -rf src": "just",
    "lerna exec -- rm -rf src": "what lerna exec runs",
    "rtx exec -- rm -rf src": "what rtx exec runs",
    "flox activate -- rm -rf src": "what flox activate runs",
    "flatpak run --command=rm org.x -rf src": "what flatpak run runs",
    "apptainer exec img.sif rm -rf src": "what apptainer exec runs",
    "singularity exec img.sif rm -rf src": "what singularity exec runs",
    "lxc exec c -- rm -rf src": "what lxc exec runs",
    "heroku run rm -rf src": "what heroku run runs",
    "railway run rm -rf src": "what railway run runs",
    "fly ssh console -C 'rm -rf src'": "what fly ssh runs",
    # gcloud compute ssh --command and ansible -a are read as remote command lines now: denied
    # (tests/test_rule_remote_commands.py)
    "salt-call cmd.run 'rm -rf src'": "salt-call",
    "firebase emulators:exec 'rm -rf src'": "what firebase emulators:exec runs",
    "watchman-make -p '**' --run 'rm -rf src'": "watchman-make",
    "reflex -- rm -rf src": "reflex",
    "pm2 start rm -- -rf src": "what pm2 start runs",
    "torify rm -rf src": "torify",
    "gksudo rm -rf src": "gksudo",
    "kdesu -c 'rm -rf src'": "kdesu",
    "xinit rm -rf src": "xinit",
    "vglrun rm -rf src": "vglrun",
    "primusrun rm -rf src": "primusrun",
    "optirun rm -rf src": "optirun",
    "prime-run rm -rf src": "prime-run",
    "gamemoderun rm -rf src": "gamemoderun",
    "mangohud rm -rf src": "mangohud",
    "foo -- rm -rf src": "foo",
    "foo --exec='cd /; rm -rf src'": "foo",
    "foo --run 'sudo -u root rm -rf src'": "foo",
    "foo --hook \"bash -c 'rm -rf src'\"": "foo",
    "foo exec:rm": "foo",
    "dc -e '!rm -rf src'": "dc",
    "pandoc --filter rm x.md": "pandoc",
    "gcc -wrapper rm,-rf,src x.c": "what gcc -wrapper runs",
    "nvm exec 18 rm -rf src": "what nvm exec runs",
    "opam exec -- rm -rf src": "what opam exec runs",
    "fzf --preview 'rm -rf {}'": "fzf",
    # the loader runs ./a.out and tmux runs `echo\; 'rm x'` (the program `echo;`), each with
    # an argument rm: programs goosectx does not know
    "/lib64/ld-linux-x86-64.so.2 --library-path /x ./a.out rm": "a.out",
    "tmux new -d 'echo\\;' 'rm x'": "echo;",
}


def asked_why(command: str, rules: PermissionRules = DENY_RM) -> str:
    """The reason of the ask ``command`` gets in auto mode under ``rules``."""
    verdict = shell_verdict(rules, command)
    assert verdict.action == "ask", (command, verdict.reason)
    return verdict.reason


@pytest.mark.parametrize("command", list(UNKNOWN_RUNNERS))
def test_a_program_goosectx_does_not_know_may_run_the_denied_one(command: str) -> None:
    assert asked_why(command).startswith(f"`{command}` may run rm, which the rule shell(rm *) "
                                         f"names; goosectx does not know "
                                         f"{UNKNOWN_RUNNERS[command]}")
    check_under_deny_rm(command, "ask")  # a shell(*) allow rule does not run it either


SETTINGS = {
    "make x CC=rm CFLAGS=-rf": "make may run the value of its setting CC",
    "mvn exec:exec -Dexec.executable=rm -Dexec.args='-rf src'":
        "mvn may run the value of its setting -Dexec.executable",
    "cmake -DCMAKE_C_COMPILER_LAUNCHER='rm;-rf;src' .":
        "cmake may run the value of its setting -DCMAKE_C_COMPILER_LAUNCHER",
    "CC='rm -rf src --' make x": "make may run CC's value",
    "export CC='rm -rf src'; make x": "make may run CC's value",
    "MAKEFLAGS='CC=rm' make x": "make may run MAKEFLAGS's value",
    "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER='rm -rf src2' cargo run":
        "cargo may run CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER's value",
    # GOFLAGS=-toolexec=rm go build: asked for any program (test_option_programs_code_given)
    # round 30: a variable set first and exported after, all exported, or handed on by env
    "CC=rm; export CC; make": "make may run CC's value",
    "export CC; CC='rm -rf src'; make x": "make may run CC's value",
    "CC=rm; declare -x CC; make": "make may run CC's value",
    "set -a; CC=rm; make": "make may run CC's value",
    "Y='x; rm f'; export Y; bash -c 'echo $Y'": "bash may run Y's value",
    "env CC=rm make": "make may run CC's value",
    "sudo CC='rm -rf src' make x": "make may run CC's value",
    "CC=rm; make x CC=$CC": "make may run the value of its setting CC",
    "X=rm; CC=$X make x": "make may run CC's value",
}


@pytest.mark.parametrize(("command", "part", "what"), [
    ("X=rm; rustup run stable $X -rf src", "rustup run stable $X -rf src", "what rustup run runs"),
    ("X=rm; pm2 start ${X} -- -rf src", "pm2 start ${X} -- -rf src", "what pm2 start runs"),
    ("X='rm -rf src'; foo --exec=\"$X\"", 'foo --exec="$X"', "foo"),
])
def test_a_variable_the_line_sets_is_read_by_its_value(command: str, part: str,
                                                       what: str) -> None:
    """Round 30: ``X=rm; rustup run stable $X -rf src`` ran under shell(rm *)."""
    assert asked_why(command).startswith(f"`{part}` may run rm, which the rule shell(rm *) "
                                         f"names; goosectx does not know {what}")


@pytest.mark.parametrize("command", list(SETTINGS))
def test_a_setting_naming_the_denied_program_is_asked_about(command: str) -> None:
    assert "may run rm, which the rule shell(rm *) names: " + SETTINGS[command] in asked_why(
        command)


def test_perl_debugger_code_from_perl5db_is_asked_about() -> None:
    assert asked_why("""PERL5DB='BEGIN{system("rm -rf src")}' perl -d x.pl""").startswith(
        "PERL5DB's perl code, which perl -d runs, runs commands")
    assert action(DENY_RM, "PERL5DB='BEGIN{print 1}' perl -d x.pl") == "run"


@pytest.mark.parametrize("command", ["LD_PRELOAD=./evil.so ls", "export LD_PRELOAD=./x.so; ls",
                                     "env LD_AUDIT=./a.so git status",
                                     "DYLD_INSERT_LIBRARIES=x.dylib make"])
def test_a_preloaded_library_is_asked_about(command: str) -> None:
    """Its code runs in the program, as ``openssl -engine x.so``'s does (round 30)."""
    assert " and that library's code may run any command" in asked_why(command)


EVERYDAY = [
    "brew install git", "yay -S git", "apt-get install -y git rm", "pyenv install 3.12",
    "gh pr create --title 'rm old code' --body 'git push later'",
    "git commit -m 'rm -rf src; git push'", "grep -rn 'rm -rf' src", "echo rm -rf src",
    "which rm git", "man rm", "command -v git", "ps aux | grep git", "pytest -k rm",
    "cargo test rm", "make test CC=gcc", "CC=gcc make", "export CC=clang; make",
    "cmake -DCMAKE_BUILD_TYPE=Release -B build", "GOFLAGS=-mod=mod go build ./...",
    "npm install rimraf", "uv run pytest -q", "tldr git", "jq '.rm' x.json", "node x.js rm",
    "python3 x.py rm", "flatpak install flathub org.x", "heroku logs --tail", "mvn -q test",
    "pm2 list", "foo --name=x bar", "export RM=1; foo", "foo --message 'please rm it, then git push'",
    "foo http://example.com/rm", "docker run --rm img git status", "docker exec box git log",
    "kubectl exec pod -- git status", "gcc -o x x.c", "nvm use 18", "pandoc -o x.html x.md",
    "sd 'rm' 'del' notes.txt", "semgrep -e 'rm -rf $X' --lang bash",
    "CC=gcc; export CC; make", "CC=rm; make", "set -a; X=1; make", "env CC=clang make",
    "LD_LIBRARY_PATH=./build/lib ./app", "LD_PRELOAD= ls", "X=rm; echo $X", "X=gcc; make CC=$X",
    "X=rm; grep -rn $X src",
]


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_commands_naming_rm_or_git_as_data_still_run(command: str) -> None:
    for deny in ("shell(rm *)", "shell(git push*)"):
        assert action(PermissionRules(deny=(deny,)), command) == "run", (deny, command)


def test_an_ask_rule_is_caught_the_same_way_and_named() -> None:
    assert "may run git, which the rule shell(git push*) names" in asked_why(
        "lerna exec -- git push", PermissionRules(ask=("shell(git push*)",)))


def test_without_a_deny_or_ask_rule_auto_runs_it() -> None:
    assert action(PermissionRules(), "rustup run stable rm -rf src") == "run"


@pytest.mark.parametrize("command", [
    "X=rm; Y=$X; rustup run stable $Y -rf src", "rustup run stable ${X:-rm} -rf src",
    "rustup run stable ${X:+$X} -rf src", "rustup run stable r${X}m -rf src",
    "rustup run stable $(echo rm) -rf src", "rustup run stable r{m,} -rf src",
    "rustup run stable {rm,x} -rf src", "A=(rm); rustup run stable ${A[0]} -rf src",
    "read X <<< rm; rustup run stable $X -rf src", "set -- rm; rustup run stable $1 -rf src",
    "CC='\"rm\"' make", "CC='\\rm' make", "CC=r; CC+=m; export CC; make",
    "X=rm; export CC=$X; make", "make CC={x,rm}", "rpm -qa --pipe 'rm -rf src'",
    "rpm --predefine 'x %(rm -rf src)' -q bash",
])
def test_a_program_name_made_at_run_time_or_quoted_is_asked_about(command: str) -> None:
    """Bash makes the name (an expansion, a brace list) or unquotes it: it may be rm (round 30)."""
    assert "may run rm, which the rule shell(rm *) names" in asked_why(command)


@pytest.mark.parametrize("command", [
    "rustup run stable cargo build", "rpm -qa", "rpm -q --define 'x 1' bash", "mytool $F.txt",
    "CC=$HOME/bin/gcc make", "X=gc; X+=c; export CC=$X; make", "export PYTHONPATH=$PWD; pytest",
    "X=$(pwd) make", "mytool \"$HOME\"",
])
def test_a_made_name_its_literal_parts_rule_out_still_runs(command: str) -> None:
    assert action(DENY_RM, command) == "run", command
