"""A session name that holds a key of this environment is stored and shown as ``redacted``.

``sessions rename S "x$OPENAI_API_KEY"`` stored the key in the session's name and showed it in
``sessions list`` and ``search`` (README, "Security": a name that held one reads
``redacted``); ``run --name`` likewise. What is asserted is what the user reads (the
commands' output) and what the store's files hold.
"""

from __future__ import annotations

import pytest
from cli_support import cli
from fakeserver import FakeServer
from store_support import assert_not_in_sessions_db

KEY = "sk-proj-Q7vX2mK9pL4nR8sT1wY6zA3bC5dE0fG7hJ2kL9mN4pQ8rS1t"


@pytest.fixture
def keyed(fake_model: FakeServer, workdir: object, monkeypatch: pytest.MonkeyPatch
          ) -> FakeServer:
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    fake_model.add({"text": "ok"})
    return fake_model


def test_a_rename_to_a_name_holding_a_key_stores_and_shows_it_redacted(
        keyed: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "-t", "hi", "--name", "plain")
    out, err = cli(capsys, "sessions", "rename", "plain", f"x{KEY}")
    assert "redacted from the session name: it reads 'xredacted'" in err
    assert "renamed plain to xredacted" in err
    listed, _ = cli(capsys, "sessions", "list")
    found, _ = cli(capsys, "sessions", "search", "ok")
    for text in (out, err, listed, found):
        assert KEY[8:20] not in text, text
    assert "xredacted" in listed
    assert_not_in_sessions_db(KEY[8:20])
    shown, _ = cli(capsys, "sessions", "show", "xredacted")  # the name it reads names it
    assert "ok" in shown


def test_a_rename_refused_for_its_length_quotes_the_name_redacted(
        keyed: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "-t", "hi", "--name", "plain")
    out, err = cli(capsys, "sessions", "rename", "plain", "x" * 300 + KEY, code=2)
    assert "is 308 characters long" in err and KEY[:12] not in out + err
    listed, _ = cli(capsys, "sessions", "list")
    assert "plain" in listed


def test_run_name_holding_a_key_is_stored_redacted(
        keyed: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    out, err = cli(capsys, "run", "-t", "hi", "--name", f"{KEY}-work")
    assert "it reads 'redacted-work'" in err and KEY[8:20] not in out + err
    listed, _ = cli(capsys, "sessions", "list")
    assert "redacted-work" in listed and KEY[8:20] not in listed
    assert_not_in_sessions_db(KEY[8:20])


def test_a_name_without_a_key_is_kept_as_typed(
        keyed: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "-t", "hi", "--name", "plain")
    _, err = cli(capsys, "sessions", "rename", "plain", f"fix-{KEY[:7]}")
    assert "redacted" not in err and f"renamed plain to fix-{KEY[:7]}" in err
