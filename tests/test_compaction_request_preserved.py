"""The newest request the user wrote stays in the model's view after a compaction.

Rewritten on purpose for the working-set layout (issue 12): the old test asserted an
agent-only *preserved copy* as the last message; now the request is kept where it is (tail)
or copied after the continuation when its turn is too big for the tail.
"""

from goosectx.compaction.budget import layout_budget
from goosectx.compaction.layout import layout, plan_split
from goosectx.conversation import Conversation, Message, MessageMetadata
from goosectx.tokens import TokenCounter


def test_auto_compaction_keeps_what_the_user_wrote_not_harness_text():
    harness = MessageMetadata(extra={"source_kind": "harness"})
    conv = Conversation([
        Message.user("please migrate the config loader"),
        Message.assistant("working on it"),
        Message.user("<environment_context>cwd=/repo</environment_context>", harness),
    ])
    working = plan_split(conv, layout_budget(16_000, 0.8), TokenCounter(), trigger="auto")
    out = layout(conv, "SUMMARY", working, trigger="auto", compaction_id="k")
    view = Conversation(out).agent_view()
    assert "SUMMARY" in view[0].text
    requests = [m for m in view if "please migrate the config loader" in m.text]
    assert requests and all(m.role == "user" for m in requests)
    # the user's words are never replaced by the harness text as "the request"
    assert not any(m.metadata.extra.get("copy_of") == conv.messages[2].id for m in out)
