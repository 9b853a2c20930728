"""The "Errors (from the transcript)" fact names what failed, not where a traceback starts.

Fresh eyes (round 17): a Python traceback's error fact read "Traceback (most recent call
last):". The outputs below are real ones (Python 3.11, pytest 9, node 20), as the shell tool
returns them: stdout, ``[stderr]`` and stderr, the exit status line.
"""

from __future__ import annotations

import pytest
from compaction_support import tool_pair

from goosectx.compaction.facts import merge_facts
from goosectx.conversation import Message
from goosectx.tokens import TokenCounter

BARE_ASSERT = """[stderr]
Traceback (most recent call last):
  File "/work/app/t.py", line 7, in <module>
    check()
  File "/work/app/t.py", line 5, in check
    assert total(3) == 6
           ^^^^^^^^^^^^^
AssertionError
[exit code: 1]"""

INTERRUPTED = """[stderr]
Traceback (most recent call last):
  File "/work/app/serve.py", line 4, in <module>
    time.sleep(60)
KeyboardInterrupt
[exit code: 130]"""

CHAINED = """[stderr]
Traceback (most recent call last):
  File "/work/app/load.py", line 4, in <module>
  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^
json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/work/app/load.py", line 6, in <module>
    raise RuntimeError("config unreadable") from e
RuntimeError: config unreadable
[exit code: 1]"""

PYTEST_WITHOUT_SUMMARY = """.FF                                                          [100%]
=================================== FAILURES ===================================
__________________________________ test_total __________________________________
test_calc.py:5: in test_total
    assert total(3) == 6
E   assert 3 == 6
E    +  where 3 = total(3)
___________________________________ test_key ___________________________________
test_calc.py:9: in test_key
    assert d["x"] == 1
           ^^^^^^
E   KeyError: 'x'
2 failed, 1 passed in 1.07s
[exit code: 1]"""

NODE_ASSERT = """[stderr]
node:assert:90
  throw new AssertionError(obj);
  ^

AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:

3 !== 6

    at Object.<anonymous> (/work/app/a.js:3:8)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)
    at node:internal/main/run_main_module:28:49 {
  generatedMessage: true,
  code: 'ERR_ASSERTION',
  actual: 3,
  expected: 6,
  operator: 'strictEqual'
}

Node.js v20.20.2
[exit code: 1]"""

NODE_TYPE_ERROR = """[stderr]
/work/app/b.js:2
console.log(cfg.port);
                ^

TypeError: Cannot read properties of undefined (reading 'port')
    at Object.<anonymous> (/work/app/b.js:2:17)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)

Node.js v20.20.2
[exit code: 1]"""


def errors_fact(output: str, command: str) -> list[str]:
    """The lines of the summary's errors fact after one failed shell call."""
    head = [Message.user("run it"), *tool_pair(output, args={"command": command}),
            Message.assistant("looking")]
    summary = merge_facts("SUMMARY", head, max_tokens=1500, counter=TokenCounter())
    return summary.split("## Errors (from the transcript)\n\n")[1].split("\n\n")[0].splitlines()


@pytest.mark.parametrize(("output", "command", "fact"), [
    (BARE_ASSERT, "python3 t.py", 'python3 t.py`: AssertionError (File "/work/app/t.py", '
     "line 5, in check: assert total(3) == 6)"),
    (INTERRUPTED, "python3 serve.py", 'python3 serve.py`: KeyboardInterrupt (File '
     '"/work/app/serve.py", line 4, in <module>: time.sleep(60))'),
    (CHAINED, "python3 load.py", "python3 load.py`: RuntimeError: config unreadable"),
    (PYTEST_WITHOUT_SUMMARY, "pytest -q -rN", "pytest -q -rN`: assert 3 == 6"),
    (NODE_ASSERT, "node a.js", "node a.js`: AssertionError [ERR_ASSERTION]: Expected values "
     "to be strictly equal: 3 !== 6"),
    (NODE_TYPE_ERROR, "node b.js", "node b.js`: TypeError: Cannot read properties of "
     "undefined (reading 'port')"),
])
def test_the_errors_fact_names_what_failed(output: str, command: str, fact: str) -> None:
    assert errors_fact(output, command) == [f"- shell `{fact}"]


def test_pytests_summary_line_still_names_the_test() -> None:
    output = PYTEST_WITHOUT_SUMMARY.replace(
        "2 failed", "=========================== short test summary info ============================\n"
        "FAILED test_calc.py::test_total - assert 3 == 6\n"
        "FAILED test_calc.py::test_key - KeyError: 'x'\n2 failed")
    assert errors_fact(output, "pytest -q") == [
        "- shell `pytest -q`: FAILED test_calc.py::test_total - assert 3 == 6"]



def test_a_line_starting_with_e_is_not_taken_for_pytests() -> None:
    output = "building\nE 1 unit left in queue\nerror: build failed\n[exit code: 1]"
    assert errors_fact(output, "make") == ["- shell `make`: error: build failed"]
