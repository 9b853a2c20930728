r"""A key written partly as backslash escapes and spread over much whitespace is redacted.

The redactor reads a text with a backslash again decoded, but its quick check looked only at
the reading's characters within twice a form's length of each escape: a key with one
character escaped (``\x5a``) and more whitespace inside than that (a long line of spaces, a
wrapped block indented deep) passed the check whole, stored, exported and shown. The check's
reach around an escape now counts the characters that are not whitespace.
"""

from __future__ import annotations

import pytest

from goosectx.message import Message
from goosectx.parts import TextContent
from goosectx.redaction import REDACTED, Redactor
from goosectx.redaction_reply import redacted_reply

KEY = "Zq8XvB3nKp2LmT7wRy4HsJd9FgA1cE6u"  # (no vendor prefix: its core is the key)


@pytest.mark.parametrize("spaces", [40, 100, 300, 5000])
@pytest.mark.parametrize("where", [1, 16, 31])
def test_a_key_with_an_escape_and_much_whitespace_inside_is_redacted(
        spaces: int, where: int) -> None:
    redact = Redactor([KEY])
    escaped = KEY[:where] + f"\\x{ord(KEY[where]):02x}" + KEY[where + 1:]
    cut = 3 if where > 3 else len(escaped) - 3  # the whitespace away from the escape
    spread = escaped[:cut] + " " * spaces + escaped[cut:]
    text = f"key: {spread} end"
    assert redact(text) == f"key: {REDACTED} end"
    assert not redact.changes_none([text])
    stored = redacted_reply(Message("assistant", (TextContent(text),)), redact)
    assert stored.text == f"key: {REDACTED} end"


def test_a_key_escaped_throughout_and_spread_over_lines_is_redacted() -> None:
    redact = Redactor([KEY])
    escaped = (" " * 60 + "\n").join(
        "".join(f"\\u{ord(c):04x}" for c in KEY[i:i + 4]) for i in range(0, len(KEY), 4))
    assert redact(f"it is:\n{escaped}\nok") == f"it is:\n{REDACTED}\n" + "\n" * 7 + "ok"


def test_escapes_far_from_a_spread_text_that_is_no_key_leave_it_as_it_is() -> None:
    redact = Redactor([KEY])
    text = "path \\x41 then " + " " * 500 + KEY[:20] + " and " + "\t" * 300 + KEY[21:]
    assert redact(text) == text
