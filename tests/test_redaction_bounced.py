"""A key bounced between the reasoning and the answer in pieces too short to say anything alone.

A model may write a key in pieces under 13 characters, one in its reasoning, the next in its
answer, and so on: neither part ever holds 13 of its characters side by side while it streams,
and no join of two neighbouring deltas holds it whole. Read in the order they arrived, the
pieces are the key: the live deltas hold and redact each piece that goes on a key's start
(however many times the stream switches part), and the stored reply has each part's pieces
redacted (what a user reads in ``sessions show`` and the exports).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_stream_secret_tail import _stream_items

from goosectx.providers.base import StreamItem, TextDelta, ThinkingDelta

KEY = "sk-proj-Q7vX2mK9pL4sR6yH1zzTwqAbCdEfGh0123456789UvWxYzKlMnOp"


def _bounced(size: int, first: str = "reasoning") -> list[StreamItem]:
    """``I see`` then the key in ``size``-character pieces alternating between the parts."""
    kinds = [ThinkingDelta, TextDelta] if first == "reasoning" else [TextDelta, ThinkingDelta]
    items: list[StreamItem] = [kinds[0]("I see ")]
    for k, i in enumerate(range(0, len(KEY), size)):
        items.append(kinds[k % 2](KEY[i:i + size]))
    items += [TextDelta(" done."), ThinkingDelta(" ok")]
    return items


@pytest.mark.parametrize("size", [3, 5, 6, 8, 10, 12])
@pytest.mark.parametrize("first", ["reasoning", "answer"])
def test_a_key_bounced_in_short_pieces_shows_none_of_them_past_its_start_live(
        size: int, first: str) -> None:
    shown = _stream_items(_bounced(size, first), KEY)
    reasoning = "".join(d[2:] for d in shown if d.startswith("R:"))
    answer = "".join(d for d in shown if not d.startswith("R:"))
    # every piece after the key's first 12 characters: none of them shows, in either part
    for i in range(0, len(KEY), size):
        piece = KEY[i:i + size]
        if i >= 12:
            assert piece not in reasoning and piece not in answer, (piece, shown)
    assert "[REDACTED]" in reasoning and "[REDACTED]" in answer
    assert (reasoning if first == "reasoning" else answer).startswith("I see ")
    assert answer.endswith(" done.") and reasoning.endswith(" ok")


@pytest.mark.parametrize("size", [4, 6, 10])
def test_a_key_bounced_in_short_pieces_is_stored_redacted_in_both_parts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    from agent_harness import make_harness
    from test_stream_secret_tail import Items

    from goosectx.config import Settings
    from goosectx.parts import TextContent, ThinkingContent

    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"),
                     provider=Items(_bounced(size)))
    h.turn("hi")
    stored = [m for m in h.stored() if m.role == "assistant"][-1]
    texts = [p.text for p in stored.content if isinstance(p, TextContent | ThinkingContent)]
    for text in texts:  # (the parts hold every other piece: no run of the key's characters)
        assert not [KEY[i:i + size] for i in range(12, len(KEY), size)
                    if KEY[i:i + size] in text], text
    assert stored.text.endswith(" done.")


def test_a_word_bounced_between_the_parts_is_shown_as_it_is() -> None:
    items = [ThinkingDelta("so the answer is sk-pr"), TextDelta("oc"), ThinkingDelta("ess"),
             TextDelta(" it now."), ThinkingDelta(" fine")]
    shown = _stream_items(items, KEY)
    assert "".join(d[2:] for d in shown if d.startswith("R:")) == "so the answer is sk-press fine"
    assert "".join(d for d in shown if not d.startswith("R:")) == "oc it now."


def test_a_short_join_share_does_not_hide_the_start_of_a_parts_longer_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the answer's pieces join as "sk-proj-Q7vX2mK9" + "6yH1zzTwqA" + …: the join's share
    # "sk-proj-Q7vX2mK9" matched first and left "6yH1zzTwqA" standing (found by a fuzzer)
    from agent_harness import make_harness
    from test_stream_secret_tail import Items

    from goosectx.config import Settings
    from goosectx.parts import TextContent, ThinkingContent

    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    items: list[StreamItem] = [
        ThinkingDelta("I see "), TextDelta("sk"), TextDelta("-pr"), TextDelta(KEY[5:16]),
        ThinkingDelta(KEY[16:21]), TextDelta(KEY[21:31]), ThinkingDelta(KEY[31:42]),
        TextDelta(KEY[42:49]), TextDelta(KEY[49:]), TextDelta(" end.")]
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=Items(items))
    h.turn("hi")
    stored = [m for m in h.stored() if m.role == "assistant"][-1]
    texts = [p.text for p in stored.content if isinstance(p, TextContent | ThinkingContent)]
    assert texts == ["I see [REDACTED]", "[REDACTED] end."]
