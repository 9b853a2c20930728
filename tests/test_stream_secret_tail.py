"""A key of this environment streamed by the model never reaches the screen, even in part.

The live answer is redacted as the stored one is (README, "Security"), and text is held back
while it could still become a key: a key split by whitespace (the Redactor matches it
squeezed), a key cut by Ctrl-C, by a reasoning block or by the end of the reply. What is
asserted is what the plain look wrote to the terminal (every character it was given, as it
was given) and what the session and the draft of the answer hold.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from agent_harness import make_harness
from rich.console import Console

from goosectx.answer_draft import AnswerDraft
from goosectx.cli.render import TranscriptRenderer
from goosectx.config import Settings
from goosectx.conversation import Message, TextContent, ThinkingContent
from goosectx.events import Event, MessageDelta, ReasoningDelta
from goosectx.providers.base import (
    ProviderResponse,
    StreamItem,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from goosectx.providers.scripted import ScriptedProvider

KEY = "sk-proj-Q7vX2mK9pL4sR6yH1zzTwq"


class Items(ScriptedProvider):
    """Streams the given items, then a reply of the text and reasoning they held.

    ``interrupt_after``: raise KeyboardInterrupt (Ctrl-C landing in the stream) after that
    many items.
    """

    def __init__(self, items: Sequence[StreamItem], interrupt_after: int | None = None) -> None:
        super().__init__()
        self.items = list(items)
        self.interrupt_after = interrupt_after

    def stream(self, system: str, messages: Sequence[Message], tools: Sequence[Any], *,
               max_tokens: int | None = None, tool_choice: str | None = None,
               cancel: threading.Event | None = None, retries: int | None = None
               ) -> Iterator[StreamItem]:
        for i, item in enumerate(self.items):
            if i == self.interrupt_after:
                raise KeyboardInterrupt
            if cancel is not None and cancel.is_set():  # (the REPL's Ctrl-C: the stream ends)
                break
            yield item
        text = "".join(i.text for i in self.items if isinstance(i, TextDelta))
        thinking = "".join(i.text for i in self.items if isinstance(i, ThinkingDelta))
        parts = ((ThinkingContent(thinking),) if thinking else ()) + (TextContent(text),)
        yield ProviderResponse(Message("assistant", parts), None, self.model, "stop")


def _turn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, items: Sequence[StreamItem],
          interrupt_after: int | None = None, cancel_at: str | None = None
          ) -> tuple[str, list[Event], str]:
    """(what the plain look wrote, the turn's events, the answer stored).

    ``cancel_at``: set the turn's cancel event (the REPL's Ctrl-C) once a delta shown ends
    with it.
    """
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"),
                     provider=Items(items, interrupt_after))
    buf = io.StringIO()
    renderer = TranscriptRenderer(Console(file=buf, width=100, no_color=True), plain=True)
    cancel = threading.Event()

    def on_event(event: Event) -> None:
        renderer.handle(event)
        if cancel_at and isinstance(event, MessageDelta) and event.text.endswith(cancel_at):
            cancel.set()

    events = h.turn("hi", on_event=on_event, cancel=cancel)
    renderer.settle()
    answer = [m for m in h.stored() if m.role == "assistant"][-1]
    return buf.getvalue().removeprefix("> hi\n"), events, answer.text


def _deltas(events: list[Event]) -> list[str]:
    return [e.text for e in events if isinstance(e, MessageDelta | ReasoningDelta)]


@pytest.mark.parametrize("space", [" ", "\n", "  \n "])
def test_a_key_split_by_whitespace_is_shown_and_drafted_neither_whole_nor_in_part(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, space: str) -> None:
    split = KEY[:12] + space + KEY[12:]
    chunks = ["your key is ", split[:14], split[14:20], split[20:], " keep it."]
    out, events, stored = _turn(tmp_path, monkeypatch, [TextDelta(c) for c in chunks])
    lines = "\n" * space.count("\n")  # (as many lines as it took: the Redactor's way)
    assert out == f"your key is [REDACTED]{lines} keep it.\n"
    assert stored == f"your key is [REDACTED]{lines} keep it."
    for shown in _deltas(events):
        assert KEY[:8] not in shown and KEY[-8:] not in shown
    now = [0.0]

    def clock() -> float:
        now[0] += 1.0  # every delta is due to be saved
        return now[0]

    draft = AnswerDraft(clock)
    for shown in _deltas(events):
        draft.add(shown)
        assert KEY[:8] not in draft.message(lambda t: t).text


def test_plain_text_still_appears_word_by_word(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    words = "so the plan is simple: write tests, skip nothing, ship it. ".split(" ")
    items = [TextDelta(w + " ") for w in words]
    _out, events, _ = _turn(tmp_path, monkeypatch, items)
    deltas = _deltas(events)
    assert deltas[:3] == ["so ", "the ", "plan "]  # each word as it comes
    assert all(d.endswith(" ") for d in deltas)  # whole words only ("is" may wait for
    assert len(deltas) >= len(words) - 3  # the next: "s" could start the key, "i s k-…")


def test_a_word_cut_by_ctrl_c_is_shown_redacted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [TextDelta("the key is "), TextDelta(KEY), TextDelta(" and the wor"),
             TextDelta("d is")]
    out, _events, stored = _turn(tmp_path, monkeypatch, items, interrupt_after=3)
    assert out.startswith("the key is [REDACTED] and the wor\n")
    assert "cancelled" in out
    assert stored.startswith("the key is [REDACTED] and the wor")


def test_a_key_cut_by_ctrl_c_is_shown_and_stored_redacted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [TextDelta("the key is "), TextDelta(KEY[:14]), TextDelta(KEY[14:20])]
    out, _events, stored = _turn(tmp_path, monkeypatch, items, interrupt_after=3)
    assert out.startswith("the key is [REDACTED]\n")
    assert KEY[:8] not in out
    assert stored == "the key is [REDACTED]"  # the start of a key is kept no more than shown


def test_text_then_reasoning_then_text_keeps_each_parts_words_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [TextDelta("Let me che"), TextDelta("ck"), ThinkingDelta("the user wants "),
             ThinkingDelta("a che"), ThinkingDelta("ck"), TextDelta("Done: all fi"),
             TextDelta("ne.")]
    out, events, _ = _turn(tmp_path, monkeypatch, items)
    deltas = [(type(e).__name__, e.text) for e in events
              if isinstance(e, MessageDelta | ReasoningDelta)]
    assert "".join(t for k, t in deltas if k == "MessageDelta") == "Let me checkDone: all fine."
    first_reasoning = next(i for i, (k, _) in enumerate(deltas) if k == "ReasoningDelta")
    assert "".join(t for _, t in deltas[:first_reasoning]) == "Let me check"
    assert out.index("Let me check") < out.index("the user wants a check") < out.index(
        "Done: all fine.")


def test_a_long_word_is_released_as_it_streams_the_hold_back_bounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blob = "".join(chr(ord("a") + i % 26) for i in range(20_000))  # no whitespace at all
    items = [TextDelta(blob[i:i + 10]) for i in range(0, len(blob), 10)]
    _out, events, stored = _turn(tmp_path, monkeypatch, items)
    sizes = [len(e.text) for e in events if isinstance(e, MessageDelta)]
    assert sum(sizes) == len(blob) and stored == blob
    assert len(sizes) > len(items) * 0.9  # once it is long, as it streams
    assert sum(sizes[:-1]) >= len(blob) - 300  # nothing held but its first 256 characters


def test_the_progress_text_of_a_streaming_tool_call_is_redacted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("goosectx.stream_reply.WRITING_INTERVAL_S", 0.0)
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    items = [ToolCallDelta(f"x{KEY}", n) for n in (10, 20, 30)]
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=Items(items))
    said: list[str] = []
    h.agent.writing = said.append
    h.turn("hi")
    assert said and all(KEY[:8] not in s for s in said)
    assert "writing tool call x[REDACTED]" in said[-1]


def _streamed(chunks: Sequence[str], secrets: Sequence[str] = (KEY,)) -> list[str]:
    """The answer deltas ``stream_reply`` passes on for ``chunks``, redacted for ``secrets``."""
    from goosectx.compaction.figures import RequestContext
    from goosectx.conversation import Conversation
    from goosectx.redaction import Redactor
    from goosectx.stream_reply import stream_reply

    provider = Items([TextDelta(c) for c in chunks])
    request = RequestContext("system", ())  # type: ignore[call-arg]
    events = stream_reply(provider, request, Conversation(), [], threading.Event(),
                          redact=Redactor(secrets))
    shown = []
    while True:
        try:
            event = next(events)
        except StopIteration:
            return shown
        if isinstance(event, MessageDelta):
            shown.append(event.text)


def _pieces(text: str, size: int = 3) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("form", [
    "sk%2Dproj%2DQ7vX 2mK9pL4sR6yH1zzTwq",  # percent-encoded (a URL's query), then split
    "sk-proj-Q7vX2mK%\n39pL4sR6yH1zzTwq",  # an escape cut by a newline: %9 is "9"
    KEY.encode().hex()[:20] + "\n" + KEY.encode().hex()[20:],  # hex, folded
    KEY[::-1][:10] + " " + KEY[::-1][10:],  # reversed, split
])
def test_a_key_in_another_form_split_by_whitespace_never_shows_its_start(form: str) -> None:
    from goosectx.redaction import Redactor

    text = f"see https://x.io/?k={form} for it"
    shown = _streamed(_pieces(text))
    assert "".join(shown) == Redactor([KEY])(text)
    assert "[REDACTED]" in "".join(shown)
    starts = {form.split()[0][:8], form.split()[0][:10]}
    assert not any(s in d for d in shown for s in starts)


def test_a_draft_saved_between_the_pieces_of_a_split_key_holds_none_of_it() -> None:
    from goosectx.redaction import Redactor

    now = [0.0]

    def clock() -> float:
        now[0] += 1.0
        return now[0]

    draft = AnswerDraft(clock)
    saves = []
    for piece in ("your key: ", KEY[:12], " ", KEY[12:20], "\n", KEY[20:], " ok", " done"):
        draft.add(piece)  # (as a stream passes them on unredacted)
        saves.append(draft.message(Redactor([KEY])).text)
    assert all(KEY[:8] not in s for s in saves)
    assert saves[-1] == "your key: [REDACTED]\n ok "


def test_an_ordinary_long_answer_is_held_back_a_word_at_most() -> None:
    words = ("the quick brown fox jumps over the lazy dog while "
             "nine men fight over a cake\n").split(" ") * 200
    text = " ".join(words)
    shown = _streamed(_pieces(text, 5))
    assert "".join(shown) == text
    passed = 0
    for d in shown[:-1]:
        passed += len(d)
    assert len(shown) > len(text) // 15  # a word or two at a time, not in lumps


def test_a_key_start_cut_by_a_reasoning_block_is_shown_redacted_the_text_around_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [TextDelta("the key is "), TextDelta(KEY[:16]), ThinkingDelta("wait, no"),
             TextDelta("I will not print it.")]
    out, _events, _ = _turn(tmp_path, monkeypatch, items)
    assert out.index("the key is [REDACTED]\n") < out.index("wait, no") < out.index(
        "I will not print it.")
    assert KEY[:10] not in out


def test_a_reply_ending_in_a_common_start_of_a_secret_is_left_as_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://app:Xk29vLq8@db/prod")
    items = [TextDelta("keys look like sk-proj-"), TextDelta(" and we run postgres")]
    out, _events, stored = _turn(tmp_path, monkeypatch, items)
    assert out == "keys look like sk-proj- and we run postgres\n"
    assert stored == "keys look like sk-proj- and we run postgres"


def test_a_word_cut_by_the_repls_ctrl_c_is_shown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [TextDelta("the key is "), TextDelta(KEY + " "), TextDelta("and the wor"),
             TextDelta("d is")]
    out, _events, stored = _turn(tmp_path, monkeypatch, items, cancel_at="and the ")
    assert out.startswith("the key is [REDACTED] and the wor\n")
    assert stored.startswith("the key is [REDACTED] and the wor")


def test_an_extension_secret_split_by_whitespace_is_held_back_too(
        tmp_path: Path, work: Path) -> None:
    from goosectx.approval import deny_all
    from goosectx.extensions.config import ExtensionConfig
    from goosectx.extensions.manager import ExtensionManager
    from goosectx.runtime import build_agent
    from goosectx.store import SessionStore

    header = "hdr-Q7vX2mK9pL4sR6yH1zz"
    store = SessionStore(tmp_path / "data")
    try:
        manager = ExtensionManager([ExtensionConfig(
            name="demo", cmd="demo-server", headers={"X-Auth": header})], work)
        agent = build_agent(Settings(data_dir=tmp_path / "data"), store.create_session(work),
                            approve=deny_all, extensions=manager)
        chunks = ["the header: ", header[:10], "\n", header[10:], " done"]
        agent.provider = Items([TextDelta(c) for c in chunks])
        shown = [e.text for e in agent.reply("hi") if isinstance(e, MessageDelta)]
    finally:
        store.close()
    assert "".join(shown) == "the header: [REDACTED]\n done"
    assert not any(header[:8] in d for d in shown)


def test_a_long_word_with_secret_like_pieces_in_it_lags_a_few_characters_at_most() -> None:
    blob = ("sk" + "abcdefgh" * 3) * 400  # "sk", the key's start, over and over: no space
    shown = _streamed(_pieces(blob, 4))
    assert "".join(shown) == blob
    sizes = [len(d) for d in shown]
    assert len(sizes) > len(blob) // 4 * 0.8  # as it streams, past the first 256
    assert sum(sizes[:-1]) >= len(blob) - 8  # held back: "sk…" only while it may be the key


@pytest.mark.parametrize("cut", [4, 10, 16, 24])
def test_a_key_split_by_a_reasoning_block_never_shows_its_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cut: int) -> None:
    # its start is shown as a key cut short is (redacted from 12 characters on); the rest
    # is joined to it, so the key's end is redacted with the key, not shown as new text
    items = [TextDelta("the key is "), TextDelta(KEY[:cut]), ThinkingDelta("hmm, "),
             ThinkingDelta("no"), TextDelta(KEY[cut:] + " ok, it was"), TextDelta(" said.")]
    out, events, stored = _turn(tmp_path, monkeypatch, items)
    assert stored == "the key is [REDACTED] ok, it was said."
    assert out.index("the key is") < out.index("hmm, no") < out.index("ok, it was said.")
    for shown in (out, *_deltas(events)):
        assert KEY[-8:] not in shown and KEY[cut:][:8] not in shown, shown
    assert "[REDACTED]" in out


def test_a_word_split_by_a_reasoning_block_is_shown_once() -> None:
    items = [TextDelta("Hello wor"), ThinkingDelta("think "), TextDelta("ld, I am"),
             TextDelta(" here.")]
    shown = "".join(d for d in _stream_items(items, KEY) if not d.startswith("R:"))
    assert shown == "Hello world, I am here."


def _stream_items(items: Sequence[StreamItem], secret: str) -> list[str]:
    from goosectx.compaction.figures import RequestContext
    from goosectx.conversation import Conversation
    from goosectx.redaction import Redactor
    from goosectx.stream_reply import stream_reply

    events = stream_reply(Items(items), RequestContext("s", ()),  # type: ignore[call-arg]
                          Conversation(), [], threading.Event(), redact=Redactor([secret]))
    out = []
    try:
        while True:
            event = next(events)
            if isinstance(event, ReasoningDelta):
                out.append("R:" + event.text)
            elif isinstance(event, MessageDelta):
                out.append(event.text)
    except StopIteration:
        return out


def test_a_key_in_reasoning_split_by_answer_text_never_shows_its_end() -> None:
    items = [ThinkingDelta("the key is " + KEY[:10]), TextDelta("Checking. "),
             ThinkingDelta(KEY[10:] + " so"), ThinkingDelta(" no."), TextDelta("Done.")]
    shown = _stream_items(items, KEY)
    reasoning = "".join(d[2:] for d in shown if d.startswith("R:"))
    assert KEY[-8:] not in "".join(shown) and "[REDACTED]" in reasoning
    assert reasoning.endswith(" so no.")
    assert "".join(d for d in shown if not d.startswith("R:")) == "Checking. Done."
