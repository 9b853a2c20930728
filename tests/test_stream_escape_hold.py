r"""An ``&`` or a backslash followed by whitespace is not held back as an escape's start.

The live answer holds a tail that could still become a key written as escapes
(:mod:`goosectx.secret_tail`): ``\u00`` or ``&#x7`` at a delta's end waits for what follows.
An escape has no whitespace inside (the redactor decodes none that does), so ``Tom & `` and
``a \ `` are shown as they come, as before ``&#x73;`` was read: the answer is not held back
more for ordinary text.
"""

from __future__ import annotations

from test_stream_secret_tail import _stream_items

from goosectx.providers.base import TextDelta

KEY = "sk-proj-Q7vX2mK9pL4nR8sT1wY6zA3bC5dE0fG7hJ2kL9mN4pQ8rS1t"


def test_an_ampersand_then_a_space_is_shown_with_its_delta() -> None:
    shown = _stream_items([TextDelta("Tom & "), TextDelta("Jerry ran. "), TextDelta("R&D ")],
                          KEY)
    assert shown[0] == "Tom & "
    assert "".join(shown) == "Tom & Jerry ran. R&D "


def test_an_entity_still_arriving_is_held_until_it_ends() -> None:
    written = "".join(f"&#x{ord(c):x};" for c in KEY)
    shown = _stream_items([TextDelta("key: " + written[:9]), TextDelta(written[9:] + " ok")],
                          KEY)
    assert "".join(shown) == "key: [REDACTED] ok"
