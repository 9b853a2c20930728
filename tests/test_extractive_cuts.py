"""What a shortened summary item still says: the error of a failing command, whole words."""

from __future__ import annotations

from goosectx.compaction.extractive import extractive_summary
from goosectx.compaction.summary import StructuredSummary, render_markdown
from goosectx.conversation import (
    Message,
    MessageMetadata,
    TextContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.tokens import TokenCounter

COUNTER = TokenCounter()
ERROR = "ModuleNotFoundError: No module named 'nonexistent_mod_xyz'"
TASK = "Refactor the app. You must never touch tests/."


def call(call_id: str, command: str) -> Message:
    return Message("assistant", (ToolRequest(call_id, "shell", {"command": command}),))


def result(call_id: str, output: str) -> Message:
    return Message("user", (ToolResponse(call_id, output, False),))


def session(task: str = TASK) -> list[Message]:
    out = [Message.user(task), call("e", "python3 -c 'import nonexistent_mod_xyz'"),
           result("e", f"Traceback (most recent call last):\n  File \"<string>\"\n{ERROR}\n"
                       "[exit code: 1]")]
    for i in range(6):
        out += [call(f"s{i}", f"seq {i * 1000} {i * 1000 + 500} | sed 's/$/ line of output/'"),
                result(f"s{i}", "\n".join(f"{n} line of output" for n in range(40)))]
    return out


def errors_line(summary: StructuredSummary) -> str:
    return "\n".join(summary.errors_and_fixes)


def summary_message(text: str) -> Message:
    return Message("user", (TextContent(text),), MessageMetadata(user_visible=False,
                                                                 is_summary=True))


def sent_again_after_a_summary(whole: str, *listed: str) -> list[Message]:
    """A summary whose user messages are ``listed`` (one of them cut), then ``whole`` sent
    again and answered."""
    earlier = "# Conversation Summary\n\n## User messages\n\n" + "".join(
        f"- {item}\n" for item in listed)
    return [summary_message(earlier), Message.user(whole), Message.assistant("ok")]


def test_a_shortened_error_item_keeps_the_error_and_cuts_the_command() -> None:
    for budget in (400, 300, 250, 200, 160):
        summary = extractive_summary(session(), max_tokens=budget, counter=COUNTER)
        assert ERROR in errors_line(summary), (budget, render_markdown(summary))


def test_a_carried_summary_keeps_the_error_at_every_later_compaction() -> None:
    messages = session()
    for _ in range(4):  # each summary is the head of the next compaction
        text = render_markdown(extractive_summary(messages, max_tokens=200, counter=COUNTER))
        assert ERROR in text, text
        assert "nonexistent […]" not in text and " […] nexistent" not in text, text
        messages = [summary_message(text), *session()[3:]]


def test_a_shortened_text_is_cut_between_words() -> None:
    task = ("Refactor the application carefully. " * 12) + TASK
    words = set(task.split())
    cuts = 0
    for budget in (400, 250, 160, 120, 100):
        summary = extractive_summary(session(task), max_tokens=budget, counter=COUNTER)
        head, cut, tail = summary.user_intent.partition(" […] ")
        cuts += bool(cut)
        assert set(head.split()) <= words and set(tail.split()) <= words, summary.user_intent
    assert cuts >= 2


def test_a_shortened_constraint_is_not_listed_beside_the_whole_one() -> None:
    from goosectx.compaction.facts import merge_facts

    whole = "Refactor the app. Keep the API. You must never touch tests/."
    head = sent_again_after_a_summary(whole, "Refactor the app. Keep […] never touch tests/.")
    text = merge_facts("", head, max_tokens=2000, counter=COUNTER)
    constraints = text.split("## User constraints", 1)[1]
    assert whole in constraints
    assert "[…]" not in constraints, constraints


def test_a_shortened_user_message_is_not_listed_beside_the_whole_one() -> None:
    whole = "Refactor the app. Keep the API stable for callers. You must never touch tests/."
    head = sent_again_after_a_summary(whole, "Refactor the app. Keep […] never touch tests/.",
                                      "Also add a CLI.")
    listed = extractive_summary(head, max_tokens=2000, counter=COUNTER).user_messages
    assert listed == [whole, "Also add a CLI."] or listed == ["Also add a CLI.", whole], listed


def test_each_request_is_compared_with_the_summary_cuts_only(monkeypatch) -> None:  # noqa: ANN001
    # A long session after a summary with a shortened item: every new request was checked
    # against every earlier one (10k messages: +0.3 s of a 0.5 s dry run; 100k: minutes).
    import goosectx.compaction.carry as carry
    import goosectx.compaction.gather as gather

    checked: list[str] = []
    real = getattr(carry, "is_shortened", None) or carry._shortened  # type: ignore[attr-defined]

    def counted(item: str) -> bool:
        checked.append(item)
        return bool(real(item))

    for module, name in ((carry, "is_shortened"), (carry, "_shortened"),
                         (gather, "is_shortened")):
        monkeypatch.setattr(module, name, counted, raising=False)
    earlier = ("# Conversation Summary\n\n## User messages\n\n"
               "- Refactor the app. Keep […] never touch tests/.\n- Also add a CLI.\n")
    head = [Message("user", (TextContent(earlier),),
                    MessageMetadata(user_visible=False, is_summary=True))]
    for i in range(2000):
        head += [Message.user(f"request number {i}"), Message.assistant("ok")]
    facts = gather.gather_facts(head)
    assert len(checked) <= 3 * 2000, len(checked)  # about one look per request, not n²
    assert "Refactor the app. Keep […] never touch tests/." in facts.requests  # never came whole
