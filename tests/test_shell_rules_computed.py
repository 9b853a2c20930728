"""Shell rules see commands run through names and paths bash computes, or ask about them.

rev20 findings F2, F3, F4, F10, F11: a deny rule for ``rm`` let through ``jobs -x rm x``, a
script read from standard input under a path the rules did not recognise (``~/../dev/stdin``,
``$f``, ``./stdin`` after ``cd /dev``), a prompt variable set under a computed name
(``printf -v "PS$((2+2))"``, ``: ${PS4:=$x}``), ``ENV``, ``flock LOCK -c 'CMD'``,
``sg GROUP 'CMD'``, ``make -f /dev/stdin`` and ``env -S 'rm\\_x'``. Each really deletes its
file in bash when let through.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm, run_cli
from rules_support import DENY_RM
from rules_support import action as verdict

from goosectx.permissions import PermissionRules, suggested_rule

ALLOW_PLAIN = PermissionRules(allow=tuple(f"shell({p})" for p in (
    "printf *", "set *", "true*", "read *", "export *", "unset *", ":*", "echo *", "declare *",
    "awk *", "sed *", "make *", "jobs *", "cd *", "bash *", ". *", "flock *", "sg *")))


@pytest.mark.parametrize("command", [
    "jobs -x rm -f v", "jobs -x bash -c 'rm -f v'", "flock lk -c 'rm -f v'",
    "flock -c 'rm -f v' lk", "flock --command='rm -f v' lk", "sg root 'rm -f v'"])
def test_a_command_run_by_jobs_x_flock_c_or_sg_is_matched(command: str) -> None:
    assert verdict(DENY_RM, command) == "deny", command


def test_no_command_prefix_rule_is_offered_for_jobs_x() -> None:
    assert suggested_rule("shell", {"command": "jobs -x rm -f v"}) is None


UNSEEN_SCRIPTS = [
    ". ~/../../../../dev/stdin <<< 'rm -f v'", "bash ~/../../../../dev/stdin <<< 'rm -f v'",
    ". $HOME/../../../../dev/stdin <<< 'rm -f v'", "f=/dev/stdin; . $f <<< 'rm -f v'",
    "f=/dev/stdin; bash $f <<< 'rm -f v'", ". \"$(echo /dev/stdin)\" <<< 'rm -f v'",
    "cd /dev && . ./stdin <<< 'rm -f $OLDPWD/v'", "cd /proc/self/fd && bash 0 <<< 'rm -f v'",
    ". /proc/self/root/dev/stdin <<< 'rm -f v'", "bash /dev/stderr 2<<< 'rm -f v'",
    "python3 ~/../../../../dev/stdin <<< 'import os; os.remove(\"v\")'",
    "awk -f ~/../../../../dev/stdin <<< 'BEGIN{system(\"rm -f v\")}'",
    "f=/dev/stdin; sed -f $f x <<< '1e rm -f v'", "awk -f - x <<< 'BEGIN{system(\"rm -f v\")}'",
    "make -f /dev/stdin <<< $'all:\\n\\trm -f v'", "make --file=- <<< $'all:\\n\\trm -f v'"]


@pytest.mark.parametrize("command", UNSEEN_SCRIPTS)
def test_a_script_path_the_rules_cannot_see_is_a_file_is_asked_about(command: str) -> None:
    assert verdict(DENY_RM, command) == "ask", command


@pytest.mark.parametrize("command", [c for c in UNSEEN_SCRIPTS if c.startswith(
    ("awk", "make", ". ~", "bash ~", "cd"))])
def test_an_allow_rule_does_not_cover_a_script_read_from_an_unseen_path(command: str) -> None:
    assert verdict(ALLOW_PLAIN, command, "approve") == "ask", command


COMPUTED_NAMES = [
    "printf -v \"PS$((2+2))\" '%s' '$(rm -f v)'; set -x; true",
    "n=4; x='$(rm -f v)'; printf -v PS$n %s \"$x\"; set -x; true",
    "x='$(rm -f v)'; IFS= read -r PS${n:-4} <<< \"$x\"; set -x; true",
    "x='$(rm -f v)'; read -r ${n:-PS4} <<< \"$x\"; set -x; true",
    "x='$(rm -f v)'; export \"PS${n:-4}=$x\"; set -x; true",
    "x='$(rm -f v)'; declare PS${n:-4}=$x; set -x; true",
    "x=PS; declare -n r=${x}4; r='$(rm -f v)'; set -x; true",
    "unset PS${n:-4}; x='$(rm -f v)'; : ${PS4:=$x}; set -x; true",
    "x='$(rm -f v)'; : ${PS4:=$x}; set -x; true", "cat <<EOF\n${PROMPT_COMMAND=$x}\nEOF",
    "x='$(rm -f v)'; unset PS4; echo \"${PS4=$x}\" >/dev/null; set -x; true",
    "printf -v x 'a[%s(rm -f v)]' '$'; printf -v \"$x\" 1",
    "printf -v x 'a[%srm -f v%s]' '`' '`'; [[ x -eq 0 ]]",
    "x='$(rm -f v)'; export ENV=$x; bash --posix -i -c true",
    "ENV='$(rm -f v)' bash --posix -i -c true", "env -S 'rm\\_-f\\_v'",
    "X=rm env -S '${X} -f v'"]


@pytest.mark.parametrize("command", COMPUTED_NAMES)
def test_a_prompt_variable_set_under_a_computed_name_is_asked_about(command: str) -> None:
    assert verdict(DENY_RM, command) == "ask", command
    assert verdict(ALLOW_PLAIN, command, "approve") == "ask", command


def test_plain_names_and_paths_are_still_read() -> None:
    for command in ("read line", "read -r -p \"Name $u: \" name", "printf -v out '%s' \"$x\"",
                    "printf -v out '%s\\n' \"$x\"", "declare x=$y", "export PATH=$PATH:/x",
                    "local n=\"$1\"", "ENV=prod ls", "bash ./run.sh", ". venv/bin/activate",
                    "awk -f prog.awk f", "make -f Makefile.ci", "flock lk ls", "jobs -l",
                    "env -S 'ls -l'", ". ../env.sh", "bash ../run.sh", "read -a words",
                    "printf -v line '[%s] %s' \"$lvl\" \"$msg\"", "unset x y"):
        assert verdict(ALLOW_PLAIN.merged(PermissionRules(allow=(
            "shell(ls*)", "shell(local *)", "shell(ENV=prod ls)", "shell(env *)"))),
            command, "approve") == ("ask" if ".." in command or "awk -f" in command else "run"), (
                command)  # ../x: outside; awk -f: a program file the rules do not read
        assert verdict(DENY_RM, command) == "run", command


def test_run_in_auto_mode_runs_none_of_the_rms_behind_computed_names(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_auto_denying_rm(fake_model, workdir, capsys, [
        "jobs -x rm -f v1", ". ~/../../../../../../../../dev/stdin <<< 'rm -f v2'",
        "printf -v \"PS$((2+2))\" '%s' '$(rm -f v3)'; set -x; true",
        "flock lk -c 'rm -f v4'", "x='$(rm -f v5)'; : ${PS4:=$x}; set -x; true",
        "env -S 'rm\\_-f\\_v6'", "f=/dev/stdin; . $f <<< 'rm -f v7'"])


SCRIPTS_AT_COMPUTED_PATHS = [  # fresh20c #12 and #4: each ran before a91a829, asked after
    'python3 "$PWD/tools/x.py"', 'for f in tests/*.py; do python3 "$f"; done',
    'node "$PWD/x.js"', 'ruby "$PWD/x.rb"', 'perl "$PWD/x.pl"', "python3 $SCRIPT",
    'bash "$PWD/scripts/test.sh"', 'source "$PWD/.venv/bin/activate"',
    'source "$(poetry env info --path)/bin/activate"', 'make -f "$PWD/Makefile"',
    "sh ./scripts/../configure", 'source "$HOME/.cargo/env" && cargo build',
    '. "$NVM_DIR/nvm.sh" && nvm use', "source ~/.bashrc",
    'python3 "$PWD/tools/x.py" | tee log', 'python3 "$PWD/tools/x.py" < input.txt',
    "cat > x.py <<'EOF'\nprint(1)\nEOF\npython3 \"$PWD/x.py\"",
    'while read -r f; do python3 "$f"; done < list.txt', 'awk -f "$PWD/x.awk" data',
    'python3 "$PWD/x.py" --stdin 2>/dev/null', 'expect "$PWD/login.exp"',
    # fed, but the file is named as written in a computed directory: a stream only if that
    # file already is one, as for a literal `python3 x.py` (real agents' hooks: corpus21)
    "echo '{\"tool_input\": {}}' | python3 ~/.claude/hook.py", 'git diff | python3 "$PWD/x.py"',
    "awk -f \"$PWD/x.awk\" <<< 'a b'", 'cat list | bash "$HOME/bin/each.sh"']


@pytest.mark.parametrize("command", SCRIPTS_AT_COMPUTED_PATHS)
def test_a_script_at_a_computed_path_that_gets_no_stream_is_a_file(command: str) -> None:
    assert verdict(DENY_RM, command) == "run", command


FED_SCRIPTS = [  # a computed path the command line may send its program to on a stream
    "echo 'rm -f v' | { true; . $F; }", "echo 'rm -f v' | ( true; . $F )",
    "{ . $F; } <<< 'rm -f v'", "for i in 1; do . $F; done <<< 'rm -f v'",
    "exec 3<<<'rm -f v'; . $F", "<<<'rm -f v' . $F", ". $F < \"$G\"", ". $F 0<&3",
    "coproc echo 'rm -f v'; . $F", "cat <(echo x); . $F", "echo 'rm -f v' | cat \"$(. $F)\"",
    "bash -c '. $F' <<< 'rm -f v'", "eval '. $F' <<< 'rm -f v'", "f=/dev/stdout; . $f",
    ". $F <<EOF\nrm -f v\nEOF", "echo 'rm -f v' | bash \"$D/$f\"",
    "echo 'import os' | python3 \"$PWD/../x.py\"", "echo 'rm -f v' | bash ~/x/../stdin",
    "cat <<EOF\n$(. $F)\nEOF", "awk -f ~/x/* <<< 'BEGIN{system(\"rm -f v\")}'",
    "cd /dev && f=std''out && echo 'rm -f v' && . ./$f", "expect $F <<< 'spawn rm -f v'"]  # /dev/stdout: the output pipe


@pytest.mark.parametrize("command", FED_SCRIPTS)
def test_a_computed_script_path_the_line_may_feed_is_still_asked_about(command: str) -> None:
    assert verdict(DENY_RM, command) == "ask", command


def test_run_in_auto_mode_runs_scripts_at_computed_paths(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """fresh20c #12, #4: under a mere rm deny rule these ran, were denied, and run again."""
    home = workdir / "home"
    for path in ("tools/x.py", "tests/t.py", "scripts/test.sh", ".venv/bin/activate",
                 "home/.cargo/env", "home/.nvm/nvm.sh", "home/.bashrc", "configure"):
        name = "ran_" + path.replace("/", "_").replace(".", "_")
        (workdir / path).parent.mkdir(parents=True, exist_ok=True)
        (workdir / path).write_text(f"open('{name}', 'w')\n" if path.endswith(".py") else
                                    f"touch {workdir / name}\n")
    (workdir / "Makefile").write_text(f"all:\n\ttouch {workdir}/ran_Makefile\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("NVM_DIR", str(home / ".nvm"))
    commands = [c for c in SCRIPTS_AT_COMPUTED_PATHS if "<<" not in c and "|" not in c
                and c.split()[0] in ("python3", "for", "bash", "source", ".", "make", "sh")
                and "poetry" not in c and "$SCRIPT" not in c]
    fake_model.add(*({"tool_calls": [{"name": "shell", "arguments": {"command": c}}]}
                     for c in commands), {"text": "done"})
    code, out, err = run_cli(capsys, "run", "-t", "set up", "--mode", "auto", "--deny",
                             "shell(rm *)", "--output-format", "json")
    assert code == 0, err
    assert json.loads(out)["denied_calls"] == []
    ran = sorted(p.name for p in workdir.iterdir() if p.name.startswith("ran_"))
    assert ran == sorted([
        "ran__venv_bin_activate", "ran_Makefile", "ran_configure", "ran_home__bashrc",
        "ran_home__cargo_env", "ran_home__nvm_nvm_sh", "ran_scripts_test_sh", "ran_tests_t_py",
        "ran_tools_x_py"]), err


# corpus21: `$HOME/.local/bin/uv --version` was asked about as "program named at run time".
# A program whose directory bash computes inside quotes ("$HOME/.local/bin/uv", or a tilde
# prefix) is named by its literal last component, like a literal path; unquoted, bash splits
# the expansion into words, so the name is not that (HOME='rm -f v1 '; $HOME/x runs rm).
@pytest.mark.parametrize("command", [
    '"$HOME/.local/bin/uv" --version', '"$HOME"/.local/bin/uv --version',
    '~/.local/bin/uv --version', '/opt/bin/uv --version', 'uv --version',
    '"${PWD}/bin/uv" sync', 'sudo "$HOME/bin/uv" x', 'find . -exec "$D/uv" {} ;'])
def test_a_rule_names_a_program_whose_quoted_directory_bash_computes(command: str) -> None:
    rules = PermissionRules(deny=("shell(uv *)",))
    assert verdict(rules, command) == "deny", command
    assert verdict(DENY_RM, command.replace("uv", "rm")) == "deny", command


@pytest.mark.parametrize("command", [
    '"$HOME/.local/bin/uv" --version', '"${PWD}"/run.sh', '~/"$V"/bin/black .',
    "'$x'/bin/tool"])
def test_it_runs_under_a_deny_rule_for_another_program(command: str) -> None:
    assert verdict(DENY_RM, command) == "run", command


@pytest.mark.parametrize("command", [
    "$HOME/.local/bin/uv --version", "$PWD/bin/uv", '"$X"uv', '"${X%/uv}"', '"$D/$T"',
    '"$D"/r?', '"$D/."', "${D}/uv", "`pwd`/uv", '"$D"/"$T"', '"$(echo ")")"$X/uv',
    '"${D:-x}/uv"', 'eval "\\"$D/uv\\""', 'bash -c "\\"$D/uv\\" x"', '"$D"\\/uv', '$\'\\x2f\'uv'])
def test_an_unquoted_or_computed_name_is_still_asked_about(command: str) -> None:
    assert verdict(DENY_RM, command) == "ask", command


def test_run_does_not_read_an_unquoted_home_dir_as_the_program(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_auto_denying_rm(fake_model, workdir, capsys, [
        "HOME='rm -f v1 '; $HOME/.local/bin/uv --version",
        "X='rm -f v2 '; find . -maxdepth 0 -exec $X/uv {} ';'"])
