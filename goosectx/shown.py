"""Numbers of the outputs a transcript folds: tool results and the model's reasoning.

``/show N`` prints output number N whole; the REPL transcript and ``sessions show`` print the
same numbers (``#3``), because both number the same list: every user-visible tool response and
thinking part of the conversation, in order, from 1. Pure functions, no terminal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from goosectx.conversation import Message, ThinkingContent, ToolRequest, ToolResponse

FOLD_LINES = 12
"""A tool result longer than this many lines is folded in the transcript."""


@dataclass(frozen=True, slots=True)
class NumberedOutput:
    """One output that ``/show N`` can print whole.

    Attributes:
        number: Its number in the session, from 1.
        key: The tool response id, or ``thinking_key(message id, part index)``.
        kind: ``tool_result`` or ``thinking``.
        title: ``shell output``, ``text_editor error``, ``thinking``.
        text: The whole output (as stored).
        diff: For an edit: its unified diff.
    """

    number: int
    key: str
    kind: Literal["tool_result", "thinking"]
    title: str
    text: str
    diff: str | None = None

    @property
    def folded(self) -> bool:
        """True when the transcript draws it folded (too many lines to show whole)."""
        lines = self.text.rstrip("\n").count("\n") + 1
        return lines > FOLD_LINES or self.kind == "thinking" or bool(self.diff)


def thinking_key(message_id: str, index: int) -> str:
    """The key of a message's thinking part number ``index``."""
    return f"{message_id}:thinking:{index}"


def output_keys(message: Message) -> list[str]:
    """Keys of the outputs ``message`` adds to the numbering, in order (none if not shown).

    Lets a reader that goes through messages one at a time (``sessions show``) number as
    :func:`numbered_outputs` does without holding the conversation.
    """
    if not message.metadata.user_visible:
        return []
    return [p.id if isinstance(p, ToolResponse) else thinking_key(message.id, i)
            for i, p in enumerate(message.content)
            if isinstance(p, ToolResponse)
            or (isinstance(p, ThinkingContent) and p.text.strip())]


def numbered_outputs(messages: Iterable[Message]) -> list[NumberedOutput]:
    """Every user-visible tool result and thinking part, numbered from 1 in order."""
    names: dict[str, str] = {}
    out: list[NumberedOutput] = []
    for m in messages:
        for i, p in enumerate(m.content):
            if isinstance(p, ToolRequest):
                names[p.id] = p.name
            if not m.metadata.user_visible:
                continue
            if isinstance(p, ToolResponse):
                what = "error" if p.is_error else "output"
                out.append(NumberedOutput(len(out) + 1, p.id, "tool_result",
                                          f"{names.get(p.id, 'tool')} {what}", p.output, p.diff))
            elif isinstance(p, ThinkingContent) and p.text.strip():
                out.append(NumberedOutput(len(out) + 1, thinking_key(m.id, i), "thinking",
                                          "thinking", p.text))
    return out


def find_output(messages: Iterable[Message], number: int | None) -> NumberedOutput | None:
    """Output ``number``; with ``None`` the last folded one (else the last one); or ``None``."""
    outputs = numbered_outputs(messages)
    if number is None:
        folded = [o for o in outputs if o.folded] or outputs
        return folded[-1] if folded else None
    return outputs[number - 1] if 1 <= number <= len(outputs) else None
