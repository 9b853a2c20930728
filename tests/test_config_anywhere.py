"""``--config FILE`` typed after the command, as ``--debug`` may be.

``goosectx run --config ci.toml -t …`` (how ``--model``, ``--mode`` and ``--debug`` are
accepted after ``run``) failed with click's "No such option: --config (Possible options:
--continue)"; so did ``info --config``, ``sessions list --config``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import cli
from conftest import FAKE_MODEL
from fakeserver import FakeServer


@pytest.fixture
def config(fake_server: FakeServer, tmp_path: Path) -> Path:
    """A config file naming the fake server's model (the environment names none)."""
    path = tmp_path / "ci.toml"
    path.write_text(f'model = "{FAKE_MODEL}"\n[models."{FAKE_MODEL}"]\n'
                    f'api_base = "{fake_server.base_url}"\n')
    return path


@pytest.mark.parametrize("spelling", ["two words", "one word"])
def test_config_after_run_is_the_config_the_run_uses(
        fake_server: FakeServer, config: Path, workdir: Path,
        capsys: pytest.CaptureFixture[str], spelling: str) -> None:
    fake_server.add({"text": "configured"})
    given = ["--config", str(config)] if spelling == "two words" else [f"--config={config}"]
    out, _err = cli(capsys, "run", *given, "-t", "hi")
    assert out == "configured\n"
    assert fake_server.requests[0]["messages"][-1]["content"] == "hi"


def test_config_after_info_and_sessions_list(config: Path, capsys: pytest.CaptureFixture[str]
                                             ) -> None:
    out, _err = cli(capsys, "info", "--config", str(config))
    assert FAKE_MODEL in out and str(config) in out
    cli(capsys, "sessions", "list", "--config", str(config))


def test_the_value_config_of_an_option_stays_a_value(
        fake_server: FakeServer, config: Path, workdir: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    fake_server.add({"text": "ok"})
    cli(capsys, "--config", str(config), "run", "-t", "--config")
    assert fake_server.requests[0]["messages"][-1]["content"] == "--config"
