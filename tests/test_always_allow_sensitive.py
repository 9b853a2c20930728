"""`a` (always allow) does not cover a sensitive file: `cat .env` still asks, and says why.

Answering `a` at a harmless `ls` allowed the shell for the session, and then `cat .env`
(or `cat ~/.ssh/id_rsa`) ran unasked, its secret sent to the model — while an allow rule
such as ``shell(cat*)`` already asked about it (README: Security, "an allow rule never
overrides the sensitive-file list unless it names the path").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_harness import Approvals, make_harness
from test_repl import CTRL_D, ENTER, World

from goosectx.config import ApprovalMode, Settings
from goosectx.conversation import Message, ToolResponse
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply

SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c"
NOTICE = 'asked because .env is a sensitive file, which "always allow" does not cover'


def _responses(messages: list[Message]) -> list[ToolResponse]:
    return [p for m in messages for p in m.content if isinstance(p, ToolResponse)]


@pytest.mark.parametrize("mode", ["approve", "smart_approve"])
def test_a_cat_of_env_after_always_allow_is_asked_and_denied(
        tmp_path: Path, mode: ApprovalMode) -> None:
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("shell", {"command": "ls"})]),
        ScriptedReply(tool_calls=[("shell", {"command": "cat .env"})]),
        ScriptedReply(tool_calls=[("shell", {"command": "echo still-allowed"})]), "done"])
    approvals = Approvals(answers=["always_allow", "deny"])
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     approve=approvals, mode=mode)
    (tmp_path / "work" / ".env").write_text(f"API_KEY={SECRET}\n")
    h.turn("look around")
    asked = [r.arguments["command"] for r in approvals.asked if r.arguments]
    assert asked == ["ls", "cat .env"]  # echo ran unasked: the answer still holds
    outputs = [r.output for r in _responses(h.stored())]
    assert SECRET not in "".join(outputs)
    assert "The user denied this tool call" in outputs[1]
    assert "still-allowed" in outputs[2]


def test_a_yes_at_that_question_runs_it_once_and_the_next_one_asks_again(
        tmp_path: Path) -> None:
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("shell", {"command": "ls"})]),
        ScriptedReply(tool_calls=[("shell", {"command": "wc -c .env"})]),
        ScriptedReply(tool_calls=[("shell", {"command": "wc -c .env"})]), "done"])
    approvals = Approvals(answers=["always_allow", "allow_once", "deny"])
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     approve=approvals, mode="approve")
    (tmp_path / "work" / ".env").write_text("X=1\n")
    h.turn("go")
    assert [r.arguments["command"] for r in approvals.asked if r.arguments] == [
        "ls", "wc -c .env", "wc -c .env"]


def test_auto_mode_still_runs_it(tmp_path: Path) -> None:
    # auto runs every call; an earlier `a` answer makes nothing ask that auto would run.
    provider = ScriptedProvider([ScriptedReply(tool_calls=[("shell", {"command": "cat .env"})]),
                                 "done"])
    approvals = Approvals()
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     approve=approvals, mode="auto")
    h.agent.always_allowed["shell"] = "shell"
    (tmp_path / "work" / ".env").write_text("X=1\n")
    h.turn("go")
    assert approvals.asked == []


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_the_question_says_always_allow_does_not_cover_the_file(world: World) -> None:
    (world.workdir / ".env").write_text(f"API_KEY={SECRET}\n")
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "ls"})]),
                       ScriptedReply(tool_calls=[("shell", {"command": "cat .env"})]),
                       ScriptedReply(tool_calls=[("shell", {"command": "pwd"})]), "done")
    out = world.run("go" + ENTER + "a" + "n" + ENTER + CTRL_D)
    assert out.count("goosectx asks: run shell?") == 2  # ls and cat .env; pwd ran unasked
    assert NOTICE in out
    assert SECRET not in out


def test_an_always_allowed_editor_still_asks_before_editing_env(world: World) -> None:
    # `a` at one edit allows the editor's edits, not one of .env (as an allow rule would not).
    (world.workdir / ".env").write_text("X=1\n")
    (world.workdir / "a.txt").write_text("old\n")
    edit = {"command": "str_replace", "old_str": "old", "new_str": "new"}
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {**edit, "path": "a.txt"})]),
                       ScriptedReply(tool_calls=[("text_editor", {
                           "command": "str_replace", "path": ".env", "old_str": "X=1",
                           "new_str": "X=2"})]), "done")
    out = world.run("go" + ENTER + "a" + "n" + ENTER + CTRL_D)
    assert (world.workdir / "a.txt").read_text() == "new\n"
    assert (world.workdir / ".env").read_text() == "X=1\n"
    assert out.count("goosectx asks: run text_editor?") == 2


def test_a_glob_too_wide_to_check_asks_and_says_it_may_name_one(tmp_path: Path) -> None:
    """(``cat``, which reads what it names: ``ls`` lists names only, and runs.)"""
    from goosectx.approval import ApprovalContext, decide

    for d in range(11):
        (tmp_path / f"d{d}").mkdir()
        for i in range(1000):
            (tmp_path / f"d{d}" / f"f{i}.py").touch()
    verdict = decide(ApprovalContext(mode="approve", tool_name="shell", read_only=False,
                                     working_dir=tmp_path, arguments={"command": "cat */*.py"},
                                     always_allowed=frozenset({"shell"})))
    assert verdict.action == "ask"
    assert verdict.read_why == ('*/*.py (over 10,000 matches, too many to check: any may be) '
                                'may name a sensitive file, which "always allow" does not cover')
    plain = decide(ApprovalContext(mode="approve", tool_name="shell", read_only=False,
                                   working_dir=tmp_path, arguments={"command": "cat d1/*.py"},
                                   always_allowed=frozenset({"shell"})))
    assert plain.action == "run"


def test_an_allow_rule_that_does_not_name_the_file_asks_and_says_so(tmp_path: Path) -> None:
    from goosectx.approval import ApprovalContext, PermissionRules, decide

    (tmp_path / ".env").write_text("X=1\n")

    def verdict(mode: ApprovalMode, command: str):  # type: ignore[no-untyped-def]
        return decide(ApprovalContext(mode=mode, tool_name="shell", read_only=False,
                                      working_dir=tmp_path, arguments={"command": command},
                                      rules=PermissionRules(allow=("shell(cat*)",))))

    asked = verdict("smart_approve", "cat notes.txt .env")
    assert asked.action == "ask"
    assert asked.read_why == ".env is a sensitive file, which the allow rule shell(cat*) does " \
                             "not cover"
    assert verdict("smart_approve", "cat notes.txt").action == "run"
    assert verdict("auto", "cat .env").action == "run"  # --mode auto still runs it
