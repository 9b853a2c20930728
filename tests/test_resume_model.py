"""A model chosen with /model is kept with the session and resumed on (REPL --resume, -c,
/resume, run --resume), the banner / stderr saying where it comes from; --model and
GOOSE_MODEL still win (and say so); a stored model whose key is gone is named in one line and
the configured model used instead."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from cli_support import cli
from conftest import FAKE_MODEL
from fakeserver import FakeServer

from goosectx.config import load_settings
from goosectx.store import SessionStore

OTHER = "openai/other-model"


@pytest.fixture
def configured(fake_model: FakeServer, isolated_env: dict[str, Path],
               monkeypatch: pytest.MonkeyPatch, workdir: Path) -> FakeServer:
    """The fake server's model set in the config file (not GOOSE_MODEL, which wins)."""
    monkeypatch.delenv("GOOSE_MODEL")
    isolated_env["config"].write_text(
        f'model = "{FAKE_MODEL}"\n[models."{OTHER}"]\ncontext_limit = 8000\n')
    return fake_model


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def _switched_session(work: Path, model: str = OTHER) -> None:
    """A session "m" switched with /model to ``model`` earlier (as the REPL stores it)."""
    store = SessionStore(load_settings().data_dir)
    session = store.create_session(work, name="m", model=FAKE_MODEL)
    session.state.chosen_model = model
    store.update_session(session.id, model=model, state=session.state)
    store.close()


def _asked(server: FakeServer) -> list[str]:
    return [request["model"] for request in server.requests]


def test_repl_resumes_on_the_model_chosen_with_slash_model(
        capsys: pytest.CaptureFixture[str], configured: FakeServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    configured.add({"text": "one"}, {"text": "two"})
    _stdin(monkeypatch, f"/model {OTHER}\nhi\n/exit\n")
    cli(capsys, "--name", "m")
    _stdin(monkeypatch, "again\n/exit\n")
    out, _err = cli(capsys, "--resume", "m")
    assert f"model {OTHER} (restored from this session; /model changes it)" in out
    assert _asked(configured) == ["other-model", "other-model"]


@pytest.mark.parametrize(("args", "env", "origin"), [
    (("--model", FAKE_MODEL), {}, "--model"),
    ((), {"GOOSE_MODEL": FAKE_MODEL}, "env GOOSE_MODEL"),
])
def test_model_flag_and_env_win_over_the_stored_model_and_say_so(
        capsys: pytest.CaptureFixture[str], configured: FakeServer,
        monkeypatch: pytest.MonkeyPatch, workdir: Path, args: tuple[str, ...],
        env: dict[str, str], origin: str) -> None:
    _switched_session(workdir)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    configured.add({"text": "ok"})
    _stdin(monkeypatch, "again\n/exit\n")
    out, _err = cli(capsys, "--resume", "m", *args)
    flat = " ".join(out.split())
    assert (f"model {FAKE_MODEL} ({origin} wins over {OTHER}, chosen with /model in this "
            "session)") in flat
    assert _asked(configured) == ["fake-model"]


def test_run_resume_uses_the_stored_model_and_names_it(
        capsys: pytest.CaptureFixture[str], configured: FakeServer,
        workdir: Path) -> None:
    _switched_session(workdir)
    configured.add({"text": "ok"})
    _out, err = cli(capsys, "run", "--resume", "m", "-t", "again")
    assert f"goosectx: note: model {OTHER} (restored from this session; --model changes it)" \
        in err
    assert _asked(configured) == ["other-model"]


def test_run_resume_with_model_flag_says_the_flag_wins(
        capsys: pytest.CaptureFixture[str], configured: FakeServer,
        workdir: Path) -> None:
    _switched_session(workdir)
    configured.add({"text": "ok"})
    _out, err = cli(capsys, "run", "--resume", "m", "--model", FAKE_MODEL, "-t", "again")
    assert f"model {FAKE_MODEL} (--model wins over {OTHER}" in err
    assert _asked(configured) == ["fake-model"]


def _keyless(isolated_env: dict[str, Path]) -> None:
    """The stored model now needs a key that is not set."""
    isolated_env["config"].write_text(
        f'model = "{FAKE_MODEL}"\n[models."{OTHER}"]\napi_key_env = "OTHER_KEY_UNSET"\n')


def test_run_resume_falls_back_when_the_stored_model_has_no_key(
        capsys: pytest.CaptureFixture[str], configured: FakeServer,
        isolated_env: dict[str, Path], workdir: Path) -> None:
    _switched_session(workdir)
    _keyless(isolated_env)
    configured.add({"text": "ok"})
    _out, err = cli(capsys, "run", "--resume", "m", "-t", "again")
    [line] = [line for line in err.splitlines() if "cannot be used now" in line]
    assert f"this session's model {OTHER} (chosen with /model)" in line
    assert "OTHER_KEY_UNSET is not set" in line and f"using {FAKE_MODEL} instead" in line
    assert _asked(configured) == ["fake-model"]


def test_repl_resume_falls_back_when_the_stored_model_has_no_key(
        capsys: pytest.CaptureFixture[str], configured: FakeServer,
        isolated_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        workdir: Path) -> None:
    _switched_session(workdir)
    _keyless(isolated_env)
    configured.add({"text": "ok"})
    _stdin(monkeypatch, "again\n/exit\n")
    out, _err = cli(capsys, "--resume", "m")
    flat = " ".join(out.split())
    assert f"warning: this session's model {OTHER} (chosen with /model) cannot be used" in flat
    assert f"using {FAKE_MODEL} instead" in flat
    assert "not sent" not in flat
    assert _asked(configured) == ["fake-model"]


def test_slash_resume_switches_to_the_other_sessions_stored_model(
        capsys: pytest.CaptureFixture[str], configured: FakeServer,
        monkeypatch: pytest.MonkeyPatch, workdir: Path) -> None:
    _switched_session(workdir)
    configured.add({"text": "ok"})
    _stdin(monkeypatch, "/resume m\nagain\n/exit\n")
    out, _err = cli(capsys, "--name", "here")
    flat = " ".join(out.split())
    assert f"resumed m · 0 messages · model {OTHER} (restored from this session" in flat
    assert _asked(configured) == ["other-model"]
