"""Surrogates in a model's answer: joined when split over two chunks, else U+FFFD.

A provider that escapes non-ASCII (``\\ud83d\\ude00``) may split an emoji's surrogate pair
over two stream chunks. Each half on its own is a lone surrogate: the terminal and the
stored session showed U+FFFD U+FFFD, the ``json`` answer the emoji, and ``stream-json``
wrote two ``message_delta`` lines (``"\\ud83d"``, ``"\\ude00 end"``) that jq rejects
("Invalid \\uXXXX\\uXXXX surrogate pair escape"); so did a lone ``\\ud800`` in one chunk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import cli
from fakeserver import FakeServer


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps({"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "f",
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


SPLIT_EMOJI = {"sse": [chunk({"role": "assistant", "content": "smile "}),
                       chunk({"content": "\ud83d"}), chunk({"content": "\ude00 end"}),
                       chunk({}, "stop"), "[DONE]"]}
"""An answer whose emoji (U+1F600) arrives as two chunks, one surrogate each."""


def strict(line: str) -> Any:
    """``line`` parsed as strict JSON (RFC 8259 text, as jq reads it): no lone surrogate."""
    value = json.loads(line)
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # raises on a lone surrogate
    return value


def test_an_emoji_split_over_two_chunks_is_printed_stored_and_written_whole(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add(SPLIT_EMOJI, SPLIT_EMOJI, SPLIT_EMOJI)
    out, _ = cli(capsys, "run", "--name", "surr", "-t", "a")
    assert out == "smile \U0001f600 end\n"
    out, _ = cli(capsys, "run", "--resume", "surr", "-t", "b", "--output-format", "stream-json")
    lines = [strict(line) for line in out.splitlines()]
    deltas = [line["text"] for line in lines if line["type"] == "message_delta"]
    assert "".join(deltas) == "smile \U0001f600 end"
    out, _ = cli(capsys, "run", "--resume", "surr", "-t", "c", "--output-format", "json")
    assert strict(out)["answer"] == "smile \U0001f600 end"
    out, _ = cli(capsys, "sessions", "export", "surr", "-f", "json", "-o", "-")
    stored = [m for m in strict(out)["messages"] if m["role"] == "assistant"]
    assert [m["content"][0]["text"] for m in stored] == ["smile \U0001f600 end"] * 3


@pytest.mark.parametrize("output_format", ["json", "stream-json"])
def test_a_lone_surrogate_in_the_answer_is_written_as_strict_json(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        output_format: str) -> None:
    fake_model.default_reply = {"text": "before [\ud800] after"}
    out, _ = cli(capsys, "run", "-t", "hi", "--output-format", output_format)
    lines = [strict(line) for line in out.splitlines()] if output_format == "stream-json" \
        else [strict(out)]
    assert "before [\ufffd] after" in json.dumps(lines, ensure_ascii=False)
    assert "\\ud800" not in out
