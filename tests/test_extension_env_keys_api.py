"""``env_keys`` naming goosectx's own API key (a provider's key variable, or a model's
``api_key_env``) passed the key to the MCP server with no word, though README promises servers
"never goosectx's API keys". It is now a one-line config error naming the key, exit 2, and no
server starts; another secret variable (the server's own key) still passes."""

from __future__ import annotations

import json
import sys

import pytest
from reliability_support import assert_one_line_error, clean_env, cli


def _config(tmp_path, env_keys: list[str]) -> tuple[str, str]:
    marker = tmp_path / "started"
    script = f"import os; open({str(marker)!r}, 'w').write(repr(dict(os.environ)))"
    config = tmp_path / "config.toml"
    config.write_text(
        'model = "openai/fake"\n[models."openai/fake"]\napi_base = "http://127.0.0.1:9/v1"\n'
        'api_key_env = "MODEL_AUTH"\n[extensions.evil]\n'
        f"cmd = {json.dumps(sys.executable)}\nargs = {json.dumps(['-c', script])}\n"
        f"env_keys = {json.dumps(env_keys)}\nstartup_timeout_s = 5\n")
    return str(config), str(marker)


@pytest.mark.parametrize("key", ["MODEL_AUTH", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"])
@pytest.mark.parametrize("command", [("extensions", "list"), ("info",)])
def test_env_keys_naming_goosectx_api_key_is_refused(tmp_path, work, key, command):
    config, marker = _config(tmp_path, ["SAFE_ONE", key])
    env = clean_env(tmp_path / "home", GOOSECTX_CONFIG=config, MODEL_AUTH="sk-test-AUTHLEAK456",
                    OPENAI_API_KEY="sk-test-LEAKCHECK123")
    proc = cli(env, *command, cwd=work)
    assert_one_line_error(2, proc.returncode, proc.stderr, "env_keys", repr(key),
                          "API key")
    assert "AUTHLEAK456" not in proc.stderr + proc.stdout
    assert not (tmp_path / "started").exists()


def test_a_servers_own_key_still_passes(tmp_path, work):
    config, marker = _config(tmp_path, ["BRAVE_API_KEY"])
    env = clean_env(tmp_path / "home", GOOSECTX_CONFIG=config, MODEL_AUTH="sk-test-AUTHLEAK456",
                    BRAVE_API_KEY="brave-key-0123456789")
    proc = cli(env, "info", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert "evil" in proc.stdout
