"""The variables goosectx sets for litellm and tiktoken stay out of the commands it runs.

A tester's ``env`` in a tool showed ``LITELLM_MODE=PRODUCTION``, ``LITELLM_LOG=ERROR`` and
``TIKTOKEN_CACHE_DIR=<goosectx's venv>``: a project using litellm or tiktoken behaved
differently under goosectx than in the user's own shell (test30a).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx import own_env
from goosectx.config import Settings
from goosectx.tools.builtin import make_tool_context
from goosectx.tools.shell import ShellTool


def test_a_tool_sees_the_users_environment_not_goosectxs_settings(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(own_env, "_BEFORE", {})
    monkeypatch.delenv("LITELLM_MODE", raising=False)  # (monkeypatch restores both after)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "/home/u/my-cache")  # the user's own
    own_env.set_own("LITELLM_MODE", "PRODUCTION")
    own_env.set_own("TIKTOKEN_CACHE_DIR", "/venv/tok")
    ctx = make_tool_context(Settings(data_dir=tmp_path / "data"), tmp_path)
    output = ShellTool().run({"command": "env"}, ctx).output
    assert "LITELLM_MODE" not in output
    assert "TIKTOKEN_CACHE_DIR=/home/u/my-cache" in output and "/venv/tok" not in output
