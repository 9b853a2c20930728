"""What redacting a key's 13+ character runs adds to a tool output, a provider error, the log.

Tool outputs (:class:`goosectx.redaction_fragments.WithPieces` around the tool context's
redactor) and the text of provider errors and the debug log
(:func:`goosectx.redaction_fragments.redact_known_pieces`) are now also redacted of each run of
13+ of a key's characters. Measured on 10 MB of real text streamed through an
:class:`~goosectx.tools.output.OutputStream` (64 KB reads, as the shell tool's), with no key in
it and with a 29-character piece of the key every 100 KB, each against the whole-key
:class:`~goosectx.redaction.Redactor` alone (main's tool-output redaction) in the same run;
and the whole output at 1 MB and 10 MB (linear: the 10 MB figure is ~10× the 1 MB one).

Usage: ``python bench/redaction_pieces.py [--quick]``. Exits 1 when a figure with pieces is over
:data:`RATIO_MAX` × its baseline, or 10 MB takes over :data:`GROWTH_MAX` × 10 × 1 MB.
"""

from __future__ import annotations

import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from figures import median_time_s, quick_arg, text_of

from goosectx.redaction import Redactor
from goosectx.redaction_fragments import WithPieces
from goosectx.tools.output import OutputStream

KEY = "sk-proj-" + "".join(random.Random(3).choices(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-", k=156))
RATIO_MAX = 8.0
"""The pieces cost one ``str.find`` per 7-character block of each key (24 for a 164-character
key) over each text: measured 3-6× the whole-key quick check alone, linear in the text."""
GROWTH_MAX = 1.5
READ = 65_536


def _output(chars: int, piece: bool) -> bytes:
    rng = random.Random(11)
    parts = []
    for _ in range(chars // 100_000):
        parts.append(text_of(rng, 100_000 - 40))
        parts.append(f"\ntail: {KEY[12:41]}\n" if piece else "\n" + "x" * 38 + "\n")
    return "".join(parts).encode()


def _stream(redact: Callable[[str], str], data: bytes, out: Path) -> str:
    stream = OutputStream("output", 40_000, out, redact)
    for at in range(0, len(data), READ):
        stream.feed(data[at:at + READ])
    stream.close()
    return stream.text(40_000)


def main() -> int:
    repeat = 1 if quick_arg() else 3
    whole = Redactor([KEY, "ghp_" + KEY[20:56]])
    pieces = WithPieces(whole)
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        times: dict[tuple[str, int, bool], float] = {}
        for chars in (1_000_000, 10_000_000):
            for piece in (False, True):
                data = _output(chars, piece)
                for name, redact in (("whole key", whole), ("with pieces", pieces)):
                    times[name, chars, piece] = median_time_s(
                        lambda r=redact, d=data: _stream(r, d, out), repeat=repeat)
                ratio = times["with pieces", chars, piece] / times["whole key", chars, piece]
                what = "a piece every 100 KB" if piece else "no key"
                print(f"{chars / 1e6:>4.0f} MB tool output, {what:<21}"
                      f" whole key {times['whole key', chars, piece]:.3f} s, with pieces "
                      f"{times['with pieces', chars, piece]:.3f} s, ratio {ratio:.2f}"
                      f" (max {RATIO_MAX})")
                failed |= ratio > RATIO_MAX
        for piece in (False, True):
            growth = times["with pieces", 10_000_000, piece] / (
                10 * times["with pieces", 1_000_000, piece])
            print(f"10 MB / (10 × 1 MB), with pieces, {'pieces' if piece else 'no key'}: "
                  f"{growth:.2f} (max {GROWTH_MAX})")
            failed |= growth > GROWTH_MAX
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
