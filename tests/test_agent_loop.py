"""The agent loop with the in-process scripted provider: order, hooks, cancel, errors."""

from __future__ import annotations

import _thread
import threading
from pathlib import Path
from typing import Any

import pytest
from agent_harness import (
    Approvals,
    EchoTool,
    Harness,
    WriteTool,
    completed,
    finished,
    make_harness,
)

from goosectx.approval import CANCELLED_TEXT
from goosectx.compaction.figures import RequestContext
from goosectx.compaction.manager import ContextManager
from goosectx.config import Settings
from goosectx.conversation import INTERRUPTED_MARK, Message, ToolRequest, ToolResponse
from goosectx.errors import ContextLengthExceeded, ProviderUnavailable
from goosectx.events import (
    Event,
    MessageDelta,
    Notification,
    ToolCallFinished,
    ToolCallStarted,
    UsageUpdated,
)
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.tools.base import ToolContext, ToolRegistry, ToolResult


def scripted(tmp_path: Path, *script: Any, tools: ToolRegistry | None = None,
             settings: Settings | None = None, **kwargs: Any) -> tuple[Harness, ScriptedProvider]:
    provider = ScriptedProvider(list(script))
    settings = settings or Settings(data_dir=tmp_path / "data")
    harness = make_harness(tmp_path, settings, provider=provider,
                           tools=tools or ToolRegistry([EchoTool(), WriteTool()]), **kwargs)
    return harness, provider


def call(name: str, args: dict[str, Any] | str) -> ScriptedReply:
    return ScriptedReply(tool_calls=[(name, args)])


def test_tool_loop_runs_until_the_model_answers(tmp_path: Path) -> None:
    h, provider = scripted(tmp_path, call("echo", {"text": "a"}), "All done.")
    events = h.turn("please echo")
    assert finished(events).status == "done"
    kinds = [type(e).__name__ for e in events]
    assert kinds[:5] == ["MessageCompleted", "MessageCompleted", "UsageUpdated",
                         "ToolCallStarted", "ToolCallFinished"]
    assert "".join(e.text for e in events if isinstance(e, MessageDelta)) == "All done."
    user, request, responses, answer = h.session.conversation.messages
    assert user.text == "please echo"
    assert request.tool_requests[0].name == "echo"
    assert responses.tool_responses == [ToolResponse(request.tool_requests[0].id, "echo: a")]
    assert answer.text == "All done."
    assert answer.metadata.usage is not None
    # the second call saw the tool result; the store holds exactly what was yielded
    assert provider.requests[1].messages[-1].tool_responses[0].output == "echo: a"
    assert [m.id for m in h.stored()] == [m.id for m in completed(events)]
    assert len([e for e in events if isinstance(e, UsageUpdated)]) == 2
    assert len(h.store.load(h.session.id).ledger.entries) == 2


def test_several_tool_calls_in_one_reply_answer_in_one_message(tmp_path: Path) -> None:
    reply = ScriptedReply(tool_calls=[("echo", {"text": "1"}), ("echo", {"text": "2"})])
    h, _ = scripted(tmp_path, reply, "ok")
    h.turn("go")
    responses = h.session.conversation.messages[2].tool_responses
    assert [r.output for r in responses] == ["echo: 1", "echo: 2"]


def test_context_hooks_are_called_in_contract_order(tmp_path: Path) -> None:
    log: list[str] = []

    class Recording(ContextManager):
        def start_turn(self) -> None:
            log.append("start_turn")

        def before_call(self, request: RequestContext, *, cancel=None):  # type: ignore[override]
            log.append("before_call")
            return iter(())

        def record_call(self, usage, request, *, model, purpose="reply"):  # type: ignore[override]
            log.append("record_call")
            return super().record_call(usage, request, model=model, purpose=purpose)

        def after_call(self, request: RequestContext, *, cancel=None):  # type: ignore[override]
            log.append("after_call")
            return iter(())

    h, provider = scripted(tmp_path, call("echo", {"text": "a"}), "done")
    h.agent.context = Recording(h.session, h.agent.settings, provider)
    h.turn("x")
    assert log == ["start_turn", "before_call", "record_call", "after_call",
                   "before_call", "record_call", "after_call"]


def test_context_exceeded_compacts_then_retries_the_same_step(tmp_path: Path) -> None:
    reactive: list[int] = []

    class Reactive(ContextManager):
        def on_context_exceeded(self, request: RequestContext, *, cancel=None):  # type: ignore[override]
            reactive.append(len(self.session.conversation))
            if len(reactive) > 2:
                raise ContextLengthExceeded("still too long after 2 compactions",
                                            "use a model with a larger context window")
            yield Notification("inline", "compacted")

    h, provider = scripted(tmp_path, ContextLengthExceeded("too long"), "fits now")
    h.agent.context = Reactive(h.session, h.agent.settings, provider)
    events = h.turn("hello")
    assert finished(events).status == "done"
    assert len(provider.requests) == 2
    assert provider.requests[0].messages == provider.requests[1].messages

    provider.add(*[ContextLengthExceeded("too long")] * 3)
    events = h.turn("again")
    end = finished(events)
    assert end.status == "error" and "larger context window" in (end.error or "")
    assert h.stored()[-2].text == "again"  # history kept, then the notice of the error
    assert not h.stored()[-1].metadata.agent_visible


def test_provider_error_ends_the_turn_and_keeps_history(tmp_path: Path) -> None:
    h, provider = scripted(tmp_path, call("echo", {"text": "a"}),
                           ProviderUnavailable("no reply from http://x", "check the server"))
    end = finished(h.turn("do it"))
    assert end.status == "error"
    assert end.error == "no reply from http://x — check the server"
    assert [m.role for m in h.stored()] == ["user", "assistant", "user", "assistant"]
    notice = h.stored()[-1]  # for the user only: the model's history is as it was
    assert not notice.metadata.agent_visible and notice.metadata.user_visible
    assert "The turn stopped: no reply from http://x — check the server" in str(notice.content)
    provider.add("recovered")
    assert finished(h.turn("try again")).status == "done"
    sent = provider.requests[-1].messages
    assert [m.role for m in sent] == ["user", "assistant", "user"]
    assert sent[-1].text.endswith("try again")


def test_no_model_is_a_clear_error_that_changes_nothing(tmp_path: Path) -> None:
    h, _ = scripted(tmp_path)
    h.agent.set_provider(None)
    end = finished(h.turn("hi"))
    assert end.status == "error" and "GOOSE_MODEL" in (end.error or "")
    assert h.stored() == []


def test_max_turns_bounds_model_calls(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", max_turns=3)
    h, provider = scripted(tmp_path, *[call("echo", {"text": str(i)}) for i in range(5)],
                           settings=settings)
    events = h.turn("loop forever")
    assert finished(events).status == "max_turns"
    assert len(provider.requests) == 3
    assert any(isinstance(e, Notification) and "3 model calls" in e.text for e in events)
    # the last tool call was answered: the history is valid to continue from
    last = h.stored()[-1]
    assert last.role == "user" and last.tool_responses[0].output == "echo: 2"


def test_unknown_tool_and_malformed_arguments_become_error_responses(tmp_path: Path) -> None:
    h, provider = scripted(tmp_path, call("nope", {}), call("echo", '{"text": "a'), "sorry")
    events = h.turn("x")
    assert finished(events).status == "done"
    unknown, malformed = [e.response for e in events if isinstance(e, ToolCallFinished)]
    assert unknown.is_error and "no tool named 'nope'" in unknown.output
    assert "echo" in unknown.output  # the model is told what exists
    assert malformed.is_error and "not valid JSON" in malformed.output
    assert '{"text": "a' in malformed.output
    assert not any(isinstance(e, ToolCallStarted) for e in events)
    assert len(provider.requests) == 3


def test_a_tool_that_raises_becomes_an_error_response(tmp_path: Path) -> None:
    class Broken(EchoTool):
        name = "broken"

        def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
            raise RuntimeError("bug in tool")

    h, _ = scripted(tmp_path, call("broken", {}), "ok", tools=ToolRegistry([Broken()]))
    events = h.turn("x")
    response = next(e.response for e in events if isinstance(e, ToolCallFinished))
    assert response.is_error and "RuntimeError: bug in tool" in response.output
    assert finished(events).status == "done"


def test_uncapped_tool_output_is_cut_before_it_is_stored(tmp_path: Path) -> None:
    class Flood(EchoTool):
        name = "flood"

        def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
            return ToolResult("y" * 5_000_000)

    settings = Settings(data_dir=tmp_path / "data", tool_output_max_chars=10_000)
    h, _ = scripted(tmp_path, call("flood", {}), "ok", tools=ToolRegistry([Flood()]),
                    settings=settings)
    h.turn("x")
    output = h.stored()[2].tool_responses[0].output
    assert len(output) < 13_000 and "5,000,000 characters" in output


# -- cancel ---------------------------------------------------------------------------------

class BlockingTool(EchoTool):
    """Runs until the turn is cancelled (like a long command)."""

    name = "block"

    def __init__(self, interrupt: bool = False) -> None:
        super().__init__()
        self.interrupt = interrupt
        self.saw_cancel = False

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if self.interrupt:
            _thread.interrupt_main()  # Ctrl-C while the loop waits on this tool
        self.saw_cancel = ctx.cancel.wait(30)
        return ToolResult("stopped early", is_error=True)


def assert_valid_after_cancel(h: Harness, events: list[Event]) -> None:
    assert finished(events).status == "cancelled"
    stored = h.stored()
    requests = [r for m in stored for r in m.tool_requests]
    responses = {r.id: r for m in stored for r in m.tool_responses}
    assert requests and all(r.id in responses for r in requests)
    cancelled = [responses[r.id] for r in requests]
    assert all(r.is_error and r.output.startswith(CANCELLED_TEXT) for r in cancelled)


def test_cancel_event_during_a_tool_answers_every_open_request(tmp_path: Path) -> None:
    tool = BlockingTool()
    reply = ScriptedReply(tool_calls=[("block", {}), ("echo", {"text": "never"})])
    h, provider = scripted(tmp_path, reply, tools=ToolRegistry([tool, EchoTool()]))
    cancel = threading.Event()

    def on_event(event: Event) -> None:
        if isinstance(event, ToolCallStarted):
            cancel.set()

    events = h.turn("x", on_event=on_event, cancel=cancel)
    assert tool.saw_cancel
    assert_valid_after_cancel(h, events)
    assert len(provider.requests) == 1  # no model call after a cancel
    assert h.agent.tools.get("echo").calls == []  # type: ignore[union-attr]


def test_ctrl_c_during_a_tool_cancels_it_and_the_turn(tmp_path: Path) -> None:
    tool = BlockingTool(interrupt=True)
    h, _ = scripted(tmp_path, call("block", {}), tools=ToolRegistry([tool]))
    events = h.turn("x")
    assert tool.saw_cancel  # the agent passed the Ctrl-C on to the tool
    assert_valid_after_cancel(h, events)


def test_cancel_mid_stream_keeps_the_partial_text_marked_cancelled(tmp_path: Path) -> None:
    long_text = "word " * 200
    h, _ = scripted(tmp_path, ScriptedReply(text=long_text, chunk_chars=10,
                                            tool_calls=[("echo", {"text": "x"})]))
    cancel = threading.Event()
    shown: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, MessageDelta):
            shown.append(event.text)
            if len(shown) == 3:
                cancel.set()

    events = h.turn("write a lot", on_event=on_event, cancel=cancel)
    assert finished(events).status == "cancelled"
    partial = h.stored()[-1]
    assert partial.role == "assistant" and partial.metadata.cancelled
    assert partial.text == "".join(shown) == long_text[:30]
    assert partial.tool_requests == []


def test_an_interrupted_answer_reaches_the_model_marked(tmp_path: Path) -> None:
    h, provider = scripted(tmp_path, ScriptedReply(text="word " * 200, chunk_chars=10),
                           "Sorry, I will be brief.")
    cancel = threading.Event()

    def on_event(event: Event) -> None:
        if isinstance(event, MessageDelta):
            cancel.set()

    h.turn("write a lot", on_event=on_event, cancel=cancel)
    h.turn("shorter please")
    sent = provider.requests[-1].messages
    assert [m.role for m in sent] == ["user", "assistant", "user"]
    assert sent[1].text.startswith("word") and sent[1].text.endswith(INTERRUPTED_MARK)
    assert INTERRUPTED_MARK == "[interrupted by the user]"
    assert INTERRUPTED_MARK not in h.stored()[1].text  # the transcript keeps what streamed


def test_approval_cancel_ends_the_turn(tmp_path: Path) -> None:
    approvals = Approvals(["cancel"])
    h, provider = scripted(tmp_path, ScriptedReply(tool_calls=[("write", {"text": "a"}),
                                                               ("echo", {"text": "b"})]),
                           approve=approvals, mode="approve")
    events = h.turn("x")
    assert_valid_after_cancel(h, events)
    assert len(approvals.asked) == 1 and len(provider.requests) == 1


# -- modes ----------------------------------------------------------------------------------

def test_smart_approve_runs_read_only_tools_and_asks_for_others(tmp_path: Path) -> None:
    approvals = Approvals(["allow_once"])
    reply = ScriptedReply(tool_calls=[("echo", {"text": "r"}), ("write", {"text": "w"})])
    h, _ = scripted(tmp_path, reply, "ok", approve=approvals, mode="smart_approve")
    h.turn("x")
    assert [r.name for r in approvals.asked] == ["write"]
    outputs = [r.output for r in h.stored()[2].tool_responses]
    assert outputs == ["echo: r", "wrote w"]


def test_approve_mode_asks_even_for_read_only_tools(tmp_path: Path) -> None:
    approvals = Approvals(["allow_once"])
    h, _ = scripted(tmp_path, call("echo", {"text": "r"}), "ok", approve=approvals,
                    mode="approve")
    h.turn("x")
    assert [r.name for r in approvals.asked] == ["echo"]


def test_mode_and_prompt_follow_set_mode(tmp_path: Path) -> None:
    h, _ = scripted(tmp_path)
    assert "chat mode" not in h.agent.request_context.system_prompt
    h.agent.set_mode("chat")
    assert "chat mode" in h.agent.request_context.system_prompt
    assert h.agent.request_context.tool_schemas == []  # no tool call in the view yet


def test_chat_mode_sends_tools_only_while_the_view_holds_a_tool_call(tmp_path: Path) -> None:
    h, provider = scripted(tmp_path, "hello", call("echo", {"text": "a"}), "echoed", "fine",
                           mode="chat")
    h.turn("hi")
    assert provider.requests[-1].tools == []  # the model cannot ask for a tool
    h.agent.set_mode("auto")
    h.turn("echo a")
    h.agent.set_mode("chat")
    h.turn("and now?")
    # providers reject a tool call in a request without tools: the schemas come back
    assert [t["name"] for t in provider.requests[-1].tools] == ["echo", "write"]


def test_set_mode_forgets_always_allow_answers(tmp_path: Path) -> None:
    approvals = Approvals(["always_allow", "deny"])
    h, _ = scripted(tmp_path, call("write", {"text": "a"}), call("write", {"text": "b"}), "ok",
                    call("write", {"text": "c"}), "ok", approve=approvals, mode="approve")
    h.turn("x")
    assert [r.arguments for r in approvals.asked] == [{"text": "a"}]  # "b" ran unasked
    assert h.agent.set_mode("approve") == ["write"]
    h.turn("y")
    assert [r.arguments for r in approvals.asked] == [{"text": "a"}, {"text": "c"}]
    assert h.stored()[-2].tool_responses[0].is_error  # denied this time
    assert h.agent.set_mode("auto") == []


def test_requests_are_validated_before_approval(tmp_path: Path) -> None:
    approvals = Approvals()
    h, _ = scripted(tmp_path, call("write", "not json"), "ok", approve=approvals,
                    mode="approve")
    h.turn("x")
    assert approvals.asked == []  # nobody is asked about a call that cannot run


def test_tool_request_ids_pair_up_in_the_agent_view(tmp_path: Path) -> None:
    h, _ = scripted(tmp_path, call("echo", {"text": "a"}), "done")
    h.turn("x")
    view = h.session.conversation.agent_view()
    request = view[1].tool_requests[0]
    assert isinstance(request, ToolRequest)
    assert view[2].tool_responses[0].id == request.id


@pytest.mark.parametrize("mode", ["auto", "smart_approve"])
def test_denied_tools_never_run(tmp_path: Path, mode: str) -> None:
    tool = WriteTool()
    h, _ = scripted(tmp_path, call("write", {"text": "a"}), "ok", tools=ToolRegistry([tool]),
                    approve=Approvals(["deny"]), mode=mode)  # type: ignore[arg-type]
    h.turn("x")
    assert (tool.calls == []) == (mode == "smart_approve")


def test_cancel_during_auto_compaction_ends_the_turn_with_the_history_unchanged(
    tmp_path: Path,
) -> None:
    cancel = threading.Event()

    def summary_after_ctrl_c(_request: object) -> str:
        cancel.set()  # Ctrl-C while the summary is being written
        return '{"user_intent": "too late"}'

    h, provider = scripted(tmp_path, summary_after_ctrl_c, "never sent")
    provider.context_limit_tokens = 2_000
    for i in range(6):
        h.session.conversation.append(Message.user(f"question {i} " + "lorem " * 200))
        h.session.conversation.append(Message.assistant(f"answer {i} " + "ipsum " * 200))
    before = list(h.session.conversation.messages)
    events = h.turn("next question", cancel=cancel)
    assert finished(events).status == "cancelled"
    assert len(provider.requests) == 1  # the summary call; no reply call after the cancel
    assert h.session.conversation.messages[:len(before)] == before
    assert not any(m.metadata.is_summary for m in h.session.conversation)
    assert any("cancelled" in e.text for e in events if isinstance(e, Notification))


def test_the_parse_error_of_malformed_arguments_reads_once_at() -> None:
    from goosectx.providers.openai_format import parse_arguments

    assert parse_arguments('{"text": "a') == (
        None, "arguments are not valid JSON (Unterminated string starting at character 9)")
