"""The ``--debug`` log holds no raw escape sequence, whatever the model sends.

A model-controlled tool name reaches the log ("approval of <name>"); ``cat goosectx.log`` or
``tail -f`` would then write the clipboard (OSC 52) or set the title (OSC 0). The log's
formatter escapes control characters in every record (``goosectx/log.py``).
"""

from __future__ import annotations

from fakeserver import FakeServer
from reliability_support import cli, model_env

HOSTILE = "shell\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\u202e\x9b2J\rOVER"


def test_a_hostile_tool_name_reaches_the_debug_log_escaped(tmp_path):
    home = tmp_path / "home"
    script = [{"tool_calls": [{"name": HOSTILE, "arguments": {"command": "echo hi"}}]},
              {"text": "done"}]
    with FakeServer(script) as server:
        proc = cli(model_env(home, server.base_url), "--debug", "run", "-t", "hi",
                   "--mode", "auto", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    log = (home / "goosectx.log").read_bytes()
    text = log.decode("utf-8")
    assert "shell\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;pwned\\x07\\u202e\\x9b2J\\x0dOVER" in text
    for raw in (b"\x1b", b"\x07", "\u202e".encode(), "\x9b".encode(), b"\r"):
        assert raw not in log, raw
