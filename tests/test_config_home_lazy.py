"""The platform dirs are looked up only for a dir nothing else names.

With ``GOOSECTX_HOME`` (and ``GOOSECTX_CONFIG``) set, reading the settings never imports
platformdirs — a start-up cost (docs/architecture.md §1, config.py) — and the dirs are the
ones named; without them they are the platform's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import platformdirs

from goosectx.config import load_settings

_PROBE = """
import json, sys
from goosectx.config import load_settings
s = load_settings()
print(json.dumps({"data_dir": str(s.data_dir), "log": str(s.log_path),
                  "config": str(s.config_file), "source": s.source("data_dir"),
                  "platformdirs": "platformdirs" in sys.modules}))
"""


def _probe(env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GOOSE", "XDG_"))}
    env["HOME"] = str(tmp_path / "home")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    env.update(extra)
    return env


def test_goosectx_home_and_config_set_mean_no_platformdirs_import(tmp_path: Path) -> None:
    home, config = tmp_path / "data", tmp_path / "goose.toml"
    config.write_text('model = "openai/gpt-4o-mini"\n')
    seen = _probe(_env(tmp_path, GOOSECTX_HOME=str(home), GOOSECTX_CONFIG=str(config)))
    assert seen == {"data_dir": str(home), "log": str(home / "goosectx.log"),
                    "config": str(config), "source": "env GOOSECTX_HOME",
                    "platformdirs": False}


def test_a_data_dir_in_the_config_file_needs_no_platformdirs_either(tmp_path: Path) -> None:
    config = tmp_path / "goose.toml"
    config.write_text('data_dir = "store"\n')
    seen = _probe(_env(tmp_path, GOOSECTX_CONFIG=str(config)))
    assert seen["data_dir"] == str(tmp_path / "store") and seen["platformdirs"] is False


def test_without_goosectx_home_the_data_dir_is_the_platform_one(tmp_path: Path) -> None:
    env = _env(tmp_path)
    seen = _probe(env)
    expected = subprocess.run(
        [sys.executable, "-c", "import platformdirs; print(platformdirs.user_data_dir('goosectx'))"],
        env=env, capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    assert seen["data_dir"] == expected and seen["source"] == "default"
    assert seen["platformdirs"] is True


def test_in_process_the_default_and_the_named_dir_match_the_old_reading(
        tmp_path: Path) -> None:
    assert load_settings(environ={}).data_dir == Path(platformdirs.user_data_dir("goosectx"))
    named = load_settings(environ={"GOOSECTX_HOME": str(tmp_path / "x")})
    assert named.data_dir == tmp_path / "x"
