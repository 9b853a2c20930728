"""The notice for a kept message the layout elided names what to do about it."""

from __future__ import annotations

from goosectx.compaction.layout import elided_notice
from goosectx.conversation import Message, MessageMetadata, ToolResponse


def _elided(message: Message) -> Message:
    return message.with_metadata(compaction_id="k1", extra={"elided_from_tokens": 82_000})


def test_an_elided_paste_asks_for_a_smaller_message() -> None:
    notice = elided_notice([_elided(Message.user("x" * 10))], "k1")
    assert notice is not None and "82,000 tokens" in notice
    assert "smaller message" in notice


def test_an_elided_tool_result_asks_for_the_part_that_matters_not_a_smaller_message() -> None:
    result = _elided(Message("user", (ToolResponse("c1", "y" * 10),), MessageMetadata()))
    notice = elided_notice([result], "k1")
    assert notice is not None and notice.startswith("A tool result the model keeps (82,000")
    assert "smaller message" not in notice and "a line range" in notice
    assert elided_notice([result], "other") is None
