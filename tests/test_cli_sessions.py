import json
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from goosectx.conversation import Conversation, Message, MessageMetadata, ToolRequest, ToolResponse
from goosectx.store import SessionStore
from goosectx.usage import LedgerEntry, Usage


def config_file(home) -> str:
    """``home/none.toml``, created empty if absent (a named config file must exist)."""
    path = home / "none.toml"
    if not path.exists():
        home.mkdir(parents=True, exist_ok=True)
        path.touch()
    return str(path)


def goosectx(home, *args, input_text=None):
    env = {**os.environ, "GOOSECTX_HOME": str(home), "GOOSECTX_CONFIG": config_file(home),
           "NO_COLOR": "1", "TERM": "dumb"}
    env.pop("GOOSE_MODEL", None)
    return subprocess.run([sys.executable, "-m", "goosectx", *args], env=env, capture_output=True,
                          text=True, timeout=60, input=input_text)


@pytest.fixture
def filled(tmp_path):
    home = tmp_path / "home"
    store = SessionStore(home)
    s = store.create_session(tmp_path, name="bugfix", model="openai/gpt-4o-mini")
    msgs = [
        Message.user("please fix the bug in io.py"),
        Message("assistant", (ToolRequest("c1", "shell", {"command": "pytest -q"}),)),
        Message("user", (ToolResponse("c1", "1 failed"),)),
        Message.assistant("Fixed it."),
    ]
    for m in msgs:
        store.append_message(s.id, m)
    conv = Conversation([m.with_metadata(agent_visible=False) for m in msgs] + [
        Message.user("# Conversation Summary\nsecret summary text",
                     MessageMetadata(user_visible=False, is_summary=True, compaction_id="k1")),
        Message.assistant("continuing", MessageMetadata(user_visible=False, is_continuation=True)),
        # the compaction's own notice, last: where it happened (as layout places it)
        Message.notification("Context compacted at your request · 900 → 100 tokens")
        .with_metadata(compaction_id="k1"),
    ])
    store.replace_history(s.id, conv, ledger_entry=LedgerEntry(Usage.of(900, 100, 0.002), "m", "compaction"))
    store.append_message(s.id, Message.user("and now the docs"))
    store.close()
    return home, s.id


def test_empty_store(tmp_path):
    proc = goosectx(tmp_path / "h", "sessions", "list")
    assert proc.returncode == 0 and "No sessions yet" in proc.stdout
    proc = goosectx(tmp_path / "h", "sessions", "list", "--json")
    assert json.loads(proc.stdout) == []
    proc = goosectx(tmp_path / "h", "sessions", "show", "x")
    assert proc.returncode == 2 and "no session matches 'x'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_list_show_and_compaction_marker(filled):
    home, sid = filled
    proc = goosectx(home, "sessions", "list")
    assert proc.returncode == 0 and sid in proc.stdout and "bugfix" in proc.stdout
    listing = json.loads(goosectx(home, "sessions", "list", "--json").stdout)
    assert listing[0]["message_count"] == 8
    show = goosectx(home, "sessions", "show", "bugfix")
    assert show.returncode == 0
    out = show.stdout
    for text in ("please fix the bug in io.py", "pytest -q", "1 failed", "Fixed it.", "and now the docs"):
        assert text in out
    assert "Context compacted at your request" in out
    assert out.index("Fixed it.") < out.index("Context compacted") < out.index("and now the docs")
    assert "secret summary text" not in out
    agent = goosectx(home, "sessions", "show", sid[:12], "--agent").stdout
    assert "secret summary text" in agent and "please fix the bug" not in agent


def test_export_to_a_pipe_or_through_a_symlink_keeps_what_is_there(filled, tmp_path):
    """``-o`` a FIFO (``/dev/null``-like) writes into it, ``-o`` a symlink writes its target:
    the atomic rename put a regular file in their place (it replaced /dev/null as root)."""
    import threading

    home, _ = filled
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = goosectx(home, "sessions", "export", "bugfix", "-f", "json", "-o", str(fifo))
    reader.join(10)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and json.loads(got[0])["messages"]
    target, link = tmp_path / "real.md", tmp_path / "link.md"
    target.write_text("old\n")
    link.symlink_to(target)
    proc = goosectx(home, "sessions", "export", "bugfix", "-f", "md", "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and "please fix the bug" in target.read_text()


def test_export_json_round_trip_and_private_file(filled, tmp_path):
    home, sid = filled
    out = tmp_path / "export.json"
    proc = goosectx(home, "sessions", "export", "bugfix", "--format", "json", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    data = json.loads(out.read_text())
    assert data["schema_version"] == 2 and data["session"]["id"] == sid
    assert len(data["messages"]) == 8
    assert [m["metadata"]["agent_visible"] for m in data["messages"]][:4] == [False] * 4
    assert data["usage_ledger"][0]["is_compaction"] is True
    assert data["usage_ledger"][0]["cost_usd"] == 0.002
    from goosectx.export import session_from_json
    from goosectx.store import SessionStore as S

    store = S(home)
    original = store.load(sid)
    store.close()
    back = session_from_json(data)
    assert back.conversation.messages == original.conversation.messages
    # each message written from its stored JSON has exactly the keys and values of to_dict()
    assert data["messages"] == [m.to_dict() for m in original.conversation.messages]
    assert back.ledger.entries == original.ledger.entries


def test_export_markdown_to_stdout(filled):
    home, _ = filled
    proc = goosectx(home, "sessions", "export", "bugfix")
    assert proc.returncode == 0
    assert proc.stdout.startswith("# Session bugfix") and "Context compacted" in proc.stdout


def test_remove(filled):
    home, sid = filled
    proc = goosectx(home, "sessions", "remove", "bugfix")
    assert proc.returncode == 2 and "--yes" in proc.stderr
    proc = goosectx(home, "sessions", "remove", "bugfix", "--yes")
    assert proc.returncode == 0
    assert json.loads(goosectx(home, "sessions", "list", "--json").stdout) == []
    assert not (home / "locks" / f"{sid}.lock").exists()  # no lock file left behind
    assert (home / "locks").is_dir()


def test_rename_names_a_session_and_refuses_a_taken_or_unsafe_name(filled):
    home, sid = filled
    store = SessionStore(home)
    other = store.create_session(home, name="docs")
    store.close()
    proc = goosectx(home, "sessions", "rename", "bugfix", "fix-io")
    assert proc.returncode == 0 and "renamed bugfix to fix-io" in proc.stderr, proc.stderr
    listed = json.loads(goosectx(home, "sessions", "list", "--json").stdout)
    assert {r["id"]: r["name"] for r in listed} == {sid: "fix-io", other.id: "docs"}
    assert goosectx(home, "sessions", "show", "fix-io").returncode == 0
    taken = goosectx(home, "sessions", "rename", "fix-io", "docs")
    assert taken.returncode == 2 and "a session named 'docs' already exists" in taken.stderr
    unsafe = goosectx(home, "sessions", "rename", "fix-io", "evil\x1b]0;x\x07")
    assert unsafe.returncode == 2 and "\x1b" not in unsafe.stderr
    store = SessionStore(home)
    with store.lock(sid):  # another process drives it: its name is not changed under it
        busy = goosectx(home, "sessions", "rename", "fix-io", "later")
    store.close()
    assert busy.returncode == 1 and "in use" in busy.stderr
    listed = json.loads(goosectx(home, "sessions", "list", "--json").stdout)
    assert {r["id"]: r["name"] for r in listed} == {sid: "fix-io", other.id: "docs"}
    # another session's id is no name: "show ID" / "remove ID" would mean either of them
    shadow = goosectx(home, "sessions", "rename", "fix-io", other.id)
    assert shadow.returncode == 2 and f"{other.id!r} is the id of another session" in shadow.stderr
    for spaced in (" lead", "trail "):  # invisible in the list, and "show lead" finds nothing
        proc = goosectx(home, "sessions", "rename", "fix-io", spaced)
        assert proc.returncode == 2 and "space" in proc.stderr
    # "delete" is what other agents call remove
    gone = goosectx(home, "sessions", "delete", "docs", "--yes")
    assert gone.returncode == 0 and "removed docs" in gone.stderr


def test_an_id_names_its_own_session_whatever_another_is_named(filled):
    """A session named (before the check) with another's id: the id still means its own
    session, so ``remove ID`` cannot delete the other one."""
    home, sid = filled
    store = SessionStore(home)
    other = store.create_session(home, name="docs")
    store._conn.execute("UPDATE sessions SET name=? WHERE id=?", (sid, other.id))
    store._conn.commit()
    store.close()
    gone = goosectx(home, "sessions", "remove", sid, "--yes")
    assert gone.returncode == 0, gone.stderr
    assert [r["id"] for r in json.loads(goosectx(home, "sessions", "list", "--json").stdout)
            ] == [other.id]


def test_ctrl_c_at_the_remove_question_keeps_it_and_ends_the_line(filled):
    """The shell's prompt came back on the question's line (``[y/N] ^Croot@vm…``)."""
    pexpect = pytest.importorskip("pexpect")
    home, _sid = filled
    env = {**os.environ, "GOOSECTX_HOME": str(home), "GOOSECTX_CONFIG": config_file(home),
           "NO_COLOR": "1", "TERM": "dumb"}
    child = pexpect.spawn(sys.executable, ["-m", "goosectx", "sessions", "remove", "bugfix"],
                          env=env, encoding="utf-8", timeout=60)
    try:
        child.expect(r"\[y/N\] ")
        time.sleep(0.3)  # the question is drawn before input() reads: Ctrl-C while it reads
        child.sendintr()
        child.expect(pexpect.EOF)
        after = child.before
    finally:
        child.close(force=True)
    assert child.exitstatus == 130
    assert after.endswith("\n")  # the next prompt starts on a line of its own
    assert [r["name"] for r in json.loads(goosectx(home, "sessions", "list", "--json").stdout)
            ] == ["bugfix"]


def test_corrupt_database_via_cli(tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    db = home / "sessions.db"
    db.write_bytes(b"garbage" * 1000)
    proc = goosectx(home, "sessions", "list")
    assert proc.returncode == 1
    assert "sessions.db" in proc.stderr and "Traceback" not in proc.stderr
    assert db.read_bytes() == b"garbage" * 1000


def test_help_and_version_do_not_import_litellm_or_mcp():
    code = ("import sys, goosectx.cli.app; "
            "assert 'litellm' not in sys.modules; assert 'tiktoken' not in sys.modules; "
            "assert 'mcp' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    for args in (["--help"], ["--version"], ["extensions", "--help"], ["run", "--help"]):
        code = ("import sys; from goosectx.cli.app import app\n"
                f"try: app({args!r}, standalone_mode=False)\nexcept SystemExit: pass\n"
                "assert 'litellm' not in sys.modules, 'litellm imported'\n"
                "assert 'mcp' not in sys.modules, 'mcp imported'")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr


def test_version_output(tmp_path):
    proc = goosectx(tmp_path, "--version")
    from goosectx import __version__
    assert proc.returncode == 0 and proc.stdout.strip() == f"goosectx {__version__}"


def test_info_names_sources(tmp_path):
    proc = goosectx(tmp_path / "h", "info")
    assert proc.returncode == 0
    assert "[env GOOSECTX_HOME]" in proc.stdout
    assert "compaction threshold" in proc.stdout and "context limit" in proc.stdout
    assert str(Path(tmp_path / "h" / "goosectx.log")) in proc.stdout


def test_info_checks_the_config_files_extensions_as_run_does(tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    (home / "none.toml").write_text('[extensions.git]\ncmd = "uvx"\nargs = ["mcp-server-git"]\n')
    proc = goosectx(home, "info")
    assert proc.returncode == 0 and re.search(r"extensions\s+git\s+\[config file\]", proc.stdout)
    (home / "none.toml").write_text("[extensions.x]\ncmd = 5\n")
    proc = goosectx(home, "info")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("goosectx: error:")]
    assert "extensions.x" in line and "cmd" in line


def test_leaving_without_a_message_keeps_no_empty_session(tmp_path):
    from goosectx.cli.common import open_session
    from goosectx.config import load_settings

    settings = load_settings(environ={"GOOSECTX_HOME": str(tmp_path / "h"),
                                      "GOOSECTX_CONFIG": str(tmp_path / "none.toml")})
    opened = open_session(settings, name="empty", resume=None, continue_=False)
    opened.close()
    kept = open_session(settings, name="used", resume=None, continue_=False)
    kept.store.append_message(kept.session.id, Message.user("hello"))
    kept.close()
    store = SessionStore(tmp_path / "h")
    assert [s.name for s in store.list_sessions()] == ["used"]
    store.close()


@pytest.mark.parametrize("args", [["--bogus"], ["nosuchcmd"], ["compact"], ["run", "--max-turns", "abc", "-t", "x"]])
def test_bad_arguments_exit_2_without_traceback(tmp_path, args):
    proc = goosectx(tmp_path, *args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "error:" in proc.stderr.lower()


def test_root_resume_of_unknown_session_is_one_line(tmp_path):
    proc = goosectx(tmp_path / "h", "--resume", "nope")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "no session matches 'nope'" in proc.stderr


def test_a_mis_pasted_huge_session_ref_matches_nothing_in_one_short_line(filled):
    """review21 #9: 60k characters made sqlite's LIKE fail, read as a damaged database."""
    home, _sid = filled
    proc = goosectx(home, "sessions", "show", "x" * 60_000)
    assert proc.returncode == 2 and "no session matches 'xxxx" in proc.stderr
    assert "move it aside" not in proc.stderr and len(proc.stderr) < 400


def test_an_ambiguous_prefix_says_how_many_sessions_match_beyond_the_five_named(tmp_path):
    """Seven sessions under one prefix: the error named five and read as the whole list."""
    home = tmp_path / "h"
    store = SessionStore(home)
    ids = sorted(store.create_session(tmp_path).id for _ in range(7))
    store.close()
    prefix = os.path.commonprefix(ids)
    proc = goosectx(home, "sessions", "show", prefix)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert f"matches 7 sessions ({', '.join(ids[:5])} and 2 more)" in proc.stderr
    assert "type more of the id (goosectx sessions list shows every id)" in proc.stderr
    two_home = tmp_path / "two"
    store = SessionStore(two_home)
    two = sorted(store.create_session(tmp_path).id for _ in range(2))
    store.close()
    few = goosectx(two_home, "--resume", os.path.commonprefix(two))
    assert few.returncode == 2
    assert f"matches 2 sessions ({two[0]}, {two[1]}) — type more of the id" in few.stderr


def test_a_new_session_that_cannot_be_locked_leaves_no_row(tmp_path):
    from goosectx.cli.common import open_session
    from goosectx.config import load_settings
    from goosectx.errors import StoreError

    home = tmp_path / "h"
    SessionStore(home).close()
    (home / "locks").write_text("not a directory")
    settings = load_settings(environ={"GOOSECTX_HOME": str(home)})
    with pytest.raises(StoreError):
        open_session(settings, name="x", resume=None, continue_=False)
    store = SessionStore(home)
    assert store.list_sessions() == []
    store.close()


@pytest.mark.parametrize("source", ["-", "/dev/stdin"])
def test_import_reads_an_export_from_a_pipe_with_the_same_checks_as_a_file(filled, tmp_path,
                                                                            source):
    home, _ = filled
    export = goosectx(home, "sessions", "export", "bugfix", "--format", "json").stdout
    other = tmp_path / "other"
    proc = goosectx(other, "sessions", "import", source, input_text=export)
    assert proc.returncode == 0, proc.stderr
    assert "imported" in proc.stdout and "8 messages" in proc.stdout, proc.stdout
    shown = goosectx(other, "sessions", "show", "bugfix")
    assert "please fix the bug in io.py" in shown.stdout
    again = goosectx(other, "sessions", "import", source, input_text=export)
    assert again.returncode == 2 and "already imported" in again.stderr, again.stderr
    broken = goosectx(other, "sessions", "import", source, input_text=export[: len(export) // 2])
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
    assert len(broken.stderr.strip().splitlines()) == 1, broken.stderr
    assert len(json.loads(goosectx(other, "sessions", "list", "--json").stdout)) == 1
    assert not list(other.glob("**/*.tmp*")) and not list(other.glob("**/stdin*"))


def _import_from_fd(home, data: bytes):
    """``goosectx sessions import /dev/fd/N`` with ``data`` on the pipe (as ``<(…)`` gives)."""
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    env = {**os.environ, "GOOSECTX_HOME": str(home), "GOOSECTX_CONFIG": config_file(home),
           "NO_COLOR": "1", "TERM": "dumb"}
    try:
        proc = subprocess.run([sys.executable, "-m", "goosectx", "sessions", "import",
                               f"/dev/fd/{read_end}"], env=env, capture_output=True, text=True,
                              timeout=60, pass_fds=(read_end,))
    finally:
        os.close(read_end)
    return proc, f"/dev/fd/{read_end}"


def test_an_empty_pipe_says_so_and_a_pipe_is_named_as_given(tmp_path):
    home = tmp_path / "home"
    empty = goosectx(home, "sessions", "import", "-", input_text="")
    assert empty.returncode == 2 and "Traceback" not in empty.stderr
    assert empty.stderr.startswith("goosectx: error: stdin is empty: nothing to import")
    proc, shown = _import_from_fd(home, b"")
    assert proc.returncode == 2 and f"error: {shown} is empty: nothing to import" in proc.stderr
    proc, shown = _import_from_fd(home, b"no transcript at all\n")
    assert proc.returncode == 2
    assert f"cannot tell the format of {shown} —" in proc.stderr  # not "of 63"
    proc, shown = _import_from_fd(home, b'{"format": "goosectx-session", "messages": [\n')
    assert proc.returncode == 2 and proc.stderr.startswith(f"goosectx: error: {shown}: ")


def test_exports_written_to_a_file_or_pipe_hold_no_raw_escape_sequences(tmp_path):
    """A later `cat export.md` must not drive the terminal; the JSON keeps every character."""
    home = tmp_path / "home"
    store = SessionStore(home)
    s = store.create_session(tmp_path, name="hostile", model="openai/gpt-4o-mini")
    hostile = "title \x1b]0;pwned\x07 clear \x1b[2J csi \x9b31m bidi \u202e done"
    store.append_message(s.id, Message.user(hostile))
    store.append_message(s.id, Message.assistant("ok"))
    store.close()
    md_file, json_file = tmp_path / "t.md", tmp_path / "t.json"
    for args in (("-f", "md", "-o", str(md_file)), ("-f", "json", "-o", str(json_file))):
        proc = goosectx(home, "sessions", "export", "hostile", *args)
        assert proc.returncode == 0, proc.stderr
    piped = goosectx(home, "sessions", "export", "hostile", "-f", "md").stdout
    for text in (md_file.read_text(), piped, json_file.read_text()):
        assert not any(c in text for c in "\x1b\x07\x9b\u202e"), text
    assert "title ␛]0;pwned" in md_file.read_text() and "<U+202E>" in piped
    assert json.loads(json_file.read_text())["messages"][0]["content"][0]["text"] == hostile


BLANKS = "\u3164\u2800\u00a0\u200b\u3000"
"""A Hangul filler, a blank Braille pattern, a no-break space, a zero-width space, an
ideographic space: in a command they can hide a program name or pad it with blank screens."""


def test_show_and_markdown_export_make_blank_looking_characters_in_tool_calls_visible(tmp_path):
    """As the REPL's tool-call line and the approval question do; the JSON stays exact."""
    home = tmp_path / "home"
    store = SessionStore(home)
    s = store.create_session(tmp_path, name="blanks", model="openai/gpt-4o-mini")
    command = f"ls\u3164 -la {BLANKS}; rm -rf ~"
    store.append_message(s.id, Message.user("tidy up\u3000please"))  # prose keeps its space
    store.append_message(s.id, Message("assistant", (
        ToolRequest("c1", "shell", {"command": command}),)))
    store.append_message(s.id, Message("user", (ToolResponse("c1", "done"),)))
    store.close()
    md_file, json_file = tmp_path / "t.md", tmp_path / "t.json"
    for args in (("-f", "md", "-o", str(md_file)), ("-f", "json", "-o", str(json_file))):
        assert goosectx(home, "sessions", "export", "blanks", *args).returncode == 0
    shown = "".join(f"<U+{ord(c):04X}>" for c in BLANKS)
    outputs = {"show": goosectx(home, "sessions", "show", "blanks").stdout,
               "agent": goosectx(home, "sessions", "show", "--agent", "blanks").stdout,
               "export": goosectx(home, "sessions", "export", "blanks", "-f", "md").stdout,
               "file": md_file.read_text()}
    for where, out in outputs.items():
        assert f"ls<U+3164> -la {shown}; rm -rf ~" in out, where
        assert "tidy up\u3000please" in out, where
        assert not set(BLANKS) - {"\u3000"} & set(out), where
    exported = json.loads(json_file.read_text())["messages"][1]["content"][0]
    assert exported["arguments"] == {"command": command}


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_under_stdout_gives_one_line_and_exit_1(filled):
    home, _ = filled
    env = {**os.environ, "GOOSECTX_HOME": str(home), "GOOSECTX_CONFIG": config_file(home)}
    env.pop("GOOSE_MODEL", None)
    for args in (["sessions", "list"], ["sessions", "show", "bugfix"], ["info"],
                 ["sessions", "export", "bugfix", "--format", "json"],
                 ["sessions", "export", "bugfix", "-o", "/dev/full"]):
        with open("/dev/full", "w") as full:
            proc = subprocess.run([sys.executable, "-m", "goosectx", *args], env=env,
                                  stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        assert proc.returncode == 1, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1, (args, proc.stderr)  # one line, no traceback
        assert "cannot write" in proc.stderr and "No space left on device" in proc.stderr


@pytest.mark.parametrize(("command", "usage"), [
    (["sessions", "rename"], "sessions rename [OPTIONS] {SESSION} {NEW_NAME}"),
    (["sessions", "import"], "sessions import [OPTIONS] {PATH}"),
    (["sessions", "search"], "sessions search [OPTIONS] {WORDS}..."),
    (["sessions", "show"], "sessions show [OPTIONS] {SESSION}"),
])
def test_usage_lines_name_their_arguments_in_one_style(capsys, command, usage):
    # were "{SESSION} {new_name}" and "{path}": one placeholder style, the README's
    from cli_support import run_cli

    code, out, _ = run_cli(capsys, *command, "--help")
    assert code == 0 and f"Usage: goosectx {usage}\n" in out, out


def test_show_agent_numbers_outputs_as_the_transcript_does(filled):
    """gh22: after a compaction the model's view starts later; its outputs keep the session's
    numbers (the ones ``sessions show`` and ``/show N`` use), not a count from 1."""
    home, sid = filled
    store = SessionStore(home)
    store.append_message(sid, Message("assistant", (
        ToolRequest("c9", "shell", {"command": "echo out9"}),)))
    store.append_message(sid, Message("user", (ToolResponse("c9", "out9-result"),)))
    store.append_message(sid, Message.assistant("done"))
    store.close()
    plain = goosectx(home, "sessions", "show", sid).stdout
    agent = goosectx(home, "sessions", "show", sid, "--agent").stdout
    assert "**tool result** #2" in plain, plain
    assert "**tool result** #2" in agent, agent
    assert "#1" not in agent, agent


def test_import_of_a_missing_path_or_a_directory_says_which(filled, tmp_path):
    home, _ = filled
    missing = goosectx(home, "sessions", "import", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "nope.jsonl does not exist" in missing.stderr
    folder = goosectx(home, "sessions", "import", str(tmp_path))
    assert folder.returncode == 2 and "is a directory" in folder.stderr


def test_an_empty_or_blank_file_says_it_is_empty(tmp_path):
    """test29b: an empty file said "cannot tell the format", as if it held an unknown one."""
    home = tmp_path / "home"
    for name, text in (("empty.jsonl", ""), ("blank.json", " \n\n\t\n")):
        path = tmp_path / name
        path.write_text(text)
        proc = goosectx(home, "sessions", "import", str(path))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert f"{name} is empty: nothing to import" in proc.stderr, proc.stderr
        assert "cannot tell the format" not in proc.stderr
        for fmt in ("openai", "goosectx", "codex"):  # test29e: a given format said "cut short"
            proc = goosectx(home, "sessions", "import", "-f", fmt, str(path))
            assert proc.returncode == 2, proc.stderr
            assert f"{name} is empty: nothing to import" in proc.stderr, (fmt, proc.stderr)
