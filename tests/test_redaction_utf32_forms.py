"""A key written as UTF-32 is redacted wherever goosectx shows or stores it.

``iconv -t UTF-32`` and a few Windows and Java APIs write a character in four bytes; a model or
a tool that encodes such text gives the key as ``\\U00000073…``, ``\\u0073\\u0000\\u0000\\u0000…``
(JSON of its bytes), ``%73%00%00%00…``, the hex of its UTF-32-LE or -BE bytes, or their base64
— none of which its UTF-8 or UTF-16 forms hold (goosectx/redaction_forms.py, ``Utf32Forms``).
Each must be gone from a tool output and from what an import stores, shows and exports; the
prefix ``sk-test-`` of a key goes with it.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from test_redaction_utf16_forms import _traces as utf16_traces
from test_redaction_utf16_forms import assert_import_hides

from goosectx.config import Settings
from goosectx.env_secrets import tool_output_redactor
from goosectx.redaction import REDACTED, Redactor

K = "sk-test-Zq8vR2mN4pL7xW1yT6uB3cD9eF0gH5jK"
_LE, _BE = K.encode("utf-32-le"), K.encode("utf-32-be")
WIDE = {
    "python escapes of its characters": "".join(f"\\U{ord(c):08x}" for c in K),
    "json escapes of its UTF-32-LE bytes": "".join(f"\\u{b:04x}" for b in _LE),
    "json escapes of its UTF-32-BE bytes": "".join(f"\\u{b:04x}" for b in _BE),
    "\\x escapes of its UTF-32-LE bytes": "".join(f"\\x{b:02x}" for b in _LE),
    "percent-encoded UTF-32-LE": "".join(f"%{b:02X}" for b in _LE),
    "percent-encoded UTF-32-BE": "".join(f"%{b:02x}" for b in _BE),
    "hex of UTF-32-LE": _LE.hex(),
    "hex of UTF-32-BE": _BE.hex(),
    "upper hex of UTF-32-LE": _LE.hex().upper(),
    "upper hex of UTF-32-BE": _BE.hex().upper(),
    "base64 of UTF-32-LE": base64.b64encode(_LE).decode(),
    "base64 of UTF-32-BE": base64.b64encode(_BE).decode(),
    "base64url of UTF-32-LE after a byte": base64.urlsafe_b64encode(b"x" + _LE).decode(),
    "base64 of UTF-32-BE after two bytes": base64.b64encode(b"xy" + _BE).decode(),
    "UTF-32-LE read as Latin-1": _LE.decode("latin-1"),
}
"""Each UTF-32 form of ``K``; the secret part past ``sk-test-`` in the same encoding (a piece
found in what is shown would give it away) is :func:`_traces`."""


def _traces(form: str) -> list[str]:
    """:func:`test_redaction_utf16_forms._traces`, past a last character's three NULs."""
    return utf16_traces(form, tail=8)


@pytest.mark.parametrize("form", list(WIDE))
def test_a_tool_output_with_a_utf32_form_of_the_key_is_shown_redacted(form: str) -> None:
    text = f"output:\n  {WIDE[form]}\nexit 0"
    redact = tool_output_redactor(Settings(), environ={"DEPLOY_TOKEN": K})
    assert redact(text) == f"output:\n  {REDACTED}\nexit 0"
    assert not redact.changes_none(["other", text])  # the import's check sees it too


@pytest.mark.parametrize("form", ["hex of UTF-32-BE", "percent-encoded UTF-32-LE",
                                  "base64 of UTF-32-LE"])
def test_a_utf32_form_folded_over_lines_is_redacted_whole(form: str) -> None:
    written = WIDE[form]
    folded = "\n".join(written[i:i + 60] for i in range(0, len(written), 60))
    assert Redactor([K])(f"a {folded} b") == f"a {REDACTED}{folded.count(chr(10)) * chr(10)} b"


def test_text_like_a_utf32_form_but_of_no_key_is_left_as_it_is() -> None:
    other = "sk-test-Aa1bB2cC3dD4eE5fF6gG7hH8iI9jJ0kK".encode("utf-32-le")
    texts = [other.hex(), base64.b64encode(other).decode(), "%73%00%00%00%6B%00%00%00",
             "\\u0041\\u0000\\u0000\\u0000", "0000007300000000", "cwAAAGsAAAAtAAAA",
             other.decode("latin-1")]
    redact = tool_output_redactor(Settings(), environ={"DEPLOY_TOKEN": K})
    assert [redact(t) for t in texts] == texts
    assert redact.changes_none(texts)


@pytest.mark.parametrize("form", ["hex of UTF-32-LE", "base64 of UTF-32-BE"])
def test_an_imported_utf32_form_is_never_shown_exported_or_stored(
        form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", K)
    assert_import_hides(WIDE[form], _traces(WIDE[form]), tmp_path, monkeypatch, capsys)
