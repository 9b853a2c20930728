"""What a realistic API key costs the redactor, next to the short dummy key the scale table uses.

The scale table (``bench/scale.py``) runs with ``OPENAI_API_KEY=sk-bench-dummy``: 14
characters, no part of 16+ after its prefix, so :func:`goosectx.redaction.key_cores` adds
nothing to look for. A real key (``sk-proj-`` and ~156 characters of ``[A-Za-z0-9_-]``) is
redacted whole and by the parts after its prefix boundaries. Measured here, each against the
same figure with the dummy key in the same run (the ratio is the cost of the real key):

* ``sessions import`` of a generated 10,000-message JSON export (``scale_data.write_export``):
  a real ``goosectx`` process each time, into an empty data dir.
* The import's scrub alone, in this process: ``WithPieces.changes_none`` (a tool output's
  redactor, ``env_secrets.tool_output_redactor``) over every string of those 10,000 messages
  (the quick check the import makes first).
* Redaction of a 1 MB tool output holding no key (the quick check) and holding the key once
  (the regex too), the latter with each line coloured (terminal escape sequences, read
  around), and making the redactor.
* A 1 MB reply as it is stored (:func:`goosectx.redaction_reply.redacted_reply`): no key, the key
  split between its reasoning and its answer, and 1,000 tool calls' arguments.

Usage: ``python bench/redaction_keys.py [--quick]``; ``bench/run.py``'s default run has the
in-process rows (:func:`run`: all but the import's). Exits 1 when a real-key figure is over
:data:`RATIO_MAX` × its dummy-key baseline.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from figures import ROOT, Figure, quick_arg, text_of
from scale_data import generate, write_export

DUMMY_KEY = "sk-bench-dummy"
RATIO_MAX = 1.3
DOUBLED_MAX = 2.3
"""Making the redactor for a key twice as long may take this many times as long: linear
(2x) and a shared machine's noise. (Its regex's compile took 2.5x with the cycle collector
on: the parse's objects walked again and again, goosectx/lazy_pattern.py ``compile_long``.)"""
REPLY_EXTRA_MS = 25
"""What a stored 1 MB reply's redaction may add, its joins and a key's pieces looked for,
to each of its texts redacted alone (``redacted_reply`` as it was before them): ms, not a
ratio — once per model call, whose 1 MB took seconds to stream. (15 until runs of 13+ of a
key's characters were looked for rather than 23+: 7-character blocks, slower to find.)"""
KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"


def real_key(seed: int = 5, length: int = 164) -> str:
    """An ``sk-proj-`` key of 164 characters, as OpenAI issues them (fixed per ``seed``)."""
    rng = random.Random(seed)
    return "sk-proj-" + "".join(rng.choice(KEY_ALPHABET) for _ in range(length - 8))


def _env(home: Path, key: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GOOSE_") and not k.endswith(("_API_KEY", "_API_BASE"))}
    config = home.parent / "no-config.toml"
    config.touch()
    env.update(GOOSECTX_HOME=str(home), GOOSECTX_CONFIG=str(config), OPENAI_API_KEY=key,
               GOOSE_MODEL="openai/gpt-4o-mini", OPENAI_API_BASE="http://127.0.0.1:9/v1",
               PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(home / "xdg-cache"))
    return env


def _paired_s(fns: dict[str, Callable[[], object]], repeat: int,
              pick: Callable[[list[float]], float] = statistics.median,
              clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Median seconds of each of ``fns``, run in turn ``repeat`` times (after one warm-up).

    In turn, so that a busy moment of the shared machine slows each of them alike. ``pick``
    ``min``: the fastest run of each (two figures a few ms apart by a few µs of work: a
    busy moment's noise is larger than that). ``clock``: ``time.process_time`` for CPU alone.
    """
    times: dict[str, list[float]] = {label: [] for label in fns}
    for _ in range(repeat + 1):
        for label, fn in fns.items():
            start = clock()
            fn()
            times[label].append(clock() - start)
    return {label: pick(t[1:]) for label, t in times.items()}


def _row(name: str, real: float, dummy: float, unit: str = "s", *, judged: bool = True,
         note: str = "") -> Figure:
    ratio = real / dummy if dummy else float("inf")
    return Figure(name, real, unit, "dummy key", dummy,
                  f"≤ {RATIO_MAX:g}×" if judged else "info",
                  ratio <= RATIO_MAX if judged else None, note)


def import_rows(tmp: Path, keys: dict[str, str], repeat: int) -> list[Figure]:
    """``sessions import`` of a 10k-message export with each key, then its scrub alone."""
    from goosectx.redaction import Redactor
    from goosectx.redaction_fragments import with_pieces

    work = tmp / "work"
    work.mkdir()
    export = tmp / "export.json"
    size = write_export(export, 10_000, work)
    timed: dict[str, list[float]] = {k: [] for k in keys}
    for _ in range(repeat):  # alternating, so a busy moment of the machine hits both
        for label, key in keys.items():
            home = tmp / f"home-{label}"
            shutil.rmtree(home, ignore_errors=True)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "goosectx", "sessions", "import", str(export)],
                           env=_env(home, key), cwd=work, check=True, capture_output=True)
            timed[label].append(time.perf_counter() - start)
            shutil.rmtree(home)
    texts = [t for m in generate(10_000) for t in (
        *(getattr(p, "text", "") for p in m.content),
        *(getattr(p, "output", "") for p in m.content))]
    scrub = _paired_s({label: lambda k=key: with_pieces(Redactor([k])).changes_none(texts)
                       for label, key in keys.items()}, repeat * 3)
    return [
        _row("sessions import, 10k messages", statistics.median(timed["real"]),
             statistics.median(timed["dummy"]),
             note=f"a real goosectx process, {size / 1e6:.1f} MB export, median of {repeat}"),
        _row("import scrub (changes_none), 10k messages", scrub["real"], scrub["dummy"],
             note=f"{sum(map(len, texts)) / 1e6:.1f} MB of text, redactor made included"),
    ]


def output_rows(keys: dict[str, str], repeat: int) -> list[Figure]:
    """Making a redactor, and redacting a 1 MB tool output without and with the key."""
    from goosectx.redaction import Redactor

    rng = random.Random(3)
    clean = "".join(text_of(rng, 50_000) for _ in range(20))  # 1 MB of source text
    ms = 1e3
    def make(key: str) -> None:  # made and compiled, as the first text holding a key has it
        re.purge()
        Redactor([key])._pattern  # noqa: B018 - compiled when first needed

    made = _paired_s({label: lambda k=key: make(k) for label, key in keys.items()}, repeat * 5)
    long_key = real_key(length=2 * len(keys["real"]))
    doubled = _paired_s({"real": lambda: make(keys["real"]), "long": lambda: make(long_key)},
                        repeat * 3, min, time.process_time)  # (CPU: a busy machine's waits out)
    redactors = {label: Redactor([key]) for label, key in keys.items()}
    none = _paired_s({label: lambda r=r: r(clean) for label, r in redactors.items()}, repeat * 5)
    held = {label: clean[:500_000] + f"\nOPENAI_API_KEY={key}\n" + clean[500_000:]
            for label, key in keys.items()}
    for label, key in keys.items():
        assert key not in redactors[label](held[label]), "the key was not redacted"
    once = _paired_s({label: lambda r=redactors[label], t=held[label]: r(t) for label in keys},
                     repeat * 5)
    coloured = {label: "\n".join(f"\x1b[32m{line}\x1b[0m" for line in text.split("\n"))
                for label, text in held.items()}  # (``ls --color``, a test runner's output)
    for label, key in keys.items():
        assert key not in redactors[label](coloured[label]), "the key was not redacted"
    colours = _paired_s({label: lambda r=redactors[label], t=coloured[label]: r(t)
                         for label in keys}, repeat * 5)
    plain_colours = "\n".join(f"\x1b[32m{line}\x1b[0m" for line in clean.split("\n"))
    colours_none = _paired_s({label: lambda r=r: r(plain_colours)
                              for label, r in redactors.items()}, repeat * 5)
    size = {label: len(r._pattern.pattern) if r._pattern else 0 for label, r in redactors.items()}
    return [
        _row("make the redactor and its regex", made["real"] * ms, made["dummy"] * ms, "ms",
             judged=False,
             note=f"its regex: {size['real']:,} characters (real key) vs {size['dummy']:,}"),
        Figure(f"make the redactor, a {len(long_key)}-character key", doubled["long"] * ms,
               "ms", f"a {len(keys['real'])}-character one", doubled["real"] * ms,
               f"≤ {DOUBLED_MAX:g}×", doubled["long"] <= DOUBLED_MAX * doubled["real"],
               "twice the key: linear is 2×"),
        _row("redact 1 MB output, no key in it", none["real"] * ms, none["dummy"] * ms, "ms"),
        _row("redact 1 MB output, the key once", once["real"] * ms, once["dummy"] * ms, "ms"),
        _row("the same, each line coloured (ESC [32m)", colours["real"] * ms,
             colours["dummy"] * ms, "ms",
             note="terminal escapes read around: a key split by one is found"),
        _row("1 MB output, each line coloured, no key", colours_none["real"] * ms,
             colours_none["dummy"] * ms, "ms"),
    ]


def reply_rows(keys: dict[str, str], repeat: int) -> list[Figure]:
    """Redacting a 1 MB reply as it is stored (``redacted_reply``): reasoning, then answer.

    Without a key, and with the key split between them (its start ending the reasoning, its
    last 30 characters starting the answer: both texts read joined around the join, see
    goosectx/redaction_joined.py); and a reply of 1,000 tool calls (2,000 argument values).
    Each with the real key, against the same texts each redacted alone (what a reply cost
    before the joins and a key's pieces were looked for); the fastest of the runs of each.
    """
    from goosectx import redaction_reply
    from goosectx.message import Message
    from goosectx.parts import TextContent, ThinkingContent, ToolRequest
    from goosectx.redaction import Redactor
    from goosectx.redaction_reply import redacted_reply

    rng = random.Random(3)
    clean = "".join(text_of(rng, 50_000) for _ in range(20))  # 1 MB of source text
    ms = 1e3
    redactors = {label: Redactor([key]) for label, key in keys.items()}
    plain = Message("assistant", (ThinkingContent(clean[:500_000]),
                                  TextContent(clean[500_000:])))
    split = {label: Message("assistant", (ThinkingContent(clean[:500_000] + " " + key[:-30]),
                                          TextContent(key[-30:] + " " + clean[500_000:])))
             for label, key in keys.items()}
    for label, key in keys.items():
        stored = redacted_reply(split[label], redactors[label])
        assert key[-30:] not in repr(stored.content), "the key's tail was not redacted"
    calls = Message("assistant", tuple(
        ToolRequest(f"c{i}", "write", {"path": f"f{i}.py", "content": clean[i * 1000:][:1000]})
        for i in range(1000)))
    def alone(message: Message, redact: Redactor) -> None:  # each text alone, as before
        saved = redaction_reply.crossing_cuts, redaction_reply.fragments_of
        redaction_reply.crossing_cuts = lambda texts, redact: {}  # type: ignore[assignment]
        redaction_reply.fragments_of = lambda redact: None  # type: ignore[assignment]
        try:
            redacted_reply(message, redact)
        finally:
            redaction_reply.crossing_cuts, redaction_reply.fragments_of = saved

    real = redactors["real"]
    rows = []
    for name, message, note, runs in (  # (more runs of the quick ones: a busy machine's
            ("store a 1 MB reply (reasoning + answer), no key", plain, "", 20),  # noise)
            ("the same, a key split between them", split["real"],
             "its start ends the reasoning, its last 30 characters start the answer", 20),
            ("store a reply of 1,000 tool calls, no key", calls,
             "2,000 argument values: their joins and pieces looked at", 5)):
        took = _paired_s({"joined": lambda m=message: redacted_reply(m, real),
                          "alone": lambda m=message: alone(m, real)}, repeat * runs, min)
        rows.append(Figure(name, took["joined"] * ms, "ms", "each text alone",
                           took["alone"] * ms, f"≤ +{REPLY_EXTRA_MS:g} ms",
                           (took["joined"] - took["alone"]) * ms <= REPLY_EXTRA_MS,
                           note or "real key"))
    return rows


def run(quick: bool) -> list[Figure]:
    """The in-process rows (``bench/run.py``'s default run): redactor, 1 MB output, replies.

    Not the ``sessions import`` rows: each spawns goosectx processes (tens of seconds);
    ``python bench/redaction_keys.py`` runs them too.
    """
    repeat = 1 if quick else 2  # (fewer than alone: the default run stays under 10 s)
    keys = {"dummy": DUMMY_KEY, "real": real_key()}
    return output_rows(keys, repeat) + reply_rows(keys, repeat)


def main() -> int:
    """Print the table; 1 when a judged real-key figure misses its target."""
    from run import print_table

    repeat = 2 if quick_arg() else 5
    keys = {"dummy": DUMMY_KEY, "real": real_key()}
    tmp = Path(tempfile.mkdtemp(prefix="goosectx-keys-"))
    try:
        rows = (output_rows(keys, repeat) + reply_rows(keys, repeat)
                + import_rows(tmp, keys, repeat))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"real key: {len(keys['real'])} characters (sk-proj-…); dummy: {DUMMY_KEY}\n")
    return print_table(rows)


if __name__ == "__main__":
    sys.exit(main())
