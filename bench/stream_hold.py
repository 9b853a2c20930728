"""Per-chunk cost of the live answer's secret hold-back: constant, whatever the answer's length.

A streamed answer is redacted as it is shown (:mod:`goosectx.stream_reply`), held back from
its last whitespace and from any tail that could still become a secret
(:mod:`goosectx.secret_tail`). Here 4-character chunks of an answer go through
``stream_reply`` with a :class:`~goosectx.redaction.Redactor` of three 40-character keys, for
an answer of N and of 10 N chunks; the same-run baselines are no redactor at all and the
Redactor without its ``secrets`` (the word-by-word hold-back alone, the previous behaviour).
The ratio 10 N / N per chunk should stay near 1 (nothing grows with the answer).

Texts: prose; prose with a URL holding a percent-encoded key every 40 words; prose with a
key's base64 wrapped at 20 columns (``base64 -w20``, three lines) every 40 words; prose with
a key written as a byte list and as a list of characters (``0x73, …``, ``['s', …]``) every
40 words; one word
with no whitespace at all (a minified blob).

Usage: ``python bench/stream_hold.py [--quick]``
"""

from __future__ import annotations

import base64
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from goosectx.compaction.figures import RequestContext
from goosectx.conversation import Conversation, Message, TextContent
from goosectx.events import MessageDelta
from goosectx.providers.base import ProviderResponse, StreamItem, TextDelta
from goosectx.providers.scripted import ScriptedProvider
from goosectx.redaction import Redactor
from goosectx.stream_reply import stream_reply

CHUNK_CHARS = 4
KEYS = ["sk-proj-" + "Q7vX2mK9pL4sR6yH1zzTwqAbCdEfGhIjKlMn"[i:] + "x" * i for i in range(3)]


class _Chunks(ScriptedProvider):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def stream(self, system: str, messages: Sequence[Message], tools: Sequence[Any],
               **_: Any) -> Iterator[StreamItem]:
        text = self.text
        for i in range(0, len(text), CHUNK_CHARS):
            yield TextDelta(text[i:i + CHUNK_CHARS])
        yield ProviderResponse(Message("assistant", (TextContent(text),)), None, "m", "stop")


class _NoSecrets:
    """The Redactor without its ``secrets``: the word-by-word hold-back alone."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor

    def __call__(self, text: str) -> str:
        return self._redactor(text)


def per_chunk_us(text: str, redact: Callable[[str], str] | None) -> tuple[float, int]:
    """(µs per chunk, characters shown) to stream ``text`` with ``redact``."""
    events = stream_reply(_Chunks(text), RequestContext("s", ()),  # type: ignore[call-arg]
                          Conversation(), [], threading.Event(), redact=redact)
    shown = 0
    start = time.perf_counter()
    while True:
        try:
            event = next(events)
        except StopIteration:
            break
        if isinstance(event, MessageDelta):
            shown += len(event.text)
    elapsed = time.perf_counter() - start
    return elapsed / (len(text) / CHUNK_CHARS) * 1e6, shown


def texts(chars: int) -> dict[str, str]:
    words = ("so the plan is simple: write the tests first, skip nothing, then ship "
             "it as soon as it works; ask us if unsure. ").split(" ")
    prose = " ".join(words[i % len(words)] for i in range(chars // 5))[:chars]
    url = " see https://x.io/?k=" + KEYS[0].replace("-", "%2D") + " "
    with_keys = " ".join(w if i % 40 else url for i, w in enumerate(prose.split(" ")))
    encoded = base64.b64encode(KEYS[1].encode()).decode()
    block = " here:\n" + "\n".join(encoded[i:i + 20] for i in range(0, len(encoded), 20)) + ". "
    with_blocks = " ".join(w if i % 40 else block for i, w in enumerate(prose.split(" ")))
    listed = (" bytes: {" + ", ".join(f"0x{b:02x}" for b in KEYS[2].encode()) + "} or ["
              + ", ".join(f"'{c}'" for c in KEYS[2]) + "]. ")
    with_lists = " ".join(w if i % 40 else listed for i, w in enumerate(prose.split(" ")))
    blob = "".join(chr(ord("a") + (i * 7) % 26) for i in range(chars))
    return {"prose": prose, "prose+keys": with_keys[:chars], "prose+b64": with_blocks[:chars],
            "prose+list": with_lists[:chars], "one word": blob}


def main(argv: list[str]) -> int:
    chars = 20_000 if "--quick" in argv else 100_000
    redactor = Redactor(KEYS)
    print(f"stream_reply per chunk ({CHUNK_CHARS} chars), 3 secrets of ~40 chars")
    print(f"{'text':>11} {'chars':>9} {'no redact µs':>13} {'word-only µs':>13} "
          f"{'hold-back µs':>13} {'/word-only':>10}")
    for n in (chars, chars * 10):
        for name, text in texts(n).items():
            base, _ = per_chunk_us(text, None)
            words, _ = per_chunk_us(text, _NoSecrets(redactor))
            held, shown = per_chunk_us(text, redactor)
            assert shown > 0
            print(f"{name:>11} {n:>9,} {base:>13.2f} {words:>13.2f} {held:>13.2f} "
                  f"{held / words:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
