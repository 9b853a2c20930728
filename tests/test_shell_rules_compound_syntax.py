"""Bash's arithmetic ``for ((…))`` and conditional ``[[ … ]]`` read as bash reads them.

lex22: under ``--deny 'shell(rm *)'`` ordinary loops and tests agents run were asked about:
``for ((i=0;i<10;i++))`` as "a '(' inside a command", ``[[ -f x && $(wc -l < f) -gt 3 ]]``
split at its ``&&`` into a command named by a ``$( )``. Inside them bash runs only the
substitutions, so a denied program there is still denied.
"""

from __future__ import annotations

import subprocess

import pytest
from rules_support import action_under_deny_rm

from goosectx.shell_lexer import lex


@pytest.mark.parametrize("command", [
    "for ((i=0;i<10;i++)); do echo $i; done",
    "for((i=0;i<3;i++))do echo $i; done",
    "for (( i = 0; i < 3; i++ )) { echo $i; }",
    "if true; then for ((i=0;i<2;i++)); do echo $i; done; fi",
    "seq 3 | for ((i=0;i<2;i++)); do read x; echo $x; done",
])
def test_an_arithmetic_for_loop_runs(command: str) -> None:
    assert action_under_deny_rm(command) == "run"


@pytest.mark.parametrize("command", [
    "for ((i=0;i<$(rm f);i++)); do echo $i; done",
    "for ((i=0;i<10;i++)); do rm x; done",
    "for ((i=0;i<10;i++)) do rm x; done",
    "for ((i=0;i<10;i++)) { rm x; }",
    "for ((i=`rm f`;i<1;i++)); do :; done",
])
def test_a_denied_program_in_an_arithmetic_for_loop_is_denied(command: str) -> None:
    assert action_under_deny_rm(command) == "deny"


def test_an_arithmetic_for_loop_still_evaluates_what_the_line_reads() -> None:
    assert action_under_deny_rm("read n < list; for ((i=0;i<n;i++)); do :; done") == "ask"


def test_parentheses_after_for_that_bash_does_not_read_as_arithmetic_are_asked_about() -> None:
    assert action_under_deny_rm("for ((ls) ); do :; done") == "ask"


@pytest.mark.parametrize("command", [
    "[[ -f x && $(wc -l < f) -gt 3 ]]",
    "[[ -f x || -d y ]] && echo ok",
    "[[ ( -f x && -d y ) || ! -e z ]]",
    "[[ a < b ]]",
    "[[ $a > $b ]]",
    "[[ -n $x &&\n -f y ]]",
    "if [[ -f x && -s x ]]; then cat x; fi",
    "[[ $x =~ ^(a|b c)$ ]] && echo y",
    "[[ $x =~ ^[0-9]+$ ]]",
])
def test_a_conditional_expression_runs(command: str) -> None:
    assert action_under_deny_rm(command) == "run"


@pytest.mark.parametrize("command", [
    "[[ -f x && $(rm f) ]]",
    "[[ -f x && -n `rm f` ]]",
    "[[ -f x ]] && rm f",
    "[[ -f x ]] || rm f",
    "[[ -f x && -d y ]]; rm f",
    "[[ -f x && -d y ]]\nrm f",
    "[[ x =~ (a$(rm f)) ]]",
    "[[ x =~ (a|b) ]]; rm f",
])
def test_a_denied_program_in_or_after_a_conditional_expression_is_denied(command: str) -> None:
    assert action_under_deny_rm(command) == "deny"


def test_a_less_than_inside_a_conditional_expression_redirects_nothing() -> None:
    """``[[ a > b ]]`` compares strings: bash writes no file ``b`` (a redirection would)."""
    assert [p.text for p in lex("[[ a > b ]]")] == ["[[ a > b ]]"]
    assert [p.text for p in lex("[[ 2>x ]]")] == ["[[ 2 > x ]]"]


@pytest.mark.parametrize("command", [
    "echo $([[ ( a ; rm f ) ]])",
    "[[ $f == *.@(c|$(rm f)) ]]",
    "[[ x =~ (a'|'b) ]]",
])
def test_a_conditional_expression_not_read_as_bash_reads_it_is_asked_about(command: str) -> None:
    assert action_under_deny_rm(command) in ("ask", "deny")
    assert action_under_deny_rm(command.replace("rm f", "ls")) == "ask"


@pytest.mark.parametrize("command", [
    "</dev/null [[ a || rm f ]]",
    "2>/dev/null [[ a || rm f ]]",
    "</dev/null [[ a || x ]]; rm f",
])
def test_a_double_bracket_after_a_redirection_is_a_program_whose_line_goes_on(command: str) -> None:
    """Bash reads ``[[`` after a redirection as a program: ``||`` there runs ``rm f ]]``."""
    assert action_under_deny_rm(command) == "deny"


QUOTED_BODY = "cat > a.py <<'EOF'\nfor i in [1, 2]:\n    print(a[i])\nEOF\npython a.py"


@pytest.mark.parametrize("command", [
    QUOTED_BODY, QUOTED_BODY.replace("'EOF'", '"EOF"'), QUOTED_BODY.replace("'EOF'", "\\EOF"),
    "read x < l; cat <<'EOF'\n${arr[x]} $((x))\nEOF",
])
def test_a_quoted_here_document_body_is_no_arithmetic(command: str) -> None:
    """Bash expands nothing in a body whose delimiter is quoted: ``a[i]`` there is text."""
    assert action_under_deny_rm(command) == "run"


@pytest.mark.parametrize("command", [
    "read x < l; cat <<EOF\n${arr[x]}\nEOF",
    "read x < l; cat <<'EOF'\n${arr[x]}\nEOF\necho $((x))",
    "read x < l; cat <<'EOF' && echo $((x))\nbody\nEOF",
    "read x < l; cat <<'EOF'\n${arr[x]}\nEO",
    "read x < l; cat <<'EOF'; cat <<EOF\nquoted\nEOF\n$((x))\nEOF",
])
def test_arithmetic_outside_a_quoted_body_is_still_read(command: str) -> None:
    assert action_under_deny_rm(command) == "ask"


def test_a_decoded_command_string_after_an_unended_quoted_body_is_still_read() -> None:
    r"""The ``bash -c`` string (``\x78`` is ``x``) is read apart from the line's bodies."""
    assert action_under_deny_rm("bash -c $'read x < l; (( \\x78 ))\\nE' <<'E'") == "ask"


@pytest.mark.parametrize("command,expected", [
    ("ls | for x in a; do bash -c 'rm x'; done", "deny"), ("ls | for x in a; do rm x; done", "deny"),
    ("ls | for x in a; do bash; done", "ask"), ("ls | while read x; do sh; done", "ask"),
    ("ls | for x in a; do python3; done", "ask"), ("ls | select x in a; do bash; done", "ask"),
    ("ls | for ((i=0;i<1;i++)); do bash; done", "ask"), ("ls | until false; do sh; done", "ask"),
    ("ls | for x in a; do cat; done", "run"), ("ls | while read f; do wc -l \"$f\"; done", "run"),
    ("ls | for x in a; do bash x.sh; done", "run"), ("for x in a; do bash; done", "ask"),
])
def test_a_loop_in_a_pipeline_is_read_like_its_body(command: str, expected: str) -> None:
    assert action_under_deny_rm(command) == expected, command


@pytest.mark.parametrize("command,parts", [
    ("[[ $f == *.@(c|h) ]]", ["[[ $f == *.@(c|h) ]]"]),
    ("[[ $x == @(a|b) ]] && echo y", ["[[ $x == @(a|b) ]]", "echo y"]),
    ("[[ $f != !(*.py) ]]", ["[[ $f != !(*.py) ]]"]),
    ("[[ $f = +([0-9]).@(txt|md)x ]]", ["[[ $f = +([0-9]).@(txt|md)x ]]"]),
    ("[[ $f == ?(a|*(b|c)) ]]", ["[[ $f == ?(a|*(b|c)) ]]"]),
])
def test_an_extglob_pattern_inside_a_conditional_expression_is_one_word(
        command: str, parts: list[str]) -> None:
    """Bash parses ``[[ … ]]`` with extglob on: ``@(a|b)`` is a pattern, its ``|`` no pipe (sh23)."""
    assert [p.text for p in lex(command)] == parts
    assert action_under_deny_rm(command) == "run"
    assert action_under_deny_rm(command + " && rm f") == "deny"


def test_bash_matches_an_extglob_pattern_inside_a_conditional_expression() -> None:
    out = subprocess.run(["bash", "-c", "f=x.c; [[ $f == *.@(c|h) ]] && echo yes"],
                         capture_output=True, text=True, timeout=10, check=False).stdout
    assert out == "yes\n"
