"""What a cancel keeps of a streamed answer is redacted as the finished answer would be.

Text, reasoning, then text streams as one reasoning part and one text part: a key whose start
ended the first text and whose rest began the reasoning is no longer side by side in them.
The finished reply has the pieces the live stream found across that join redacted wherever
they lie (``stream_reply._without_shares``); the message a Ctrl-C kept did not, so a key
split into two pieces under 13 characters each (too short to be caught alone) was stored,
and exported, whole though the stream showed it ``[REDACTED]``.
"""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest
from agent_harness import make_harness
from rich.console import Console
from store_support import assert_not_in_sessions_db
from test_stream_secret_tail import Items

from goosectx.cli.render import TranscriptRenderer
from goosectx.config import Settings
from goosectx.events import Event, MessageDelta
from goosectx.export import session_to_json_text
from goosectx.export_markdown import transcript_markdown
from goosectx.providers.base import TextDelta, ThinkingDelta

KEY = "Q7vX2mK9pL4sR6yH1zTwqAbC"  # 24 characters: each half alone is too short to catch


@pytest.mark.parametrize("how", ["ctrl-c in the stream", "the turn's cancel"])
def test_a_key_split_by_reasoning_is_kept_redacted_when_the_answer_is_cancelled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    items = [TextDelta("the key is " + KEY[:12]), ThinkingDelta(KEY[12:] + " hmm."),
             TextDelta(" Done and"), TextDelta(" then more."), TextDelta(" Unseen.")]
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"),
                     provider=Items(items, 4 if how == "ctrl-c in the stream" else None))
    buf = io.StringIO()
    renderer = TranscriptRenderer(Console(file=buf, width=100, no_color=True), plain=True)
    cancel = threading.Event()

    def on_event(event: Event) -> None:
        renderer.handle(event)
        if how == "the turn's cancel" and isinstance(event, MessageDelta) \
                and "Done" in event.text:
            cancel.set()

    h.turn("hi", on_event=on_event, cancel=cancel)
    renderer.settle()
    shown = buf.getvalue()
    assert "the key is [REDACTED]" in shown and KEY[:12] not in shown  # as the stream showed it
    kept = [m for m in h.stored() if m.role == "assistant"][-1]
    assert kept.metadata.cancelled and "Unseen" not in kept.text
    assert kept.text.startswith("the key is [REDACTED] Done and")
    session = h.store.load(h.session.id)
    for text in (repr(kept.content), transcript_markdown(session),
                 session_to_json_text(session)):
        assert KEY[:12] not in text and KEY[12:] not in text, text
        assert "hmm." in text
    assert_not_in_sessions_db(KEY[12:], tmp_path / "data")
    assert_not_in_sessions_db(KEY[:12], tmp_path / "data")


@pytest.mark.parametrize("cut", [12, 14, 20])
def test_the_finished_answer_is_redacted_so_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               cut: int) -> None:
    # cut 14: the stored reasoning kept the key's last 10 characters as they were, though the
    # stream showed them [REDACTED] (10 of a 24-character key are a real piece); cut 20: its
    # last 4 say too little, and redacted wherever they are they would hide ordinary words
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    items = [TextDelta("the key is " + KEY[:cut]), ThinkingDelta(KEY[cut:] + " hmm."),
             TextDelta(" Done.")]
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=Items(items))
    h.turn("hi")
    reply = [m for m in h.stored() if m.role == "assistant"][-1]
    assert reply.text == "the key is [REDACTED] Done."
    reasoning = repr(reply.content)
    assert "hmm." in reasoning
    assert (KEY[cut:] not in reasoning) == (len(KEY) - cut >= 8), reasoning
