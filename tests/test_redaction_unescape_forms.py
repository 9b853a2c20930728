r"""A key written in the other escapes a model or a tool emits is redacted too.

Beyond ``\u0073``, ``\x73`` and ``\163`` (tests/test_redaction_unescape.py): a JSON string
inside a JSON string (a tool call's arguments, a log line) doubles each backslash
(``\\u0073``); ``json.dumps`` writes a non-ASCII character of a password as ``\u00e4`` and
one outside the BMP as a surrogate pair; JavaScript, Rust and Swift write ``\u{73}``,
Python and C ``\U00000073``; HTML writes ``&#x73;`` or ``&#115;``. Each was stored, exported
and shown whole. What is asserted is what the user reads: the redacted text, the stored
reply, the live deltas.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from goosectx.message import Message
from goosectx.parts import TextContent
from goosectx.redaction import REDACTED, Redactor
from goosectx.redaction_reply import redacted_reply

KEY = "sk-proj-Q7vX2mK9pL4nR8sT1wY6zA3bC5dE0fG7hJ2kL9mN4pQ8rS1t"
PASSWORD = "pässwört-Grüße-2024!🔑x"

FORMS: dict[str, Callable[[str], str]] = {
    "json in json": lambda s: "".join(f"\\\\u{ord(c):04x}" for c in s),  # \\u0073
    "\\U": lambda s: "".join(f"\\U{ord(c):08x}" for c in s),
    "\\u{}": lambda s: "".join(f"\\u{{{ord(c):x}}}" for c in s),
    "&#x;": lambda s: "".join(f"&#x{ord(c):x};" for c in s),
    "&#;": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "some &#;": lambda s: "".join(f"&#{ord(c)};" if i % 4 == 0 else c for i, c in enumerate(s)),
}


@pytest.mark.parametrize("form", FORMS)
def test_a_key_in_another_escape_form_is_redacted_and_the_text_around_kept(form: str) -> None:
    redact = Redactor([KEY])
    text = f'curl -H "Authorization: Bearer {FORMS[form](KEY)}" https://api.x.io &amp; done'
    assert redact(text) == f'curl -H "Authorization: Bearer {REDACTED}" https://api.x.io &amp; done'
    assert not redact.changes_none([text])
    stored = redacted_reply(Message("assistant", (TextContent(text),)), redact)
    assert KEY[8:20] not in repr(stored.content) and FORMS[form](KEY)[:40] not in stored.text


def test_a_password_json_dumps_escaped_non_ascii_and_emoji_is_redacted() -> None:
    redact = Redactor([PASSWORD])
    dumped = json.dumps({"password": PASSWORD})  # {"password": "p\u00e4ssw\u00f6rt-…\ud83d\udd11x"}
    assert "\\u00e4" in dumped and "\\ud83d\\udd11" in dumped
    assert redact(dumped) == json.dumps({"password": REDACTED})
    assert redact(json.dumps(json.dumps({"password": PASSWORD}))) == json.dumps(
        json.dumps({"password": REDACTED}))


def test_text_with_entities_and_escapes_that_hold_no_key_is_left_as_it_is() -> None:
    redact = Redactor([KEY, PASSWORD])
    text = ("Tom &amp; Jerry &#169; 2024 &#x2014; \\u00e9t\\u00e9 \\U0001F600 \\u{1F600} "
            "\\\\n \\\\u0041 &#" + KEY[:7] + " &#x;")
    assert redact(text) == text
    assert redact.changes_none([text])


def test_a_key_in_entities_is_not_streamed_in_part() -> None:
    from test_stream_secret_tail import _stream_items

    from goosectx.providers.base import TextDelta

    written = FORMS["&#x;"](KEY)
    items = [TextDelta("the key: "), *(TextDelta(written[i:i + 7])
                                       for i in range(0, len(written), 7)),
             TextDelta(" — keep it.")]
    shown = _stream_items(items, KEY)
    assert "".join(shown) == f"the key: {REDACTED} — keep it."
