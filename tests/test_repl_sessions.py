"""``/sessions`` and ``/resume SESSION`` typed at the REPL (issue 17 point 5), over pipe input."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console
from test_repl import CTRL_D, ENTER, World

from goosectx.agent import Agent
from goosectx.approval import ApprovalFn
from goosectx.cli.common import OpenSession
from goosectx.cli.repl import Repl, ReplIO
from goosectx.conversation import Message
from goosectx.errors import SessionInUse
from goosectx.tools.builtin import make_tool_context


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.store.append_message(w.session.id, Message.user("Fix the flaky login test"))
    w.store.append_message(w.session.id, Message.assistant("It waits on a timer; fixed."))
    other = w.store.create_session(w.workdir, name="docs")
    w.store.append_message(other.id, Message.user("Write the install section\nwith pipx"))
    w.store.append_message(other.id, Message.assistant("Added the install section."))
    w.other_id = other.id  # type: ignore[attr-defined]
    yield w
    w.store.close()


def run_with_lock(world: World, keys: str, *, resumed: bool = True
                  ) -> tuple[str, Repl, OpenSession]:
    """Run the REPL on ``world.session`` holding its lock, as ``goosectx`` does."""
    holder: dict[str, Any] = {}
    session = world.store.load(world.session.id)
    opened = OpenSession(world.store, session, world.store.lock(session.id), resumed=resumed)

    def build(approve: ApprovalFn) -> Agent:
        current = holder["repl"].session if "repl" in holder else session
        mode = holder["repl"].mode if "repl" in holder else world.mode
        return Agent(current, world.settings, provider=world.provider, tools=world.tools,
                     approve=approve, mode=mode,
                     tool_context=make_tool_context(world.settings, world.workdir))

    buf = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        repl = Repl(world.settings, world.store, session,
                    io=ReplIO(Console(file=buf, width=140), input=pipe, output=DummyOutput(),
                              history=False),
                    resumed=resumed, mode=world.mode, agent_factory=build,
                    background_checks=False, opened=opened)
        holder["repl"] = repl
        assert repl.run() == 0
    return buf.getvalue(), repl, opened


def test_slash_sessions_lists_titles_and_marks_this_one(world: World) -> None:
    out, _, opened = run_with_lock(world, "/sessions" + ENTER + CTRL_D)
    opened.lock.release()
    lines = out.splitlines()
    this = next(line for line in lines if world.session.id in line and "title" not in line
                and "Fix" in line)
    other = next(line for line in lines if world.other_id in line)  # type: ignore[attr-defined]
    assert this.lstrip().startswith("* ") and "Fix the flaky login test" in this
    assert "Write the install section" in other and "with pipx" not in other
    assert "goosectx" in other and "/resume SESSION continues one" in out


def test_slash_resume_switches_sessions_and_moves_the_lock(world: World) -> None:
    world.provider.add("The section now mentions uv too.")
    out, repl, opened = run_with_lock(
        world, "/resume docs" + ENTER + "also mention uv" + ENTER + CTRL_D)
    other_id = world.other_id  # type: ignore[attr-defined]
    try:
        # the other session's tail is drawn like a resume, and said so
        assert "saved demo · resumed docs (Write the install section) · 2 messages" in out
        assert out.index("resumed docs") < out.index("Added the install section.")
        assert "resumed · earlier messages above" in out
        # the turn after /resume belongs to the other session, with its history
        sent = [m.text for m in world.provider.requests[-1].messages]
        assert sent[:2] == ["Write the install section\nwith pipx", "Added the install section."]
        assert sent[-1] == "also mention uv"
        assert [m.text for m in world.store.load(other_id).conversation][-2:] == [
            "also mention uv", "The section now mentions uv too."]
        assert len(world.store.load(world.session.id).conversation) == 2
        assert "saved · resume with: goosectx --resume docs" in out
        # the first session is unlocked, the other held by the REPL's lock holder
        world.store.lock(world.session.id).release()
        assert opened.session.id == other_id and repl.session.id == other_id
        with pytest.raises(SessionInUse):
            world.store.lock(other_id)
    finally:
        opened.lock.release()


@pytest.mark.parametrize(("saved", "mode"), [("chat", "chat"), (None, "smart_approve")])
def test_slash_resume_takes_the_mode_the_other_session_was_left_in(
        world: World, saved: str | None, mode: str) -> None:
    """As ``goosectx --resume docs`` would: a session left in chat mode is not driven in
    this one's auto mode (a tool call would run unasked); one with no stored mode gets the
    configured one."""
    other_id = world.other_id  # type: ignore[attr-defined]
    if saved:
        world.store.update_session(other_id, approval_mode=saved)
    out, repl, opened = run_with_lock(world, "/mode auto" + ENTER + "/resume docs" + ENTER
                                      + "/mode" + ENTER + CTRL_D)
    opened.lock.release()
    assert repl.session.id == other_id and repl.mode == mode and repl.agent.mode == mode
    assert f"mode: {mode} (choose with" in out
    if saved:
        assert "mode chat (restored from this session)" in out
    assert world.store.load(world.session.id).approval_mode == "auto"  # kept for its resume


def test_resume_of_a_session_in_use_changes_nothing(world: World) -> None:
    other_id = world.other_id  # type: ignore[attr-defined]
    held = world.store.lock(other_id)
    try:
        out, repl, opened = run_with_lock(world, "/resume docs" + ENTER + "/resume nope"
                                          + ENTER + CTRL_D)
    finally:
        held.release()
    opened.lock.release()
    assert f"session {other_id} is in use by PID" in out
    assert "no session matches 'nope'" in out
    hint = out[out.index("no session matches 'nope'"):].splitlines()[:3]
    assert "/sessions" in " ".join(hint) and "goosectx sessions list" not in out  # in the REPL
    assert repl.session.id == world.session.id and opened.session.id == world.session.id


def test_resume_leaves_an_empty_new_session_behind_removed(world: World) -> None:
    fresh = world.store.create_session(world.workdir, name="empty")
    world.session = fresh
    out, _, opened = run_with_lock(world, "/resume docs" + ENTER + CTRL_D, resumed=False)
    opened.lock.release()
    assert "left empty (nothing to save) · resumed docs" in out
    assert "empty" not in [s.name for s in world.store.list_sessions()]
    assert not (world.store.data_dir / "locks" / f"{fresh.id}.lock").exists()


def test_tab_after_slash_resume_offers_the_other_sessions_with_their_titles(
        world: World) -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    _, repl, opened = run_with_lock(world, CTRL_D)
    opened.lock.release()
    assert repl._prompt is not None and repl._prompt.completer is not None
    offered = list(repl._prompt.completer.get_completions(Document("/resume d"),
                                                          CompleteEvent()))
    assert [c.text for c in offered] == ["docs"]
    assert offered[0].display_meta_text == "Write the install section"
    everything = list(repl._prompt.completer.get_completions(Document("/resume "),
                                                             CompleteEvent()))
    assert "demo" not in [c.text for c in everything]  # not the session it is in


def test_after_resume_at_mentions_complete_in_the_new_sessions_working_dir(
        world: World, tmp_path: Path) -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "zebra.md").write_text("z\n")
    far = world.store.create_session(elsewhere, name="far")
    world.store.append_message(far.id, Message.user("work over there"))
    _, repl, opened = run_with_lock(world, "/resume far" + ENTER + CTRL_D)
    opened.lock.release()
    assert repl._prompt is not None and repl._prompt.completer is not None
    offered = [c.text for c in repl._prompt.completer.get_completions(Document("see @zeb"),
                                                                       CompleteEvent())]
    assert offered and offered[0].endswith("zebra.md")


def test_resume_of_a_long_session_says_it_is_loading_before_the_wait(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    import goosectx.cli.repl_sessions as repl_sessions

    monkeypatch.setattr(repl_sessions, "BACKGROUND_FROM", 2)  # "long": 2 messages and more
    out, _, opened = run_with_lock(world, "/resume docs" + ENTER + CTRL_D)
    opened.lock.release()
    assert "loading 2 messages…" in out
    assert out.index("loading 2 messages…") < out.index("resumed docs")
    monkeypatch.setattr(repl_sessions, "BACKGROUND_FROM", 3)
    out, _, opened = run_with_lock(world, "/resume docs" + ENTER + CTRL_D)
    opened.lock.release()
    assert "loading" not in out  # a short one loads at once, without the line


def test_tab_after_slash_resume_shows_a_hostile_name_as_its_stand_in(world: World) -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    odd = world.store.create_session(world.workdir, name="evil\u202etxt.exe")
    _, repl, opened = run_with_lock(world, CTRL_D)
    opened.lock.release()
    assert repl._prompt is not None and repl._prompt.completer is not None
    offered = list(repl._prompt.completer.get_completions(Document("/resume "),
                                                          CompleteEvent()))
    [choice] = [c for c in offered if "evil" in c.display_text]
    assert choice.display_text == "evil<U+202E>txt.exe"  # as `sessions list` shows it
    assert choice.text == odd.id  # what goes into the input line: the id, which resumes it
    assert all("\u202e" not in c.text + c.display_text for c in offered)
    typed = list(repl._prompt.completer.get_completions(Document("/resume ev"),
                                                        CompleteEvent()))
    assert [c.text for c in typed] == [odd.id]  # the name as seen still finds it


@pytest.mark.parametrize("typed", ["/resume ''", '/resume "  "', '/resume ""'])
def test_an_empty_quoted_session_name_is_refused_in_one_line(world: World, typed: str) -> None:
    """As ``goosectx --resume ''`` is: no 'no session matches' hunt, no two-word complaint."""
    before = world.store.message_count(world.session.id)
    out, repl, opened = run_with_lock(world, typed + ENTER + CTRL_D)
    opened.lock.release()
    said = [line for line in out.splitlines() if "names no session" in line]
    assert len(said) == 1 and "empty" in said[0], out
    assert "/sessions" in out[out.index("names no session"):]
    assert "no session matches" not in out and "one session name or id" not in out
    assert repl.session.id == world.session.id and opened.session.id == world.session.id
    assert world.store.message_count(world.session.id) == before


def test_resume_of_a_typo_names_the_close_session_in_the_repls_words(world: World) -> None:
    out, repl, opened = run_with_lock(world, "/resume dosc" + ENTER + CTRL_D)
    opened.lock.release()
    said = out[out.index("no session matches 'dosc'"):].splitlines()[:2]
    assert "did you mean 'docs'? /sessions lists them" in said[1], out
    assert "goosectx sessions list" not in out  # the shell's way, not the REPL's
    assert repl.session.id == world.session.id
