"""A key written as a list of its characters or bytes is held back while it streams.

A finished answer's ``['s', 'k', '-', …]`` or ``0x73, 0x6b, …`` is redacted (the list read
joined: :mod:`goosectx.redaction_separated`); live, the answer is passed on word by word, and
each item of such a list is a word: the terminal showed the key a character at a time before
the whole reply was redacted. The tail that could be the start of a listed key is held back,
as a key's plain start is (:mod:`goosectx.secret_tail`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_stream_secret_tail import KEY, _deltas, _turn

from goosectx.providers.base import TextDelta


def _listed(form: str) -> str:
    if form == "quoted":
        return "[" + ", ".join(f"'{c}'" for c in KEY) + "]"
    if form == "json":
        return "[" + ",".join(f'"{c}"' for c in KEY) + "]"
    return "{" + ", ".join(f"0x{b:02x}" for b in KEY.encode()) + "}"


@pytest.mark.parametrize("form", ["quoted", "json", "bytes"])
@pytest.mark.parametrize("size", [1, 3, 7])
def test_a_listed_key_never_shows_a_character_of_it_while_it_streams(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str, size: int) -> None:
    text = f"here it is: {_listed(form)} as asked.\nanything else?"
    chunks = [text[i:i + size] for i in range(0, len(text), size)]
    out, events, stored = _turn(tmp_path, monkeypatch, [TextDelta(c) for c in chunks])
    assert out == stored + "\n", out  # the terminal shows what the session holds
    assert stored.startswith("here it is: ") and stored.endswith(" as asked.\nanything else?")
    assert "[REDACTED]" in stored and "'Q'" not in stored and "0x51" not in stored
    shown = "".join(_deltas(events))
    for ch in ("'s'", '"s"', "0x73", "'Q'", "0x51"):  # the key's first, its ninth character
        assert ch not in shown, shown


def test_an_ordinary_list_of_characters_still_streams(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "the vowels: ['a', 'e', 'i', 'o', 'u'] and bytes 0x00, 0x01, 0x02 done. "
    chunks = [text[i:i + 4] for i in range(0, len(text), 4)]
    out, events, _ = _turn(tmp_path, monkeypatch, [TextDelta(c) for c in chunks])
    assert out == text + "\n"
    assert len(_deltas(events)) > 10  # word by word, not held to the end


@pytest.mark.parametrize("form", ["quoted", "bytes"])
def test_a_listed_key_cut_by_ctrl_c_shows_none_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str) -> None:
    text = f"here it is: {_listed(form)} as asked."
    chunks = [text[i:i + 5] for i in range(0, len(text), 5)]
    out, events, stored = _turn(tmp_path, monkeypatch, [TextDelta(c) for c in chunks],
                                interrupt_after=len(chunks) // 2)
    shown = "".join(_deltas(events))
    for ch in ("'s'", "0x73", "'Q'", "0x51"):
        assert ch not in shown and ch not in out and ch not in stored, (out, stored)
