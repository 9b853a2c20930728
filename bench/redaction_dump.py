"""What reading dumps (``hexdump -C``, ``od -x``) costs a tool output's redaction.

A tool output's redaction (:class:`goosectx.redaction_fragments.WithPieces`) also reads each
dump in it as the bytes it shows (:mod:`goosectx.redaction_dump`). Measured here, each text
redacted whole (a realistic 164-character key, none in the texts), against the same-run
baseline of the same text redacted without reading dumps (main's redaction; fastest of
alternating runs): 1 MB of source code, prose and ``git log`` (no dump: the search for a
dump's line alone), and ``hexdump -C`` and ``od -x`` of source code and of random bytes
(formatted here as the tools do), a dump also against the source code's figure; a dump at
1 MB and 4 MB (linear: 4 MB ~4× 1 MB); and a 1 MB dump holding the key.

Usage: ``python bench/redaction_dump.py [--quick]``. Exits 1 when a text with no dump costs
over :data:`PLAIN_RATIO_MAX` × its baseline, a dump over :data:`DUMP_RATIO_MAX` × the source
code's figure, or the 4 MB dump over :data:`GROWTH_MAX` × 4 × its 1 MB figure.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

from figures import median_time_s, quick_arg, text_of

from goosectx import redaction_fragments
from goosectx.redaction import REDACTED, Redactor
from goosectx.redaction_fragments import WithPieces

KEY = "sk-proj-" + "".join(random.Random(3).choices(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-", k=156))
PLAIN_RATIO_MAX = 1.3
"""A text without a dump: the search for a line that starts as a dump's, ~1 ms a MB."""
DUMP_RATIO_MAX = 12.0
"""A dump: each line parsed (a regex) and its bytes checked a run at a time, 0.07–0.25 s a MB
on a busy 2-core machine (1.5–9× 1 MB of source code redacted in the same run, dumps read;
the spread is the machine's) — not against the dump without reading it: the rest of its
redaction passes hex digits fast (10–50 ms a MB), so that ratio says little (3–10×)."""
GROWTH_MAX = 1.5
MB = 1_000_000


def hexdump_c(data: bytes) -> str:
    """``data`` as ``hexdump -C`` writes it (no ``*`` for repeated lines)."""
    lines = []
    for at in range(0, len(data), 16):
        row = data[at:at + 16]
        cells = " ".join(f"{b:02x}" for b in row[:8]) + "  " + " ".join(f"{b:02x}" for b in row[8:])
        shown = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        lines.append(f"{at:08x}  {cells:<48}  |{shown}|")
    return "\n".join([*lines, f"{len(data):08x}"]) + "\n"


def od_x(data: bytes) -> str:
    """``data`` as ``od -x`` writes it on a little-endian machine."""
    lines = []
    for at in range(0, len(data), 16):
        row = data[at:at + 16].ljust(16, b"\0")
        words = " ".join(f"{row[i + 1]:02x}{row[i]:02x}" for i in range(0, 16, 2))
        lines.append(f"{at:07o} {words}")
    return "\n".join([*lines, f"{len(data):07o}"]) + "\n"


def texts(chars: int) -> dict[str, str]:
    rng = random.Random(11)
    source = "".join(text_of(rng, 100_000) for _ in range(chars // 100_000))
    prose = " ".join(rng.choice("the quick brown fox jumps over a lazy dog".split())
                     for _ in range(chars // 4))[:chars]
    log = "".join(f"commit {rng.randbytes(20).hex()}\nAuthor: A <a@b>\n\n    fix {i}\n\n"
                  for i in range(chars // 90))[:chars]
    code = source.encode()[:chars // 5]  # (a dump of n bytes is ~5n characters)
    noise = rng.randbytes(chars // 5)
    return {"source code": source, "prose": prose, "git log": log,
            "hexdump -C of source": hexdump_c(code)[:chars],
            "hexdump -C of random": hexdump_c(noise)[:chars],
            "od -x of source": od_x(code)[:chars], "od -x of random": od_x(noise)[:chars]}


def main() -> int:
    repeat = 3 if quick_arg() else 10
    redact = WithPieces(Redactor([KEY]))
    redact("warm " + KEY)
    failed = False

    def ms(fn: Callable[[], object]) -> float:
        return median_time_s(fn, repeat=repeat) * 1e3

    def paired_ms(one: Callable[[], object], other: Callable[[], object]) -> tuple[float, float]:
        """The fastest of ``repeat`` runs of each, in turn (a busy moment slows both alike)."""
        best = [float("inf"), float("inf")]
        for _ in range(repeat + 1):
            for i, fn in enumerate((one, other)):
                start = time.perf_counter()
                fn()
                best[i] = min(best[i], time.perf_counter() - start)
        return best[0] * 1e3, best[1] * 1e3

    def without_dumps(text: str) -> str:  # (the baseline: dumps not read)
        real = redaction_fragments.dump_spans
        redaction_fragments.dump_spans = lambda *args: []
        try:
            return redact(text)
        finally:
            redaction_fragments.dump_spans = real

    print("WithPieces (one 164-char key) on 1 MB texts holding no key, and without reading "
          "dumps (the same-run baseline)")
    source = 0.0
    for name, text in texts(MB).items():
        took, base = paired_ms(lambda t=text: redact(t), lambda t=text: without_dumps(t))
        source = source or took
        line = f"{name:>22} {took:8.1f} ms, without {base:8.1f} ms: {took / base:5.2f}×"
        if name.startswith(("hexdump", "od")):  # (against 1 MB of source code redacted)
            print(f"{line}, {took / source:5.2f}× source code's (max {DUMP_RATIO_MAX})")
            failed |= took / source > DUMP_RATIO_MAX
        else:
            print(f"{line} (max {PLAIN_RATIO_MAX})")
            failed |= took / base > PLAIN_RATIO_MAX
    code = texts(MB)["source code"].encode()[:MB // 5]
    for name, dump in (("hexdump -C", hexdump_c), ("od -x", od_x)):
        one = ms(lambda f=dump: redact(f(code)))
        four = ms(lambda f=dump: redact(f(code * 4)))
        growth = four / (4 * one)
        held = dump(code[:MB // 10] + f'"{KEY}"'.encode() + code[MB // 10:])
        found = ms(lambda t=held: redact(t))
        assert REDACTED in redact(held) and KEY[20:26].encode().hex() not in \
            "".join(redact(held).split())
        print(f"{name:>22} 1 MB {one:.1f} ms, 4 MB {four:.1f} ms, 4 MB / (4 × 1 MB) "
              f"{growth:.2f} (max {GROWTH_MAX}); 1 MB holding the key {found:.1f} ms")
        failed |= growth > GROWTH_MAX
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
