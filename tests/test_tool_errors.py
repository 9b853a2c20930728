"""What a failed tool result looks like: each kind of failure line is found.

The compaction's facts list the telling line of each failed result (docs/architecture.md §5);
a result that does not look failed gives none.
"""

import pytest

from goosectx.compaction.tool_errors import error_excerpt


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
