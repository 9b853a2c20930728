"""A model's reply redacted before it is stored, run or sent back (docs/architecture.md §2).

Every text of it: its answer and reasoning, its tool calls' arguments, names and ids; a key
split between two neighbouring texts too (:mod:`goosectx.redaction_joined`), and a piece of
one (:mod:`goosectx.redaction_fragments`). Part of the
core: never prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from goosectx.message import Message
from goosectx.parts import Part, TextContent, ThinkingContent, ToolRequest
from goosectx.redaction import REDACTED, Redactor
from goosectx.redaction_fragments import fragments_of, vendor_prefix_chars
from goosectx.redaction_joined import crossing_cuts, with_cuts
from goosectx.secret_names import MIN_SECRET_CHARS
from goosectx.secret_tail import CUT_CHARS, SecretTail


def redacted_reply(message: Message, redact: Callable[[str], str]) -> Message:
    """``message`` (the model's) with ``redact`` (this environment's secrets) applied to it.

    Its text, reasoning, and tool calls' arguments, names and ids: a key the model was given
    and writes back is neither stored, exported, shown whole, run nor sent back (README,
    "Security"). Reasoning that changes loses its signature (a provider refuses the pair);
    an id or a name reads ``REDACTED`` (no brackets: a provider takes letters, digits, ``_``
    and ``-``). A text or reasoning that ends in the start of a key (12+ characters: a reply
    cut by Ctrl-C, an error or the output limit) has that start redacted too, as it was
    shown (:meth:`goosectx.secret_tail.SecretTail.cut_short`; when ``redact`` lists its
    ``secrets``). A key split between two neighbouring texts (the reasoning's end and the
    answer's start, two text parts, two argument values) is redacted in both
    (:mod:`goosectx.redaction_joined`), and so is any run of 13+ of a key's characters in
    one (:mod:`goosectx.redaction_fragments`: a key bounced between reasoning and answer).
    ``message`` itself when it held no secret (the common case).
    """
    tail = SecretTail.of(redact)
    texts = [t for p in message.content for t in _texts(p)]
    cuts = crossing_cuts(texts, redact)
    order = iter(range(len(texts)))
    pieces = fragments_of(redact)
    if pieces is not None and not pieces.found_in("\0".join(texts)):
        pieces = None  # (one look at them all: a reply of many short texts)

    def redacted(text: str, each: Callable[[str], str]) -> str:
        done = with_cuts(text, cuts.get(next(order)), each)
        return done if pieces is None else pieces(done)

    parts = [_redacted_part(p, redact, tail, redacted) for p in message.content]
    if all(a is b for a, b in zip(parts, message.content, strict=True)):
        return message
    return replace(message, content=tuple(parts))


def without_shares(message: Message, shares: list[str]) -> Message:
    """``message`` with each raw piece of a key found across a join live redacted (12+ chars).

    The answer's text, reasoning, then more text streams as one reasoning part and one text
    part: a key whose start ended the first text and whose rest began the reasoning is no
    longer side by side in them (:func:`redacted_reply` reads only neighbours joined). What
    the live deltas redacted of it (``shares``: :func:`goosectx.stream_reply.stream_reply`'s)
    is redacted wherever it is: one of 12+ characters, or of 8+ after a vendor prefix
    (:func:`goosectx.redaction_fragments.vendor_prefix_chars`: a 24-character key split 14 and
    10 kept its 10 as they were); shorter pieces say too little, and redacted wherever they
    are they would hide ordinary words (``sk-proj-`` alone too). The finished reply and the
    one a cancel keeps (:func:`goosectx.turn.close_cancelled`) alike.
    """
    pieces = [s for s in shares if len(s.strip()) >= CUT_CHARS or len(s.strip())
              - vendor_prefix_chars(s.strip(), rest=0) >= MIN_SECRET_CHARS]
    if not pieces:
        return message
    return redacted_reply(message, _Each(pieces))


class _Each:
    """Redacts each of ``pieces`` wherever it is, overlapping ones as one span.

    One :class:`Redactor` of them all takes the leftmost match: a short piece (a join's
    share of the answer's first characters) would hide the start of a longer one that runs
    on (a part's pieces of a key that took turns), whose rest would show.
    """

    def __init__(self, pieces: list[str]) -> None:
        self.secrets = sorted(set(pieces), key=len, reverse=True)
        self._each = [Redactor([p]) for p in self.secrets]

    def __call__(self, text: str) -> str:
        spans = sorted(span for redact in self._each for span in redact.spans(text))
        out: list[str] = []
        pos = 0
        for start, end in spans:
            if end <= pos:
                continue
            if start >= pos:
                out += [text[pos:start], REDACTED]
            out.append("\n" * text[max(start, pos):end].count("\n"))  # (its lines kept)
            pos = end
        return "".join(out) + text[pos:]


def _texts(part: Part) -> list[str]:
    """``part``'s texts a key may run across into the next's, in :func:`_redacted_part`'s order.

    A text or reasoning; a tool call's argument values (each string, depth first), then its
    raw arguments.
    """
    if isinstance(part, TextContent | ThinkingContent):
        return [part.text]
    if not isinstance(part, ToolRequest):
        return []
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(part.arguments)
    if part.raw_arguments is not None:
        found.append(part.raw_arguments)
    return found


def _redacted_part(part: Part, redact: Callable[[str], str], tail: SecretTail | None,
                   redacted: Callable[[str, Callable[[str], str]], str]) -> Part:
    """``part`` redacted; ``redacted(text, each)`` does each of its :func:`_texts`, in order."""
    if isinstance(part, TextContent | ThinkingContent):
        text = redacted(part.text, lambda t: redact(t if tail is None else tail.cut_short(t)))
        if isinstance(part, TextContent):
            return part if text == part.text else replace(part, text=text)
        return part if text == part.text else replace(part, text=text, signature=None)
    if isinstance(part, ToolRequest):
        def plain(value: str) -> str:
            return redact(value).replace("[REDACTED]", "REDACTED")

        def scrub(value: Any) -> Any:
            if isinstance(value, str):
                return redacted(value, redact)
            if isinstance(value, dict):
                return {redact(k): scrub(v) for k, v in value.items()}
            if isinstance(value, list):
                return [scrub(v) for v in value]
            return value

        arguments = scrub(part.arguments)
        raw = None if part.raw_arguments is None else redacted(part.raw_arguments, redact)
        clean = replace(part, id=plain(part.id), name=plain(part.name), arguments=arguments,
                        parse_error=None if part.parse_error is None else redact(part.parse_error),
                        raw_arguments=raw)
        return part if clean == part else clean
    return part
