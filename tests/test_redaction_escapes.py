"""A key split by a terminal escape sequence (``sk-proj-Zq8X`` ESC ``[0m`` the rest) is redacted.

A colour reset or a window title (CSI, OSC) inside a secret hides it no more than whitespace
does: the stored answer, an export and tool output read ``[REDACTED]`` there, and the
redactor's quick check agrees with its regex on texts full of such sequences (random texts,
as tests/test_redaction_check.py does for whitespace and percent-escapes).
"""

from __future__ import annotations

import random

import pytest
from redaction_support import regex_only

from goosectx.redaction import REDACTED, Redactor, encodings
from goosectx.stream_reply import _Settled

KEY = "sk-proj-Zq8XvB3nKp2LmT7wRy4HsJd9FgA1cE6u"
SECRETS = [KEY, "P@$$w0rd!#%&", "pw%41b cd%2Fefgh"]
ESCAPES = ["\x1b[0m", "\x1b[1;31m", "\x1b[2K", "\x1b[ q", "\x1b]0;title\x07",
           "\x1b]8;;https://x.io\x1b\\"]
NOISE = ["\x1b", "\x1b[", "[0m", "\x1b]0;t", "\x07", "\x1b\\", "\0", " ", "\n", "%", "%1b",
         "ab", "x" * 30, *ESCAPES]
INSIDE = [*ESCAPES, " ", "\n", "\x1b", "[0m"]  # (the last two break the form)


@pytest.mark.parametrize("escape", ESCAPES)
def test_a_key_split_by_an_escape_sequence_is_redacted_and_the_text_around_kept(
        escape: str) -> None:
    redact = Redactor([KEY])
    text = f"\x1b[1mkey:\x1b[0m {KEY[:12]}{escape}{KEY[12:]}\x1b[0m done"
    assert redact(text) == f"\x1b[1mkey:\x1b[0m {REDACTED}\x1b[0m done"
    assert not redact.changes_none([text])


def test_escapes_and_whitespace_together_and_the_lines_kept() -> None:
    redact = Redactor([KEY])
    text = f"a {KEY[:5]}\x1b[31m \n{KEY[5:30]}\x1b]0;x\x07{KEY[30:]}. b"
    assert redact(text) == f"a {REDACTED}\n. b"


def test_text_with_escapes_and_no_key_is_left_as_it_is() -> None:
    redact = Redactor([KEY])
    text = f"\x1b[32m{KEY[:7]}\x1b[0m ok \x1b]0;{KEY[8:14]}\x07"
    assert redact(text) == text
    assert redact.changes_none([text])


def test_random_texts_with_escapes_quick_check_agrees_with_the_regex() -> None:
    rng = random.Random(2424)
    redactors = [Redactor([s]) for s in SECRETS] + [Redactor(SECRETS)]
    held = 0
    for _ in range(300):
        redact = rng.choice(redactors)
        slow = regex_only(redact)
        texts = []
        for _ in range(rng.randint(1, 4)):
            pieces = []
            for _ in range(rng.randint(0, 5)):
                if rng.random() < 0.4:
                    form = rng.choice(encodings(rng.choice(SECRETS)))
                    pieces.append("".join(ch + (rng.choice(INSIDE) if rng.random() < 0.2 else "")
                                          for ch in form))
                else:
                    pieces.append(rng.choice(NOISE))
            texts.append("".join(pieces))
        for text in texts:
            assert redact(text) == slow(text), text
        if any(slow(t) != t for t in texts):
            held += 1
            assert not redact.changes_none(texts), texts
    assert held > 60  # (the rounds do hold secrets: 79 of 300; long UTF-16 forms break more)


@pytest.mark.parametrize("split", [
    f"{KEY[:12]}\x1b[0m {KEY[12:]}",  # an escape, then whitespace
    f"{KEY[:12]} \x1b[31m\n{KEY[12:30]}\x1b]0;t\x07{KEY[30:]}",  # over a line, an OSC inside
])
@pytest.mark.parametrize("chunk_chars", [1, 3, 8])
def test_a_key_split_by_escapes_and_whitespace_is_not_streamed_in_part(
        split: str, chunk_chars: int) -> None:
    redact = Redactor([KEY])
    text = f"here: {split}. END"
    settled = _Settled(redact, [])
    shown = "".join(settled.feed(text[i:i + chunk_chars])
                    for i in range(0, len(text), chunk_chars)) + settled.flush()
    assert shown == redact(text)
    assert shown.startswith(f"here: {REDACTED}") and shown.endswith(". END")
