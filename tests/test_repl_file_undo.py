"""``/undo``: the file edits made since the user's last message are walked back.

Driven through the REPL over pipe input with the scripted model (auto mode: no approval
questions). What a user notices: the files' bytes, the lines ``/undo`` prints, and the note the
model is sent next.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, World

from goosectx import file_journal
from goosectx.agent import Agent
from goosectx.cli import slash
from goosectx.cli.reports import help_table
from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedReply
from goosectx.tools.builtin import make_tool_context


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.mode = "auto"
    yield w
    w.store.close()


def _edit_two_and_create(world: World) -> tuple[bytes, bytes]:
    """One turn: str_replace in a.py, write over b.txt (CRLF), create new.txt."""
    a_bytes = "def main():\n    return 1  # ünïcode\n".encode()
    b_bytes = b"line one\r\nline two\r\nno newline at end"
    (world.workdir / "a.py").write_bytes(a_bytes)
    (world.workdir / "b.txt").write_bytes(b_bytes)
    world.provider.add(ScriptedReply(tool_calls=[
        ("text_editor", {"command": "str_replace", "path": "a.py", "old_str": "return 1",
                         "new_str": "return 2"}),
        ("text_editor", {"command": "write", "path": "b.txt", "file_text": "replaced\n"}),
        ("text_editor", {"command": "write", "path": "new.txt", "file_text": "fresh\n"}),
    ]), ScriptedReply(tool_calls=[
        ("text_editor", {"command": "str_replace", "path": "a.py", "old_str": "return 2",
                         "new_str": "return 3"})]), "Done.")
    world.run("change the files" + ENTER + CTRL_D)
    assert (world.workdir / "a.py").read_text().count("return 3") == 1
    assert (world.workdir / "new.txt").exists()
    return a_bytes, b_bytes


def test_undo_restores_every_file_of_the_turn_byte_for_byte(world: World) -> None:
    a_bytes, b_bytes = _edit_two_and_create(world)
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert (world.workdir / "a.py").read_bytes() == a_bytes  # two edits: the first before
    assert (world.workdir / "b.txt").read_bytes() == b_bytes
    assert not (world.workdir / "new.txt").exists()
    assert '/undo: the file edits made for your message "change the files":' in out
    assert "restored  a.py" in out and "restored  b.txt" in out
    assert "removed   new.txt (that turn created it)" in out
    # The transcript keeps the earlier turn, plus the undo notice.
    texts = [m.text for m in world.stored().conversation.user_view()]
    assert texts[0] == "change the files" and "Done." in texts
    out = world.run(CTRL_D, resumed=True)
    assert out.index("Done.") < out.index("● /undo: the file edits made for your message")


def test_the_next_request_tells_the_model_which_files_were_undone(world: World) -> None:
    _edit_two_and_create(world)
    world.provider.add("I see.")
    world.run("/undo" + ENTER + "what now?" + ENTER + CTRL_D, resumed=True)
    sent = "\n".join(m.text for m in world.provider.requests[-1].messages)
    assert '[I used /undo: the file edits you made for my message "change the files"' in sent
    assert "a.py (restored to its contents before that turn)" in sent
    assert "new.txt (removed: that turn created it)" in sent
    assert sent.rstrip().endswith("what now?")


def test_a_file_changed_by_hand_is_not_overwritten_unless_forced(world: World) -> None:
    a_bytes, b_bytes = _edit_two_and_create(world)
    (world.workdir / "b.txt").write_text("my own change\n")
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "nothing was undone: files changed since goosectx edited them" in out
    assert "changed  b.txt" in out
    assert "/undo --force restores them anyway" in out
    assert (world.workdir / "b.txt").read_text() == "my own change\n"
    assert "return 3" in (world.workdir / "a.py").read_text()  # nothing touched
    assert (world.workdir / "new.txt").exists()
    out = world.run("/undo --force" + ENTER + CTRL_D, resumed=True)
    assert "restored  b.txt" in out
    assert (world.workdir / "b.txt").read_bytes() == b_bytes
    assert (world.workdir / "a.py").read_bytes() == a_bytes


def test_undo_again_goes_one_more_message_back(world: World) -> None:
    target = world.workdir / "notes.txt"
    target.write_text("v0\n")
    for version in ("v1", "v2"):
        world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
            "command": "write", "path": "notes.txt", "file_text": f"{version}\n"})]), "ok")
        world.run(f"make it {version}" + ENTER + CTRL_D, resumed=True)
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert '"make it v2"' in out and target.read_text() == "v1\n"
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert '"make it v1"' in out and target.read_text() == "v0\n"
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "/undo: nothing to undo" in out and target.read_text() == "v0\n"


def test_a_shell_turn_is_named_as_not_undoable(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[
        ("shell", {"command": "echo hi > made-by-shell.txt"}),
        ("text_editor", {"command": "write", "path": "by-editor.txt", "file_text": "x\n"}),
    ]), "ok")
    world.run("make two files" + ENTER + CTRL_D)
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "removed   by-editor.txt" in out
    assert "not undoable  shell: echo hi > made-by-shell.txt" in out
    assert ("(only the text editor's edits are recorded: check what those calls changed "
            "yourself)") in out
    assert (world.workdir / "made-by-shell.txt").exists()


def _goosectx(world: World, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``goosectx ARGS`` in a new process on the world's data dir, no model configured."""
    world.store.close()
    config = world.workdir.parent / "no-config.toml"
    config.touch()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GOOSE_") and not k.endswith("_API_KEY")}
    env.update(GOOSECTX_HOME=str(world.settings.data_dir), GOOSECTX_CONFIG=str(config),
               PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    return subprocess.run([sys.executable, "-m", "goosectx", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, cwd=world.workdir,
                          env=env)


def test_undo_works_after_resuming_in_a_new_process(world: World) -> None:
    a_bytes, b_bytes = _edit_two_and_create(world)
    proc = _goosectx(world, "session", "--resume", "demo", stdin="/undo\n/exit\n")
    assert proc.returncode == 0, proc.stderr
    assert "restored  a.py" in proc.stdout and "removed   new.txt" in proc.stdout
    assert (world.workdir / "a.py").read_bytes() == a_bytes
    assert (world.workdir / "b.txt").read_bytes() == b_bytes
    assert not (world.workdir / "new.txt").exists()


def test_help_lists_undo_apart_from_undo_compact() -> None:
    assert slash.parse_slash("/undo") == slash.Undo(force=False)
    assert slash.parse_slash("/undo --force") == slash.Undo(force=True)
    assert isinstance(slash.parse_slash("/undo everything"), slash.Invalid)
    rows = [str(cell) for cell in help_table().columns[0]._cells]
    assert "/undo [--force]" in rows and "/undo-compact" in rows


def test_a_file_too_large_to_keep_is_named_when_edited_and_left_by_undo(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_journal, "MAX_KEPT_FILE_BYTES", 10)
    target = world.workdir / "big.txt"
    target.write_text("0123456789abcdef\nline\n")
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
        "command": "str_replace", "path": "big.txt", "old_str": "line", "new_str": "LINE"})]),
        "ok")
    out = world.run("edit it" + ENTER + "/undo" + ENTER + CTRL_D)
    edited = out.index("(/undo will not be able to restore")
    assert edited < out.index("❯ /undo")  # said when the edit was made
    assert "not undoable  big.txt: it was too large to keep (22 bytes)" in out
    assert target.read_text() == "0123456789abcdef\nLINE\n"


def test_the_oldest_kept_contents_are_dropped_past_the_cap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_journal, "MAX_SESSION_BYTES", 25)
    journal = file_journal.EditJournal(tmp_path / "data", "20260101_000000_abcd")
    for n in range(3):
        record, why = journal.begin(f"msg_{n}", "call_1", tmp_path / f"f{n}", b"x" * 10,
                                    "after", "before")
        assert why is None
        journal.finish(record)
    kept = [(r.turn_id, r.kept, r.dropped) for r in journal.records()]
    assert kept == [("msg_0", False, True), ("msg_1", True, False), ("msg_2", True, False)]
    files = sorted(p.name for p in (tmp_path / "data" / "file-undo").rglob("*"))
    assert "00000001.before" not in files and "00000003.before" in files
    modes = {p.stat().st_mode & 0o777 for p in (tmp_path / "data" / "file-undo").rglob("*.*")}
    assert modes == {0o600}


def test_removing_the_session_removes_the_contents_kept_for_undo(world: World) -> None:
    _edit_two_and_create(world)
    kept = world.settings.data_dir / "file-undo" / world.session.id
    assert any(p.suffix == ".before" for p in kept.iterdir())
    proc = _goosectx(world, "sessions", "remove", "demo", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert not kept.exists()


def test_a_shell_call_the_user_denied_is_not_named(world: World) -> None:
    world.mode = "approve"
    world.provider.add(ScriptedReply(tool_calls=[
        ("shell", {"command": "rm -rf build"}),
        ("text_editor", {"command": "write", "path": "made.txt", "file_text": "x\n"}),
    ]), "ok")
    world.run("clean and write" + ENTER + "n" + ENTER + "y" + CTRL_D)
    assert (world.workdir / "made.txt").exists()
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "removed   made.txt" in out
    assert "not undoable" not in out


def test_edits_go_to_the_session_the_agent_drives_when_tools_are_shared(world: World) -> None:
    shared = make_tool_context(world.settings, world.workdir)  # one context, two sessions
    other = world.store.create_session(world.workdir, name="other", model="scripted/m")
    for session, name in ((world.session, "first.txt"), (other, "second.txt")):
        world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
            "command": "write", "path": name, "file_text": "x\n"})]), "ok")
        agent = Agent(session, world.settings, provider=world.provider, tools=world.tools,
                      approve=lambda _r: "allow", mode="auto", tool_context=shared)
        sent = Message.user("write " + name)
        session.conversation.append(sent)
        list(agent.reply("write " + name, sent=sent))
    out = world.run("/undo" + ENTER + CTRL_D, session=other)
    assert "removed   second.txt" in out and not (world.workdir / "second.txt").exists()
    assert (world.workdir / "first.txt").exists()


def test_a_file_holding_a_secret_value_is_not_kept(world: World,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_API_KEY", "sk-live-0123456789abcdef")
    target = world.workdir / ".env"
    target.write_text("DEPLOY_API_KEY=sk-live-0123456789abcdef\nDEBUG=1\n")
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
        "command": "str_replace", "path": ".env", "old_str": "DEBUG=1", "new_str": "DEBUG=0"})]),
        "ok")
    out = world.run("turn debug off" + ENTER + "/undo" + ENTER + CTRL_D)
    kept = world.settings.data_dir / "file-undo"
    assert not any(b"sk-live-0123456789abcdef" in p.read_bytes() for p in kept.rglob("*.*"))
    assert out.index("(/undo will not be able to restore") < out.index("❯ /undo")
    assert "not undoable  .env: it holds a secret value" in out
    assert target.read_text().endswith("DEBUG=0\n")


def test_a_file_quoting_only_the_vendor_prefix_of_the_key_is_kept_for_undo(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    # every Anthropic key starts with these 13 characters: a test fixture holding them and
    # a made-up rest is no piece of the user's key, and /undo restores it
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-Q7vX2mK9pL4sR6yH1zTwqAbCdEfGh")
    target = world.workdir / "test_keys.py"
    target.write_text('FAKE = "sk-ant-api03-XXXXXXXXXXXXXXXXXXXX"\nDEBUG = 1\n')
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
        "command": "str_replace", "path": "test_keys.py", "old_str": "DEBUG = 1",
        "new_str": "DEBUG = 0"})]), "ok")
    out = world.run("turn debug off" + ENTER + "/undo" + ENTER + CTRL_D)
    assert "/undo will not be able to restore" not in out and "secret value" not in out
    assert "restored  test_keys.py" in out
    assert target.read_text() == 'FAKE = "sk-ant-api03-XXXXXXXXXXXXXXXXXXXX"\nDEBUG = 1\n'


def test_an_imported_turn_says_it_was_imported_not_each_call(world: World) -> None:
    from datetime import UTC, datetime, timedelta

    from goosectx.conversation import MessageMetadata, TextContent, ToolRequest, ToolResponse

    earlier = datetime.now(UTC) - timedelta(days=1)
    calls = tuple(ToolRequest(f"t{i}", "TodoWrite", {"todos": []}) for i in range(5))
    imported = [Message("user", (TextContent("plan the work"),), MessageMetadata(), "u1", earlier),
                Message("assistant", (TextContent("planning"), *calls), MessageMetadata(), "a1",
                        earlier),
                Message("user", tuple(ToolResponse(c.id, "ok") for c in calls),
                        MessageMetadata(), "r1", earlier)]
    for m in imported:
        world.store.append_message(world.session.id, m)
    session = world.stored()
    session.metadata["imported_at"] = datetime.now(UTC).isoformat()
    out = " ".join(world.run("/undo" + ENTER + CTRL_D, session=session, resumed=True).split())
    said = out[out.index("/undo:"):]
    assert said.startswith("/undo: nothing to undo — the turns before are imported from another "
                           "agent's transcript")
    assert "TodoWrite" not in said and "not undoable" not in said


def test_repeated_calls_are_named_once_with_a_count(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[
        ("shell", {"command": "make"}), ("shell", {"command": "make"}),
        ("text_editor", {"command": "write", "path": "f.txt", "file_text": "x\n"})]), "ok")
    world.run("build" + ENTER + CTRL_D)
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "not undoable  shell: make (×2)" in out and out.count("shell: make") == 1


def test_undo_in_a_gone_working_dir_refuses_and_does_not_recreate_it(world: World) -> None:
    """The working dir was removed after a turn edited files in it: ``/undo`` (with or without
    ``--force``) recreated the whole directory to restore them. It now refuses, nothing
    written, with the fix the tools give; once the dir is back, the undo still works."""
    a_bytes, _ = _edit_two_and_create(world)
    moved = world.workdir.with_name("moved-away")
    world.workdir.rename(moved)
    out = world.run("/undo" + ENTER + "/undo --force" + ENTER + CTRL_D, resumed=True)
    assert not world.workdir.exists()
    said = " ".join(out.split())
    assert said.count(f"/undo: nothing was undone — the working dir {world.workdir} no longer "
                      "exists") == 2
    assert f"(mkdir -p {world.workdir})" in said
    assert "restored  " not in out and "removed   " not in out
    moved.rename(world.workdir)
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert (world.workdir / "a.py").read_bytes() == a_bytes
    assert "restored  a.py" in out
