"""The scale table: goosectx at 1k, 10k and 100k generated messages (``run.py --scale``).

Every figure is a real ``goosectx`` process (``python -m goosectx``, this checkout first on the
path) on a generated session (``scale_data``), next to a baseline measured in the same run:

* resume launch → prompt, through a pty: vs goosectx's own new-session launch; and the new-
  session launch vs a bare prompt_toolkit prompt (``scale_raw.py prompt``).
* last streamed chunk → prompt back in the REPL (the pty sees the answer's last word, then
  the prompt): vs the same in a new session; then ``/exit`` → the process gone (for
  information). And the REPL's RSS growth over 25 turns (``scale_turns``), vs a new session.
* ``run --resume`` start → the fake server receives the first request: vs ``run`` in a new
  session plus one load and one request serialisation (``scale_raw.py request``).
* ``run`` exit after its answer: stdout shows the answer's last word → the process is gone.
* ``compact --dry-run`` and ``compact --strategy extractive`` (counts stored by an earlier
  process, and the first one on an uncounted session): vs a raw load in its own process
  (``scale_raw.py load``: the same CLI start-up, then ``SELECT`` + ``json.loads``); the first
  extractive compaction of an uncounted session vs that load plus one tokenisation of every
  row (``scale_raw.py tokenise``, with an empty cache dir like the compaction's copy, so both
  load the encoding from tiktoken's file). For information, a dry run of the counted copy
  once the extractive compaction has hidden most of it (a small view over the same rows: a
  long task as auto-compaction leaves it).
* ``sessions import`` of a JSON export: vs ``json.load`` of the file (same start-up).
* ``sessions show`` / ``sessions export --format json`` to a pipe: vs the raw load; their peak
  RSS (``wait4``) vs the raw load's.

Growth exponents: ``log(v₂ / v₁) / log(n₂ / n₁)`` between the two largest sizes (1.0 =
linear). The model is ``openai/gpt-4o-mini`` (a model litellm knows) answered by
``tests/fakeserver.py`` on 127.0.0.1. Data lives in a temporary
directory that is removed at the end.
"""

from __future__ import annotations

import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from figures import ROOT, Figure
from scale_data import ANSWER_MARK, SESSION_NAME
from scale_turns import TURNS, rss_growth_mb

sys.path.insert(0, str(ROOT / "tests"))

SIZES = (1_000, 10_000, 100_000)
GROWTH_MAX = 1.1
RAW = str(ROOT / "bench" / "scale_raw.py")
PROMPT = "❯"
PTY_TIMEOUT_S = 900


CACHE_DIR = "xdg-cache"
"""Each data dir's own user cache dir (token counts of fixed texts, parsed encoding tables):
a copy for a compaction row starts without it, so "uncounted" rows start cold."""


def _env(home: Path, base_url: str = "http://127.0.0.1:9/v1") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GOOSE_") and not k.endswith(("_API_KEY", "_API_BASE"))}
    config = home.parent / "no-config.toml"
    config.touch()  # empty, beside the data dir: a named config file must exist
    env.update(GOOSECTX_HOME=str(home), GOOSECTX_CONFIG=str(config),
               GOOSE_MODEL="openai/gpt-4o-mini", OPENAI_API_BASE=base_url,
               OPENAI_API_KEY="sk-bench-dummy", PYTHONPATH=str(ROOT),
               PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", COLUMNS="110", LINES="40",
               XDG_CACHE_HOME=str(home / CACHE_DIR))  # goosectx's caches go with the data dir
    env.pop("NO_COLOR", None)
    return env


GOOSECTX = [sys.executable, "-m", "goosectx"]


def _timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one process, output discarded.

    A dry run may exit 1 saying ``would change nothing`` (at 100k the summary request fits at
    no rung of a 128k window, as the real ``compact`` would refuse): its plan was made.
    """
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    refused = (proc.returncode == 1 and "--dry-run" in argv
               and "would change nothing" in err)
    if proc.returncode != 0 and not refused:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {err[-2000:]}")
    return elapsed, usage.ru_maxrss / 1024


def _median(fn: Callable[[], float], repeat: int) -> float:
    return statistics.median(fn() for _ in range(repeat))


def _pty(argv: list[str], env: dict[str, str], cwd: Path):  # noqa: ANN202 - pexpect child
    import pexpect

    return pexpect.spawn(argv[0], argv[1:], env=env, cwd=str(cwd), dimensions=(40, 110),
                         encoding="utf-8", timeout=PTY_TIMEOUT_S, maxread=1 << 16)


def _launch_s(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Seconds from spawning ``argv`` in a pty to its prompt; then it is left with Ctrl-D."""
    start = time.perf_counter()
    child = _pty(argv, env, cwd)
    try:
        child.expect(PROMPT)
        elapsed = time.perf_counter() - start
        child.sendcontrol("d")
        child.expect_exact(__import__("pexpect").EOF)
    finally:
        child.close(force=True)
    return elapsed


def _resume_s(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(seconds to the prompt, seconds until the tail's "resumed ·" rule is drawn too)."""
    import pexpect

    start = time.perf_counter()
    child = _pty(argv, env, cwd)
    seen: dict[int, float] = {}
    try:
        while len(seen) < 2:
            seen.setdefault(child.expect([PROMPT, "resumed ·"]), time.perf_counter() - start)
        child.sendcontrol("d")
        child.expect_exact(pexpect.EOF)
    finally:
        child.close(force=True)
    return seen[0], max(seen.values())


def _chunk_to_prompt_s(argv: list[str], env: dict[str, str], cwd: Path,
                       exits: list[float] | None = None) -> float:
    """Seconds from the answer's last word on screen to the prompt back, in a pty REPL.

    ``exits``: gets the seconds from ``/exit`` sent to the process gone (end of the pty).
    """
    import pexpect

    child = _pty(argv, env, cwd)
    try:
        if "-r" in argv:  # past the tail (an earlier run's answer, with the same mark)
            child.expect_exact("resumed ·")
        child.expect(PROMPT)
        time.sleep(0.5)  # let the start-up work (litellm import) finish first
        child.send("say something\r")
        child.expect_exact(ANSWER_MARK)
        start = time.perf_counter()
        child.expect(PROMPT)
        elapsed = time.perf_counter() - start
        child.send("/exit\r")
        sent = time.perf_counter()
        child.expect_exact(pexpect.EOF)
        if exits is not None:
            exits.append(time.perf_counter() - sent)
    finally:
        child.close(force=True)
    return elapsed


def _run_first_request_and_exit(env: dict[str, str], cwd: Path, resume: bool,
                                server) -> tuple[float, float]:  # noqa: ANN001
    """(start → first request received, answer's last word → process gone) of ``run``."""
    arrived: list[float] = []
    reply = {"text": "done " + ANSWER_MARK, "usage": {"prompt_tokens": 10,
                                                       "completion_tokens": 2}}

    def answer(_body: dict) -> dict:
        arrived.append(time.perf_counter())
        return reply

    server.script.append(answer)
    argv = [*GOOSECTX, "run", "-t", "say something"] + (["--resume", SESSION_NAME] if resume
                                                          else [])
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None
    seen = b""
    while ANSWER_MARK.encode() not in seen:
        piece = os.read(proc.stdout.fileno(), 65536)
        if not piece:
            break
        seen += piece
    answered = time.perf_counter()
    proc.wait()
    gone = time.perf_counter()
    if proc.returncode != 0 or not arrived:
        raise RuntimeError(f"run exited {proc.returncode}: "
                           f"{proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
    return arrived[0] - start, gone - answered


def _seed(home: Path, count: int, work: Path) -> str:
    out = subprocess.run([sys.executable, RAW, "seed", str(home), str(count), str(work)],
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
                         capture_output=True, text=True)
    return out.stdout.strip().splitlines()[-1]


_shown = 0


def _progress(figures: list[Figure]) -> None:
    """Print the rows measured since the last call to stderr (a long run shows its way)."""
    global _shown
    for f in figures[_shown:]:
        ratio = f"  ({f.ratio:.2f}× {f.baseline_name})" if f.ratio is not None else ""
        print(f"  {f.name}: {f.value:.3f} {f.unit}{ratio}", file=sys.stderr, flush=True)
    _shown = len(figures)


def _growth(name: str, values: dict[int, float]) -> Figure | None:
    sizes = sorted(values)
    if len(sizes) < 2:
        return None
    n1, n2 = sizes[-2], sizes[-1]
    exponent = math.log(max(values[n2], 1e-9) / max(values[n1], 1e-9)) / math.log(n2 / n1)
    return Figure(f"growth {name} {n1:,}→{n2:,}", exponent, "×", "", None,
                  f"≤ {GROWTH_MAX:g}", exponent <= GROWTH_MAX)


def run(quick: bool = False, sizes: tuple[int, ...] = SIZES) -> list[Figure]:
    """Measure every row of the scale table at ``sizes`` messages."""
    from fakeserver import FakeServer

    if quick:
        sizes = tuple(n for n in sizes if n <= 10_000)
    figures: list[Figure] = []
    series: dict[str, dict[int, float]] = {}
    default = {"text": "ok " + ANSWER_MARK, "usage": {"prompt_tokens": 10,
                                                       "completion_tokens": 2}}
    with tempfile.TemporaryDirectory(prefix="goosectx-scale-") as name, \
            FakeServer(default_reply=default) as server:
        tmp = Path(name)
        work = tmp / "work"
        work.mkdir()
        # -- the size-independent baselines ----------------------------------------------
        empty = tmp / "empty"
        env0 = _env(empty, server.base_url)
        repeat = 2 if quick else 3
        bare = _median(lambda: _launch_s([sys.executable, RAW, "prompt"], env0, work), repeat)
        new_launch = _median(lambda: _launch_s([*GOOSECTX, "session"], env0, work), repeat)
        figures.append(Figure("new-session launch → prompt (pty)", new_launch, "s",
                              "bare prompt_toolkit prompt", bare, "≤ 2.5×",
                              new_launch <= 2.5 * bare))
        chunk0 = _median(lambda: _chunk_to_prompt_s([*GOOSECTX, "session"], env0, work), repeat)
        growth0 = rss_growth_mb(lambda: _pty([*GOOSECTX, "session"], env0, work))
        first0, exit0 = zip(*(_run_first_request_and_exit(env0, work, False, server)
                              for _ in range(repeat)), strict=True)
        first_new = statistics.median(first0)
        figures.append(Figure("run (new session) exit after its answer", statistics.median(
            exit0), "s", "", None, "≤ 0.2 s", statistics.median(exit0) <= 0.2))
        _progress(figures)
        for count in sizes:
            figures += _at_size(tmp, work, server, count, 1 if count >= 100_000 else repeat,
                                new_launch, (chunk0, growth0), first_new, series)
            _progress(figures)
    for key, values in series.items():
        row = _growth(key, values)
        if row is not None:
            figures.append(row)
    return figures


def _at_size(tmp: Path, work: Path, server, count: int, repeat: int,  # noqa: ANN001, PLR0913
             new_launch: float, new_repl: tuple[float, float], first_new: float,
             series: dict[str, dict[int, float]]) -> list[Figure]:
    """Every per-size row at ``count`` messages.

    ``new_repl``: a new session's last chunk → prompt (s) and RSS growth over the turns (MB).
    """
    chunk0, growth0 = new_repl
    n = f"{count // 1000}k"
    home = tmp / f"home-{n}"
    sid = _seed(home, count, work)
    env = _env(home, server.base_url)
    rows: list[Figure] = []

    def note(key: str, value: float) -> None:
        series.setdefault(key, {})[count] = value

    baseline_repeat = max(repeat, 3)  # cheap, and a ratio is only as steady as its baseline
    raw_load = _median(lambda: _timed([sys.executable, RAW, "load", str(home), sid], env,
                                      work)[0], baseline_repeat)
    _, raw_rss = _timed([sys.executable, RAW, "load", str(home), sid], env, work)

    def fresh_copy(tag: str) -> tuple[Path, dict[str, str]]:
        copy = tmp / f"copy-{n}-{tag}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(home, copy, ignore=shutil.ignore_patterns(CACHE_DIR))
        return copy, _env(copy, server.base_url)

    # -- compaction rows (on copies: a compaction changes the session) ---------------------
    dry_after: list[float] = []  # a dry run of each counted copy once compacted

    def compact(counted: bool) -> float:
        copy, cenv = fresh_copy("compact")
        if counted:
            _timed([*GOOSECTX, "compact", SESSION_NAME, "--dry-run"], cenv, work)
        elapsed = _timed([*GOOSECTX, "compact", SESSION_NAME, "--strategy", "extractive"],
                         cenv, work)[0]
        if counted:  # the session as a long task leaves it: every row stored, a small view
            # (with instructions: a repeat with nothing new is refused without them)
            dry_after.append(_timed([*GOOSECTX, "compact", SESSION_NAME, "--dry-run",
                                     "--instructions", "keep the plan"], cenv, work)[0])
        shutil.rmtree(copy)
        return elapsed

    def dry_run(counted: bool) -> float:
        cenv = fresh_copy("dry")[1]
        if counted:  # an earlier process stored the counts
            _timed([*GOOSECTX, "compact", SESSION_NAME, "--dry-run"], cenv, work)
        return _timed([*GOOSECTX, "compact", SESSION_NAME, "--dry-run"], cenv, work)[0]

    dry_first = _median(lambda: dry_run(False), repeat)
    rows.append(Figure(f"compact --dry-run, uncounted @ {n}", dry_first, "s", "raw load",
                       raw_load, "info", None,
                       note="counts every message once (and stores the counts)"))
    dry = _median(lambda: dry_run(True), repeat)
    rows.append(Figure(f"compact --dry-run, counted @ {n}", dry, "s", "raw load", raw_load,
                       "≤ 1.5×", dry <= 1.5 * raw_load))
    note("compact --dry-run", dry)
    def tokenise_cold() -> float:  # cold like the compaction's copy: no encoding tables kept
        cold = tmp / f"cold-cache-{n}"
        shutil.rmtree(cold, ignore_errors=True)
        elapsed = _timed([sys.executable, RAW, "tokenise", str(home), sid],
                         {**env, "XDG_CACHE_HOME": str(cold)}, work)[0]
        shutil.rmtree(cold, ignore_errors=True)
        return elapsed

    tokenised = _median(tokenise_cold, baseline_repeat)
    first = _median(lambda: compact(False), repeat)
    rows.append(Figure(f"compact extractive, uncounted @ {n}", first, "s",
                       "raw load + one tokenisation", tokenised, "≤ 1× (+0.1 s)",
                       first <= tokenised + 0.1,
                       note="counts every message once (and stores the counts)"))
    counted = _median(lambda: compact(True), repeat)
    if count >= 10_000:  # the issue sets this line at 10k and 100k
        rows.append(Figure(f"compact extractive, counted @ {n}", counted, "s", "raw load",
                           raw_load, "≤ 3×", counted <= 3 * raw_load))
    else:  # a fixed cost (tiktoken's encoder build, ~0.2 s of CPU) outweighs the load here
        rows.append(Figure(f"compact extractive, counted @ {n}", counted, "s", "raw load",
                           raw_load, "info", None,
                           note="target set at 10k and 100k; here the encoder build dominates"))
    note("compact extractive", counted)
    after = statistics.median(dry_after)
    rows.append(Figure(f"compact --dry-run after a compaction @ {n}", after, "s", "raw load",
                       raw_load, "info", None,
                       note="the same rows, most hidden by the compaction: a view of ~130 "
                            "messages, as an auto-compacted long task has"))
    # -- import, show, export --------------------------------------------------------------
    export_file = tmp / f"export-{n}.json"
    subprocess.run([sys.executable, RAW, "export", str(export_file), str(count), str(work)],
                   env=env, check=True, capture_output=True)
    json_load = _median(lambda: _timed([sys.executable, RAW, "jsonload", str(export_file)],
                                       env, work)[0], baseline_repeat)

    def do_import() -> float:
        target = tmp / f"import-{n}"
        shutil.rmtree(target, ignore_errors=True)
        elapsed = _timed([*GOOSECTX, "sessions", "import", str(export_file)],
                         _env(target, server.base_url), work)[0]
        shutil.rmtree(target)
        return elapsed

    imp = _median(do_import, repeat)
    rows.append(Figure(f"sessions import @ {n}", imp, "s", "json.load of the file", json_load,
                       "≤ 4×", imp <= 4 * json_load))
    note("sessions import", imp)
    export_file.unlink()
    for what, argv in (("show", ["sessions", "show", SESSION_NAME]),
                       ("export", ["sessions", "export", SESSION_NAME, "--format", "json"])):
        runs = [_timed([*GOOSECTX, *argv], env, work) for _ in range(repeat)]
        value = statistics.median(r[0] for r in runs)
        rss = max(r[1] for r in runs)
        rows.append(Figure(f"sessions {what} @ {n}", value, "s", "raw load", raw_load, "≤ 2×",
                           value <= 2 * raw_load))
        rows.append(Figure(f"sessions {what} peak RSS @ {n}", rss, "MB", "raw load's", raw_rss,
                           "≤ 250 MB", rss <= 250))
        note(f"sessions {what}", value)
    # -- REPL and run (the session in ``home`` is used as it is: counts fill on first need) --
    prompts, tails = zip(*(_resume_s([*GOOSECTX, "session", "-r", SESSION_NAME], env, work)
                           for _ in range(repeat)), strict=True)
    resume = statistics.median(prompts)
    rows.append(Figure(f"resume launch → prompt @ {n}", resume, "s", "new-session launch",
                       new_launch, "≤ 1.2× or +0.1 s",
                       resume <= max(1.2 * new_launch, new_launch + 0.1)))
    rows.append(Figure(f"resume launch → tail drawn @ {n}", statistics.median(tails), "s",
                       "new-session launch", new_launch, "info", None,
                       note="past 2,000 messages the tail is drawn above the prompt once loaded"))
    note("resume launch", resume)
    repl_exits: list[float] = []
    chunk = _median(lambda: _chunk_to_prompt_s([*GOOSECTX, "session", "-r", SESSION_NAME], env,
                                               work, repl_exits),
                    max(repeat, 3))  # a few ms, once at 100k: 0.011 and 0.041 s for one build
    rows.append(Figure(f"last chunk → prompt @ {n}", chunk, "s", "same, new session", chunk0,
                       "≤ 1.2× or +0.05 s", chunk <= max(1.2 * chunk0, chunk0 + 0.05)))
    rows.append(Figure(f"REPL /exit → process gone @ {n}", statistics.median(repl_exits), "s",
                       "", None, "info", None, note="the session saved and closed first"))
    growth = rss_growth_mb(lambda: _pty([*GOOSECTX, "session", "-r", SESSION_NAME], env, work))
    rows.append(Figure(f"REPL RSS growth over {TURNS} turns @ {n}", growth, "MB",
                       "same, new session", growth0, "info", None))
    request = float(subprocess.run([sys.executable, RAW, "request", str(home), sid], env=env,
                                   check=True, capture_output=True, text=True).stdout.split()[-1])
    firsts, exits = zip(*(_run_first_request_and_exit(env, work, True, server)
                          for _ in range(repeat)), strict=True)
    first_req = statistics.median(firsts)
    base = first_new + request
    rows.append(Figure(f"run --resume → first request @ {n}", first_req, "s",
                       "new-session run + load + request JSON", base, "≤ 1.5×",
                       first_req <= 1.5 * base))
    note("run --resume first request", first_req)
    rows.append(Figure(f"run --resume exit after answer @ {n}", statistics.median(exits), "s",
                       "", None, "≤ 0.2 s", statistics.median(exits) <= 0.2))
    shutil.rmtree(home)
    return rows
