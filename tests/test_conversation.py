import json
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from goosectx.conversation import (
    Conversation,
    Message,
    MessageMetadata,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
    repair,
    repair_checked,
    repair_prefix,
)
from goosectx.usage import Usage


def call(call_id: str, text: str = "") -> Message:
    parts = ((TextContent(text),) if text else ()) + (ToolRequest(call_id, "shell", {"command": "ls"}),)
    return Message("assistant", parts)


def result(call_id: str, output: str = "ok") -> Message:
    return Message("user", (ToolResponse(call_id, output),))


def test_json_round_trip_keeps_every_part_and_flag():
    msg = Message(
        "assistant",
        (
            ThinkingContent("hmm", signature="sig=="),
            TextContent("running it"),
            ToolRequest("c1", "shell", {"command": "echo ü"}),
            ToolRequest("c2", "shell", None, "Expecting value", "{bad"),
            SystemNotification("inline", "note"),
        ),
        MessageMetadata(user_visible=False, agent_visible=True, usage=Usage.of(10, 5, None),
                        is_summary=True, compaction_id="cmp1", cancelled=True,
                        extra={"source": "x"}),
    )
    resp = Message("user", (ToolResponse("c1", "out", is_error=True),))
    conv = Conversation([msg, resp])
    text = json.dumps(conv.to_list())
    back = Conversation.from_list(json.loads(text))
    assert back.messages == conv.messages
    assert back.messages[0].metadata.usage.cost_usd is None


def test_named_metadata_constructors():
    assert (MessageMetadata.both().user_visible, MessageMetadata.both().agent_visible) == (True, True)
    assert (MessageMetadata.agent_only().user_visible, MessageMetadata.agent_only().agent_visible) == (False, True)
    assert (MessageMetadata.user_only().user_visible, MessageMetadata.user_only().agent_visible) == (True, False)
    assert (MessageMetadata.invisible().user_visible, MessageMetadata.invisible().agent_visible) == (False, False)


def test_agent_view_drops_orphan_request():
    conv = Conversation([Message.user("go"), call("c1", "let me look"), Message.user("stop")])
    view = conv.agent_view()
    assert [m.role for m in view] == ["user", "assistant", "user"]
    assert view[1].tool_requests == []
    assert view[1].text == "let me look"


def test_agent_view_drops_orphan_response_and_empty_message():
    conv = Conversation([Message.user("go"), result("ghost"), Message.assistant("hi"), Message.user("again")])
    view = conv.agent_view()
    assert all(not m.tool_responses for m in view)
    assert [m.text for m in view] == ["go", "hi", "again"]


def test_agent_view_never_ends_on_dangling_tool_request():
    conv = Conversation([Message.user("go"), call("c1")])
    view = conv.agent_view()
    assert [m.text for m in view] == ["go"]


def test_hidden_messages_between_request_and_response():
    conv = Conversation([
        Message.user("go"),
        call("c1"),
        Message.user("typed while running", MessageMetadata.user_only()),
        Message.notification("spinner"),
        result("c1", "files"),
        Message.assistant("done"),
        Message.user("thanks"),
    ])
    view = conv.agent_view()
    assert [m.role for m in view] == ["user", "assistant", "user", "assistant", "user"]
    assert view[2].tool_responses[0].output == "files"
    assert all(not any(isinstance(p, SystemNotification) for p in m.content) for m in view)
    # The transcript still holds everything the user saw.
    assert [m.text for m in conv.user_view()][2] == "typed while running"


def test_consecutive_same_role_messages_merge():
    conv = Conversation([Message.user("a"), Message.user("b"), Message.assistant("c"), Message.assistant("d"), Message.user("e")])
    view = conv.agent_view()
    assert [m.role for m in view] == ["user", "assistant", "user"]
    assert view[0].text == "a\nb"
    assert view[0].id == conv.messages[0].id


def test_leading_assistant_is_kept_after_a_first_user_message_saying_so():
    """A history that starts with the assistant's reply (an imported transcript that starts
    mid-conversation) is sent whole: dropping the reply would orphan its tool results too."""
    conv = Conversation([call("c1"), result("c1"), Message.user("hello")])
    view = conv.agent_view()
    assert [m.role for m in view] == ["user", "assistant", "user"]
    assert "starts mid-way" in view[0].text
    assert [r.id for r in view[1].tool_requests] == ["c1"]
    assert [r.id for r in view[2].tool_responses] == ["c1"] and view[2].text == "hello"
    assert Conversation([Message.assistant("only a reply")]).agent_view() == []


def test_response_stored_later_is_moved_next_to_its_request():
    conv = Conversation([
        Message.user("go"),
        call("c1"),
        Message.assistant("aside", MessageMetadata.agent_only()),
        result("c1"),
        Message.user("next"),
    ])
    view = conv.agent_view()
    for i, m in enumerate(view):
        if m.tool_requests:
            assert {r.id for r in m.tool_requests} <= {r.id for r in view[i + 1].tool_responses}


@st.composite
def conversations(draw):
    msgs = []
    ids = iter(range(10_000))
    for _ in range(draw(st.integers(0, 25))):
        kind = draw(st.sampled_from(["user", "assistant", "call", "result", "orphan_result"]))
        meta = draw(st.sampled_from([MessageMetadata.both(), MessageMetadata.user_only(),
                                     MessageMetadata.agent_only(), MessageMetadata.invisible()]))
        if kind == "user":
            msgs.append(Message.user("u", meta))
        elif kind == "assistant":
            msgs.append(Message.assistant("a", meta))
        elif kind == "call":
            msgs.append(Message("assistant", (ToolRequest(f"c{next(ids)}", "shell", {}),), meta))
        elif kind == "result":
            open_calls = [p.id for m in msgs for p in m.tool_requests]
            cid = draw(st.sampled_from(open_calls)) if open_calls else "none"
            msgs.append(Message("user", (ToolResponse(cid, "r"),), meta))
        else:
            msgs.append(Message("user", (ToolResponse(f"x{next(ids)}", "r"),), meta))
    return Conversation(msgs)


@given(conversations())
def test_agent_view_is_always_valid(conv):
    view = conv.agent_view()
    if view:
        assert view[0].role == "user" and view[-1].role == "user"
    for a, b in zip(view, view[1:], strict=False):
        assert a.role != b.role
    for i, m in enumerate(view):
        if m.tool_requests:
            assert i + 1 < len(view)
            assert {r.id for r in m.tool_requests} <= {r.id for r in view[i + 1].tool_responses}
    requested = {r.id for m in view for r in m.tool_requests}
    responded = [r.id for m in view for r in m.tool_responses]
    assert set(responded) == requested and len(responded) == len(set(responded))
    # Nothing hidden from the model leaks into its view.
    hidden = {m.id for m in conv if not m.metadata.agent_visible}
    assert not hidden & {m.id for m in view}


@st.composite
def well_formed_views(draw):
    """Agent views made of whole turns (request, tool pairs, answer), sometimes broken."""
    msgs: list[Message] = []
    ids = iter(range(10_000))
    for _ in range(draw(st.integers(0, 6))):
        msgs.append(Message.user("u"))
        for _ in range(draw(st.integers(0, 3))):
            cids = [f"c{next(ids)}" for _ in range(draw(st.integers(1, 2)))]
            msgs.append(Message("assistant", tuple(ToolRequest(c, "shell", {}) for c in cids)))
            msgs.append(Message("user", tuple(ToolResponse(c, "r") for c in cids)))
        msgs.append(Message.assistant("a"))
    if msgs and draw(st.booleans()):  # a fault anywhere: repair has something to do
        at = draw(st.integers(0, len(msgs) - 1))
        msgs.insert(at, draw(st.sampled_from([Message.assistant("x"), Message.user("y"),
                                              result("orphan"), call("unanswered")])))
    return msgs


@given(well_formed_views(), st.integers(0, 40))
def test_a_head_cut_from_the_view_is_repaired_as_on_its_own(view, count):
    """The compaction's head (a prefix of the view) gets the repair it would get by itself."""
    repaired, clean = repair_checked(view, for_sending=False)
    assert repaired == view or not clean
    head = repair_prefix(view, count, clean=clean)
    alone = repair(view[:count], for_sending=False)
    # The same messages (a message repair adds gets a fresh id each time).
    assert [(m.role, m.content) for m in head] == [(m.role, m.content) for m in alone]
    if alone == view[:count]:  # nothing to repair: the very same messages
        assert all(a is b for a, b in zip(head, view, strict=False))


def test_what_the_model_sees_follows_every_change_to_the_history() -> None:
    """Appended, inserted, replaced and removed messages, and a whole new list, all show in
    the agent messages exactly as in a conversation read from scratch."""
    conversation = Conversation([Message.user("q1"), Message.assistant("a1")])

    def check() -> None:
        assert conversation.agent_messages() == Conversation(
            list(conversation.messages)).agent_messages()

    check()
    conversation.append(Message.user("q2"))
    check()
    conversation.messages.insert(1, Message.assistant("hidden", MessageMetadata.user_only()))
    conversation.messages.insert(0, Message.user("early"))
    check()
    conversation.messages[2] = Message.assistant("a1 again")
    check()
    conversation.messages[0] = replace(conversation.messages[0],
                                       metadata=MessageMetadata.user_only())
    check()
    del conversation.messages[1]
    check()
    conversation.messages = [Message.user("new"), *conversation.messages[1:]]
    check()
    assert [m.text for m in conversation.agent_messages()] == ["new", "a1 again", "a1", "q2"]
