"""``run --resume SESSION`` refuses a SESSION that does not resolve before the model client loads.

A typo took ~5 s (litellm's import and the key check ran first, and the lookup's error waited
for them) where ``sessions show TYPO`` said the same in a quarter of a second; with a model
whose key is missing the key's error even hid the real mistake.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli, run_cli
from fakeserver import FakeServer

from goosectx.providers.litellm_provider import LiteLLMProvider


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The models whose credentials were checked (the model client loaded) from now on."""
    seen: list[str] = []
    check = LiteLLMProvider.check_credentials

    def record(self: LiteLLMProvider) -> dict[str, str]:
        seen.append(self.model)
        return check(self)

    monkeypatch.setattr(LiteLLMProvider, "check_credentials", record)
    return seen


def test_a_session_that_does_not_resolve_is_refused_before_the_model_is_checked(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        checked: list[str]) -> None:
    fake_model.add({"text": "first answer"})
    cli(capsys, "run", "-t", "first", "--name", "work")
    checked.clear()
    code, out, err = run_cli(capsys, "run", "--resume", "wrok", "-t", "more",
                             "--output-format", "json")
    assert (code, err) == (1, "goosectx: error: no session matches 'wrok' — list them with: "
                              "goosectx sessions list\n")
    assert json.loads(out)["status"] == "error"
    assert checked == []  # the model client was not loaded for it


def test_a_typo_is_named_even_when_the_model_key_is_missing(
        workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        fake_model: FakeServer) -> None:
    fake_model.add({"text": "first answer"})
    cli(capsys, "run", "-t", "first", "--name", "work")
    monkeypatch.setenv("GOOSE_MODEL", "anthropic/claude-sonnet-4-20250514")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, _out, err = run_cli(capsys, "run", "--resume", "wrok", "-t", "more")
    assert (code, err) == (1, "goosectx: error: no session matches 'wrok' — list them with: "
                              "goosectx sessions list\n")
