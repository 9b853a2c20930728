"""``a`` (always allow) covers the tool it was given for, not whatever later takes its name.

It was remembered by name only: after ``a`` at ``demo__echo``, ``/extension remove`` and an
``/extension add`` of another server that got the same name made that server's ``echo`` run
unasked; after ``a`` at ``sw__get_data`` (the server's ``get.data``), a restart that offered
the server's ``get_data`` under that name ran it unasked. README: ``a`` applies "to that one
tool".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from extension_support import demo_config, demo_spec
from test_extension_always_allow import _plain
from test_extensions_repl import World

from goosectx.extensions.config import parse_flag_spec
from goosectx.extensions.manager import ExtensionManager
from goosectx.providers.scripted import ScriptedReply

ASKS = "goosectx asks: run {}?"
FORGOTTEN = "always allow forgotten (the name now stands for another tool): {}"


def _answers(world: World) -> list[str]:
    return [r.output for m in world.provider.requests[-1].messages for r in m.tool_responses]


@pytest.fixture
def added(tmp_path: Path) -> Iterator[World]:
    """The demo server as ``/extension add`` names it."""
    manager = ExtensionManager([parse_flag_spec(demo_spec(), {}, origin="repl")], tmp_path)
    try:
        yield World(tmp_path, manager)
    finally:
        manager.stop_all()


def test_always_allow_does_not_cover_another_server_added_under_the_same_name(
        added: World) -> None:
    name = next(iter(added.manager.configs))
    tool = f"{name}__echo"
    added.provider.add(*(item for text in ("first", "same", "second") for item in (
        ScriptedReply(tool_calls=[(tool, {"text": text})]), f"after {text}")))
    # a restart keeps the answer (the same server's same tool); a replacement does not
    out = _plain(added, f"one\na\n/extension restart {name}\ntwo\n/extension remove {name}\n"
                        f"/extension add {demo_spec('--shapes')}\nthree\nn\n")
    assert next(iter(added.manager.configs)) == name  # the other server got the same name
    assert out.count(ASKS.format(tool)) == 2
    assert out.count("always allow forgotten") == 1  # at the remove, before another came
    assert f"always allow forgotten (extension {name} removed): {tool}" in out
    answers = _answers(added)
    assert answers[:2] == ["first", "same"] and answers[2] != "second"


def test_always_allow_does_not_follow_the_name_to_another_tool_after_a_restart(
        tmp_path: Path) -> None:
    flag = tmp_path / "offer-get_data"
    manager = ExtensionManager([demo_config("sw", "--clashing-if", str(flag))], tmp_path)
    try:
        world = World(tmp_path, manager)
        call = ScriptedReply(tool_calls=[("sw__get_data", {})])
        world.provider.add(call, "r1", call, "r2", call, "r3")
        manager.start()
        manager.wait_ready()
        # after the restart sw__get_data is the server's get_data, no longer its get.data
        flag.write_text("")
        out = _plain(world, "one\na\n/extension restart sw\ntwo\na\nthree\n")
    finally:
        manager.stop_all()
    assert out.count(ASKS.format("sw__get_data")) == 2
    assert FORGOTTEN.format("sw__get_data") in out
    assert _answers(world) == ["ran get.data", "ran get_data", "ran get_data"]


def test_removing_an_extension_forgets_always_allow_for_its_tools(added: World) -> None:
    # A bare remove kept the answer: the same server added back later ran unasked.
    name = next(iter(added.manager.configs))
    tool = f"{name}__echo"
    added.provider.add(*(item for text in ("first", "second") for item in (
        ScriptedReply(tool_calls=[(tool, {"text": text})]), f"after {text}")))
    out = _plain(added, f"one\na\n/extension remove {name}\n/extension add {demo_spec()}\n"
                        "two\nn\n")
    assert next(iter(added.manager.configs)) == name
    assert f"always allow forgotten (extension {name} removed): {tool}" in out
    assert out.count(ASKS.format(tool)) == 2
    answers = _answers(added)
    assert answers[0] == "first" and answers[1] != "second"
