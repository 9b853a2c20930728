"""``run --resume SESSION`` refuses a SESSION that does not resolve before the model client loads.

A typo took ~5 s (litellm's import and the key check ran first, and the lookup's error waited
for them) where ``sessions show TYPO`` said the same in a quarter of a second; with a model
whose key is missing the key's error even hid the real mistake. A typo then exited 1, as a
model's failure does, named no session close to it, and stream-json wrote a ``turn_finished``
line for a turn that never started: it is a bad argument (exit 2) with a ``did you mean``.
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
    assert (code, err) == (2, "goosectx: error: no session matches 'wrok' — did you mean "
                              "'work'? list them with: goosectx sessions list\n")
    assert (json.loads(out)["status"], json.loads(out)["exit_code"]) == ("error", 2)
    assert checked == []  # the model client was not loaded for it


def test_a_typo_is_named_even_when_the_model_key_is_missing(
        workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        fake_model: FakeServer) -> None:
    fake_model.add({"text": "first answer"})
    cli(capsys, "run", "-t", "first", "--name", "work")
    monkeypatch.setenv("GOOSE_MODEL", "anthropic/claude-sonnet-4-20250514")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, _out, err = run_cli(capsys, "run", "--resume", "wrok", "-t", "more")
    assert (code, err) == (2, "goosectx: error: no session matches 'wrok' — did you mean "
                              "'work'? list them with: goosectx sessions list\n")


def test_a_name_typed_in_another_case_is_named_as_the_close_one(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"text": "first answer"})
    cli(capsys, "run", "-t", "first", "--name", "s1")
    code, _out, err = run_cli(capsys, "run", "--resume", "S1", "-t", "more")
    assert (code, err) == (2, "goosectx: error: no session matches 'S1' — did you mean "
                              "'s1'? list them with: goosectx sessions list\n")


def test_stream_json_of_a_typo_is_the_result_line_alone(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"text": "first answer"})
    cli(capsys, "run", "-t", "first", "--name", "longs")
    code, out, err = run_cli(capsys, "run", "--resume", "lonsg", "-t", "x",
                             "--output-format", "stream-json")
    (line,) = out.splitlines()  # no turn began: no turn_finished, no session_started
    result = json.loads(line)
    assert (code, result["type"], result["status"], result["exit_code"]) == (
        2, "result", "error", 2)
    assert result["error"] == err.removeprefix("goosectx: error: ").rstrip("\n")
    assert "did you mean 'longs'?" in result["error"]


def test_a_name_nothing_like_any_session_gets_no_guess(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"text": "first answer"})
    cli(capsys, "run", "-t", "first", "--name", "longs")
    code, _out, err = run_cli(capsys, "run", "--resume", "bugfix", "-t", "x")
    assert (code, err) == (2, "goosectx: error: no session matches 'bugfix' — list them with: "
                              "goosectx sessions list\n")


def test_the_repl_and_sessions_show_name_the_same_close_session(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"text": "first answer"})
    cli(capsys, "run", "-t", "first", "--name", "longs")
    for args in (("--resume", "lonsg"), ("sessions", "show", "lonsg")):
        code, _out, err = run_cli(capsys, *args)
        assert (code, err) == (2, "goosectx: error: no session matches 'lonsg' — did you mean "
                                  "'longs'? list them with: goosectx sessions list\n"), args
