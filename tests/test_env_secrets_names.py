"""Credentials in variables with ordinary names stay out of the shell tool's environment.

A Slack webhook URL, a ``Bearer`` header, a cookie, a ``*_PASS``: dropped from what ``env`` /
``printenv`` show the model, and their values redacted; ``PATH``, ``HOME``, ``SSH_AUTH_SOCK``,
``XAUTHORITY`` and the like are kept (docs/architecture.md, the tools' scrubbed environment).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.config import Settings
from goosectx.env_secrets import make_redactor
from goosectx.tools.builtin import make_tool_context, tool_env
from goosectx.tools.shell import ShellTool

WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"
SECRETS = {
    "SLACK_WEBHOOK": WEBHOOK,
    "AUTH_HEADER": f"Bearer {JWT}",
    "NOTIFY_URL": "https://discord.com/api/webhooks/1234/abcdefABCDEF0123",
    "UPSTREAM": "Basic dXNlcjpodW50ZXIyaHVudGVy",
    "CLONE_URL": "https://ghp_abcdefghijklmnop1234@github.com/o/r.git",
    "BROWSER_COOKIE": "sid=7f3a9c0d2e1b",
    "DB_PASS": "hunter2hunter2",
    "HTTP_AUTHORIZATION": "x-opaque-credential-1",
    "APP_SIGNING": "signing-material-0987",
    "WEB_SESSION_KEY": "s3ss10n-k3y-value",
    "MY_PRIVATE": "private-material-12",
}
KEPT = {
    "PATH": "/usr/bin:/bin", "HOME": "/home/u", "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1",
    "XAUTHORITY": "/home/u/.Xauthority", "GIT_AUTHOR_NAME": "Ann Author",
    "GIT_ASKPASS": "/usr/lib/git/askpass", "GOPRIVATE": "github.com/acme/*",
    "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus", "XDG_SESSION_TYPE": "tty",
    "REPO": "ssh://git@github.com/o/r.git", "HOMEPAGE": "https://example.org/a:b",
    "MODE": "Basic", "GREETING": "Token ring",
}


def test_credentials_with_ordinary_names_are_dropped_and_everyday_names_kept() -> None:
    env = tool_env(Settings(), {**SECRETS, **KEPT})
    assert env == KEPT


def test_printenv_in_the_shell_tool_shows_no_credential(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name, value in {**SECRETS, **KEPT}.items():
        monkeypatch.setenv(name, value)
    ctx = make_tool_context(Settings(data_dir=tmp_path / "data"), tmp_path)
    for command in ("env", "printenv SLACK_WEBHOOK AUTH_HEADER; printenv"):
        output = ShellTool().run({"command": command}, ctx).output
        for name, value in SECRETS.items():
            assert name not in output and value not in output
        assert "hooks.slack.com/services/T000" not in output and JWT not in output
        for name in ("SSH_AUTH_SOCK", "XAUTHORITY", "GIT_AUTHOR_NAME", "GOPRIVATE"):
            assert f"{name}={KEPT[name]}" in output


def test_the_values_and_their_tokens_are_redacted() -> None:
    redact = make_redactor(Settings(), {**SECRETS, **KEPT})
    text = redact(f"posting to {WEBHOOK} with {JWT} and ghp_abcdefghijklmnop1234 as hunter2hunter2")
    assert text == "posting to [REDACTED] with [REDACTED] and [REDACTED] as [REDACTED]"
    assert redact("see /tmp/ssh-x/agent.1 and Ann Author") == "see /tmp/ssh-x/agent.1 and Ann Author"


def test_allow_secret_env_still_lets_the_shell_see_one() -> None:
    settings = Settings(allow_secret_env=("SLACK_WEBHOOK",))
    env = tool_env(settings, {**SECRETS, "PATH": "/bin"})
    assert env == {"SLACK_WEBHOOK": WEBHOOK, "PATH": "/bin"}
