"""A goosectx REPL in a pty against the fake server, and what it sent (pty tests' helpers)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from test_e2e_pty import TIMEOUT_S


def spawn_session(tmp_path: Path, base_url: str, cwd: Path, **env_extra: str) -> Any:
    """``goosectx session`` in a 40×110 pty, config and home under ``tmp_path``, no real keys."""
    import pexpect

    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GOOSE_") and not k.endswith(("_API_KEY", "_API_BASE",
                                                            "_BASE_URL"))}
    (tmp_path / "c.toml").touch()
    env.update(GOOSECTX_HOME=str(tmp_path / "home"), GOOSECTX_CONFIG=str(tmp_path / "c.toml"),
               GOOSE_MODEL="openai/fake-model", OPENAI_API_BASE=base_url,
               OPENAI_API_KEY="sk-test-dummy", PROMPT_TOOLKIT_NO_CPR="1",
               TERM="xterm-256color", **env_extra)
    env.pop("NO_COLOR", None)
    return pexpect.spawn("goosectx", ["session"], cwd=str(cwd), env=env,
                         dimensions=(40, 110), encoding="utf-8", timeout=TIMEOUT_S)


def user_texts(requests: list[dict[str, object]]) -> list[str]:
    """Every user message's content the fake server received, as JSON text."""
    return [json.dumps(message.get("content")) for request in requests
            for message in request["messages"]  # type: ignore[attr-defined]
            if message.get("role") == "user"]
