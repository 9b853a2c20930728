"""What the model reads of an MCP tool's result (tester, round 12, item 1).

A server that sends structuredContent is asked to send the same data as a text block too
(server-filesystem does: a text block plus ``{"content": text}``, an image block plus the same
block as JSON). The model read both: every file twice, and 40k characters of base64 beside the
image attachment. Content blocks are what the model gets; structuredContent only when there
are none (or only empty text).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from extension_support import demo_spec
from fakeserver import FakeServer

from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40


def tool_results(fake_model: FakeServer, *calls: tuple[str, dict[str, object]]) -> list[str]:
    """Run the calls one after another through the demo server; the tool contents sent."""
    for i, (name, arguments) in enumerate(calls):
        fake_model.add({"tool_calls": [{"name": f"demo__{name}", "arguments": arguments,
                                        "id": f"c{i}"}]})
    fake_model.add({"text": "done"})
    settings = load_settings()
    settings.extensions.flags = ((demo_spec("--shapes"),), ())
    err = io.StringIO()
    code = run_task(settings, text="use the tools", input_file=None, name=None, resume=None,
                    continue_=False, max_turns=None, output_format="text", mode="auto",
                    model=None, stdin=io.StringIO(""), stdout=io.StringIO(), stderr=err)
    assert code == 0, err.getvalue()
    return [str(m["content"]) for m in fake_model.requests[-1]["messages"]
            if m["role"] == "tool"]


def test_a_text_block_with_the_same_structured_content_reaches_the_model_once(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    (work / "app.py").write_text("print('hi')\n")
    (work / "big.txt").write_text("".join(f'line {i} "quoted"\n' for i in range(3000)))
    small, big = tool_results(fake_model, ("read_text_file", {"path": str(work / "app.py")}),
                              ("read_text_file", {"path": str(work / "big.txt")}))
    assert small == "print('hi')\n"
    assert '{"content"' not in big and '\\"quoted\\"' not in big
    assert big.endswith('line 2999 "quoted"\n')
    assert big.count('line 2999 "quoted"') == 1


def test_an_image_block_is_an_attachment_and_its_base64_is_not_sent_as_text(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    (work / "pic.png").write_bytes(PNG)
    (result,) = tool_results(fake_model, ("read_media_file", {"path": str(work / "pic.png")}))
    assert result == f"[image: image/png, {len(PNG):,} bytes, from demo__read_media_file]"


def test_structured_content_alone_is_sent_as_json(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    results = tool_results(fake_model, ("structured_only", {}),
                           ("structured_only", {"empty_text": True}))
    assert results == ['{"city": "Oslo", "temperature_c": 4}'] * 2
