"""A key written as UTF-16 text read as bytes is held back while it streams, however long.

test29b: a reply holding ``json.dumps`` of the key's UTF-16 bytes — ``s\\u0000k\\u0000-…`` in
one word of ~330 characters — showed the whole key on the terminal: a word over
:data:`goosectx.secret_tail.WORD_LIMIT` is passed on as it streams, and the tail check did not
read the NULs between its characters, though the stored reply was redacted. The tail that
could start such a form is held as a key's plain start is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_stream_secret_tail import KEY, _deltas, _turn

from goosectx.providers.base import TextDelta
from goosectx.secret_tail import WORD_LIMIT


def _spread(escaped: bool) -> str:
    raw = KEY.encode("utf-16-le").decode("latin-1")
    return json.dumps(raw)[1:-1] if escaped else raw


@pytest.mark.parametrize("escaped", [True, False], ids=["json-escaped", "raw-nul"])
@pytest.mark.parametrize("size", [1, 4, 9])
def test_a_long_utf16_word_never_shows_the_key_while_it_streams(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, escaped: bool, size: int) -> None:
    word = "x" * (WORD_LIMIT + 40) + _spread(escaped) + "y" * 30  # one word, over the limit
    text = f"the bytes: {word} end.\nmore?"
    chunks = [text[i:i + size] for i in range(0, len(text), size)]
    out, events, stored = _turn(tmp_path, monkeypatch, [TextDelta(c) for c in chunks])
    assert "[REDACTED]" in stored
    shown = "".join(_deltas(events)).replace("\\u0000", "").replace("\x00", "")
    assert KEY[:12] not in shown and KEY[-12:] not in shown, shown[-200:]
    assert shown.startswith("the bytes: xxxx")  # the long word's start still streamed
