"""A context window the server stated in a rejection, kept with the session: when it holds.

See :mod:`goosectx.compaction.stated_limit`; the replayed llama.cpp case is in
``tests/test_real_server_replays.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer

MODEL = "openai/fake"


def configure(config_path: Path, server: FakeServer, extra: str = "") -> None:
    config_path.write_text(f'model = "{MODEL}"\n[models."{MODEL}"]\n'
                           f'api_base = "{server.base_url}"\n{extra}')


def limit_line(capsys: pytest.CaptureFixture[str]) -> str:
    out, _ = cli(capsys, "info", "--session", "cl")
    return next(x for x in out.splitlines() if x.startswith("context limit"))


@pytest.mark.parametrize("error", ["context_length", "llama_context"])
def test_a_window_stated_by_a_turn_that_failed_is_kept_with_the_session(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str], error: str) -> None:
    # The only reply is the 400 that states 8,192 (OpenAI's words, or llama-server's "n_ctx"
    # in the body): the turn fails (no compaction can help), but the user's message is
    # saved, and so is the window the server stated.
    configure(isolated_env["config"], fake_server)
    fake_server.add({"error": error})
    _, err = cli(capsys, "run", "--name", "cl", "-t", "hello there", code=1)
    assert "8,192" in err
    line = limit_line(capsys)
    assert "8,192 tokens" in line and "stated by the server" in line, line


def test_an_explicit_limit_equal_to_the_replaced_default_is_the_users_new_word(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The stated 8,192 replaced the default 128,000. A user who enlarged the server's window
    # and says so with exactly 128000 (env or config) gets it; unset again, 8,192 holds.
    configure(isolated_env["config"], fake_server)
    fake_server.add({"error": "context_length"})
    cli(capsys, "run", "--name", "cl", "-t", "hello there", code=1)
    assert "8,192 tokens" in limit_line(capsys)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "128000")
    line = limit_line(capsys)
    assert "128,000 tokens" in line and "GOOSE_CONTEXT_LIMIT" in line, line
    monkeypatch.delenv("GOOSE_CONTEXT_LIMIT")
    configure(isolated_env["config"], fake_server, "context_limit = 128000\n")
    line = limit_line(capsys)
    assert "128,000 tokens" in line and "stated" not in line, line
    configure(isolated_env["config"], fake_server)
    assert "8,192 tokens" in limit_line(capsys)


def test_a_limit_always_set_in_the_environment_keeps_the_stated_window_on_resume(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # GOOSE_CONTEXT_LIMIT=128000 in the user's shell profile: it is what the stated figure
    # replaced, so every later process keeps 8,192 (no second rejection to learn it again).
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "128000")
    configure(isolated_env["config"], fake_server)
    fake_server.add({"error": "context_length"})
    cli(capsys, "run", "--name", "cl", "-t", "hello there", code=1)
    line = limit_line(capsys)
    assert "8,192 tokens" in line and "stated by the server" in line, line
