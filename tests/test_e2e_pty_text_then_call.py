"""End to end in a pty: an answer's text followed by a long streaming tool call is drawn once.

While a tool call's arguments stream the spinner says ``writing tool call text_editor… 12
KB``; the answer panel ("Let me write it.") is closed to make room for it. The reply's
completion then drew the same text again as a second panel — with Ctrl-C during the call's
arguments, and also when the call ran through. The panel is drawn once; the stored answer
stays whole.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeserver import FakeServer
from reliability_support import load
from test_e2e_pty import TIMEOUT_S, _env

pexpect = pytest.importorskip("pexpect")

BIG = "\n".join(f"line {i}" for i in range(3000))


@pytest.mark.slow
@pytest.mark.parametrize("cancel", [True, False])
def test_the_text_before_a_streaming_call_is_drawn_once(tmp_path: Path, cancel: bool) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = [{"text": "Let me write it.", "chunk_delay_s": 0.01, "tool_calls": [
                  {"name": "text_editor", "arguments": {"command": "write", "path": "out.txt",
                                                        "file_text": BIG}}]},
              {"text": "Written."}]
    with FakeServer(script) as server:
        env = _env(tmp_path, server.base_url)
        env["GOOSE_MODE"] = "auto"
        child = pexpect.spawn("goosectx", ["session", "--name", "w"], cwd=str(work), env=env,
                              dimensions=(40, 110), encoding="utf-8", timeout=TIMEOUT_S)
        seen: list[str] = []
        child.logfile_read = type("Log", (), {"write": lambda _s, t: seen.append(t),
                                              "flush": lambda _s: None})()
        try:
            child.expect("❯")
            child.send("write the file\r")
            child.expect("writing tool call text_editor")
            if cancel:
                child.sendintr()
                child.expect("turn cancelled")
            else:
                child.expect("Written.")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    out = "".join(seen)
    assert out.count("╭─ goosectx") == (1 if cancel else 2), out[-3000:]
    answer = load(tmp_path / "home", "w").conversation.messages[1]
    assert answer.role == "assistant" and answer.text.startswith("Let me write it.")
    assert (work / "out.txt").exists() is not cancel
