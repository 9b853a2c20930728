"""The attachment part: a file, an extension resource or an image attached to a message.

Each place a message goes is checked: the JSON export (schema 2, schema 1 still read), the
SQLite store, the summary request, the provider request, the token counter and ``/context``,
and the transcript (folded to one line).
"""

from __future__ import annotations

import base64
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fakeserver import FakeServer
from rich.console import Console

from goosectx.cli.render import TranscriptRenderer
from goosectx.cli.reports import ContextFacts, context_table
from goosectx.compaction.request import SummaryLadder
from goosectx.config import ModelConfig, Settings
from goosectx.conversation import (
    SCHEMA_VERSION,
    Attachment,
    Conversation,
    Message,
    MessageMetadata,
    TextContent,
    ToolResponse,
)
from goosectx.events import MessageCompleted
from goosectx.export import session_from_json, session_to_json, session_to_json_text
from goosectx.providers.litellm_provider import make_provider
from goosectx.providers.openai_format import to_openai_messages
from goosectx.session import Session, new_session_id
from goosectx.store import SessionStore
from goosectx.tokens import TokenCounter

APP_PY = "def main():\n    return 'attached source'\n"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 48  # 12,296 bytes, not valid UTF-8
COUNTER = TokenCounter()


def file_part(text: str = APP_PY, estimate: int = 1_240) -> Attachment:
    return Attachment("file", "src/app.py", "text/x-python", text=text, token_estimate=estimate)


def image_part() -> Attachment:
    return Attachment("image", "shots/screen.png", "image/png", data=PNG, token_estimate=765)


def with_attachments(*parts: Attachment, text: str = "look at this") -> Message:
    return Message("user", (TextContent(text), *parts))


# -- the part itself --------------------------------------------------------------------------
def test_stub_is_one_line_without_the_content() -> None:
    assert file_part().stub() == "[attached: src/app.py, 1,240 tokens]"
    image = Attachment("image", "a.png", "image/png", data=b"x" * 12_345)
    assert image.stub() == "[image: image/png, 12,345 bytes]"
    pdf = Attachment("resource", "docs:report.pdf", "application/pdf", data=b"%PDF" * 512)
    assert pdf.stub() == "[attached: docs:report.pdf, application/pdf, 2,048 bytes]"


@pytest.mark.parametrize("bad", [
    {"kind": "folder", "text": "x"},
    {"text": None, "data": None},
    {"text": "x", "data": "eA=="},
    {"text": None, "data": "not base64!"},
    {"token_estimate": "many"},
    {"source": None},
])
def test_a_broken_attachment_part_is_a_named_error(bad: dict[str, object]) -> None:
    part = {"type": "attachment", "kind": "file", "source": "a.txt", "media_type": "text/plain",
            "text": "x", "token_estimate": 1, **bad}
    item = Message.user("hi").to_dict()
    item["content"] = [part]
    with pytest.raises(ValueError, match="attachment"):
        Message.from_dict(item)


# -- the JSON export ----------------------------------------------------------------------------
def session_with(messages: list[Message]) -> Session:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    return Session(id=new_session_id(now), name="attach", working_dir=Path("/work/project"),
                   model=None, created=now, updated=now, conversation=Conversation(messages))


def test_export_with_attachments_round_trips_byte_for_byte() -> None:
    original = session_with([with_attachments(file_part(), image_part()),
                             Message.assistant("seen")])
    text = session_to_json_text(original)
    data = json.loads(text)
    assert data["schema_version"] == SCHEMA_VERSION == 2
    stored = data["messages"][0]["content"]
    assert stored[1] == {"type": "attachment", "kind": "file", "source": "src/app.py",
                         "media_type": "text/x-python", "text": APP_PY, "token_estimate": 1240}
    assert base64.b64decode(stored[2]["data"]) == PNG and "text" not in stored[2]
    back = session_from_json(data)
    assert back.conversation.messages == original.conversation.messages
    image = back.conversation.messages[0].content[2]
    assert isinstance(image, Attachment) and image.data == PNG
    assert session_to_json(back)["messages"] == data["messages"]


def test_a_schema_1_export_still_imports(tmp_path: Path) -> None:
    schema_1 = {
        "format": "goosectx-session",
        "schema_version": 1,
        "session": {"id": "20250101T000000-abcd", "name": "old", "working_dir": "/tmp/old",
                    "model": "openai/gpt-4o-mini", "created": "2025-01-01T00:00:00+00:00",
                    "updated": "2025-01-01T00:05:00+00:00", "current_tokens": 42,
                    "current_is_estimate": False, "state": {}, "metadata": {}},
        "messages": [
            {"id": "msg_1", "role": "user", "created": "2025-01-01T00:00:00+00:00",
             "content": [{"type": "text", "text": "run the tests"}],
             "metadata": {"user_visible": True, "agent_visible": True}},
            {"id": "msg_2", "role": "assistant", "created": "2025-01-01T00:00:01+00:00",
             "content": [{"type": "tool_request", "id": "call_1", "name": "shell",
                          "arguments": {"command": "pytest -q"}}],
             "metadata": {"user_visible": True, "agent_visible": True}},
            {"id": "msg_3", "role": "user", "created": "2025-01-01T00:00:02+00:00",
             "content": [{"type": "tool_response", "id": "call_1", "output": "3 passed"}],
             "metadata": {"user_visible": True, "agent_visible": True}},
        ],
        "usage_ledger": [],
    }
    session = session_from_json(schema_1)
    assert [m.id for m in session.conversation] == ["msg_1", "msg_2", "msg_3"]
    assert session.conversation.messages[0].text == "run the tests"
    assert session.conversation.messages[2].tool_responses[0].output == "3 passed"
    assert session.ledger.current_tokens == 42
    newer = dict(schema_1, schema_version=3)
    with pytest.raises(ValueError, match="schema_version 3"):
        session_from_json(newer)


# -- the SQLite store -----------------------------------------------------------------------------
def test_store_round_trips_attachments(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data")
    try:
        session = store.create_session(Path("."))
        message = with_attachments(file_part(), image_part())
        store.append_message(session.id, message)
        loaded = store.load(session.id)
    finally:
        store.close()
    assert loaded.conversation.messages == [message]
    image = loaded.conversation.messages[0].content[2]
    assert isinstance(image, Attachment) and image.data == PNG


# -- the summary request --------------------------------------------------------------------------
def test_summary_request_has_text_attachments_labelled_and_images_as_stubs() -> None:
    history = [with_attachments(file_part(), image_part()), Message.assistant("done")]
    prompt = SummaryLadder(history, counter=COUNTER, context_limit_tokens=32_000,
                           output_limit_tokens=2_000).first()
    assert prompt is not None
    assert "[user attachment: src/app.py]\n" + APP_PY.strip() in prompt.prompt
    assert "[user attachment] [image: image/png, 12,296 bytes]" in prompt.prompt
    assert base64.b64encode(PNG).decode()[:40] not in prompt.prompt


# -- what the provider sends ------------------------------------------------------------------------
def test_text_attachment_reaches_the_model_labelled_with_its_source() -> None:
    sent = to_openai_messages("sys", [with_attachments(file_part())])
    user = sent[-1]["content"]
    assert isinstance(user, str) and user.startswith("look at this")
    assert 'source="src/app.py"' in user and APP_PY.strip() in user


def test_image_is_an_image_part_only_for_a_vision_model() -> None:
    history = [with_attachments(image_part())]
    seen = to_openai_messages("sys", history, vision=True)[-1]["content"]
    assert seen[0] == {"type": "text", "text": "look at this"}
    url = seen[-1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",")[1]) == PNG
    blind = to_openai_messages("sys", history, vision=False)[-1]["content"]
    assert blind == "look at this\n\n[image: image/png, 12,296 bytes]"


@pytest.mark.parametrize(("model", "vision"), [("openai/gpt-4o", True),
                                               ("openai/fake-model", False)])
def test_provider_sends_images_only_where_litellm_says_the_model_reads_them(
        fake_server: FakeServer, model: str, vision: bool) -> None:
    fake_server.add({"text": "a screenshot"})
    settings = Settings(model=model, models={model: ModelConfig(api_base=fake_server.base_url)})
    list(make_provider(settings).stream("sys", [with_attachments(image_part())], []))
    content = fake_server.requests[0]["messages"][-1]["content"]
    assert isinstance(content, list) is vision
    assert ("image_url" in json.dumps(content)) is vision
    if not vision:
        assert "[image: image/png, 12,296 bytes]" in content


# -- tokens and /context ---------------------------------------------------------------------------
def test_attachments_count_and_are_their_own_context_category() -> None:
    plain = Message.user("look at this")
    big = file_part(text="line of source code\n" * 400)
    attached = with_attachments(big, image_part())
    counter = TokenCounter()
    assert counter.count_message(attached) > counter.count_message(plain) + 765 + 1_000
    breakdown = counter.breakdown(system_prompt="sys", project_instructions="",
                                  tool_schemas=[], messages=[attached])
    # A file (@path) counts as "@ mentions", the image as "attachments" (issue 17 item 1).
    assert breakdown.mentions == counter.count_attachment(big)
    assert breakdown.attachments == 765
    assert counter.count_attachment(big) > 1_000
    assert breakdown.messages < 30  # the prompt's own text only
    assert breakdown.total == (breakdown.system_prompt + breakdown.messages
                               + breakdown.attachments + breakdown.mentions)
    facts = ContextFacts(breakdown=breakdown, current_tokens=breakdown.total,
                         current_is_estimate=True, limit_tokens=128_000, limit_source="default",
                         threshold_ratio=0.8, threshold_source="default", auto_enabled=True,
                         paused=False, manages_own_context=False)
    buf = io.StringIO()
    Console(file=buf, width=100, color_system=None).print(context_table(facts))
    row = next(line for line in buf.getvalue().splitlines() if "attachments" in line)
    assert f"{breakdown.attachments:,}" in row
    row = next(line for line in buf.getvalue().splitlines() if "@ mentions" in line)
    assert f"{breakdown.mentions:,}" in row


# -- the transcript --------------------------------------------------------------------------------
@pytest.mark.parametrize("plain", [True, False])
def test_transcript_folds_an_attachment_to_its_stub(plain: bool) -> None:
    buf = io.StringIO()
    renderer = TranscriptRenderer(Console(file=buf, width=100, color_system=None,
                                          no_color=plain), plain=plain)
    renderer.history([with_attachments(file_part(), image_part()), Message.assistant("ok")])
    out = buf.getvalue()
    assert "look at this" in out
    assert "[attached: src/app.py, 1,240 tokens]" in out
    assert "[image: image/png, 12,296 bytes]" in out
    assert "attached source" not in out


def test_live_turn_draws_the_attachment_once_and_not_the_prompt_twice() -> None:
    buf = io.StringIO()
    renderer = TranscriptRenderer(Console(file=buf, width=100, color_system=None), plain=True)
    renderer.user("look at this")
    renderer.handle(MessageCompleted(with_attachments(file_part())))
    out = buf.getvalue()
    assert out.count("look at this") == 1
    assert out.count("[attached: src/app.py, 1,240 tokens]") == 1


def test_a_hostile_source_name_reaches_the_terminal_as_one_clean_line() -> None:
    buf = io.StringIO()
    renderer = TranscriptRenderer(Console(file=buf, width=200, color_system=None), plain=True)
    hostile = Attachment("resource", "evil:\x1b]52;c;aGk=\x07x\n\x1b[2Jy", "text/plain",
                         text="x", token_estimate=1)
    renderer.message(Message("user", (hostile,), MessageMetadata.both()))
    out = buf.getvalue()
    assert "\x1b" not in out and "\x07" not in out
    assert "␛]52;c;aGk=␇" in out  # shown visibly by the one sanitiser
    assert len([line for line in out.splitlines() if "attached" in line]) == 1


def test_a_resource_mention_counts_as_an_at_mention_a_tool_results_resource_does_not() -> None:
    mentioned = Attachment("resource", "res:res://big", "text/plain", text="data\n" * 300)
    from_tool = Attachment("resource", "res:res://other", "text/plain", text="more\n" * 300)
    typed = with_attachments(file_part(), mentioned, text="read @res:res://big")
    results = Message("user", (ToolResponse("c1", "ok"), from_tool))
    counter = TokenCounter()
    b = counter.breakdown(system_prompt="sys", project_instructions="", tool_schemas=[],
                          messages=[typed, results])
    assert b.mentions == counter.count_attachment(file_part()) + counter.count_attachment(
        mentioned)
    assert b.attachments == counter.count_attachment(from_tool)
