"""A key written base64 and wrapped over lines never reaches the screen, not even a line of it.

``printf %s "$KEY" | base64 -w20`` gives three lines; the model writing them in a reply used
to have them all shown as they streamed (stored ``[REDACTED]``): once the key's base64 was
whole, the hold-back let the text go up to its last whitespace, a line break inside the
block, and each piece, redacted alone, held no whole key. Asserted: what ``goosectx run``
prints, what each streamed delta shows, and what the redactor stores.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from cli_support import cli
from fakeserver import FakeServer

from goosectx.compaction.figures import RequestContext
from goosectx.conversation import Conversation, Message, TextContent
from goosectx.events import MessageDelta
from goosectx.providers.base import ProviderResponse, StreamItem, TextDelta
from goosectx.providers.scripted import ScriptedProvider
from goosectx.redaction import REDACTED, Redactor
from goosectx.redaction_reply import redacted_reply
from goosectx.stream_reply import stream_reply

TESTER_KEY = "sk-proj-Zq8XvB3nKp2LmT7wRy4HsJd9FgA1cE6u"
KEY_40 = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
KEY_164 = "sk-proj-" + "".join("Qw7eRt2yUi9oPa4sDf6gHj1kLz8xCv3bNm5" [i % 35] for i in range(156))
WIDTHS = (8, 12, 16, 20, 24, 28, 32, 40, 52, 64, 76)


def wrapped(key: str, width: int, *, url: bool = False) -> list[str]:
    """``base64 -wWIDTH`` of ``key`` (``basenc --base64url`` with ``url``): its lines."""
    data = key.encode()
    text = (base64.urlsafe_b64encode(data) if url else base64.b64encode(data)).decode()
    return [text[i:i + width] for i in range(0, len(text), width)]


class _Chunks(ScriptedProvider):
    def __init__(self, text: str, chunk_chars: int) -> None:
        super().__init__()
        self.text, self.chunk_chars = text, chunk_chars

    def stream(self, system: str, messages: Sequence[Message], tools: Sequence[Any],
               **_: Any) -> Iterator[StreamItem]:
        for i in range(0, len(self.text), self.chunk_chars):
            yield TextDelta(self.text[i:i + self.chunk_chars])
        yield ProviderResponse(Message("assistant", (TextContent(self.text),)), None, "m", "stop")


def shown_and_stored(key: str, text: str, chunk_chars: int) -> tuple[list[str], str]:
    """(each delta streamed with ``key`` a secret, the answer as stored)."""
    redact = Redactor([key])
    events = stream_reply(_Chunks(text, chunk_chars), RequestContext("s", ()),  # type: ignore[call-arg]
                          Conversation(), [], threading.Event(), redact=redact)
    deltas = []
    while True:
        try:
            event = next(events)
        except StopIteration as stop:
            final = stop.value
            break
        if isinstance(event, MessageDelta):
            deltas.append(event.text)
    return deltas, redacted_reply(final.message, redact).text


def test_goosectx_run_prints_no_line_of_a_key_wrapped_at_20_columns(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", TESTER_KEY)
    lines = wrapped(TESTER_KEY, 20)
    fake_model.default_reply = {"text": "here: " + "\n".join(lines) + " END"}
    out, _ = cli(capsys, "run", "-t", "hi")
    assert [line for line in lines if line in out] == []
    assert "here: [REDACTED]" in out and "END" in out


@pytest.mark.parametrize("key", [TESTER_KEY, KEY_40, KEY_164], ids=["tester", "40", "164"])
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("around", [("here: ", " END"), ("KEY=", ". ok"), ("", "")],
                         ids=["words", "punctuation", "alone"])
def test_no_line_of_a_wrapped_key_is_streamed_and_the_screen_matches_the_store(
        key: str, width: int, around: tuple[str, str]) -> None:
    for url in (False, True):
        lines = wrapped(key, width, url=url)
        text = around[0] + "\n".join(lines) + around[1]
        for chunk_chars in (1, 8, 13):
            deltas, stored = shown_and_stored(key, text, chunk_chars)
            shown = "".join(deltas)
            assert [line for line in lines if line in shown] == [], (url, chunk_chars)
            assert [line for line in lines if line in stored] == [], (url, chunk_chars)
            assert REDACTED in shown and shown.replace("\n", "") == stored.replace("\n", "")
            assert shown.endswith(around[1])


@pytest.mark.parametrize("form", [TESTER_KEY, TESTER_KEY[::-1],
                                  TESTER_KEY.replace("-", "%2D")],
                         ids=["plain", "reversed", "percent-encoded"])
@pytest.mark.parametrize("chunk_chars", [1, 3, 8])
def test_a_key_broken_over_two_lines_and_followed_by_a_full_stop_is_not_shown_in_part(
        form: str, chunk_chars: int) -> None:
    text = f"the key: {form[:14]}\n{form[14:]}. Keep it."
    deltas, stored = shown_and_stored(TESTER_KEY, text, chunk_chars)
    assert "".join(deltas) == "the key: [REDACTED]\n. Keep it."
    assert stored == "the key: [REDACTED]\n. Keep it."


def test_words_beside_a_wrapped_block_stay() -> None:
    lines = wrapped(TESTER_KEY, 8)
    redact = Redactor([TESTER_KEY])
    text = "the key is\n" + "\n".join(lines) + "\nok, done=\nthat is all"
    assert redact(text) == "the key is\n" + REDACTED + "\n" * (len(lines) - 1) + \
        "\nok, done=\nthat is all"
    unwrapped = "ab12\n" + "".join(lines) + "\nab=="  # one line, padded: nothing beside it
    assert redact(unwrapped) == f"ab12\n{REDACTED}\nab=="
