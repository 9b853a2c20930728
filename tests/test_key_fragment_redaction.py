"""A long piece of the API key (13+ of its characters: the key minus its first 12, or its last
16) is redacted in a tool output, a provider's error and the ``--debug`` log, as it is in a
model's reply (docs/architecture.md §2, redaction)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import FAKE_MODEL
from fakeserver import FakeServer

from goosectx.config import load_settings
from goosectx.tools.builtin import make_tool_context

KEY = "sk-proj-T3stKeyAbCdEfGh1234567890XyZqWeRtY"
TAIL29 = KEY[12:]
LAST16 = KEY[-16:]


def test_a_tool_output_with_a_piece_of_the_key_has_it_redacted(
        workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    ctx = make_tool_context(load_settings(), workdir)
    shown = ctx.redact(f"token tail: {TAIL29}\nlast: {LAST16}\nplain text stays\n")
    assert TAIL29 not in shown and LAST16 not in shown
    assert "token tail: [REDACTED]" in shown and "plain text stays" in shown


def test_a_provider_error_with_a_piece_of_the_key_shows_it_redacted(
        fake_server: FakeServer, workdir: Path) -> None:
    fake_server.add({"status": 400, "body": {"error": {"message": "bad key ..." + TAIL29}}})
    env = {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": fake_server.base_url,
           "OPENAI_API_KEY": KEY}
    done = subprocess.run(["goosectx", "--debug", "run", "-t", "k"], env=env, cwd=workdir,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "bad key ...[REDACTED]" in done.stderr, done.stderr
    assert TAIL29 not in done.stderr + done.stdout
    logs = list(load_settings().data_dir.rglob("*.log"))
    assert logs
    assert all(TAIL29 not in p.read_text(errors="replace") for p in logs)
