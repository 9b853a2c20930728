"""A connection string's key or password, and a SAS URL's signature, in an ordinarily named
variable stay out of the tools' environment and are redacted wherever they appear.

``AZURE_STORAGE_CONNECTION_STRING``, ``ODBC_DSN`` and ``AZURE_SAS_URL`` reached ``env`` in the
shell tool (so the model and the store) in full: no name rule matches them and the value check
knew URLs with a password, bearer headers and vendors' keys only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.config import Settings
from goosectx.env_secrets import make_redactor
from goosectx.tools.builtin import make_tool_context, tool_env
from goosectx.tools.shell import ShellTool

ACCOUNT_KEY = "Xq9LmN3pQr7sTu1vWx5yZa8bCd2eFg6hJk0=="
PASSWORD = "VeryS3cret Passw0rd!"
SIG = "Zk8pQw3eRt6yUi9oPa2sDf5g%3D"
SECRETS = {
    "AZURE_STORAGE_CONNECTION_STRING": (
        "DefaultEndpointsProtocol=https;AccountName=acme;"
        f"AccountKey={ACCOUNT_KEY};EndpointSuffix=core.windows.net"),
    "ODBC_DSN": f"Driver={{ODBC Driver 18}};Server=db.example.org;Uid=u;Pwd={PASSWORD};",
    "AZURE_SAS_URL": ("https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=co"
                      f"&sp=rl&se=2030-01-01&sig={SIG}"),
    "BUS": "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;"
           "SharedAccessKey=Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv=",
}
KEPT = {
    "PATH": "/usr/bin:/bin",
    "SEARCH_URL": "https://example.org/find?q=signal&page=2",
    "LOCAL_DSN": "Driver={SQLite};Database=/tmp/app.db;",
    "NOTE": "Password= is asked for at login",
}


def test_connection_string_secrets_are_dropped_from_the_tools_environment() -> None:
    assert tool_env(Settings(), {**SECRETS, **KEPT}) == KEPT


def test_env_in_the_shell_tool_shows_no_key_password_or_signature(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name, value in {**SECRETS, **KEPT}.items():
        monkeypatch.setenv(name, value)
    ctx = make_tool_context(Settings(data_dir=tmp_path / "data"), tmp_path)
    output = ShellTool().run({"command": "env"}, ctx).output
    for secret in (ACCOUNT_KEY, PASSWORD, SIG, *SECRETS):
        assert secret not in output
    assert "SEARCH_URL=https://example.org/find?q=signal&page=2" in output


def test_the_key_password_and_signature_are_redacted_alone_too() -> None:
    redact = make_redactor(Settings(), {**SECRETS, **KEPT})
    text = redact(f"key {ACCOUNT_KEY} pw {PASSWORD} sig {SIG} decoded Zk8pQw3eRt6yUi9oPa2sDf5g=")
    assert text == "key [REDACTED] pw [REDACTED] sig [REDACTED] decoded [REDACTED]"
    assert redact("Driver={SQLite};Database=/tmp/app.db;") == "Driver={SQLite};Database=/tmp/app.db;"
