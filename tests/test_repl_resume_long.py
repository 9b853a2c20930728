"""Resuming a session whose last answer is huge draws about a screenful, not all of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_repl import CTRL_D, World

from goosectx.conversation import Message


@pytest.fixture
def world(tmp_path: Path) -> Any:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_a_huge_last_answer_is_drawn_as_its_last_lines_on_resume(world: World) -> None:
    answer = "\n".join(f"answer line {i}" for i in range(2_000))
    world.store.append_message(world.session.id, Message.user("write a lot"))
    world.store.append_message(world.session.id, Message.assistant(answer))
    out = world.run(CTRL_D, session=world.stored(), resumed=True)
    assert "write a lot" in out  # the request still shows
    words = " ".join(out.replace("│", " ").split())
    assert "answer line 1999" in words and "answer line 1990" in words  # its end
    assert "answer line 0 " not in words and "answer line 1000 " not in words
    assert len(out.splitlines()) < 60  # about a screenful, banner included
    assert "1,980 lines above · /history user to see all" in words


def test_a_huge_single_line_answer_is_drawn_as_its_end_on_resume(world: World) -> None:
    world.store.append_message(world.session.id, Message.user("one long line"))
    world.store.append_message(world.session.id,
                               Message.assistant("start " + "word " * 200_000 + "THE END"))
    out = world.run(CTRL_D, session=world.stored(), resumed=True)
    assert "THE END" in out and "one long line" in out
    assert len(out.splitlines()) < 60
    words = " ".join(out.replace("│", " ").split())
    assert "characters above · /history user to see all" in words  # no whole line is above
    assert "line above" not in words and "*" not in words  # plain words, not Markdown
    assert "…word word" in words  # the end starts at a word, not inside one


def test_history_flag_still_draws_the_whole_answer(world: World) -> None:
    answer = "\n".join(f"answer line {i}" for i in range(100))
    world.store.append_message(world.session.id, Message.user("write a lot"))
    world.store.append_message(world.session.id, Message.assistant(answer))
    out = world.run(CTRL_D, session=world.stored(), resumed=True, full_history=True)
    assert "answer line 0" in out and "answer line 99" in out
    assert "lines above" not in out


def test_many_short_lines_are_cut_too(world: World) -> None:
    world.store.append_message(world.session.id, Message.user("list them"))
    world.store.append_message(world.session.id, Message.assistant(
        "\n\n".join(f"- item {i}" for i in range(300))))
    out = world.run(CTRL_D, session=world.stored(), resumed=True)
    assert "item 299" in out and "item 10\n" not in out and "list them" in out
    assert len(out.splitlines()) < 60
