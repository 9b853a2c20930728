"""A provider error that echoes the API key: the key is redacted before it is shown or stored.

A 401 reply such as OpenAI's "Incorrect API key provided: sk-…" quotes the key; goosectx
redacts it where provider errors become goosectx errors, so stderr, ``run``'s JSON and
stream-JSON, the REPL's error panel, the session, its export and the debug log never hold it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from cli_support import cli
from conftest import FAKE_MODEL
from fakeserver import FakeServer
from test_repl import CTRL_D, ENTER, World

from goosectx.config import load_settings
from goosectx.providers.litellm_provider import make_provider
from goosectx.redaction import REDACTED

KEY = "sk-test-LEAKCHECK123-" + "x7Qp2" * 4
ECHO = {"status": 401, "body": {"error": {
    "message": f"Incorrect API key provided: {KEY}. Check it.",
    "type": "invalid_request_error", "code": "invalid_api_key"}}}


def run_goosectx(server: FakeServer, cwd: Path, *args: str,
                 **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": server.base_url,
           "OPENAI_API_KEY": KEY, **extra_env}
    return subprocess.run(["goosectx", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def stored_bytes() -> bytes:
    return b"".join(p.read_bytes() for p in load_settings().data_dir.rglob("*") if p.is_file())


@pytest.mark.parametrize("output_format", ["text", "json", "stream-json"])
def test_a_provider_error_echoing_the_key_shows_it_redacted(
        fake_server: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        output_format: str) -> None:
    fake_server.add(ECHO)
    done = run_goosectx(fake_server, workdir, "--debug", "run", "-t", "k", "--name", "leak",
                        "--output-format", output_format)
    assert done.returncode == 1
    assert KEY not in done.stderr and KEY not in done.stdout
    assert f"rejected the API key: Incorrect API key provided: {REDACTED}" in done.stderr
    if output_format != "text":
        assert f"Incorrect API key provided: {REDACTED}" in done.stdout
    assert KEY.encode() not in stored_bytes()  # session, notices and the --debug log
    assert list(load_settings().data_dir.rglob("*.log"))
    for args in (("sessions", "show", "leak"), ("sessions", "export", "leak", "-f", "md"),
                 ("sessions", "export", "leak", "-f", "json")):
        out, err = cli(capsys, *args)
        assert KEY not in out + err


def test_a_key_in_a_variable_not_named_like_a_secret_is_redacted_too(
        fake_server: FakeServer, workdir: Path, isolated_env: dict[str, Path]) -> None:
    isolated_env["config"].write_text(
        f'[models."{FAKE_MODEL}"]\napi_key_env = "LLM_AUTH"\n')
    fake_server.add(ECHO)
    done = run_goosectx(fake_server, workdir, "run", "-t", "k", "--output-format", "json",
                        OPENAI_API_KEY="", LLM_AUTH=KEY)
    assert done.returncode == 1
    assert KEY not in done.stderr and KEY not in done.stdout
    assert f"Incorrect API key provided: {REDACTED}" in done.stderr


def percent_echo(key: str) -> dict[str, object]:
    """A 400 quoting ``key`` plain, in a URL query (dashes encoded) and with one letter encoded."""
    in_url = key.replace("-", "%2D")
    one_letter = f"{key[:11]}%{ord(key[11]):02x}{key[12:]}"
    return {"status": 400, "body": {"error": {
        "message": f"key={key} url=https://x/?api_key={in_url} and {one_letter}"}}}


@pytest.mark.parametrize("variable", ["OPENAI_API_KEY", "LLM_AUTH"])
def test_a_provider_error_quoting_the_key_percent_encoded_shows_it_redacted(
        fake_server: FakeServer, workdir: Path, isolated_env: dict[str, Path],
        variable: str) -> None:
    if variable == "LLM_AUTH":  # a key read through api_key_env, a name not secret-looking
        isolated_env["config"].write_text(
            f'[models."{FAKE_MODEL}"]\napi_key_env = "LLM_AUTH"\n')
    fake_server.add(percent_echo(KEY))
    done = run_goosectx(fake_server, workdir, "--debug", "run", "-t", "k",
                        "--output-format", "json", **{"OPENAI_API_KEY": "", variable: KEY})
    assert done.returncode == 1
    said = f"key={REDACTED} url=https://x/?api_key={REDACTED} and {REDACTED}"
    assert said in done.stderr and said in done.stdout
    logs = b"".join(p.read_bytes() for p in load_settings().data_dir.rglob("*.log"))
    assert logs and b"LEAKCHE" not in logs and b"LEAKCHE" not in stored_bytes()


def test_the_repl_error_panel_shows_the_key_redacted(fake_model: FakeServer,
                                                    tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake_model.add(ECHO)
    world = World(tmp_path)
    try:
        out = world.run("hi" + ENTER + CTRL_D, provider=make_provider(load_settings()))
        flat = " ".join(out.split())
        assert KEY not in out and f"Incorrect API key provided: {REDACTED}" in flat
        assert KEY.encode() not in stored_bytes() and KEY.encode() not in b"".join(
            p.read_bytes() for p in world.settings.data_dir.rglob("*") if p.is_file())
    finally:
        world.store.close()
