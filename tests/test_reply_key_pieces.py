"""A key the model cuts into labelled pieces of 14 characters, or wraps over three lines,
showed whole (each piece shorter than the 16-character block looked for): every piece of 13+
of its characters is now redacted in the stored reply and live."""

from __future__ import annotations

import pytest

from goosectx.message import Message
from goosectx.parts import TextContent
from goosectx.redaction import Redactor
from goosectx.redaction_reply import redacted_reply

KEY = "sk-proj-Zq8vN3kT7pW2xR9mB4yL6hJ1cF5gD0sAeUiOtYrEwQ"
BODY = KEY.removeprefix("sk-proj-")


def _stored(text: str) -> str:
    message = Message("assistant", (TextContent(text),))
    return redacted_reply(message, Redactor([KEY])).text


@pytest.mark.parametrize("text", [
    f"a: {BODY[:14]} b: {BODY[14:28]} c: {BODY[28:]}",
    f"{KEY[:19]}\n{KEY[19:35]}\n{KEY[35:]}",
    f"first {BODY[:13]}, then {BODY[13:26]}; last {BODY[26:]}",
])
def test_each_piece_of_13_or_more_characters_is_redacted(text: str) -> None:
    shown = _stored(text)
    for size in (13, 14):
        assert not any(BODY[i:i + size] in shown for i in range(len(BODY) - size + 1)), shown
    assert "[REDACTED]" in shown


@pytest.mark.parametrize("text", [
    "the hash is 0f3c9a1b2d4e5f60718293a4b5c6d7e8f9012345 and the uuid "
    "123e4567-e89b-12d3-a456-426614174000",
    "internationalization and counterrevolutionaries, src/goosectx/redaction_fragments.py",
    "sk-proj- is the prefix; Zq8vN3kT7pW is eleven of its characters",
])
def test_ordinary_text_and_pieces_under_12_characters_stay(text: str) -> None:
    assert _stored(text) == text


def test_the_pieces_are_redacted_live_as_they_stream() -> None:
    from test_stream_secret_tail import _stream_items

    from goosectx.providers.base import TextDelta

    text = f"a: {BODY[:14]} b: {BODY[14:28]} c: {BODY[28:]} done"
    shown = "".join(_stream_items([TextDelta(text[i:i + 5]) for i in range(0, len(text), 5)],
                                  KEY))
    assert not any(BODY[i:i + 13] in shown for i in range(len(BODY) - 12)), shown
    assert shown.startswith("a: ") and shown.endswith(" done")
