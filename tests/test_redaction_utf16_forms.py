"""A key written in a wide (UTF-16) encoding is redacted wherever goosectx shows or stores it.

Windows tools, PowerShell and ``iconv -t UTF-16`` write text as UTF-16; a model or a tool that
encodes such text gives the key as ``\\u0073\\u0000\\u006b\\u0000…`` (JSON of its bytes),
``%73%00%6B%00…`` (percent-encoded), the hex of its UTF-16-LE or -BE bytes, or their base64 —
none of which its UTF-8 forms hold. Each must be gone from a tool output (the transcript and
the terminal), from what an import stores, shows and exports, and from a streamed answer,
live and stored; the prefix ``sk-test-`` of a key goes with it.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from cli_support import cli
from store_support import assert_not_in_sessions_db
from test_import_secret_lists import _rollout
from test_stream_secret_tail import _deltas, _pieces, _turn

from goosectx.config import Settings
from goosectx.env_secrets import tool_output_redactor
from goosectx.providers.base import TextDelta
from goosectx.redaction import REDACTED, Redactor

K = "sk-test-Zq8vR2mN4pL7xW1yT6uB3cD9eF0gH5jK"
_LE, _BE = K.encode("utf-16-le"), K.encode("utf-16-be")
WIDE = {
    "json escapes of its UTF-16 bytes": "".join(f"\\u{b:04x}" for b in _LE),
    "percent-encoded UTF-16-LE": "".join(f"%{b:02X}" for b in _LE),
    "percent-encoded UTF-16-BE": "".join(f"%{b:02x}" for b in _BE),
    "hex of UTF-16-LE": _LE.hex(),
    "hex of UTF-16-BE": _BE.hex(),
    "upper hex of UTF-16-LE": _LE.hex().upper(),
    "base64 of UTF-16-LE": base64.b64encode(_LE).decode(),
    "base64 of UTF-16-BE": base64.b64encode(_BE).decode(),
    "base64url of UTF-16-LE after a byte": base64.urlsafe_b64encode(b"x" + _LE).decode(),
}
"""Each wide form of ``K``; the secret part's 12 characters in the same encoding (a piece
found in what is shown would give it away) are :func:`_traces`."""


def _traces(form: str, tail: int = 4) -> list[str]:
    """Runs of ``form`` that only the secret part past ``sk-test-`` (in this encoding) holds
    (its middle, and 20 characters before its last ``tail``: its padding, a last NUL)."""
    middle = len(form) // 2
    return [form[middle - 10:middle + 10], form[-20 - tail:-tail]]


@pytest.mark.parametrize("form", list(WIDE))
def test_a_tool_output_with_a_wide_form_of_the_key_is_shown_redacted(form: str) -> None:
    text = f"output:\n  {WIDE[form]}\nexit 0"
    redact = tool_output_redactor(Settings(), environ={"DEPLOY_TOKEN": K})
    shown = redact(text)
    # (a big-endian key's first NUL may stay: in a little-endian text it is the character's
    # before, ``key=\0``, and the redactor cannot tell the two apart)
    assert shown in (f"output:\n  {REDACTED}\nexit 0", f"output:\n  %00{REDACTED}\nexit 0"), shown
    assert not redact.changes_none(["other", text])  # the import's check sees it too


@pytest.mark.parametrize("form", ["hex of UTF-16-LE", "percent-encoded UTF-16-BE",
                                  "base64 of UTF-16-LE"])
def test_a_wide_form_split_over_lines_is_redacted_whole(form: str) -> None:
    written = WIDE[form]
    folded = "\n".join(written[i:i + 40] for i in range(0, len(written), 40))
    out = Redactor([K])(f"a {folded} b").replace("a %00[", "a [")  # (see above: BE's first NUL)
    assert out == f"a {REDACTED}{folded.count(chr(10)) * chr(10)} b"


def test_text_like_a_wide_form_but_of_no_key_is_left_as_it_is() -> None:
    other = "sk-test-Aa1bB2cC3dD4eE5fF6gG7hH8iI9jJ0kK".encode("utf-16-le")
    texts = [other.hex(), base64.b64encode(other).decode(), "%73%00%6B%00%2D%00",
             "\\u0041\\u0000\\u0042\\u0000", "00730000006b", "cwBrAC0AdABlAHMAdAAtAA=="]
    redact = tool_output_redactor(Settings(), environ={"DEPLOY_TOKEN": K})
    assert [redact(t) for t in texts] == texts
    assert redact.changes_none(texts)


@pytest.mark.parametrize("form", ["hex of UTF-16-BE", "base64 of UTF-16-LE",
                                  "percent-encoded UTF-16-LE"])
def test_an_imported_wide_form_is_never_shown_exported_or_stored(
        form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", K)
    assert_import_hides(WIDE[form], _traces(WIDE[form]), tmp_path, monkeypatch, capsys)


def assert_import_hides(text: str, traces: list[str], tmp_path: Path,
                        monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    """Importing a rollout whose request, tool output and answer hold ``text`` (a form of the
    environment's key) shows, exports and stores none of ``traces``."""
    monkeypatch.chdir(tmp_path)
    out, err = cli(capsys, "sessions", "import", str(_rollout(tmp_path / "wide.jsonl", text)),
                   "--name", "wide1")
    assert "a secret of this environment was redacted in 2 text parts, 1 tool output" in err
    shown = cli(capsys, "sessions", "show", "wide1")[0]
    exported = cli(capsys, "sessions", "export", "wide1", "-f", "json")[0]
    for seen in (out + err, shown, exported):
        assert not any(trace in seen for trace in traces), seen
    assert shown.count(REDACTED) == 3  # the request, the tool output, the answer
    for trace in traces:
        assert_not_in_sessions_db(trace)


@pytest.mark.parametrize("form", ["hex of UTF-16-LE", "base64 of UTF-16-BE",
                                  "percent-encoded UTF-16-LE"])
def test_a_streamed_wide_form_is_never_shown_and_stored_redacted(
        form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_stream_secret_tail import KEY

    little, big = KEY.encode("utf-16-le"), KEY.encode("utf-16-be")
    written = {"hex of UTF-16-LE": little.hex(), "base64 of UTF-16-BE":
               base64.b64encode(big).decode(),
               "percent-encoded UTF-16-LE": "".join(f"%{b:02X}" for b in little)}[form]
    text = f"the bytes: {written} end."
    out, events, stored = _turn(tmp_path, monkeypatch, [TextDelta(c) for c in _pieces(text)])
    assert stored == f"the bytes: {REDACTED} end.", stored
    shown = "".join(_deltas(events))
    assert not any(trace in shown for trace in _traces(written)), shown
    assert json.dumps(out).count("REDACTED") == 1
