"""The REPL driven through prompt-toolkit pipe input against the scripted provider.

Each test types keys into a pipe, lets the REPL run until Ctrl-D, and asserts the rendered
transcript (a rich console writing to a StringIO) and the saved session.
"""

from __future__ import annotations

import io
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from goosectx.agent import Agent
from goosectx.approval import ApprovalFn
from goosectx.cli.repl import Repl, ReplIO
from goosectx.config import ModelConfig, Settings
from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.session import Session
from goosectx.store import SessionStore
from goosectx.tools.base import ToolContext, ToolRegistry, ToolResult
from goosectx.tools.builtin import default_registry, make_tool_context
from goosectx.usage import Usage

ENTER = "\r"
CTRL_C = "\x03"
CTRL_D = "\x04"
ESC_ENTER = "\x1b\r"
WORTH_COMPACTING = " lorem" * 300
"""Appended to a first question so that a summary can be smaller than the conversation (a
compaction never makes the model's view larger)."""


class World:
    """A data dir with one session, and a way to run the REPL on it."""

    def __init__(self, tmp_path: Path) -> None:
        self.settings = Settings(data_dir=tmp_path / "data", threshold_ratio=0.8)
        self.workdir = tmp_path / "work"
        self.workdir.mkdir()
        self.store = SessionStore(self.settings.data_dir)
        self.session = self.store.create_session(self.workdir, name="demo",
                                                 model="scripted/test-model")
        self.provider = ScriptedProvider()
        self.tools = default_registry()
        self.mode = "approve"

    def agent_factory(self, provider: Any = "default") -> Callable[[ApprovalFn], Agent]:
        chosen = self.provider if provider == "default" else provider

        def build(approve: ApprovalFn) -> Agent:
            return Agent(self.session, self.settings, provider=chosen, tools=self.tools,
                         approve=approve, mode=self.mode,
                         tool_context=make_tool_context(self.settings, self.workdir))

        return build

    def run(self, keys: str, *, provider: Any = "default", session: Session | None = None,
            resumed: bool = False, status: int = 0, width: int = 100, **kwargs: Any) -> str:
        buf = io.StringIO()
        console = Console(file=buf, width=width)
        with create_pipe_input() as pipe:
            pipe.send_text(keys)
            repl = Repl(self.settings, self.store, session or self.session,
                        io=ReplIO(console, input=pipe, output=DummyOutput(), history=False),
                        resumed=resumed, mode=self.mode,
                        agent_factory=self.agent_factory(provider),
                        background_checks=False, **kwargs)
            assert repl.run() == status
        self.repl = repl
        return buf.getvalue()

    def stored(self) -> Session:
        return self.store.load(self.session.id)


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_a_prompt_streams_an_answer_and_is_saved(world: World) -> None:
    world.provider.add(ScriptedReply("The answer is **42**.", chunk_chars=3))
    out = world.run("what is six times seven?" + ENTER + CTRL_D)
    assert "╭─ you" in out and "what is six times seven?" in out
    assert "The answer is 42." in out
    assert "saved · resume with: goosectx --resume demo" in out
    texts = [m.text for m in world.stored().conversation]
    assert texts == ["what is six times seven?", "The answer is **42**."]


def test_esc_enter_makes_a_multi_line_prompt(world: World) -> None:
    world.provider.add("ok")
    world.run("line one" + ESC_ENTER + "line two" + ENTER + CTRL_D)
    assert world.stored().conversation.messages[0].text == "line one\nline two"
    assert world.provider.requests[0].messages[-1].text == "line one\nline two"


def test_approved_tool_call_runs_and_its_output_is_shown(world: World) -> None:
    world.provider.add(ScriptedReply("Let me check.", tool_calls=[
        ("shell", {"command": "echo hello-from-shell"})]), "It printed hello.")
    out = world.run("say hello" + ENTER + "y" + CTRL_D)
    assert "▶ shell  command: echo hello-from-shell" in out
    assert "shell: allow once" in out
    assert "✓ shell output" in out and "hello-from-shell" in out
    assert "It printed hello." in out
    last_request = world.provider.requests[-1].messages
    assert any("hello-from-shell" in r.output for m in last_request for r in m.tool_responses)


def test_denied_tool_call_tells_the_model(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "rm -rf build"})]),
                       "Understood, I will not.")
    out = world.run("clean up" + ENTER + "n" + ENTER + CTRL_D)
    assert "shell: deny" in out and "✗ shell denied by you" in out and "shell error" not in out
    assert "Understood, I will not." in out
    assert not (world.workdir / "build").exists()


def test_cancel_at_the_approval_ends_the_turn_and_keeps_the_history_valid(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "echo x"})]), "fine")
    out = world.run("go" + ENTER + "c" + "next" + ENTER + CTRL_D)
    assert "shell: cancel the turn" in out and "turn cancelled" in out
    assert "fine" in out  # the next turn ran normally
    second = world.provider.requests[1].messages
    assert second[-1].text.endswith("next")
    ids = {r.id for m in second for r in m.tool_requests}
    assert ids and ids == {r.id for m in second for r in m.tool_responses}
    assert any(r.is_error for m in world.stored().conversation for r in m.tool_responses)


def test_always_allow_is_not_asked_again(world: World) -> None:
    world.provider.add(
        ScriptedReply(tool_calls=[("shell", {"command": "echo one"})]),
        ScriptedReply(tool_calls=[("shell", {"command": "echo two"})]),
        "done")
    out = world.run("twice" + ENTER + "a" + CTRL_D)
    assert out.count("shell: always allow") == 1
    assert "one" in out and "two" in out and "done" in out


class _InterruptingTool:
    """Sends the REPL a Ctrl-C (SIGINT) while it runs, then waits to be cancelled."""

    name = "wait"
    description = "waits"
    parameters: dict[str, Any] = {"type": "object", "properties": {}}

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        return True

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        os.kill(os.getpid(), signal.SIGINT)
        cancelled = ctx.cancel.wait(10)
        return ToolResult("stopped" if cancelled else "never cancelled")


def test_ctrl_c_during_a_turn_cancels_it_and_the_session_stays_valid(world: World) -> None:
    world.tools = ToolRegistry([_InterruptingTool()])
    world.mode = "smart_approve"  # read-only: runs without asking
    world.provider.add(ScriptedReply(tool_calls=[("wait", {})]), "back again")
    out = world.run("start" + ENTER + "continue" + ENTER + CTRL_D)
    assert "cancelling…" in out and "turn cancelled" in out
    assert "back again" in out
    request = world.provider.requests[-1].messages
    ids = {r.id for m in request for r in m.tool_requests}
    assert ids == {r.id for m in request for r in m.tool_responses}  # every call answered
    assert request[-1].text == "continue"


def test_ctrl_c_on_an_empty_line_explains_how_to_leave(world: World) -> None:
    world.provider.add("ok")
    # (a Ctrl-C typed right after "hi" + Enter would cancel that turn: the test below)
    out = world.run("hi" + ENTER + "/usage" + ENTER + CTRL_C + CTRL_D)
    assert "Ctrl-D or /exit leaves; the session is saved" in out
    assert "saved · resume with: goosectx --resume demo" in out


def test_exit_command_leaves(world: World) -> None:
    world.provider.add("ok")
    out = world.run("hi" + ENTER + "/exit" + ENTER + "never sent" + ENTER)
    assert "saved · resume with: goosectx --resume demo" in out and "never sent" not in out
    assert len(world.provider.requests) == 1


def test_leaving_a_new_session_without_messages_promises_no_resume(world: World) -> None:
    out = world.run(CTRL_C + "/usage" + ENTER + "/exit" + ENTER)
    assert "nothing to save" in out
    assert "resume with" not in out and "session is saved" not in out


def test_a_resumed_session_without_messages_still_says_how_to_resume(world: World) -> None:
    out = world.run(CTRL_D, resumed=True)
    assert "saved · resume with: goosectx --resume demo" in out


def test_unknown_command_is_a_hint_not_a_model_call(world: World) -> None:
    out = world.run("/contxt" + ENTER + CTRL_D)
    assert "unknown command /contxt" in out and "did you mean /context?" in out
    assert world.provider.requests == []


def test_help_lists_commands_and_the_newline_key(world: World) -> None:
    out = world.run("/help" + ENTER + CTRL_D)
    for name in ("/compact", "/clear", "/mode", "/model", "/usage", "/context", "/history"):
        assert name in out
    assert "Esc then Enter" in out


def test_context_shows_breakdown_limit_threshold_and_distance(world: World) -> None:
    world.provider.context_limit_tokens = 50_000
    out = world.run("/context" + ENTER + CTRL_D)
    for label in ("system prompt", "tool schemas", "messages", "context limit", "50,000",
                  "threshold", "0.8", "at 80% of the limit = 40,000 tokens", "tokens to go"):
        assert label in out, label


def test_usage_lists_compaction_separately(world: World) -> None:
    world.provider.cost_per_call_usd = 0.002
    world.provider.add("first answer", '{"user_intent": "test"}', "second answer")
    out = world.run("hello" + WORTH_COMPACTING + ENTER + "/compact" + ENTER + "again" + ENTER
                    + "/usage" + ENTER + CTRL_D)
    usage_part = out[out.index("usage (tokens)"):]
    replies = next(line for line in usage_part.splitlines() if "replies" in line)
    compaction = next(line for line in usage_part.splitlines() if "compaction" in line)
    assert replies.split()[1] == "2" and "$0.0040" in replies
    assert compaction.split()[1] == "1" and "$0.0020" in compaction
    total = next(line for line in usage_part.splitlines() if line.strip().startswith("total"))
    assert total.split()[1] == "3" and "$0.0060" in total


def test_usage_says_not_reported_for_calls_whose_provider_reported_none(world: World) -> None:
    # A local server streaming without usage: /usage showed its calls as 0 tokens, exact.
    world.provider.add(ScriptedReply("first", usage=None))
    out = world.run("hello" + ENTER + "/usage" + ENTER + CTRL_D)
    total = next(line for line in out[out.index("usage (tokens)"):].splitlines()
                 if line.strip().startswith("total"))
    assert total.split()[1] == "1" and total.count("not reported") == 4, total
    # fresh21b #04: the line under the table says so when every call is unreported too
    assert "1 call reported no usage" in out[out.index("usage (tokens)"):]
    world.provider.add(ScriptedReply("second", usage=Usage.of(500, 20)))
    out = world.run("again" + ENTER + "/usage" + ENTER + CTRL_D, resumed=True)
    lines = out[out.index("usage (tokens)"):].splitlines()
    total = next(line for line in lines if line.strip().startswith("total"))
    assert total.split()[1:5] == ["2", "500", "20", "520"]
    assert any("1 call reported no usage" in line and "not counted" in line for line in lines)


def test_compact_of_a_session_too_small_to_shrink_says_nothing_changed(world: World) -> None:
    world.provider.add("first answer", "second answer")
    out = world.run("hello" + ENTER + "/compact" + ENTER + "again" + ENTER + CTRL_D)
    assert "compaction would grow the context from" in out and "nothing changed" in out
    assert "context compacted" not in out
    assert len(world.provider.requests) == 2  # no summary call: it could not have helped
    stored = world.stored()
    assert not any(m.metadata.is_summary for m in stored.conversation)
    assert [e.purpose for e in stored.ledger.entries] == ["reply", "reply"]


def test_compact_shows_the_rule_and_the_model_sees_the_summary(world: World) -> None:
    world.provider.add("first answer", '{"user_intent": "count things", "next_step": "go on"}',
                       "after compaction")
    out = world.run("hello" + WORTH_COMPACTING + ENTER + "/compact keep it short" + ENTER
                    + "more" + ENTER + "/history agent" + ENTER + CTRL_D)
    assert "context compacted ·" in out and " → " in out and "tokens" in out
    assert "keep it short" in world.provider.requests[1].system + "".join(
        m.text for m in world.provider.requests[1].messages)
    sent = world.provider.requests[2].messages
    assert "count things" in sent[0].text and "first answer" not in "".join(m.text for m in sent)
    agent_view = out[out.index("what the model sees"):]
    assert "summary" in agent_view and "count things" in agent_view
    assert [m.text for m in world.stored().conversation.user_view()][:2] == [
        "hello" + WORTH_COMPACTING, "first answer"]


def test_clear_hides_history_from_the_model_but_not_the_transcript(world: World) -> None:
    world.provider.add("remembered", "fresh start")
    out = world.run("remember 7" + ENTER + "/clear" + ENTER + "what number?" + ENTER
                    + "/history user" + ENTER + CTRL_D)
    assert "context cleared" in out
    assert [m.text for m in world.provider.requests[1].messages] == ["what number?"]
    transcript = out[out.index("transcript ·"):]
    assert "remember 7" in transcript and "remembered" in transcript


def test_mode_command_changes_approval(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "echo auto-ran"})]),
                       "ok")
    out = world.run("/mode auto" + ENTER + "run it" + ENTER + CTRL_D)
    assert "mode: auto" in out and "auto-ran" in out and "allow once" not in out


def test_model_command_switches_provider_and_limit(world: World) -> None:
    other = ScriptedProvider(["from the other model"], model="scripted/other",
                             context_limit_tokens=9_000)
    out = world.run("/model scripted/other" + ENTER + "hi" + ENTER + CTRL_D,
                    provider_factory=lambda name: other)
    assert "model: scripted/other · context limit 9,000 tokens" in out
    assert "from the other model" in out and world.provider.requests == []
    assert world.stored().model == "scripted/other"


def test_resumed_with_history_flag_shows_the_whole_history_with_compactions_marked(
    world: World,
) -> None:
    # Was test_resumed_session_shows_its_history_with_compactions_marked: a plain resume now
    # draws only the tail; --history (full_history) draws everything.
    world.provider.add("first answer", '{"user_intent": "x"}', "second answer", "third answer")
    world.run("first question" + WORTH_COMPACTING + ENTER + "/compact" + ENTER
              + "second question" + ENTER + "third question" + ENTER + CTRL_D)
    resumed = world.stored()
    out = world.run(CTRL_D, session=resumed, resumed=True, full_history=True)
    assert "resumed session demo" in out
    low = out.lower()
    order = [low.index(t) for t in ("first question", "first answer", "context compacted",
                                    "second question", "second answer", "third question",
                                    "third answer", "resumed ·")]
    assert low.count("context compacted") == 1  # its notice and its summary: one mark
    assert order == sorted(order)
    assert "/history user to see them" not in low


def test_resume_draws_only_the_last_turns_and_says_how_many_came_before(world: World) -> None:
    for i in range(30):
        world.store.append_message(world.session.id, Message.user(f"old question {i}"))
        world.store.append_message(world.session.id, Message.assistant(f"old answer {i}"))
    out = world.run(CTRL_D, session=world.stored(), resumed=True)
    assert "old question 29" in out and "old answer 29" in out  # the last turn
    assert "old question 0" not in out and "old answer 27" not in out
    assert "56 earlier messages · /history user to see them" in out
    assert out.index("old answer 29") < out.index("56 earlier messages")


def test_a_resumed_tail_cut_inside_a_long_turn_starts_with_that_turn_s_request(
        world: World) -> None:
    from goosectx.conversation import ToolRequest, ToolResponse

    world.store.append_message(world.session.id, Message.user("old question"))
    world.store.append_message(world.session.id, Message.assistant("old answer"))
    world.store.append_message(world.session.id, Message.user("refactor the parser please"))
    for i in range(30):
        world.store.append_message(world.session.id, Message("assistant", (
            ToolRequest(f"c{i}", "shell", {"command": f"step {i}"}),)))
        world.store.append_message(world.session.id, Message("user", (
            ToolResponse(f"c{i}", f"output {i}"),)))
    out = world.run(CTRL_D, session=world.stored(), resumed=True)
    assert "step 29" in out and "step 0" not in out  # cut inside the turn
    assert "refactor the parser please" in out  # yet the user sees what the turn is for
    assert out.index("refactor the parser please") < out.index("earlier messages of this turn")
    assert out.index("earlier messages of this turn") < out.index("step 29")
    assert "old question" not in out


def test_without_a_model_the_repl_opens_with_one_panel_and_offline_commands_work(
    world: World,
) -> None:
    world.provider.add()  # never called
    out = world.run("hello" + ENTER + "/context" + ENTER + "/usage" + ENTER + "/history"
                    + ENTER + "/compact" + ENTER + CTRL_D, provider=None)
    assert out.count("no model configured") == 1
    assert "GOOSE_MODEL" in out and "OPENAI_API_KEY" in out and "api_base" in out
    assert "context limit" in out and "usage (tokens)" in out
    assert "no model is configured" in out  # the prompt's turn says so, nothing is sent


def test_context_meter_in_the_toolbar(world: World) -> None:
    world.provider.add(ScriptedReply("ok", usage=Usage.of(60_000, 100)))
    world.provider.context_limit_tokens = 100_000
    world.run("hi" + ENTER + CTRL_D)
    toolbar = "".join(text for _style, text in world.repl._toolbar())
    assert "scripted/test-model" in toolbar and "approve" in toolbar
    assert "Context ●●●●●●○○○○ 60% (60,1" in toolbar and "/100,000)" in toolbar


def test_plain_mode_reads_lines_and_prints_no_escape_codes(world: World) -> None:
    world.provider.add(ScriptedReply("Plain **answer**.", tool_calls=[
        ("shell", {"command": "echo piped"})]), "finished")
    buf = io.StringIO()
    console = Console(file=buf, width=100, no_color=True, force_terminal=False)
    stdin = io.StringIO("do it\ny\n/context\n")
    repl = Repl(world.settings, world.store, world.session,
                io=ReplIO(console, plain=True, stdin=stdin, echo=True),
                agent_factory=world.agent_factory(), background_checks=False)
    assert repl.run() == 0
    out = buf.getvalue()
    assert "\x1b" not in out
    assert "> do it" in out and "Plain **answer**." in out and "piped" in out
    assert "finished" in out and "context limit" in out


def test_slash_commands_and_their_arguments_complete() -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from goosectx.cli.prompt import SlashCompleter

    completer = SlashCompleter(lambda: ["openai/gpt-4o-mini", "anthropic/claude"])

    def complete(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert complete("/mo") == ["/mode", "/model"]
    assert complete("/mode s") == ["smart_approve"]
    assert complete("/history ") == ["agent", "user"]
    assert complete("/model open") == ["openai/gpt-4o-mini"]
    assert complete("hello /mo") == []



def test_ctrl_c_during_compact_cancels_it_and_changes_nothing(world: World) -> None:
    from agent_harness import http_settings
    from fakeserver import FakeServer

    from goosectx.providers.litellm_provider import make_provider

    released = threading.Event()

    def slow_summary(_body: dict[str, Any]) -> dict[str, Any]:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the summary is being written
        released.wait(30)  # the server answers only when the test ends
        return {"text": '{"user_intent": "too late"}'}

    with FakeServer([{"text": "first answer"}, slow_summary]) as server:
        world.settings = http_settings(server.base_url, world.settings.data_dir)
        try:
            out = world.run("hello" + WORTH_COMPACTING + ENTER + "/compact" + ENTER + CTRL_D,
                            provider=make_provider(world.settings))
        finally:
            released.set()
    assert "cancelling…" in out and "compaction cancelled; nothing changed" in out.lower()
    assert "context compacted" not in out
    stored = world.stored()
    assert [m.text for m in stored.conversation] == ["hello" + WORTH_COMPACTING, "first answer"]
    assert all(m.metadata.agent_visible for m in stored.conversation)
    assert [e.purpose for e in stored.ledger.entries] == ["reply"]


def test_changing_the_mode_forgets_always_allow_answers(world: World) -> None:
    world.provider.add(
        ScriptedReply(tool_calls=[("shell", {"command": "echo first-ran"})]), "one",
        ScriptedReply(tool_calls=[("shell", {"command": "echo second-ran"})]), "two",
        "(only answered if the n below became a prompt)")
    out = world.run("first" + ENTER + "a" + "/mode approve" + ENTER + "second" + ENTER + "n"
                    + ENTER + CTRL_D)
    assert "shell: always allow" in out and "first-ran" in out
    assert "always-allow answers cleared" in out
    assert "shell: deny" in out and "second-ran\n" not in out.replace("echo second-ran", "")


def test_history_shows_tool_calls_and_results_already_drawn_live(world: World) -> None:
    world.provider.add(ScriptedReply("Checking.", tool_calls=[
        ("shell", {"command": "echo history-tool-ran"})]), "It ran.")
    out = world.run("run it" + ENTER + "y" + "/history user" + ENTER + "/history agent" + ENTER
                    + CTRL_D)
    user_view = out[out.index("transcript ·"):out.index("end of transcript")]
    agent_view = out[out.index("what the model sees"):out.index("end of the model's view")]
    for view in (user_view, agent_view):
        assert "▶ shell  command: echo history-tool-ran" in view
        assert "✓ shell output · 2 lines" in view and "│ history-tool-ran" in view
        assert "run it" in view and "Checking." in view
        assert "It ran." in view  # the model sees its last answer with the next message


def test_history_counts_read_in_the_singular(world: World) -> None:
    from goosectx.conversation import Message

    first = Message.user("only question")
    world.session.conversation.append(first)
    world.store.append_message(world.session.id, first)
    world.tools = ToolRegistry([_InterruptingTool()])
    out = world.run("/history user" + ENTER + "/history agent" + ENTER + CTRL_D)
    assert "transcript · 1 message " in out
    assert "1 tool schema + 1 message " in out
    assert "1 messages" not in out and "1 tool schemas" not in out


def test_usage_context_and_toolbar_show_the_same_current_figure(world: World) -> None:
    import re

    out = world.run("/usage" + ENTER + "/context" + ENTER + CTRL_D)
    usage = re.search(r"current context: ([\d,]+) \(estimate\) of 128,000 tokens", out)
    context = re.search(r"current \(what the trigger uses\)\s+([\d,]+)", out)
    toolbar = "".join(text for _style, text in world.repl._toolbar())
    meter = re.search(r"\(([\d,]+)/128,000 est\.\)", toolbar)
    assert usage and context and meter, (out, toolbar)
    assert usage[1] == context[1] == meter[1] and usage[1] != "0"


def test_plain_mode_banner_and_help_give_plain_hints_not_terminal_keys(world: World) -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=100, no_color=True, force_terminal=False,
                      soft_wrap=True)  # as ReplIO.for_terminal makes it
    repl = Repl(world.settings, world.store, world.session,
                io=ReplIO(console, plain=True, stdin=io.StringIO("/help\n"), echo=True),
                agent_factory=world.agent_factory(), background_checks=False)
    assert repl.run() == 0
    out = buf.getvalue()
    banner = "".join(out.splitlines(keepends=True)[:3])
    assert "one line per message" in banner and "end of input" in banner
    for key in ("Esc", "Ctrl-C"):
        assert key not in out, key


def test_a_bug_in_a_turn_prints_its_traceback_and_the_repl_goes_on(world: World) -> None:
    world.provider.add(RuntimeError("boom in the provider"), "the second answer")
    out = world.run("first" + ENTER + "second" + ENTER + CTRL_D)
    assert "bug: RuntimeError: boom in the provider" in out
    assert "please report this with the traceback" in out and "Traceback" in out
    assert "the second answer" in out  # the REPL went on to the next prompt


def test_an_answer_cut_at_the_output_limit_is_shown_with_a_notice_and_kept(world: World) -> None:
    world.provider.add(ScriptedReply("Step one: open the", finish_reason="length"))
    out = world.run("list the steps" + ENTER + CTRL_D)
    answer, notice = out.index("Step one: open the"), out.index("cut off")
    assert answer < notice
    line = " ".join(out[notice:].split("●")[0].split())  # the notice, unwrapped
    assert "output limit" in line and "max_output_tokens" in line, out
    assert [m.text for m in world.stored().conversation][-1] == "Step one: open the"


def test_a_cut_answer_names_the_configured_output_limit(world: World) -> None:
    world.settings.models = {"scripted/test-model": ModelConfig(max_output_tokens=300)}
    world.provider.add(ScriptedReply("Step one: open the", finish_reason="length"))
    out = world.run("list the steps" + ENTER + CTRL_D)
    line = " ".join(out[out.index("cut off"):].split("●")[0].split())
    assert "max_output_tokens = 300" in line and '[models."scripted/test-model"]' in line, out


def test_ctrl_c_typed_right_after_enter_cancels_that_turn(world: World) -> None:
    """Read with the line (the prompt still had the keyboard), it is not left for the next
    prompt while the answer streams to its end."""
    world.provider.add("the whole answer")
    out = world.run("second" + ENTER + CTRL_C + "/usage" + ENTER + CTRL_D)
    assert "turn cancelled" in out and "the whole answer" not in out
    assert "Ctrl-D or /exit leaves" not in out
    assert "/usage" not in out or "tokens" in out  # the line typed after it still ran


def test_history_agent_numbers_a_merged_message_as_the_transcript(world: World) -> None:
    """The model's view merges a cancelled turn's results with the next message: its
    attachment keeps its session number (#2), not a new one."""
    from goosectx.attachment import Attachment
    from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse

    messages = [
        Message.user("q"),
        Message("assistant", (ToolRequest("c1", "shell", {"command": "echo r1"}),)),
        Message("user", (ToolResponse("c1", "r1-out"),)),
        Message("user", (TextContent("look"), Attachment(
            "file", "notes.txt", "text/plain", text="".join(f"n{i}\n" for i in range(40)),
            token_estimate=80))),
        Message.assistant("ok"),
    ]
    for m in messages:
        world.session.conversation.append(m)
        world.store.append_message(world.session.id, m)
    out = world.run("/history agent" + ENTER + CTRL_D)
    view = out[out.index("what the model sees"):]
    assert "#2 (/show 2)" in view, view
    assert "#3" not in view, view


def test_ctrl_c_while_history_prints_stops_the_listing_not_the_repl(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.cli import message_view

    def interrupted(self: Any, messages: Any) -> None:
        raise KeyboardInterrupt  # the user's Ctrl-C, mid-listing

    world.provider.add("still here")
    monkeypatch.setattr(message_view.MessageView, "history", interrupted)
    out = world.run("/history user" + ENTER + "hello" + ENTER + CTRL_D)
    assert "stopped (Ctrl-C)" in out
    assert "still here" in out  # the next prompt was read and answered
    assert "saved · resume with: goosectx --resume demo" in out
