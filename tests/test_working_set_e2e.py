"""Compaction keeps the working set — the scripted session of issue 12, through the REPL.

One ``goosectx session --mode auto`` process on piped input against the fake OpenAI-compatible
server with a 16,000-token window: two turns write files, eight turns each read a data file of
about 2,500 tokens through a tool, and the summariser's reply names no file. Exactly one
compaction happens; the first request after it holds both edited paths, the newest request and
the in-flight tool result verbatim, and sits between 20 % and 40 % of the window; the summary
request + its max_tokens fits 95 % of the window and keeps every tool-call line.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeServer

from goosectx.tokens import TokenCounter

LIMIT = 16_000
NO_FILES = ('```json\n{"user_intent": "process the data files", "current_work": "reading the '
            'data files", "next_step": "keep reading"}\n```')
WRITES = {"set up the config module": "src/app/config.py",
          "now add the loader": "src/app/loader.py"}
READS = [f"read data file {i}" for i in range(8)]


def is_summary_call(body: dict[str, Any]) -> bool:
    return not body.get("tools") and "<conversation>" in json.dumps(body["messages"])


def text_of(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"], ensure_ascii=False)


def data_file(i: int) -> str:
    return "".join(f"row {i}.{n}: alpha beta gamma delta epsilon {n * 7919 % 10007}\n"
                   for n in range(150))


def script() -> Any:
    """Replies by request: the summary call gets NO_FILES; the turns get a tool call, then an
    answer once the tool result is in."""
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        if is_summary_call(body):
            return {"text": NO_FILES}
        last = body["messages"][-1]
        if last["role"] == "tool":
            return {"text": "Done."}
        request = last["content"] if isinstance(last["content"], str) else json.dumps(
            last["content"])
        if request in WRITES:
            return {"tool_calls": [{"name": "text_editor", "arguments": {
                "command": "write", "path": WRITES[request], "file_text": "VALUE = 1\n"}}]}
        i = int(request.rsplit(" ", 1)[1])
        return {"tool_calls": [{"name": "text_editor", "arguments": {
            "command": "view", "path": f"data/file_{i}.txt"}}]}
    return reply


@pytest.mark.slow
def test_scripted_session_keeps_paths_request_and_in_flight_result(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    for i in range(8):
        (work / "data" / f"file_{i}.txt").write_text(data_file(i))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GOOSE_") and not k.endswith(("_API_KEY", "_API_BASE"))}
    with FakeServer() as server:
        server.default_reply = script()  # type: ignore[assignment]
        (tmp_path / "no.toml").write_text("tool_output_max_chars = 40000\n")  # the files
        # whole in flight (8,000 characters), over the 16k window's default share (6,400)
        env.update(GOOSECTX_HOME=str(tmp_path / "home"), GOOSECTX_CONFIG=str(tmp_path / "no.toml"),
                   GOOSE_MODEL="openai/fake-model", OPENAI_API_BASE=server.base_url,
                   OPENAI_API_KEY="sk-test-dummy", GOOSE_CONTEXT_LIMIT=str(LIMIT),
                   GOOSECTX_RETRY_BASE_DELAY_S="0.01", TERM="dumb")
        lines = [*WRITES, *READS]
        done = subprocess.run(["goosectx", "session", "--mode", "auto", "--name", "ws"],
                              input="\n".join(lines) + "\n", env=env, capture_output=True,
                              text=True, timeout=300, cwd=str(work))
        requests = list(server.requests)
    assert done.returncode == 0, done.stderr
    summaries = [i for i, body in enumerate(requests) if is_summary_call(body)]
    assert len(summaries) == 1, f"{len(summaries)} compactions"
    summary_call, after = requests[summaries[0]], requests[summaries[0] + 1]
    seen = text_of(after)
    # 2/2 edited paths, though the summary names no file
    assert all(path in seen for path in WRITES.values())
    # the newest request and the in-flight tool result, verbatim
    before = requests[summaries[0] - 1]
    newest = next(m["content"] for m in reversed(before["messages"]) if m["role"] == "user")
    assert newest in seen
    in_flight = after["messages"][-1]
    assert in_flight["role"] == "tool"
    i = int(newest.rsplit(" ", 1)[1])
    assert all(line in in_flight["content"] for line in data_file(i).splitlines()[::25])
    # the request after it: 20-40 % of the window (the fake server's own count, chars ÷ 4)
    size = len(json.dumps(after["messages"], ensure_ascii=False)) // 4
    tools = len(json.dumps(after.get("tools", []), ensure_ascii=False)) // 4
    assert 0.20 * LIMIT <= size + tools <= 0.40 * LIMIT, (size, tools)
    # the summary request fits 95 % of the window with its max_tokens, tool calls all listed
    prompt = "\n".join(m["content"] for m in summary_call["messages"])
    max_tokens = summary_call.get("max_tokens") or summary_call.get("max_completion_tokens")
    assert TokenCounter().count_text(prompt) + max_tokens <= 0.95 * LIMIT
    calls = prompt.count("[assistant tool call]") + prompt.count("[tool] ")
    earlier_calls = sum(1 for m in before["messages"] if m.get("tool_calls"))
    assert calls >= earlier_calls - 3  # every call of the head is listed (the tail keeps ≥ 1)
    for path in WRITES.values():
        assert path in prompt
