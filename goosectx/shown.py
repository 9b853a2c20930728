"""Numbers of what a transcript folds: tool results, the model's reasoning, attached files.

``/show N`` prints output number N whole; the REPL transcript and ``sessions show`` print the
same numbers (``#3``), because both number the same list: every user-visible tool response,
thinking part, text attachment (an ``@path`` file) and ``!command`` output of the
conversation, in order, from 1.
Pure functions, no terminal (docs/architecture.md, "The message model").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from goosectx.conversation import (
    Attachment,
    Message,
    Part,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.shell_escape import escape_command, is_shell_escape, shell_escape_key

FOLD_LINES = 12
"""A tool result longer than this many lines is folded in the transcript."""
LINE_MAX_CHARS = 400
"""Characters of one output line the transcript shows before it cuts the line."""


@dataclass(frozen=True, slots=True)
class NumberedOutput:
    """One output that ``/show N`` can print whole.

    Attributes:
        number: Its number in the session, from 1.
        key: ``result_key``, ``thinking_key`` or ``attachment_key`` (message id, part index):
            tool-call ids may repeat in a session (a model that numbers its calls per reply).
        kind: ``tool_result`` or ``thinking``.
        title: ``shell output``, ``text_editor error``, ``thinking``.
        text: The whole output (as stored).
        diff: For an edit: its unified diff.
    """

    number: int
    key: str
    kind: Literal["tool_result", "thinking", "attachment"]
    title: str
    text: str
    diff: str | None = None

    @property
    def folded(self) -> bool:
        """True when the transcript draws it folded (too many lines, or a line too long)."""
        lines = self.text.rstrip("\n").count("\n") + 1
        return (lines > FOLD_LINES or self.kind != "tool_result" or bool(self.diff)
                or has_long_line(self.text))


def has_long_line(text: str) -> bool:
    """True when a line of ``text`` is longer than :data:`LINE_MAX_CHARS` (it is cut)."""
    return len(text) > LINE_MAX_CHARS and any(
        len(line) > LINE_MAX_CHARS for line in text.split("\n"))


def thinking_key(message_id: str, index: int) -> str:
    """The key of a message's thinking part number ``index``."""
    return f"{message_id}:thinking:{index}"


def result_key(message_id: str, index: int) -> str:
    """The key of a message's tool response part number ``index``."""
    return f"{message_id}:result:{index}"


def attachment_key(message_id: str, index: int) -> str:
    """The key of a message's text attachment part number ``index`` (an ``@path`` file)."""
    return f"{message_id}:attachment:{index}"


def _numbered_parts(message: Message) -> Iterator[tuple[Part, str]]:
    """(part, key) of each part of ``message`` the numbering counts, in order."""
    if not message.metadata.user_visible:
        return
    if is_shell_escape(message):  # a ``!command``: its output part
        yield message.content[1], shell_escape_key(message.id)
        return
    for i, p in enumerate(message.content):
        if isinstance(p, ToolResponse):
            yield p, result_key(message.id, i)
        elif isinstance(p, ThinkingContent) and p.text.strip():
            yield p, thinking_key(message.id, i)
        elif isinstance(p, Attachment) and p.is_text:
            yield p, attachment_key(message.id, i)


def output_keys(message: Message) -> list[str]:
    """Keys of the outputs ``message`` adds to the numbering, in order (none if not shown).

    Lets a reader that goes through messages one at a time (``sessions show``, the live
    transcript) number as :func:`numbered_outputs` does without holding the conversation.
    """
    return [key for _p, key in _numbered_parts(message)]


def numbered_outputs(messages: Iterable[Message]) -> list[NumberedOutput]:
    """Every user-visible tool result, thinking part and text attachment, numbered from 1."""
    names: dict[str, str] = {}
    out: list[NumberedOutput] = []
    for m in messages:
        names.update((p.id, p.name) for p in m.content if isinstance(p, ToolRequest))
        for p, key in _numbered_parts(m):
            n = len(out) + 1
            if isinstance(p, ToolResponse):
                what = "error" if p.is_error else "output"
                out.append(NumberedOutput(n, key, "tool_result",
                                          f"{names.get(p.id, 'tool')} {what}", p.output, p.diff))
            elif isinstance(p, Attachment):
                out.append(NumberedOutput(n, key, "attachment", f"attached {p.source}",
                                          p.text or ""))
            elif isinstance(p, ThinkingContent):
                out.append(NumberedOutput(n, key, "thinking", "thinking", p.text))
            elif isinstance(p, TextContent):  # a ``!command``'s output
                out.append(NumberedOutput(n, key, "tool_result", f"! {escape_command(m)}",
                                          p.text))
    return out


def find_output(messages: Iterable[Message], number: int | None) -> NumberedOutput | None:
    """Output ``number``; with ``None`` the last folded one (else the last one); or ``None``."""
    outputs = numbered_outputs(messages)
    if number is None:
        folded = [o for o in outputs if o.folded] or outputs
        return folded[-1] if folded else None
    return outputs[number - 1] if 1 <= number <= len(outputs) else None


def view_numbers(view: Iterable[Message], stored: Iterable[Message]) -> dict[str, int]:
    """The session's numbers of the outputs of ``view`` (the model's view), by their view keys.

    The model's view merges and reorders messages, so its keys (message id, part index) are
    not the stored ones: each of its parts is found by identity among the stored numbered
    parts, so ``sessions show --agent`` prints the numbers ``/show N`` and the transcript use.
    """
    by_part: dict[int, int] = {}
    for m in stored:
        for p, _key in _numbered_parts(m):
            by_part[id(p)] = len(by_part) + 1
    out: dict[str, int] = {}
    for m in view:
        escape = is_shell_escape(m)
        for i, p in enumerate(m.content):
            number = by_part.get(id(p))
            if number is None:
                continue
            if escape and i == 1:
                out[shell_escape_key(m.id)] = number
            elif isinstance(p, ToolResponse):
                out[result_key(m.id, i)] = number
            elif isinstance(p, ThinkingContent):
                out[thinking_key(m.id, i)] = number
            elif isinstance(p, Attachment):
                out[attachment_key(m.id, i)] = number
    return out
