"""A key spread by NULs (UTF-16 read as bytes) or retyped in look-alike characters is redacted.

The tool outputs' redaction (:class:`goosectx.redaction_fragments.WithPieces`) and an
attachment's bytes (:mod:`goosectx.redaction_bytes`): what the model, the store and the
transcript get.
"""

from __future__ import annotations

import base64
from pathlib import Path
from types import SimpleNamespace

import pytest

from goosectx.attachment import Attachment
from goosectx.extensions.model import Attachment as ExtensionAttachment
from goosectx.extensions.model import CallOutcome
from goosectx.extensions.tools import finish
from goosectx.parts import TextContent
from goosectx.redaction import Redactor
from goosectx.redaction_bytes import attachment_redacted, redacted_bytes
from goosectx.redaction_fragments import WithPieces

KEY = "sk-test-Zq8vN3kLm5Pw7Rt2Yx4Hb6Jd9Fg1"
LE = ("key=" + KEY).encode("utf-16-le")
BE = ("key=" + KEY).encode("utf-16-be")


def redact(text: str) -> str:
    return WithPieces(Redactor([KEY]))(text)


@pytest.mark.parametrize("shown", [
    LE.decode("latin-1"),  # cat
    BE.decode("latin-1"),
    LE.decode("latin-1").replace("\0", "\ufffd"),  # a decoder's or terminal's rendering
    LE.decode("latin-1").replace("\0", "^@"),  # cat -v
    repr(LE),  # Python's b'k\x00e\x00…'
    "  ".join(LE.decode("latin-1")).replace("\0", "\\0"),  # od -c
    BE.decode("latin-1").replace("\0", "\\u0000"),
], ids=["le", "be", "fffd", "cat-v", "repr", "od", "json"])
def test_a_key_with_a_nul_between_its_characters_is_redacted(shown: str) -> None:
    out = redact(f"before\n{shown}\nafter")
    assert "[REDACTED]" in out
    for piece in ("Zq8v", "Fg1", "Z\0q", "Z^@q", "Z\\x00q", "9\\0", "Z\ufffdq"):
        assert piece not in out
    assert out.startswith("before\n") and out.endswith("\nafter")


@pytest.mark.parametrize("written", [
    "".join(chr(ord(c) + 0xFEE0) for c in KEY),  # fullwidth ｓｋ－ｔｅｓｔ…
    "\u200b".join(KEY),
    "".join(c + "\u2060\ufeff" for c in KEY),
    "".join(c + "\u200c\u200d" for c in KEY),
    "".join(c + "\u0301" for c in KEY),  # a combining mark on each character
], ids=["fullwidth", "zwsp", "word-joiner-bom", "zwnj-zwj", "combining"])
def test_a_key_in_look_alike_characters_is_redacted(written: str) -> None:
    out = redact(f"token: {written} (end)")
    assert out == "token: [REDACTED] (end)"


@pytest.mark.parametrize("text", [
    "binary\0\0\0junk k\0e\0y\0=\0v\0a\0l\0u\0e\0 ok",  # UTF-16 of no secret
    "Café déjà vu, naïve façade — crème brûlée",
    "中文，标点：全角（ＡＢＣ１２３）",
])
def test_text_without_the_key_is_left_as_it_is(text: str) -> None:
    assert redact(text) == text


def test_an_attachment_holding_the_key_in_utf16_is_scrubbed() -> None:
    part = Attachment(kind="resource", source="bl:file:///y.bin",
                      media_type="application/octet-stream", data=b"\xff\xfe" + LE)
    clean = attachment_redacted(part, Redactor([KEY]))
    assert isinstance(clean, Attachment) and clean.data is not None
    assert clean.data.startswith(b"\xff\xfek\0e\0y\0=\0[REDACTED]")
    assert KEY.encode("utf-16-le")[4:20] not in clean.data
    assert redacted_bytes(b"\x00\x01raw:" + KEY.encode() + b"\xff", Redactor([KEY])) \
        == b"\x00\x01raw:[REDACTED]\xff"
    plain = b"\x89PNG no key here \0\0"
    assert redacted_bytes(plain, Redactor([KEY])) is plain


def test_an_image_holding_the_key_becomes_a_note() -> None:
    part = Attachment(kind="image", source="x.png", media_type="image/png",
                      data=b"\x89PNG\r\n\x1a\n" + LE)
    clean = attachment_redacted(part, Redactor([KEY]), "from the tool result")
    assert isinstance(clean, TextContent) and "removed from the tool result" in clean.text


def test_an_extension_blob_in_utf16_reaches_the_result_redacted(tmp_path: Path) -> None:
    ctx = SimpleNamespace(redact=WithPieces(Redactor([KEY])), max_output_chars=10_000,
                          overflow_dir=tmp_path, session_id="s")
    blob = ExtensionAttachment("resource", "bl:file:///y.bin", "application/octet-stream",
                               data=base64.b64decode(base64.b64encode(LE)))
    result = finish(CallOutcome("[resource]", False, (blob,)), ctx, "bl")  # type: ignore[arg-type]
    (part,) = result.attachments
    assert part.data == b"k\0e\0y\0=\0[REDACTED]"
