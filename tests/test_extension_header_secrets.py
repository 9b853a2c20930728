"""Only an extension's credential headers become secrets: ``Accept`` does not shred output.

A remote extension's ``headers`` hold its token (``Authorization``, ``X-API-Key``, ``Cookie``)
and plain protocol settings (``Accept: application/json``). The token is redacted wherever it
appears — tool output, the log, an error; a plain setting's value is ordinary text and stays.
"""

from __future__ import annotations

import pytest

from goosectx.config import Settings
from goosectx.env_secrets import make_redactor
from goosectx.extensions.config import parse_table, secret_values
from goosectx.redaction import redact_known

PLAIN = {"Accept": "application/json, text/event-stream", "User-Agent": "acme-cli/2.1",
         "Content-Type": "application/json", "X-Request-Source": "goosectx-extension-hdr"}
CREDENTIALS = {
    "Authorization": "Bearer hdrtok-7Qm2Lx9Pz4Kd8Wn3Rt",
    "Proxy-Authorization": "Basic cHJveHk6cHJveHlwYXNzMTI=",
    "X-API-Key": "apikey-value-Hs83jdk",
    "Cookie": "session=ckval-Jf82Ka0sLm",
    "X-Auth-Token": "auth-token-Ps01Lq8Zz",
    "Private-Token": "private-tok-Zx61Mm",
    "X-Client-Secret": "client-sec-Vb27Qy",
    "X-Tenant": "ghp_" + "T3n4ntK3y0123456789abcdefghijABCDEFGH",  # a vendor's key: any name
    "X-Opaque": "Zq81mPl0Xc7Vb2Nn4Kd6Rt9Ws",  # a token-like word: any name
}


def _table(uri: str, headers: dict[str, str]) -> dict[str, object]:
    return {"type": "streamable_http", "uri": uri, "headers": headers}


def test_a_plain_headers_value_is_not_redacted_a_credentials_is() -> None:
    text = ("POST /mcp with " + "; ".join(PLAIN.values()) + " sent "
            + " / ".join(CREDENTIALS.values()))
    settings = Settings()
    settings.extensions.tables = {"api": _table("http://127.0.0.1:9/mcp", PLAIN | CREDENTIALS)}
    got = make_redactor(settings, {"HOME": "/root"})(text)  # a tool's output, an import
    assert all(v in got for v in PLAIN.values()), got
    assert not any(v in got for v in CREDENTIALS.values()), got
    assert "cHJveHk6cHJveHlwYXNzMTI=" not in got  # the token word of ``Basic …`` too


def test_the_servers_redaction_and_the_known_secrets_skip_plain_headers() -> None:
    config = parse_table("api2", _table("http://127.0.0.1:9/mcp", {
        "Accept": "application/vnd.acme+json", "Authorization": "Bearer known-Tq72Kx0Lp9Zw"}))
    values = secret_values([config], {})
    assert "application/vnd.acme+json" not in values
    assert "Bearer known-Tq72Kx0Lp9Zw" in values
    said = "406: wanted application/vnd.acme+json, token known-Tq72Kx0Lp9Zw refused"
    assert redact_known(said) == "406: wanted application/vnd.acme+json, token [REDACTED] refused"


@pytest.mark.parametrize(("name", "value"), [
    ("Accept-Encoding", "gzip, deflate, br"), ("Accept-Language", "en-GB,en;q=0.9"),
    ("X-Mcp-Version", "2025-06-18"), ("Cache-Control", "no-cache, no-store"),
])
def test_ordinary_header_values_are_left_as_they_are(name: str, value: str) -> None:
    settings = Settings()
    settings.extensions.tables = {"web": _table("http://127.0.0.1:9/mcp", {name: value})}
    assert make_redactor(settings, {"HOME": "/root"})(f"sent {value}.") == f"sent {value}."
