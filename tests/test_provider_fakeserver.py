"""The fake server as a standalone process (for pexpect and llama.cpp comparison runs)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

FAKESERVER = Path(__file__).parent / "fakeserver.py"


def test_standalone_server_plays_a_script_and_records(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "scripted answer"}]))
    record = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(FAKESERVER), "--script", str(script), "--record", str(record),
         "--default-text", "fallback"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        answers = []
        for question in ("one", "two"):
            body = json.dumps({"model": "m", "messages": [{"role": "user", "content": question}]})
            request = urllib.request.Request(base_url + "/chat/completions", body.encode(),
                                             {"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=30) as response:
                answers.append(json.load(response)["choices"][0]["message"]["content"])
        assert answers == ["scripted answer", "fallback"]
        recorded = [json.loads(line) for line in record.read_text().splitlines()]
        assert [r["messages"][0]["content"] for r in recorded] == ["one", "two"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()
    assert proc.returncode == 0


def test_a_lone_surrogate_escaped_in_the_request_is_answered_and_recorded(
        tmp_path: Path) -> None:
    """``"\\ud800"`` is valid JSON (a real OpenAI-compatible server answers it): the recording
    server closed the connection without an answer, so a client saw a server error."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "scripted answer"}]))
    record = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(FAKESERVER), "--script", str(script), "--record", str(record)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        body = b'{"model": "m", "messages": [{"role": "user", "content": "a \\ud800 b\\\\"}]}'
        request = urllib.request.Request(base_url + "/chat/completions", body,
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200
            assert json.load(response)["choices"][0]["message"]["content"] == "scripted answer"
        recorded = [json.loads(line) for line in record.read_text().splitlines()]
        assert [r["messages"][0]["content"] for r in recorded] == ["a \ud800 b\\"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()
