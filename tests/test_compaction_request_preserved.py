from goosectx.compaction.layout import compacted_messages
from goosectx.conversation import Conversation, Message, MessageMetadata


def test_auto_compaction_preserves_what_the_user_wrote_not_harness_text():
    harness = MessageMetadata(extra={"source_kind": "harness"})
    conv = Conversation([
        Message.user("please migrate the config loader"),
        Message.assistant("working on it"),
        Message.user("<environment_context>cwd=/repo</environment_context>", harness),
    ])
    out = compacted_messages(conv, "SUMMARY", trigger="auto", compaction_id="k",
                                   notice="compacted")
    view = Conversation(out).agent_view()
    assert view[-1].text == "please migrate the config loader"
    assert "SUMMARY" in view[0].text
