"""Bytes that are not UTF-8 in what the user types, pipes or passes: U+FFFD, the turn goes on.

A Latin-1 terminal or an 8-bit Alt key sends ``caf\\xe9``; Python decodes it (argv, stdin,
the REPL's input) with ``surrogateescape`` into a lone surrogate, which once ended goosectx
with "UnicodeEncodeError: … surrogates not allowed" (run exit 1, no result line). A task read
with ``-i`` (a file or stdin) that is not UTF-8 text is refused, as an ``@FILE`` is.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import FAKE_MODEL
from fakeserver import FakeServer
from prompt_toolkit.input.posix_pipe import PosixPipeInput
from test_repl import CTRL_D, ENTER, World

SHOWN = "caf\ufffd"


def _env(server: FakeServer) -> dict[str, str]:
    return {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": server.base_url,
            "OPENAI_API_KEY": "sk-dummy-key"}


def _goosectx(args: list[bytes], server: FakeServer, cwd: Path, stdin: bytes = b""
              ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([b"goosectx", *args], env=_env(server), cwd=cwd, input=stdin,
                          capture_output=True, timeout=120)


def _sent(server: FakeServer) -> str:
    return str(server.requests[-1]["messages"][-1]["content"])


@pytest.mark.slow
def test_run_t_with_a_latin1_byte_runs_the_turn(fake_server: FakeServer, work: Path) -> None:
    fake_server.add({"text": "answered"})
    proc = _goosectx([b"run", b"-t", b"caf\xe9 argv"], fake_server, work)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"answered" in proc.stdout and b"Traceback" not in proc.stderr
    assert _sent(fake_server) == f"{SHOWN} argv"


@pytest.mark.slow
@pytest.mark.parametrize(("stdin", "why"), [
    (b"caf\xe9 piped\n", "not UTF-8 text (invalid byte at line 1)"),
    (b"hello\x00world\xff\xfe", "not text (it holds NUL bytes)"),
])
def test_run_i_stdin_that_is_not_text_is_refused_and_nothing_is_sent(
        fake_server: FakeServer, work: Path, stdin: bytes, why: str) -> None:
    """Once sent as the task with U+FFFD (and NULs) and stored, exit 0; @FILE refuses the
    same bytes. Now one line, exit 2, nothing sent or saved."""
    fake_server.add({"text": "answered"})
    proc = _goosectx([b"run", b"-i", b"-"], fake_server, work, stdin=stdin)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err.count("\n") == 1 and f"the task on stdin is {why}" in err, err
    assert fake_server.requests == [] and proc.stdout == b""


@pytest.mark.slow
def test_run_i_a_binary_file_is_refused(fake_server: FakeServer, work: Path) -> None:
    (work / "prog").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00@x@y\xff\n" * 50)
    proc = _goosectx([b"run", b"-i", b"prog"], fake_server, work)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and err.count("\n") == 1, err
    assert "task file prog is not text (it holds NUL bytes)" in err and "@" not in err
    assert fake_server.requests == []
    listed = _goosectx([b"sessions", b"list", b"--json"], fake_server, work)
    assert json.loads(listed.stdout) == []


def test_a_latin1_byte_typed_in_the_repl_is_sent_as_a_replacement(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The terminal sends the byte itself (tmux send-keys -H e9): the pipe gets raw bytes.
    monkeypatch.setattr(PosixPipeInput, "send_text", lambda self, text: self.send_bytes(
        text.encode("utf-8", "surrogateescape")))
    world = World(tmp_path)
    try:
        world.provider.add("first answer", "second answer")
        out = world.run("caf\udce9 typed" + ENTER + "and on" + ENTER + CTRL_D)
        assert f"{SHOWN} typed" in out and "second answer" in out
        assert world.provider.requests[0].messages[-1].text == f"{SHOWN} typed"
        texts = [m.text for m in world.stored().conversation]
        assert texts == [f"{SHOWN} typed", "first answer", "and on", "second answer"]
    finally:
        world.store.close()


@pytest.mark.slow
@pytest.mark.parametrize("stdin_errors", ["", "utf-8:strict"])
def test_a_latin1_byte_piped_to_the_plain_repl_is_sent_as_a_replacement(
        fake_server: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
        stdin_errors: str) -> None:
    # "utf-8:strict": stdin as Python opens it in a UTF-8 locale other than C.UTF-8
    if stdin_errors:
        monkeypatch.setenv("PYTHONIOENCODING", stdin_errors)
    fake_server.add({"text": "first answer"}, {"text": "second answer"})
    proc = _goosectx([], fake_server, work, stdin=b"caf\xe9 typed\nand on\n")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"second answer" in proc.stdout and b"Traceback" not in proc.stderr
    assert str(fake_server.requests[0]["messages"][-1]["content"]) == f"{SHOWN} typed"


@pytest.mark.slow
@pytest.mark.parametrize("args", [[b"run", b"-t", b"hi"], [], [b"run", b"--continue", b"-t", b"hi"]])
def test_a_working_dir_whose_name_is_not_utf8_is_one_clear_error(
        fake_server: FakeServer, tmp_path: Path, args: list[bytes]) -> None:
    odd = tmp_path / os.fsdecode(b"d\xe9")
    odd.mkdir()
    proc = _goosectx(args, fake_server, odd, stdin=b"hi\n")
    assert proc.returncode == 2, proc.stderr.decode()
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0]
    assert "working directory" in lines[0] and "d\\xe9" in lines[0] and "UTF-8" in lines[0]
    assert fake_server.requests == []
    listed = subprocess.run(["goosectx", "sessions", "list"], capture_output=True, text=True,
                            cwd=tmp_path, timeout=60)
    assert "d\ufffd" not in listed.stdout and "d\\xe9" not in listed.stdout


@pytest.mark.slow
def test_a_transcript_whose_file_name_is_not_utf8_imports(tmp_path: Path, work: Path) -> None:
    name = tmp_path / os.fsdecode(b"q\xe9.json")
    name.write_text(json.dumps([{"role": "user", "content": "hi"},
                                {"role": "assistant", "content": "yo"}]))
    proc = subprocess.run([b"goosectx", b"sessions", b"import", os.fsencode(name)], cwd=work,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"imported" in proc.stdout and b"2 messages" in proc.stdout
