"""Bounded work on hostile input (issue 15, point 7): imports, config, tokenising.

Every import error is one line with exit 2 and nothing saved; a huge single message is elided
with a marker; the work stays within a memory bound (checked under an address-space limit in
a subprocess); tokenising a long run of one character is done in bounded pieces.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer

from goosectx import token_pieces, tokens
from goosectx.importers import builder


def import_cli(capsys: pytest.CaptureFixture[str], path: Path, *options: str
               ) -> tuple[int, str, str]:
    return run_cli(capsys, "sessions", "import", str(path), *options)


def assert_one_line_error(code: int, out: str, err: str, words: str) -> None:
    assert code == 2
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[0].startswith("goosectx: error:") and words in lines[0]


def sessions_listed(capsys: pytest.CaptureFixture[str]) -> str:
    return run_cli(capsys, "sessions", "list")[1]


@pytest.mark.parametrize(("name", "text", "words"), [
    ("deep.json", '[{"role": "user", "content": ' + "[" * 5_000 + "]" * 5_000 + "}]",
     "nested more than 100 levels"),
    ("deep.jsonl", '{"type": "user", "uuid": "u1", "message": {"content": '
     + "[" * 5_000 + "]" * 5_000 + "}}\n", "nested more than 100 levels"),
    ("huge-number.json", '[{"role": "user", "content": ' + "9" * 5_000 + "}]",
     "a number has more than 4,300 digits"),
    ("wrong-types.json", json.dumps({"format": "goosectx-session", "schema_version": 1,
                                     "id": 5, "messages": ["not a message"]}), "message #1"),
])
def test_hostile_imports_fail_in_one_line_and_save_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, words: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    fmt = {"deep.json": "openai", "deep.jsonl": "claude-code",
           "huge-number.json": "openai"}.get(name, "auto")
    code, out, err = import_cli(capsys, path, "--format", fmt)
    assert_one_line_error(code, out, err, words)
    assert "no sessions" in sessions_listed(capsys).lower()


def test_a_deeply_nested_config_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    monkeypatch.setenv("GOOSECTX_CONFIG", str(config))
    code, _out, err = run_cli(capsys, "info")
    assert code == 2 and "Traceback" not in err
    assert "nests arrays or tables too deeply" in err


def test_a_huge_single_message_is_elided_with_a_marker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(builder, "MAX_MESSAGE_CHARS", 10_000)
    path = tmp_path / "one-line.json"
    path.write_text(json.dumps([{"role": "user", "content": "start " + "x" * 50_000 + " end"},
                                {"role": "assistant", "content": "ok"}]))
    code, out, err = import_cli(capsys, path)
    assert code == 0, err
    session_id = out.split()[1].rstrip(":")
    shown = run_cli(capsys, "sessions", "export", session_id, "--format", "json")[1]
    text = json.loads(shown)["messages"][0]["content"][0]["text"]
    assert text.startswith("start ") and text.endswith(" end")
    assert "40,010 characters elided on import" in text and len(text) < 10_100


LIMIT_AS_BYTES = 1_500 * 2**20


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS_BYTES, LIMIT_AS_BYTES))


@pytest.mark.parametrize("line_mb", [6, 20])
def test_a_one_line_transcript_imports_within_a_memory_bound_or_fails_in_one_line(
    tmp_path: Path, line_mb: int
) -> None:
    # A Claude Code transcript whose one line holds one user message of line_mb MB
    # (scaled down from the 150 MB of the report; the line cap is 16 MB).
    path = tmp_path / "session.jsonl"
    record = {"type": "user", "uuid": "u1", "sessionId": "s",
              "message": {"role": "user", "content": "y" * (line_mb * 2**20)}}
    path.write_text(json.dumps(record) + "\n")
    env = {**os.environ, "GOOSECTX_HOME": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-m", "goosectx", "sessions", "import", str(path)],
                          env=env, capture_output=True, text=True, timeout=300,
                          preexec_fn=_limit_memory)
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    if line_mb * 2**20 <= builder.MAX_LINE_BYTES:
        assert done.returncode == 0, done.stderr
        assert "imported" in done.stdout
    else:
        assert done.returncode == 2
        assert len(done.stderr.strip().splitlines()) == 1
        assert "line 1" in done.stderr and "up to 16 MB" in done.stderr


class _RecordingEncoder:
    def __init__(self) -> None:
        self.pieces: list[int] = []

    def encode(self, text: str, *, disallowed_special: object = ()) -> list[int]:
        self.pieces.append(len(text))
        return [0] * (len(text) // 4 + 1)


def test_long_texts_are_tokenised_in_bounded_pieces() -> None:
    encoder = _RecordingEncoder()
    token_pieces.token_len(encoder, "a" * 100_000)
    assert max(encoder.pieces) <= token_pieces.CHUNK_CHARS and sum(encoder.pieces) == 100_000


def test_a_fit_check_counts_exactly_up_to_its_limit_and_stops_past_it() -> None:
    text = Path(__file__).read_text() * 3
    counter = tokens.TokenCounter()
    exact = counter.count_text(text)
    assert counter.count_text_within(text, exact) == exact
    assert exact - 1 < counter.count_text_within(text, exact - 1) <= exact
    encoder = _RecordingEncoder()
    assert token_pieces.token_len(encoder, "word " * 20_000, limit=100) > 100
    assert sum(encoder.pieces) <= token_pieces.CHUNK_CHARS  # one piece told it: the rest is not read


def test_chunked_counting_is_exact_on_ordinary_text() -> None:
    text = Path(__file__).read_text() * 3
    exact = len(tokens.get_encoder(None).encode(text, disallowed_special=()))
    assert tokens.count_text(text) == exact


def test_a_never_ending_stream_ends_at_the_deadline(
    fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path],
) -> None:
    isolated_env["config"].write_text("request_deadline_s = 1.5\n")
    monkeypatch.chdir(work)
    fake_model.add({"text": "tick " * 400, "chunk_chars": 5, "chunk_delay_s": 0.05})
    code, out, err = run_cli(capsys, "run", "-t", "talk", "--name", "slow", "--output-format",
                             "json")
    assert code == 1
    result = json.loads(out)
    assert "request_deadline_s = 1.5 s" in result["error"]
    assert "Traceback" not in err
    # The history stays valid: the partial answer is kept, marked cancelled; resuming works.
    fake_model.add({"text": "back"})
    isolated_env["config"].write_text("request_deadline_s = 600\n")
    code, out, err = run_cli(capsys, "run", "--resume", "slow", "-t", "again")
    assert code == 0 and "back" in out, err


def test_megabytes_of_tool_arguments_end_the_call(
    fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"tool_calls": [{"name": "text_editor", "arguments": {
        "command": "write", "path": "big.txt", "file_text": "z" * 5_000_000}}],
        "chunk_chars": 200_000})
    code, _out, err = run_cli(capsys, "run", "--mode", "auto", "-t", "write")
    assert code == 1
    assert "more than 4,194,304 characters of tool-call arguments" in err
    # the hint is about the size cap (write in parts), not the time limit
    assert "write the file in parts" in err and "request_deadline_s" not in err
    assert not (work / "big.txt").exists()


def test_an_auto_detected_one_line_transcript_over_the_line_cap_fails_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goosectx.importers import detect

    for module in (builder, detect):  # scaled down: 1 MB caps, a 3 MB line
        monkeypatch.setattr(module, "MAX_LINE_BYTES", 2**20)
        monkeypatch.setattr(module, "MAX_DOCUMENT_BYTES", 2**20)
    path = tmp_path / "one-line.jsonl"
    path.write_text(json.dumps({"type": "user", "uuid": "u1", "message": {
        "role": "user", "content": "y" * 3 * 2**20}}) + "\n")
    code, out, err = import_cli(capsys, path)
    assert_one_line_error(code, out, err, "line 1 is longer than 1 MB")


@pytest.mark.parametrize(("name", "text", "words"), [
    ("cut.json", '{"messages": [{"role": "user", "content": "hel',
     "cut.json: line 1 column 43: the JSON ends before it is complete"),
    ("cut.jsonl", '{"role": "user", "content": "a"}\n{"role": "user", "conte\n',
     "cut.jsonl: line 2: the JSON ends before it is complete"),
    ("deep.json", "[" * 5_000 + "]" * 5_000, "deep.json: JSON nested more than 100 levels"),
    ("deep-ish.json", "[" * 300 + "]" * 300, "deep-ish.json: JSON nested more than 100 levels"),
    ("huge.json", '[{"role": "user", "content": "x", "n": 1' + "0" * 5_000 + "}]",
     "huge.json: a number has more than 4,300 digits"),
])
def test_format_auto_names_the_real_reason_not_the_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, words: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    code, out, err = import_cli(capsys, path)  # --format auto
    assert_one_line_error(code, out, err, words)
    assert "cannot tell the format" not in err


@pytest.mark.parametrize("record", [
    [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": "not calls"}],
    [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": 5}],
    [{"role": "user", "content": "x"},
     {"role": "assistant", "tool_calls": [{"id": "1", "function": "f"}]}],
    {"sessionId": "1", "projectHash": "p", "messages": [
        {"type": "gemini", "content": "a", "toolCalls": [{"id": "1", "name": "n",
                                                          "result": True}]}]},
])
def test_a_wrong_typed_field_is_one_line_in_the_files_terms(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, record: object
) -> None:
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(record))
    code, out, err = import_cli(capsys, path)
    assert_one_line_error(code, out, err, "odd.json: ")
    for python_speak in ("object has no attribute", "NoneType", "Error:", "'str'", "'int'",
                         "'bool'", "not subscriptable", "not iterable"):
        assert python_speak not in err
    assert "no sessions" in sessions_listed(capsys).lower()


def test_an_id_taken_here_gets_a_new_one_and_the_import_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"},
                                {"role": "assistant", "content": "hello"}]))
    code, out, err = import_cli(capsys, chat)
    assert code == 0, err
    first = out.split()[1].rstrip(":")
    exported = tmp_path / "export.json"
    exported.write_text(run_cli(capsys, "sessions", "export", first, "--format", "json")[1])
    code, out, err = import_cli(capsys, exported)
    assert code == 0, err
    second = out.split()[1].rstrip(":")
    assert second != first
    assert f"its id {first} is taken by a session here, so the copy got a new one" in out


@pytest.fixture
def spool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where a pipe's temporary copy goes (checked empty afterwards), with 100 messages
    of a transcript waiting on stdin."""
    import io
    import tempfile

    spool = tmp_path / "spool"
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))
    line = json.dumps({"role": "user", "content": "hello"})
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        ("[" + ",".join([line] * 100) + "]").encode())))
    return spool


def test_a_pipe_over_its_cap_is_refused_in_one_line_saving_nothing_and_leaving_no_copy(
    capsys: pytest.CaptureFixture[str], spool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goosectx.cli import import_pipe

    monkeypatch.setattr(import_pipe, "MAX_PIPE_BYTES", 1000)
    code, out, err = run_cli(capsys, "sessions", "import", "-")
    assert_one_line_error(code, out, err, "stdin carries more than")
    assert "save it to a file first" in err
    assert "no sessions" in sessions_listed(capsys).lower()
    assert list(spool.iterdir()) == []


def test_the_copy_of_a_pipe_left_by_a_killed_import_is_removed_by_the_next_import(
    capsys: pytest.CaptureFixture[str], spool: Path
) -> None:
    import signal
    import time

    env = {**os.environ, "TMPDIR": str(spool)}
    killed = subprocess.Popen(["goosectx", "sessions", "import", "-"], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    assert killed.stdin is not None
    message = json.dumps({"role": "user", "content": "my secret-ish text " * 100})
    killed.stdin.write(("[" + ",".join([message] * 1000)).encode())  # 1.9 MB: a chunk copied
    killed.stdin.flush()  # the pipe stays open: the import waits, its copy half made
    deadline = time.monotonic() + 60
    while not [p for p in spool.glob("goosectx-import-*/stdin") if p.stat().st_size]:
        assert time.monotonic() < deadline and killed.poll() is None
        time.sleep(0.02)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    killed.stdin.close()
    assert list(spool.glob("goosectx-import-*/stdin"))  # what kill -9 leaves behind
    code, _out, err = run_cli(capsys, "sessions", "import", "-")
    assert code == 0, err
    assert list(spool.iterdir()) == []


def test_a_pipe_copy_that_hits_a_full_disk_is_one_line_saving_nothing(
    capsys: pytest.CaptureFixture[str], spool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import io

    real_fdopen = os.fdopen

    class FullDisk(io.RawIOBase):
        def writable(self) -> bool:
            return True

        def write(self, _data: object) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    def fdopen(fd: int, mode: str = "r", *args: object, **kwargs: object) -> object:
        if mode == "wb":  # the copy of the pipe: an injected write error
            os.close(fd)
            return io.BufferedWriter(FullDisk())
        return real_fdopen(fd, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "fdopen", fdopen)
    code, out, err = run_cli(capsys, "sessions", "import", "-")
    assert_one_line_error(code, out, err, "cannot copy stdin to a temporary file")
    assert "No space left on device" in err and "save the input to a file first" in err
    monkeypatch.setattr(os, "fdopen", real_fdopen)
    assert "no sessions" in sessions_listed(capsys).lower()
    assert list(spool.iterdir()) == []


def test_a_goosectx_database_given_to_import_says_what_it_is(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from goosectx.conversation import Message
    from goosectx.store import SessionStore

    other = SessionStore(tmp_path / "other")
    other.append_message(other.create_session(tmp_path, name="there").id, Message.user("hi"))
    other.close()
    code, out, err = import_cli(capsys, tmp_path / "other" / "sessions.db")
    assert_one_line_error(code, out, err, "a goosectx sessions.db, not goose's")
    assert "GOOSECTX_HOME" in err and "no such column" not in err


@pytest.mark.parametrize("options", [("--format", "codex"), ()])
def test_a_cut_file_s_error_offers_format_only_when_none_was_given(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, options: tuple[str, ...]) -> None:
    # with --format codex given, "or name its format with --format" was no way out (test28f)
    path = tmp_path / "only.jsonl"
    path.write_text('{"timestamp": "2025-10-19T09:09:00.000Z", "type": "session_meta", "pay')
    code, out, err = import_cli(capsys, path, *options)
    assert_one_line_error(code, out, err, "the JSON ends before it is complete")
    assert ("name its format with --format" in err) is not bool(options)
    assert "no sessions" in sessions_listed(capsys).lower()
