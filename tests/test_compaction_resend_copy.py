"""A re-sent request's copy: agent-only, its own fresh message id, the original's content.

:func:`goosectx.compaction.resend.stubbed_copy` builds the copy through the message's slots with
an id from random bytes (cheaper than a uuid4 per copy); what a user and a stored session see
is the same: an id in the usual ``msg_`` + 32 hex digits form, never another message's.
"""

from __future__ import annotations

import re

from goosectx.compaction.resend import stubbed_copy
from goosectx.conversation import Attachment, Message, MessageMetadata, TextContent


def test_a_copy_is_an_agent_only_message_of_its_own_with_the_same_text() -> None:
    original = Message.user("keep lines at 79 columns\nand fix the tests")
    copies = [stubbed_copy(original) for _ in range(200)]
    ids = {c.id for c in copies}
    assert len(ids) == 200 and original.id not in ids
    for c in copies:
        assert re.fullmatch(r"msg_[0-9a-f]{32}", c.id)
        assert c.role == "user" and c.text == original.text
        assert c.content is original.content  # shared: its token count is the original's
        assert c.metadata == MessageMetadata(user_visible=False, agent_visible=True,
                                             extra={"copy_of": original.id})
        assert c.created >= original.created and c.created.tzinfo is not None
        assert Message.from_dict(c.to_dict()) == c  # stored and read back unchanged


def test_an_attachment_becomes_its_stub_in_the_copy_only() -> None:
    image = Attachment("file", "src/app.py", "text/x-python", text="print(1)\n" * 50,
                       token_estimate=200)
    original = Message("user", (TextContent("look at this"), image))
    copy = stubbed_copy(original)
    assert copy.content[0] is original.content[0]
    assert copy.content[1] == TextContent(image.stub())
    assert original.content[1] is image
