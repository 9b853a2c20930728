r"""What texts full of escapes cost the redactor: linear in their length, against plain text.

A text with a backslash or ``&#`` is read again decoded (:mod:`goosectx.redaction_unescape`:
``\u0073``, ``\\u0073``, ``\U00000073``, ``\u{73}``, ``\x73``, ``\163``, ``&#x73;``,
``&#115;``) and the quick check reads the pieces of that reading around its escapes,
reaching a key's length in characters that are not whitespace (a key spread over much
whitespace). Here :class:`~goosectx.redaction.Redactor` (one realistic key, no key in the
texts) redacts and ``changes_none`` checks texts of 1 MB and 2 MB: backslashes and ``%``
dense, escapes dense, escapes between long runs of spaces, JSON of non-ASCII text
(``json.dumps``: ``\u00e9`` everywhere), HTML with entities, source code. The same-run
baseline is 1 MB of prose with no escape; the 2 MB / 1 MB ratio should stay near 2 (linear).

Usage: ``python bench/redaction_escapes.py [--quick]``
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable

from goosectx.redaction import Redactor

KEY = "sk-proj-Q7vX2mK9pL4nR8sT1wY6zA3bC5dE0fG7hJ2kL9mN4pQ8rS1t"


def texts(chars: int) -> dict[str, str]:
    rng = random.Random(5)
    words = "the quick brown fox jumps over a lazy dog and runs on to the next field".split()
    prose = " ".join(rng.choice(words) for _ in range(chars // 4))[:chars]
    french = " ".join(rng.choice(["été", "à", "déjà", "où", "naïve", "café", "Noël", "x"])
                      for _ in range(chars // 8))
    source = "".join(rng.choice([
        "def f(x):\n    return x\n", "print('a\\nb\\t')\n", "s = '%s\\\\%d' % v\n",
        "re.compile(r'\\d+\\s*\\w')\n", "  # comment here\n"]) for _ in range(chars // 18))
    return {
        "prose (baseline)": prose,
        "\\ and % dense": ("\\%\\\\%%5c\\u00" * (chars // 13 + 1))[:chars],
        "escapes dense": ("\\x41\\u0042&#67;" * (chars // 15 + 1))[:chars],
        "escape, 300 spaces": (("\\x41" + " " * 300) * (chars // 304 + 1))[:chars],
        "JSON of non-ASCII": json.dumps(french)[:chars],
        "HTML entities": (("<p>Tom &amp; Jerry &#169; 2024 &#x2014; caf&#233;</p>\n")
                          * (chars // 54 + 1))[:chars],
        "source code": source[:chars],
    }


def best_ms(fn: Callable[[], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main(argv: list[str]) -> int:
    runs = 2 if "--quick" in argv else 5
    redact = Redactor([KEY])
    redact(f"warm {KEY}")  # (its regex compiled)
    small, large = texts(1_000_000), texts(2_000_000)
    base = best_ms(lambda: (redact(small["prose (baseline)"]),
                            redact.changes_none([small["prose (baseline)"]])), runs)
    print("Redactor (one 56-char key) and changes_none on texts holding no key")
    print(f"{'text':>20} {'1 MB ms':>9} {'/prose':>8} {'2 MB ms':>9} {'2MB/1MB':>8}")
    for name, text in small.items():
        one = best_ms(lambda t=text: (redact(t), redact.changes_none([t])), runs)
        two = best_ms(lambda t=large[name]: (redact(t), redact.changes_none([t])), runs)
        assert redact(text) == text, name
        print(f"{name:>20} {one:>9.1f} {one / base:>8.1f} {two:>9.1f} {two / one:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
