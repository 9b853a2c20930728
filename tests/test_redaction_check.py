"""The redactor's quick check never passes a text its regex would change (random texts).

:class:`goosectx.redaction_check.QuickCheck` says "no secret here" so that the redactor (and
an import's ``changes_none`` over every string of a session) can skip the slow regex. A
wrong "no" would store or print a secret. Each round builds texts from secrets in every form
:func:`goosectx.redaction.encodings` lists — folded by whitespace (wide spaces too, long runs),
with characters percent-encoded (hex in either case, whitespace inside an escape), after a
``%`` and whitespace — among noise (``%``, ``=``, hex digits, NUL, non-ASCII, lone
surrogates), and checks them against the regex alone, with batches cut at every size.

``REDACTION_FUZZ_ROUNDS`` sets the number of rounds (the suite runs a few hundred; a
local run of 100,000 is what the check was tried with).
"""

from __future__ import annotations

import os
import random

import pytest
from redaction_support import regex_only

import goosectx.redaction_check as redaction_check
from goosectx.redaction import Redactor, encodings
from goosectx.redaction_check import ASCII_SPACE, WIDE_SPACE

ROUNDS = int(os.environ.get("REDACTION_FUZZ_ROUNDS", "250"))
SECRETS = ["sk-live-Prefilter42xy", "Ab9%=z-Q_8/+xy", "pässwörd-Ωmega-42", "ghp_\udce9abcdefgh",
           "ab/cdEFGHijklMNOP+qrs", "pw%41b cd%2Fefgh", "P@$$w0rd!#%&", "1a2b3c4d5e6f7a8b"]
SPACES = [chr(b) for b in ASCII_SPACE] + list(WIDE_SPACE)
NOISE = ["%", "% ", "%\n", "%\u00a0", "%\t\t", "%%", "%%%", "=", "==", "%=", "%4", "%41", "%2",
         "41", "=3D", "ab", "Ab9", "2F", "f", "E", "0", "-", "+", "/", "_", "\0", "é", "Ω", "漢",
         "\udce9", "x" * 40, " " * 300, "\n\n", "100% ", "a % b"]


def _percent(text: str, rng: random.Random) -> str:
    """``text`` with some characters percent-encoded (UTF-8, hex case per digit)."""
    out = []
    for ch in text:
        if rng.random() < 0.4:
            for byte in ch.encode("utf-8", "surrogateescape"):
                out.append("%" + "".join(d.upper() if rng.random() < 0.5 else d
                                         for d in f"{byte:02x}"))
        else:
            out.append(ch)
    return "".join(out)


def _folded(text: str, rng: random.Random) -> str:
    """``text`` with whitespace put between some characters (escapes too)."""
    out = []
    for ch in text:
        out.append(ch)
        if rng.random() < 0.15:
            out.append(rng.choice(SPACES) * rng.choice([1, 1, 2, 150]))
    return "".join(out)


def _a_form(rng: random.Random) -> str:
    secret = rng.choice(SECRETS)
    form = rng.choice(encodings(secret))
    if rng.random() < 0.3:  # a piece of it, as a cut would leave
        form = form[rng.randrange(3):len(form) - rng.randrange(3)]
    if rng.random() < 0.6:
        form = _percent(form, rng)
    if rng.random() < 0.5:
        form = _folded(form, rng)
    if rng.random() < 0.4:  # after a % and whitespace: the squeezed reading eats its start
        form = rng.choice(["100% ", "%\n", "%\u3000", "% %", "%% "]) + form
    return form


def _texts(rng: random.Random) -> list[str]:
    return ["".join(_a_form(rng) if rng.random() < 0.3 else rng.choice(NOISE)
                    for _ in range(rng.randint(0, 6)))
            for _ in range(rng.randint(1, 5))]


def test_random_texts_quick_check_agrees_with_the_regex(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1414)
    redactors = [Redactor([s]) for s in SECRETS] + [Redactor(SECRETS)]
    held = 0
    for _ in range(ROUNDS):
        redact = rng.choice(redactors)
        slow = regex_only(redact)
        texts = _texts(rng)
        changed = [slow(t) != t for t in texts]
        for text in texts:  # the quick check of one text never skips a change
            assert redact(text) == slow(text), text
        monkeypatch.setattr(redaction_check, "BATCH_CHARS",
                            rng.choice([1, 5, 17, 64, 301, 1 << 18]))
        if any(changed):
            held += 1
            assert not redact.changes_none(texts), texts
    assert held > ROUNDS // 20  # (the rounds do hold secrets: 25 of 250 with this seed)


@pytest.mark.parametrize("text", [
    "100%ab%2fcdEFGHijklMNOP+qrs",  # a % before the secret eats its "ab" (hex digits)
    "100% ab%2FcdEFGHijklMNOP%2bqrs",  # so does a % then whitespace
    "x%aab/cd%45FGHijklMNOP+qrs",  # "%a" before it eats its "a"
])
def test_a_percent_sign_before_a_secret_hides_nothing(text: str) -> None:
    redact = Redactor(["ab/cdEFGHijklMNOP+qrs"])
    assert regex_only(redact)(text) != text
    assert redact(text) == regex_only(redact)(text)
    assert not redact.changes_none(["a", text, "b"])


@pytest.mark.parametrize(("secret", "text"), [
    ("Ab9%=z-Q_8/+xy", "A%629%=z-%51%5f8/%2bxy"),  # its own % as it is, the rest encoded
    ("pw%41bcdefgh", "%70w%41bcdefgh"),  # its own %41 as it is: the reading decodes it
    ("pw%41bcdefgh", "pw%2541bcdefgh"),  # its own % as %25
    ("password12%", "p%61ssword12%"),  # a % at the very end
    ("correct horse staple", "correct%20horse%20staple"),  # its spaces encoded
    ("ghp_\udce9abcdefgh", "%67hp_\udce9abcdefgh"),  # a lone surrogate as it is
    ("ghp_\udce9abcdefgh", "ghp_%E9abcdefgh"),  # and encoded
    ("ghp_\udce9abcdefgh", "hgfedcba%E9_phg"),  # reversed, encoded
    ("ghp_\udce9abcdefgh", "hgfedcba\udce9%5Fphg"),  # reversed, as it is
    ("P@$$w0rd!#%&", "P%40$$w0rd!#%25&"),  # signs all around
    ("ab/cd/ef/gh/ij", "%61b/cd%2Fef/gh/ij"),  # its URL form's runs are 2 letters: 3 of them
])
def test_a_secret_the_regex_finds_the_quick_check_does_not_pass(secret: str, text: str) -> None:
    redact = Redactor([secret])
    assert regex_only(redact)(text) != text
    assert redact(text) == regex_only(redact)(text)
    assert not redact.changes_none(["a", text, "b"])


def test_clean_text_passes_with_each_kind_of_secret() -> None:
    clean = ["print('%d%%' % 50)", "a=1&b=%zz", "naïve café\u00a0ok", "", "100% done"]
    for secret in [*SECRETS, "correct horse staple", "ab/cd/ef/gh/ij"]:
        assert Redactor([secret]).changes_none(clean), secret


def _decoded_one_by_one(text: bytes) -> bytes:
    out, i = bytearray(), 0
    while i < len(text):
        if text[i:i + 1] == b"%" and len(text) >= i + 3 and all(
                chr(d) in "0123456789abcdefABCDEF" for d in text[i + 1:i + 3]):
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            out += b"=" if text[i:i + 1] == b"%" else text[i:i + 1]
            i += 1
    return bytes(out)


@pytest.mark.parametrize("percent_ratio", [0.005, 0.3])  # split at each %, or a2b_qp
def test_both_ways_of_decoding_give_each_escape_and_nothing_else(percent_ratio: float) -> None:
    rng = random.Random(77)
    alphabet = b"=aF0 9z\x00\xe9"
    for _ in range(ROUNDS * 4):
        text = bytes(b"%"[0] if rng.random() < percent_ratio else rng.choice(alphabet)
                     for _ in range(rng.randint(0, 400)))
        assert redaction_check.unquoted(text) == _decoded_one_by_one(text), text
