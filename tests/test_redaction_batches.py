"""The import's one check of every string finds a key in any of them, whatever its neighbours.

:meth:`goosectx.redaction_fragments.WithPieces.changes_none` reads the strings joined, a batch
at a time; a key written plainly, as a list, spread by NULs or as escapes in one string of a
later batch still makes it say ``False`` (the import then scrubs it), and strings with none
pass as they are (so an import of them costs one check).
"""

from __future__ import annotations

import pytest

from goosectx import redaction_check
from goosectx.redaction import Redactor
from goosectx.redaction_fragments import Fragments, WithPieces
from goosectx.redaction_spread import nul_tokens

KEY = "sk-test-Zq8vN3kLm5Pw7Rt2Yx4Hb6Jd9Fg1"
FILLER = ["ls -la\n" * 40, "x = b'\\x00\\x01'  # bytes, 'a', 'b'\n", "0x7f, 0x00 and 12:34:56",
          "printf(\"\\0\");", "\x1b]0;title", "%20 100% done\x07", "a\0b\0c"]


def written_as(form: str) -> str:
    utf16 = KEY.encode("utf-16-le").decode("latin-1")
    return {
        "plain": KEY,
        "piece": KEY[10:26],
        "list": repr(list(KEY)),
        "hex": KEY.encode().hex(":"),
        "utf16": utf16,
        "od": "  ".join(utf16).replace("\0", "\\0"),
        "escapes": "".join(f"\\u{ord(c):04x}" for c in KEY[8:24]),
    }[form]


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redaction_check, "BATCH_CHARS", 200)  # a batch or two a string


@pytest.mark.usefixtures("small_batches")
@pytest.mark.parametrize("form", ["plain", "piece", "list", "hex", "utf16", "od", "escapes"])
def test_a_key_in_one_string_of_many_is_found(form: str) -> None:
    redact = WithPieces(Redactor([KEY]))
    texts = FILLER * 5 + [f"output: {written_as(form)} (end)"] + FILLER
    assert redact(texts[len(FILLER) * 5]) != texts[len(FILLER) * 5]  # the scrub changes it
    assert not redact.changes_none(texts)


@pytest.mark.usefixtures("small_batches")
def test_strings_without_a_key_pass_the_check_as_they_are() -> None:
    redact = WithPieces(Redactor([KEY]))
    texts = FILLER * 6 + [KEY[:12], "\\u0041\\x42 &#x43;"]  # a short start; escapes of others
    assert all(redact(t) == t for t in texts)
    assert redact.changes_none(texts)


def test_a_block_written_with_escapes_is_found_and_other_escapes_are_not() -> None:
    fragments = Fragments([KEY])
    hidden = "".join(f"\\x{ord(c):02x}" for c in KEY[14:21]) + KEY[21:27]
    assert fragments.found_in(f"value {hidden}")
    assert not fragments.found_in("\\x00\\x1b\\u0007 " + KEY[14:20])  # (six: no block)


def test_a_spread_run_after_other_backslash_separators_is_read() -> None:
    run = "\\0".join("sk-ZqvNkLmPwRt") + "\\0"  # (no octal digit after a \\0)
    tokens = nul_tokens("a \\x00 b \\u0000 c " + run + " end")
    assert "".join(char for _, _, char in tokens) == "sk-ZqvNkLmPwRt"


@pytest.mark.parametrize("secret", ["Zq8vN3kLm5Pw7R", "Zq8vN3kLm5Pw7Rt2", "sk-Zq8vN3kLm5Pw7R"])
def test_every_run_of_13_of_a_short_secret_is_found_and_12_are_not(secret: str) -> None:
    # a short secret's runs are looked for whole (cheaper than its 7-character blocks): a
    # 12-character piece then passes the check too
    redact = WithPieces(Redactor([secret]))
    for start in range(len(secret) - 12):
        run = secret[start:start + 13]
        for written in (run, run[:5] + "".join(f"\\x{ord(c):02x}" for c in run[5:9]) + run[9:]):
            text = f"value: {written} (end)"
            assert redact(text) != text, written
            assert not redact.changes_none([*FILLER, text]), written
        text = f"value: {run[:12]} (end)"
        assert redact(text) == text
        assert redact.changes_none([*FILLER, text])


@pytest.mark.parametrize("written", [
    "".join(f"&#x{ord(c):x};" for c in KEY),  # HTML references
    "^@".join(KEY) + "^@",  # spread by ^@ (NULs as less shows them)
])
def test_a_key_after_many_lone_ampersands_or_carets_is_found(written: str) -> None:
    # the first & or ^ of each is looked at one by one, then re scans the rest
    text = "a && b ^ c; " * 100 + written + " end"
    redact = WithPieces(Redactor([KEY]))
    assert KEY not in redact(text).replace("^@", "")
    assert not redact.changes_none([text])
