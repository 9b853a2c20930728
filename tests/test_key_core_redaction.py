"""A key written without its vendor prefix, and a key streamed in pieces, stay out of sight.

The model may write ``Ab3d…`` for ``OPENAI_API_KEY=sk-proj-Ab3d…``: the secret part is the same
secret (``goosectx.redaction.key_cores``). With ``--debug``, litellm logs every streamed chunk;
each piece is too short to redact, but joined they gave the key back (``goosectx/log.py``
leaves those records out).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeserver import FakeServer
from reliability_support import cli, model_env

from goosectx.redaction import REDACTED, Redactor, encodings, key_cores

KEY = "sk-proj-Ab3dEfGh1JkLmN0pQrStUvWxYz0123456789abcdefXYZ"
CORE = KEY.removeprefix("sk-proj-")


def windows(secret: str, size: int = 8) -> list[str]:
    return [secret[i:i + size] for i in range(len(secret) - size + 1)]


def test_the_key_without_its_prefix_is_redacted_on_screen_in_the_session_and_the_log(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    script = [{"text": f"core: {CORE}\nwhole: {KEY}\nend"}]
    with FakeServer(script) as server:
        proc = cli(model_env(home, server.base_url, key=KEY), "--debug", "run", "-t", "hi",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "core: " + REDACTED in proc.stdout
    stored = b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())
    assert b"LiteLLM" in stored  # the debug log was written
    squeezed = "".join(proc.stdout.split())
    for piece in windows(CORE):
        assert piece not in squeezed, piece
        assert piece.encode() not in stored, piece


@pytest.mark.parametrize(("secret", "core"), [
    (KEY, CORE),
    ("sk-ant-api03-" + "Q" * 40, "Q" * 40),
    ("ghp_" + "a1B2" * 9, "a1B2" * 9),
    ("xoxb-1234-5678-" + "z" * 24, "z" * 24),
])
def test_a_vendor_key_s_secret_part_is_redacted_alone(secret: str, core: str) -> None:
    assert core in key_cores(secret)
    redact = Redactor([secret])
    assert redact(f"it is {core}.") == f"it is {REDACTED}."
    assert not redact.changes_none(["x", f"it is {core}."])


@pytest.mark.parametrize("value", ["hunter2hunter2", "postgres-password1", "sk-short-abc123"])
def test_a_value_without_a_long_secret_part_adds_nothing(value: str) -> None:
    assert key_cores(value) == []
    assert Redactor([value])("plain password1 text") == "plain password1 text"


def _percent_all(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


@pytest.mark.parametrize("form", [*encodings(KEY), _percent_all(KEY), "sk-proj-\n" + CORE,
                                  KEY[:30] + "\n" + KEY[30:], "s k - p r o j - " + CORE,
                                  _percent_all("sk-proj-") + CORE])
def test_the_whole_key_goes_in_every_form_prefix_and_all(form: str) -> None:
    # the regex looks for the core's forms and takes the prefix beside one with it
    redact = Redactor([KEY])
    out = redact(f"key: {form} end")
    assert out.startswith("key: " + REDACTED) and out.split(REDACTED)[-1].strip() == "end", out
    assert "sk" not in out and "proj" not in out and "%73" not in out.lower()


def test_a_core_after_another_prefix_keeps_that_prefix() -> None:
    assert Redactor([KEY])(f"sk-live-{CORE}") == f"sk-live-{REDACTED}"


REAL = "sk-proj-gtD7fGUOv8_x-Q2mK9pL4sR6yH1zzT_wqAbCdEf-GhIjKlMn0pQrStUvW"


@pytest.mark.parametrize("form", [REAL.upper(), REAL.replace("-", "").replace("_", ""),
                                  REAL.upper()[8:],
                                  "SK-PROJ-\n" + REAL[8:].upper(),
                                  REAL.replace("-", "").replace("_", "")[6:]])
def test_a_key_retyped_upper_cased_or_without_dashes_is_redacted_whole(form: str) -> None:
    out = Redactor([REAL])(f"it is {form} ok")
    assert out == f"it is {REDACTED} ok" or out == f"it is {REDACTED}\n ok", out


def test_a_short_password_retyped_is_left_alone() -> None:
    redact = Redactor(["pass-word-1"])
    assert redact("PASS-WORD-1 and password1") == "PASS-WORD-1 and password1"
    assert redact("it is pass-word-1") == f"it is {REDACTED}"


@pytest.mark.parametrize("value", ["hunter2hunt3", "abcdefghij1234", "Zt5wQ9rB3n-J"])
def test_a_value_of_12_or_more_with_a_digit_is_redacted_upper_cased(value: str) -> None:
    assert Redactor([value])(f"it is {value.upper()}.") == f"it is {REDACTED}."


@pytest.mark.parametrize("value", ["administrator", "Passwordless", "abc12345xyz"])
def test_a_word_or_a_value_under_12_is_not_redacted_upper_cased(value: str) -> None:
    # under 16, letters alone upper-cased are ordinary text (ADMINISTRATOR in a log); 11
    # characters upper-cased say too little. Each is still redacted as it is.
    redact = Redactor([value])
    assert redact(f"it is {value.upper()}.") == f"it is {value.upper()}."
    assert redact(f"it is {value}.") == f"it is {REDACTED}."
