"""Shell permission rules read a command line as bash does, and ask about what they cannot read.

The hostile strings are the security tester's (fresh16b findings 14-17): characters Python
splits words on but bash does not, backslash-newline, brace expansion, globs and function
bodies naming the program.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import DENY_RM, shell_verdict

from goosectx.approval import ApprovalVerdict
from goosectx.permissions import PermissionRules, match_rules, shell_parts, suggested_rule

ALLOW_LS = PermissionRules(allow=("shell(ls*)",))


def decided(rules: PermissionRules, command: str, mode: str = "smart_approve") -> ApprovalVerdict:
    return shell_verdict(rules, command, mode)  # type: ignore[arg-type]


def _rules_allow(rules: PermissionRules, command: str) -> bool:
    """The allow rules cover every part (what the approval then judges of its paths aside)."""
    return match_rules(rules, "shell", {"command": command}, Path("/work/proj")).kind == "allow"


# bash splits words on space and tab only: each of these is ONE word, "ls<c>/x", a path bash
# runs (./ls<c>/x), which shell(ls*) must not allow
NOT_BLANK_TO_BASH = ["\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u1680", "\u2000", "\u2028",
                     "\u2029", "\u202f", "\u3000"]


@pytest.mark.parametrize("char", NOT_BLANK_TO_BASH, ids=[f"U+{ord(c):04X}" for c in
                                                         NOT_BLANK_TO_BASH])
def test_an_allow_rule_does_not_split_words_on_characters_bash_keeps_in_a_word(char: str) -> None:
    assert decided(ALLOW_LS, f"ls{char}/x").action == "ask"
    assert decided(ALLOW_LS, f"ls x{char}y").action == "run"  # an argument: still ls
    assert suggested_rule("shell", {"command": f"ls{char}/x"}) is None


def test_space_tab_and_a_quoted_blank_are_read_as_bash_reads_them() -> None:
    assert decided(ALLOW_LS, "ls\t-la").action == "run"
    assert decided(ALLOW_LS, "ls 'my dir'").action == "run"
    assert decided(ALLOW_LS, "'ls /x'").action == "ask"  # one word: the file "ls /x"
    assert decided(ALLOW_LS, '"ls" -la').action == "run"


def test_backslash_newline_is_deleted_before_words_are_split() -> None:
    assert decided(ALLOW_LS, "ls\\\n/x").action == "ask"  # bash runs ./ls/x
    assert decided(ALLOW_LS, "ls \\\n  -la").action == "run"
    assert decided(ALLOW_LS, "l\\\ns -la").action == "run"
    assert decided(ALLOW_LS, "ls '\\\n'/x").action == "run"  # kept in single quotes: an argument
    for command in ("r\\\nm -f victim1", "/bin/r\\\nm -f victim2", "sh -c 'r\\\nm -f victim3'",
                    "ls; r\\\nm -f victim4", "echo victim5 | x\\\nargs rm -f",
                    'bash -c "r\\\nm -f v"'):
        assert decided(DENY_RM, command, "auto").action == "deny", command
    assert shell_parts("r\\\nm -f v") == ["rm -f v"]


@pytest.mark.parametrize("command", [
    "{rm,-f,victim1}", "r{m,} -f victim2", "/bin/r[m] -f victim3", "/usr/bin/r? -f victim4",
    "r* -f v", "sudo /bin/r? -f v", "eval {rm,-f,v}", "bash -c '/bin/r[m] v'",
    "function f { rm -f v; }; f", "alias x=rm", "ls; $X -f v", "`echo rm` -f v",
    "env 'BASH_FUNC_ls%%=() { rm -f v; }' bash -c ls"])
def test_a_program_the_rules_cannot_read_is_asked_about_under_a_deny_rule(command: str) -> None:
    verdict = decided(DENY_RM, command, "auto")
    assert verdict.action == "ask", command
    assert "cannot check" in verdict.reason
    assert decided(PermissionRules(allow=("shell(*)",)), command).action == "ask", command


@pytest.mark.parametrize("command", [
    "f(){ rm -f victim5; }; f", "(rm -f v)", "{ rm -f v; }", "if true; then rm -f v; fi",
    "ls # it's\nrm -f v", 'echo $(echo ")"; rm -f v)', "cat <(rm -f v)",
    "trap 'rm -f v' EXIT", "cat <<'EOF'\nit's\nEOF\nrm -f v", "cat <<EOF\n$(rm -f v)\nEOF",
    "! rm -f v", "while false; do rm -f v; done"])
def test_a_deny_rule_sees_commands_in_groups_bodies_and_after_comments(command: str) -> None:
    assert decided(DENY_RM, command, "auto").action == "deny", command


def test_an_argument_made_by_a_glob_or_braces_is_asked_about_for_a_program_a_rule_names() -> None:
    rules = PermissionRules(ask=("shell(git push*)",))
    for command in ("git {push,}", "git p?sh origin", "git pus[h]"):
        assert decided(rules, command, "auto").action == "ask", command
    assert decided(rules, "ls *.py {a,b}", "auto").action == "run"  # not a program it names


def test_plain_commands_are_still_read_and_allowed() -> None:
    rules = PermissionRules(allow=("shell(ls*)", "shell(echo*)", "shell(cat*)"),
                            deny=("shell(rm *)",))
    for command in ("ls -la", "ls && echo ok || echo no", "if ls; then echo y; fi",
                    "cat <<'EOF'\nit's $(rm x)\nEOF", "echo $((1+2))", "ls 2>&1 | cat",
                    "{ ls; echo done; }"):
        assert decided(rules, command).action == "run", command
    assert decided(DENY_RM, "for f in *.py; do echo $f; done", "auto").action == "run"


def test_run_in_auto_mode_runs_none_of_the_hidden_rms(fake_model, workdir: Path,  # type: ignore[no-untyped-def]
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    err = run_auto_denying_rm(fake_model, workdir, capsys, [
        "r\\\nm -f v1", "sh -c 'r\\\nm -f v2'", "{rm,-f,v3}", "/bin/r[m] -f v4",
        "f(){ rm -f v5; }; f"])
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(answers) == 5
    assert all("permission rule" in a or "needs approval" in a for a in answers), answers
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 2 and all("rule behind it" in w for w in warnings), err  # fresh20c #7
    assert "in `{rm,-f,v3}`" in warnings[0] and "in `/bin/r[m] -f v4`" in warnings[1]


def test_a_redirection_to_dev_null_needs_no_rule_of_its_own() -> None:
    """``2>/dev/null`` writes no file: `shell(grep*)` + `shell(tail*)` cover what a model runs."""
    rules = PermissionRules(allow=("shell(grep*)", "shell(tail*)", "shell(ls*)"))
    for command in ("grep -rn TODO . 2>/dev/null | tail -5", "ls > /dev/null", "ls &>/dev/null",
                    "ls >>'/dev/null' 2>&1", "ls < /dev/null"):
        assert decided(rules, command).action == "run", command
    # anything else after the > still writes a file (or may): asked, as before
    for command in ("ls > /dev/nullx", "ls > /dev/null/../../home/u/.bashrc", "ls > $NULL",
                    "ls > /dev/nul[l]", "ls > out.txt 2>/dev/null"):
        assert decided(rules, command).action == "ask", command
    assert decided(DENY_RM, "rm -rf build 2>/dev/null", "auto").action == "deny"
    assert sorted(shell_parts("grep x f 2>/dev/null > hits.txt")) == ["> hits.txt", "grep x f"]


# -- found by differential fuzzing against real bash (tests/shell_fuzz.py) --------------------
# Each line below is one bash was seen running rm on, minimised, that the rules let through
# (allowed by shell(ls*), or neither denied nor asked about under shell(rm *)).
@pytest.mark.parametrize("command", [
    "((x<<2))\nrm -rf v", "((ls<<F))\nrm -rf v\nF", "ls $((rm -rf v) )", "((rm -rf v) )",
    "ls $(( $((rm v) ) ))"])
def test_an_arithmetic_command_is_read_as_bash_reads_it(command: str) -> None:
    # `((x<<2))` is arithmetic, not a here-document that makes the next lines data; and
    # `$((cmd) )` is a command substitution of a subshell, not arithmetic
    assert decided(DENY_RM, command, "auto").action == "deny", command
    assert decided(ALLOW_LS, command.replace("rm -rf v", "rm").replace("rm v", "rm")
                   ).action == "ask", command


@pytest.mark.parametrize("command", [
    "(\\\n(1<<2))\nrm -rf v", "(\\\n\\\n(x<<2))\nrm -rf v", "echo $(\\\n(1<<2))\nrm -rf v",
    "$(\\\n(1<<2))\nrm -rf v"])
def test_a_backslash_newline_between_the_parentheses_still_makes_arithmetic(command: str) -> None:
    # review21 #13: bash deletes the backslash-newline first and reads ((1<<2)), then runs rm;
    # read as a subshell, <<2 was a here-document swallowing the next line
    assert decided(DENY_RM, command, "auto").action == "deny", command


def test_an_arithmetic_command_runs_no_program_of_its_own() -> None:
    assert decided(ALLOW_LS, "((x<<2)); ls").action == "run"
    assert decided(ALLOW_LS, "(( i = 1 + 2 )) && ls $((1<<2))").action == "run"
    assert decided(ALLOW_LS, "(( $(rm v) ))").action == "ask"


@pytest.mark.parametrize("command", [
    "cat <<EOF\nEO\\\nF\nrm -rf v\nEOF", "cat <<-EOF\n\tEO\\\nF\nrm -rf v\nEOF",
    "ls <<E\nE\\\n\nrm -rf v\nE"])
def test_a_here_document_line_ending_in_a_backslash_joins_the_next_as_bash_does(
        command: str) -> None:
    # in an unquoted here-document bash deletes backslash-newline before it looks for the
    # delimiter: EO\<newline>F ends the body, and the lines after it are commands
    assert decided(DENY_RM, command, "auto").action == "deny", command
    assert decided(ALLOW_LS, command.replace("cat", "ls")).action == "ask", command


def test_a_quoted_here_document_keeps_its_backslash_newlines() -> None:
    allow = PermissionRules(allow=("shell(ls*)", "shell(cat*)"))
    assert decided(allow, "cat <<'EOF'\nEO\\\nF\nrm -rf v\nEOF").action == "run"  # data
    assert decided(allow, "cat <<EOF\nEO\\\\\nF\nrm -rf v\nEOF").action == "run"  # \\ + newline


@pytest.mark.parametrize("command", [
    "ls ${X-`rm -rf v`}", "ls ${X-'}'$(rm -rf v)'{'}", "ls \"${X:-'}'$(rm -rf v)'{'}\"",
    "ls ${X:-\"}\"`rm -rf v`\"{\"}"])
def test_a_substitution_inside_a_parameter_expansion_is_seen(command: str) -> None:
    assert decided(DENY_RM, command, "auto").action in ("deny", "ask"), command
    assert decided(ALLOW_LS, command).action == "ask", command


@pytest.mark.parametrize("command", ["coproc ls { rm -rf v; }", "coproc ls if rm -rf v; then ls; fi",
                                     "coproc NAME { rm -rf v; }"])
def test_a_coprocess_name_is_not_its_program(command: str) -> None:
    assert decided(DENY_RM, command, "auto").action == "deny", command
    assert decided(ALLOW_LS, command).action == "ask", command
    assert decided(ALLOW_LS, "coproc ls -la").action == "run"  # no name: the command itself


@pytest.mark.parametrize("command", ["ls $(coproc ls) `ls` <(ls)", "ls $(coproc ls)",
                                     "ls <(coproc ls)", 'ls "$(ls; coproc ls -la)"',
                                     "ls ${X:-$(coproc ls)}", "ls $( (coproc ls) )"])
def test_a_simple_coprocess_inside_a_command_substitution_is_never_allowed(command: str) -> None:
    # bash 5.2 prints a $( ) back as text and parses it again: `coproc ls` comes back as
    # `coproc COPROC ls`, which runs the program COPROC (the bash fuzz, seed 2222)
    assert decided(ALLOW_LS, command).action == "ask", command
    assert decided(DENY_RM, command.replace("coproc ls", "coproc rm -rf"), "auto").action == "deny"
    assert _rules_allow(ALLOW_LS, "ls $(coproc X { ls; }) `coproc ls`")  # (what ls is given
    # may be any path: that the approval asks about, shell_paths.outside_words)


def test_hash_p_that_binds_a_program_name_to_a_file_is_asked_about() -> None:
    # `hash -p /bin/rm ls` makes every later `ls` run /bin/rm: the rules cannot follow it
    for command in ("hash -p /bin/rm ls; ls -rf v", "hash -p/bin/rm ls\nls -rf v",
                    "builtin hash -p /bin/rm ls; ls -rf v", "enable -f ./rm.so ls; ls -rf v"):
        verdict = decided(DENY_RM, command, "auto")
        assert verdict.action == "ask" and "cannot check" in verdict.reason, command
    assert decided(DENY_RM, "hash -r; hash ls", "auto").action == "run"


@pytest.mark.parametrize("command", [
    "A+=x rm -rf v", "env 'a-b=1' rm -rf v", "env -S'rm -rf v'", "env -iS'rm -rf v'",
    "env --split-string='rm -rf v'", "env --split-string 'rm -rf v'",
    "echo v | xargs --max-args 1 rm", "timeout --signal KILL 5 rm -rf v",
    "sudo --user root rm -rf v", "timeout --preserve-status --signal KILL 5 rm v"])
def test_a_deny_rule_sees_through_append_assignments_and_long_wrapper_options(
        command: str) -> None:
    # bash runs rm in each (GNU env's -S splits its string; --signal KILL takes a value)
    assert decided(DENY_RM, command, "auto").action == "deny", command


def test_a_program_named_by_a_tilde_is_computed() -> None:
    # ~- is $OLDPWD, ~+ $PWD, ~ $HOME: `OLDPWD=/bin/rm; ~- -rf v` runs rm
    for command in ("OLDPWD=/bin/rm; ~- -rf v", "~+ -rf v", "~ x", "~root"):
        verdict = decided(DENY_RM, command, "auto")
        assert verdict.action == "ask" and "cannot check" in verdict.reason, command
    assert decided(DENY_RM, "~/bin/rm -rf v", "auto").action == "deny"
    assert _rules_allow(ALLOW_LS, "ls ~ ~/x")  # arguments, read outside: the approval asks
    assert "~ is outside the project" in decided(ALLOW_LS, "ls ~ ~/x").reason


@pytest.mark.parametrize("command", ["</dev/null then ls", "<<<x ! ls", "<<<x do ls -la",
                                     "2>/dev/null { ls; }"])
def test_a_reserved_word_after_a_redirection_is_a_program_to_bash(command: str) -> None:
    # bash reads `then` as a keyword only where a command starts: after `</dev/null` it is a
    # program named `then`, which shell(ls*) does not cover
    assert decided(ALLOW_LS, command).action == "ask", command
    assert decided(ALLOW_LS, "ls </dev/null; ! ls 2>/dev/null").action == "run"


def test_many_long_wrapper_options_are_read_in_bounded_time() -> None:
    command = "timeout " + "--x " * 60 + "--signal KILL --kill-after 3 5 rm v"
    assert decided(DENY_RM, "timeout --signal KILL --kill-after 3 5 rm v", "auto").action == "deny"
    assert decided(DENY_RM, command, "auto").action in ("deny", "ask")


def test_a_here_document_delimiter_written_with_ansi_c_quotes_is_asked_about() -> None:
    # bash ends `<<$'EOF'` at a line EOF: the lines after it run, though they look like body
    for command in ("cat <<$'EOF'\nEOF\nrm -rf v\n$'EOF'", "cat <<E$'O'F\nEOF\nrm -rf v\nx"):
        verdict = decided(DENY_RM, command, "auto")  # $'…' is decoded: the rm line is read
        assert verdict.action == "deny", command
    assert decided(DENY_RM, "cat <<'EOF'\nrm -rf v\nEOF", "auto").action == "run"  # data


def test_a_process_substitution_joined_to_a_word_is_one_word_as_bash_reads_it() -> None:
    # `ls<(ls)` runs the file ls/dev/fd/63; in `ls <(ls)#x; rm -rf v` the # is inside a word,
    # not a comment, so rm runs
    assert decided(ALLOW_LS, "ls<(ls)").action == "ask"
    assert decided(ALLOW_LS, "ls <(ls)#x; ls").action == "ask"
    assert decided(DENY_RM, "ls <(ls)#x; rm -rf v", "auto").action == "deny"
    assert decided(DENY_RM, "ls 2<(ls) x; rm -rf v", "auto").action == "deny"
    assert decided(ALLOW_LS, "ls <(ls) <(ls -a) #x; rm").action == "run"  # a real comment


@pytest.mark.parametrize("command", [
    "bash -o pipefail -c 'rm -rf v'", "bash +x -c 'rm -rf v'", "sh -eo pipefail -c 'rm -rf v'",
    "bash --rcfile /dev/null -c 'rm -rf v'", "bash -O extglob -c 'rm -rf v'",
    "busybox rm -rf v", "busybox sh -c 'rm -rf v'"])
def test_a_deny_rule_sees_the_command_string_after_a_shells_options(command: str) -> None:
    # an option's value (`-o pipefail`) or a `+x` was taken for a script name, so the string
    # after -c was never read; busybox runs its first word as the program
    assert decided(DENY_RM, command, "auto").action == "deny", command


@pytest.mark.parametrize("command", [
    "echo 'rm -rf v' | bash", "bash <<< 'rm -rf v'", "sh <<EOF\nrm -rf v\nEOF",
    "sh -s < cmds.txt", "bash -x -o pipefail"])
def test_a_shell_reading_its_commands_from_standard_input_is_asked_about(command: str) -> None:
    verdict = decided(DENY_RM, command, "auto")
    assert verdict.action == "ask" and "cannot check" in verdict.reason, command
    assert decided(DENY_RM, "bash -e ./build.sh x", "auto").action == "run"  # a script


def test_a_quote_inside_arithmetic_is_asked_about_whatever_its_parentheses_say() -> None:
    # bash skips the quoted ')' and reads arithmetic, whose << hides nothing; a scan that
    # counted the ')' fell back to subshells and took <<2 for a here-document hiding rm
    for command in ("(( x<<2 + ')' ))\nrm -rf v", "ls $(( x<<2 + ')' ))\nrm -rf v"):
        verdict = decided(DENY_RM, command, "auto")
        assert verdict.action == "ask" and "cannot check" in verdict.reason, command


@pytest.mark.parametrize("command", [
    "ls $[1<<2]\nrm -rf v", "a[1<<2]=x\nrm -rf v", "a[1<<2]=x ls\nrm -rf v",
    "a[ #]=x; rm -rf v"])
def test_old_arithmetic_and_array_subscripts_hide_no_here_document_or_comment(
        command: str) -> None:
    # `$[1<<2]` is arithmetic, and bash reads an assignment's subscript a[…] as one piece: no
    # here-document starts at their <<, no comment at their #, and rm runs
    assert decided(DENY_RM, command, "auto").action in ("deny", "ask"), command
    assert decided(ALLOW_LS, command.replace("rm -rf v", "x")).action == "ask", command


def test_a_named_file_descriptor_redirection_is_not_the_program() -> None:
    # `{d}>/dev/null rm -rf v` runs rm (bash opens a new fd into $d): found by the fuzzer
    for command in ("{d}>/dev/null rm -rf v", "{d}>/dev/nul[l]\trm", "{fd}<&0 rm -rf v"):
        assert decided(DENY_RM, command, "auto").action in ("deny", "ask"), command
    assert decided(ALLOW_LS, "{d}>/dev/null x").action == "ask"
    assert decided(ALLOW_LS, "ls {d}>/dev/null").action == "run"


def test_parentheses_bash_does_not_read_as_arithmetic_are_asked_about() -> None:
    # `$((())(ls<<F))`: bash reads no here-document there, the next lines run (fuzzer-found)
    assert decided(ALLOW_LS, "ls $((())(ls<<F))\nrm -rf v\nF").action == "ask"
    assert decided(DENY_RM, "ls $((())(ls<<F))\nrm -rf v\nF", "auto").action == "ask"
    assert decided(DENY_RM, "((rm -rf v) )", "auto").action == "deny"  # still seen


def test_eval_double_dash_is_its_end_of_options() -> None:
    # bash's eval takes `--` as the end of its options and runs the rest
    for command in ("eval -- 'rm -rf v'", "eval -- rm -rf v", "builtin eval -- rm -rf v"):
        assert decided(DENY_RM, command, "auto").action == "deny", command


@pytest.mark.parametrize("command", [
    "time { rm -rf v; }", "time if rm -rf v; then :; fi", "time ! rm -rf v",
    "time -p { rm -rf v; }", "time while rm -rf v; do break; done", "! time { rm -rf v; }"])
def test_bash_time_keyword_before_a_compound_command_is_seen_through(command: str) -> None:
    # `time` is a bash keyword: `time { rm -rf v; }` runs rm, not a program named `{`
    assert decided(DENY_RM, command, "auto").action == "deny", command


def test_su_command_given_with_an_equals_sign_is_read() -> None:
    for command in ("su --command='rm -rf v' root", "su --session-command='rm -rf v'",
                    "su --session-command 'rm -rf v'", "su - root -c 'rm -rf v'"):
        assert decided(DENY_RM, command, "auto").action == "deny", command


def test_time_after_a_pipe_and_keywords_after_any_leading_redirection_are_programs() -> None:
    # fuzzer-found: bash reads `time` as its keyword only where a pipeline starts (after `|`
    # it runs the program time), and a reserved word after a redirection as a program
    for command in ("ls|time !", "ls |& time ! ls", "ls |\n time ! ls", "coproc<<s { ls",
                    "time -p >/dev/null ! ls", "time >/dev/null { ls; }"):
        assert decided(ALLOW_LS, command).action == "ask", command
    for command in ("ls && time { ls; }", "ls || time ! ls", "time -p ! ls"):
        assert decided(ALLOW_LS, command).action == "run", command


def test_a_subscript_is_read_whole_only_where_bash_reads_an_assignment() -> None:
    # fuzzer-found: in `ls a[&]=` the word is an argument, so bash splits it at `&` and runs
    # a program named `]=`; only a command's leading assignments have their a[…] read whole
    assert decided(ALLOW_LS, "ls a[&]=").action == "ask"
    assert decided(ALLOW_LS, "a[1&2]=x ls").action == "ask"  # an assignment: not ls alone
    assert decided(DENY_RM, "A=1 a[ #]=x; rm -rf v", "auto").action == "deny"


@pytest.mark.parametrize("command", [
    "env rm -S'x' v", "env -u X -S'rm -rf v'", "env -iu X -S 'rm -rf v'", "env A=1 rm -Sv"])
def test_env_split_string_is_only_an_option_before_envs_command(command: str) -> None:
    # fuzzer-found: in `env rm -S'x'` the -S belongs to rm, which env runs
    assert decided(DENY_RM, command, "auto").action == "deny", command


def test_env_options_taking_a_value_are_read_in_order() -> None:
    # runs `a`, not rm; `a` is a program goosectx does not know, whose argument 'rm -rf v' it
    # may run: the deny backstop asks (deny_backstop.py)
    assert decided(DENY_RM, "env -Sa 'rm -rf v'", "auto").action == "ask"
    assert decided(DENY_RM, "env -Sa 'ls -l v'", "auto").action == "run"
    assert decided(DENY_RM, "env -Srm v", "auto").action == "deny"
    assert decided(DENY_RM, "env -uX -S'rm -rf v'", "auto").action == "deny"


@pytest.mark.parametrize("command", ["if true; then { function f { rm -rf v; }; f; }; fi",
                                     "{ function f { rm -rf v; }; f; }",
                                     "while true; do function f { rm -rf v; }; f; done"])
def test_a_function_defined_after_reserved_words_is_unreadable(command: str) -> None:
    # bash fuzz seed 12298279: `then { function f { rm …; }; f` ran under shell(rm *)
    assert decided(DENY_RM, command, "auto").action == "ask", command


def test_a_coprocess_word_followed_by_a_redirection_is_no_name() -> None:
    # bash fuzz seed 12298279: bash runs `coproc l<<E { ls` as the program l, not `{ ls; }`
    assert decided(ALLOW_LS, "coproc l<<Es { ls; \n}").action == "ask"
    assert decided(ALLOW_LS, "coproc l { ls; }").action == "run"
