"""What a failed tool result looks like: each kind of failure line is found.

The compaction's facts list the telling line of each failed result (docs/architecture.md §5);
a result that does not look failed gives none.
"""

import random

import pytest

from goosectx.compaction import tool_errors
from goosectx.compaction.tool_errors import _ERROR_LINE, error_excerpt, first_error_match


@pytest.mark.parametrize(("output", "line"), [
    ("x\nTraceback (most recent call last):\n  File 'a.py'\n", "Traceback (most recent call last):"),
    ("ok\nValueError: bad value\n", "ValueError: bad value"),
    ("ok\nKeyboardInterrupt\nSomeException\n", "SomeException"),
    ("build\nerror[E0425]: cannot find value\n", "error[E0425]: cannot find value"),
    ("build\nerror: linker failed\n", "error: linker failed"),
    ("ERROR collecting tests\n", "ERROR collecting tests"),
    ("FAILED tests/a.py::t\n", "FAILED tests/a.py::t"),
    ("fatal: not a git repository\n", "fatal: not a git repository"),
    ("npm ERR! missing script\n", "npm ERR! missing script"),
    ("panic: runtime error\n", "panic: runtime error"),
    ("bash: foo: command not found\n", "bash: foo: command not found"),
    ("cat: x: No such file or directory\n", "cat: x: No such file or directory"),
    ("open: Permission denied\n", "open: Permission denied"),
    ("done\nExit code 2\n", "Exit code 2"),
    ("done\nexited with code 3\n", "exited with code 3"),
    ("== 2 failed, 3 passed ==\n", "== 2 failed, 3 passed =="),
    ("tool x not found. Available tools: a, b\n", "tool x not found. Available tools: a, b"),
])
def test_each_kind_of_failure_line_is_the_excerpt(output: str, line: str) -> None:
    assert error_excerpt(output) == line


def test_output_that_does_not_look_failed_gives_none() -> None:
    assert error_excerpt("collected 3 items\ntests/a.py ... [100%]\n3 passed\n") is None


PIECES = ["Error", "error", "ERROR", "Exception", "ValueError", "os.Error", "Traceback (most "
          "recent call last)", "FAILED", "fatal:", "npm ERR!", "panic:", "command not found",
          "bash:", "sh: line 1:", "./run.sh:", "No such file or directory", "Permission denied",
          "Exit code 2", "exited with code 1", "exit code: 0", "3 failed", "x1 failed",
          "not found. Available tools", ":", " ", "  ", "\t", "\n", "\n\n", "\n  \n", "\r\n",
          "\u2028", "\x0c", "[exit code: 1]", "[stderr]", "word", "a.b", "(", ")", "-", "/", "1",
          "é", "_", "[E42]"]


def sample(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))


def test_the_first_match_is_the_whole_searchs_on_random_outputs() -> None:
    rng = random.Random(14)
    matched = 0
    for _ in range(20_000):
        text = sample(rng)
        whole = _ERROR_LINE.search(text)
        near = first_error_match(text)
        assert (near and (near.span(), near.group(0))) == (
            whole and (whole.span(), whole.group(0))), repr(text)
        matched += whole is not None
    assert 2_000 < matched < 19_000  # both outcomes were exercised


def test_an_output_full_of_error_words_is_searched_whole(monkeypatch) -> None:  # noqa: ANN001
    text = "error here\n" * (tool_errors.MAX_WORD_HITS + 1) + "x\n  \nbash: y: command not found"
    assert error_excerpt(text) == "bash: y: command not found"
    monkeypatch.setattr(tool_errors, "MAX_WORD_HITS", 10_000)
    assert error_excerpt(text) == "bash: y: command not found"


def test_a_long_output_that_only_mentions_errors_has_no_excerpt() -> None:
    body = "def check(x):\n    raise ValueError(x)  # an error\n\n" * 40
    assert error_excerpt(body) is None
    assert error_excerpt(body + "\n\n  \nTraceback (most recent call last):\n  f()\n"
                         "KeyError: 'k'\n") == "KeyError: 'k'"


@pytest.mark.parametrize("brk", ["\x85", "\u2028", "\u2029", "\x0c"])
def test_a_line_break_other_than_newline_does_not_cut_the_error_line(brk: str) -> None:
    # the rest of the code splits lines at \n alone: a tool's message holding U+0085 (a
    # Latin-1 file name read as text) is one line, not its last piece
    before_marker = f"cp: cannot create 'a{brk}b': Invalid argument\n[exit code: 1]\n"
    assert error_excerpt(before_marker) == f"cp: cannot create 'a{brk}b': Invalid argument"
    node = f"AssertionError [ERR_ASSERTION]: Expected values to be equal:\n\n3{brk} !== 6\n"
    assert error_excerpt(node) == ("AssertionError [ERR_ASSERTION]: Expected values to be "
                                   f"equal: 3{brk} !== 6")


def test_a_crlf_output_still_gives_the_line_before_the_marker() -> None:
    assert error_excerpt("make: *** [all] Stop\r\n[exit code: 2]\r\n") == "make: *** [all] Stop"
