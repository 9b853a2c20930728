"""`p` at a line of several commands offers that very line (`npm test 2>&1 | tail -20`).

The REPL offered nothing for a pipeline or a `&&` list, so a command the model repeats
(`pytest -q 2>&1 | tail -20`) was asked about every time. It is now offered the line as it
is when each part alone would be offered a rule; the rule allows that line only.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rules_support import action
from test_repl import CTRL_D, ENTER, World

from goosectx.permissions import PermissionRules
from goosectx.providers.scripted import ScriptedReply
from goosectx.rule_offer import suggested_rule


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_p_at_a_pipeline_allows_that_line_and_no_other(world: World) -> None:
    (world.workdir / "victim.txt").write_text("keep me\n")
    line = "ls 2>&1 | tail -3"
    world.provider.add(
        ScriptedReply(tool_calls=[("shell", {"command": line})]),
        ScriptedReply(tool_calls=[("shell", {"command": line})]),
        ScriptedReply(tool_calls=[("shell", {"command": f"{line}; rm -f victim.txt"})]),
        "done")
    out = world.run("go" + ENTER + "p" + "c" + CTRL_D)  # (c: the third call is asked about)
    assert out.count(f"shell: always allow shell({line}) (until you exit)") == 1
    assert world.repl.agent.rules.allow == (f"shell({line})",)
    assert out.count("victim.txt") >= 2  # ls listed it twice: the second ran unasked
    assert (world.workdir / "victim.txt").read_text() == "keep me\n"


@pytest.mark.parametrize(("command", "offered"), [
    ("npm test 2>&1 | tail -20", "shell(npm test 2>&1 | tail -20)"),
    ("git status && git diff --stat", "shell(git status && git diff --stat)"),
    ("cd sub && make test", "shell(cd sub && make test)"),
    ("grep -rn x . 2>/dev/null | head", "shell(grep -rn x . 2>/dev/null | head)"),
    # a part offered nothing, a redirection to a file, a glob, a substitution: nothing
    ("cat a.txt | bash", None), ("npm test > out.txt", None), ("ls *.py | wc -l", None),
    ("ls $(pwd) | head", None), ("npm test | xargs rm", None), ("ls & ls", None)])
def test_what_a_line_of_several_commands_is_offered(command: str, offered: str | None) -> None:
    assert suggested_rule("shell", {"command": command}) == offered


def test_the_line_rule_allows_only_that_line() -> None:
    rules = PermissionRules(allow=("shell(npm test 2>&1 | tail -20)",))
    assert action(rules, "npm test 2>&1 | tail -20", "smart_approve") == "run"
    for other in ("npm test 2>&1 | tail -20; rm x", "npm test 2>&1 | tail -200", "npm test",
                  "tail -20", "npm test  2>&1 | tail -20", "npm test --script-shell=x | tail -20"):
        assert action(rules, other, "smart_approve") == "ask", other
    denied = PermissionRules(allow=rules.allow, deny=("shell(tail*)",))
    assert action(denied, "npm test 2>&1 | tail -20", "smart_approve") == "deny"
