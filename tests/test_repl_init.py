"""``/init``: the model is asked to look around and write AGENTS.md, never over an existing one."""

from __future__ import annotations

from pathlib import Path

from test_repl import CTRL_D, ENTER, World

from goosectx.providers.scripted import ScriptedReply


def test_init_asks_the_model_to_write_agents_md_for_this_project(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.provider.add("I will look around first.")
    out = world.run("/init" + ENTER + CTRL_D)
    sent = world.provider.requests[0].messages[-1].text
    assert sent.startswith(f"Create {world.workdir / 'AGENTS.md'}:")
    assert "look around with your tools" in sent and "change no other file" in sent
    assert "I will look around first." in out
    assert world.stored().conversation.messages[0].text == sent  # a turn like any other
    world.store.close()


def test_init_passes_the_users_focus_along(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.provider.add("ok")
    world.run("/init mention the release checklist" + ENTER + CTRL_D)
    sent = world.provider.requests[0].messages[-1].text
    assert sent.endswith("The user also asks: mention the release checklist")
    world.store.close()


def test_init_never_replaces_an_existing_agents_md(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workdir / "AGENTS.md").write_text("# ours\n")
    out = world.run("/init" + ENTER + CTRL_D)
    assert not world.provider.requests  # no model call
    assert "AGENTS.md already exists" in " ".join(out.split())
    assert (world.workdir / "AGENTS.md").read_text() == "# ours\n"
    world.store.close()


def test_help_lists_init(tmp_path: Path) -> None:
    world = World(tmp_path)
    out = world.run("/help" + ENTER + CTRL_D)
    assert "/init" in out and "AGENTS.md" in out
    world.store.close()


def test_init_in_chat_mode_says_it_needs_tools(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.mode = "chat"
    out = world.run("/init" + ENTER + CTRL_D)
    assert not world.provider.requests
    assert "/init needs tools" in " ".join(out.split())
    world.store.close()


def test_the_agents_md_init_wrote_is_sent_from_the_next_turn_on(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.mode = "auto"
    world.provider.add(
        ScriptedReply(tool_calls=[("text_editor", {
            "command": "write", "path": "AGENTS.md",
            "file_text": "# Agents\nAlways run pytest -q.\n"})]),
        "wrote AGENTS.md", "noted")
    out = world.run("/init" + ENTER + "hello" + ENTER + "/context" + ENTER + CTRL_D)
    first, _after_tool, hello = world.provider.requests
    assert "Always run pytest -q." not in first.system  # there was none yet
    assert "Always run pytest -q." in hello.system  # this process, the next turn
    line = next(ln for ln in out.splitlines() if "project instructions" in ln)
    assert "from AGENTS.md" in line and int(line.split()[2].replace(",", "")) > 0
    world.store.close()


def test_init_in_a_subdirectory_builds_on_the_root_agents_md(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workdir / ".git").mkdir()
    (world.workdir / "AGENTS.md").write_text("root rules: run make test\n")
    sub = world.workdir / "sub"
    sub.mkdir()
    world.session.working_dir = sub
    world.provider.add("ok")
    out = world.run("/init" + ENTER + CTRL_D)
    sent = world.provider.requests[0].messages[-1].text
    assert sent.startswith(f"Create {sub / 'AGENTS.md'}:")
    assert f"already reads here: {world.workdir / 'AGENTS.md'}" in sent
    assert "do not repeat them" in sent
    assert "already applies here" in " ".join(out.split())
    world.store.close()
