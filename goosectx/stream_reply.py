"""One streamed model call of the agent loop: text deltas out, the final response back.

Part of the core (docs/architecture.md §3): yields events, never prints.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import replace

from goosectx.compaction.figures import RequestContext
from goosectx.config import Settings
from goosectx.conversation import Conversation
from goosectx.errors import MalformedModelReply
from goosectx.events import Event, MessageDelta, Notification, ReasoningDelta
from goosectx.message import Message
from goosectx.parts import TextContent, ThinkingContent, ToolRequest
from goosectx.providers.base import (
    Provider,
    ProviderResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from goosectx.redaction import REDACTED
from goosectx.redaction_fragments import fragments_of
from goosectx.redaction_joined import after, crossing_cuts, turn_shares
from goosectx.redaction_reply import without_shares
from goosectx.secret_tail import SecretTail, settled_end

_SPACE = re.compile(r"\s")
_CHAIN_CHARS = 4096
"""The most of the other part's text a part reads its next delta after (a key's forms and a
word fit, with room)."""
WRITING_INTERVAL_S = 0.25
"""Least time between two progress texts of a streaming tool call (and before the first)."""


def stream_reply(
    provider: Provider, request: RequestContext, conversation: Conversation,
    streamed: list[str], cancel: threading.Event, reasoned: list[str] | None = None,
    notices: Callable[[], list[str]] | None = None,
    writing: Callable[[str], None] | None = None,
    redact: Callable[[str], str] | None = None, shares: list[str] | None = None,
) -> Generator[Event, None, ProviderResponse]:
    """Stream one call, yielding text and reasoning deltas; returns the final response.

    ``streamed`` (the answer text) and ``reasoned`` (the reasoning text) are cleared, then
    collect what arrived so far, so a cancel can keep it. Each chunk costs O(its length).
    ``notices`` (the spending cap's, e.g. "cannot be enforced for this model") are yielded as
    inline notifications once the call is under way. ``writing`` gets a long tool call's
    progress while its arguments stream ("writing tool call shell… 120 KB"), at most every
    :data:`WRITING_INTERVAL_S` (a front end's spinner text; nothing is yielded or stored).
    With ``redact`` (this environment's secrets) the deltas yielded are redacted, each text
    held back from its last whitespace, and from a tail that could still become a key (split
    by whitespace, encoded: :mod:`goosectx.secret_tail`, when ``redact`` lists its
    ``secrets``), until what follows or its end settles it (a key still arriving is shown
    and saved neither whole nor in part; one cut short by the end, a Ctrl-C or an error is
    shown ``[REDACTED]``); ``streamed`` and ``reasoned`` still get the text as it arrived.
    A streaming tool call's progress text is redacted too (its name is the model's).
    ``shares`` (cleared) collects the raw pieces of a key the live deltas found across a join
    of the answer and the reasoning, and each part's pieces of a key that took turns between
    them (:func:`goosectx.redaction_joined.turn_shares`), so what a cancel keeps is redacted
    as the finished reply is (:func:`goosectx.redaction_reply.without_shares`).

    Raises:
        MalformedModelReply: the stream ended without a final response.
    """
    streamed.clear()
    if reasoned is not None:
        reasoned.clear()
    final: ProviderResponse | None = None
    next_writing_s: float | None = None
    stream = provider.stream(request.system_prompt, conversation.agent_view(),
                             request.tool_schemas, cancel=cancel)
    for text in notices() if notices is not None else ():
        yield Notification("inline", text)
    found = shares if shares is not None else []
    found.clear()
    answer, reasoning = _Settled(redact, found), _Settled(redact, found)
    turns: list[tuple[bool, str]] = []  # (reasoning?, text) as they arrived, when redacting
    try:
        for item in stream:
            if isinstance(item, TextDelta):
                streamed.append(item.text)
                if redact is not None:
                    turns.append((False, item.text))
                if shown := reasoning.pause():  # the reasoning paused: its rest comes first
                    yield ReasoningDelta(shown)
                answer.follow(reasoning)  # (a key's start it held may go on in the answer)
                if shown := answer.feed(item.text):
                    yield MessageDelta(shown)
            elif isinstance(item, ThinkingDelta):
                if reasoned is not None:
                    reasoned.append(item.text)
                if redact is not None:
                    turns.append((True, item.text))
                if shown := answer.pause():  # (the rare text before reasoning: in order)
                    yield MessageDelta(shown)
                reasoning.follow(answer)
                if shown := reasoning.feed(item.text):
                    yield ReasoningDelta(shown)
            elif isinstance(item, ToolCallDelta):
                yield from _ended(reasoning, answer)  # a call's arguments: the text ended
                if writing is not None:
                    now_s = time.monotonic()
                    if next_writing_s is None:
                        next_writing_s = now_s + WRITING_INTERVAL_S
                    elif now_s >= next_writing_s:
                        next_writing_s = now_s + WRITING_INTERVAL_S
                        said = writing_text(item)  # (its name is the model's)
                        writing(said if redact is None else redact(said))
            elif isinstance(item, ProviderResponse):
                final = item
    except (Exception, KeyboardInterrupt):  # a cancel or an error: what was held back is
        # shown before it ends (a Ctrl-C raised here too: the word it cut is not lost)
        yield from _ended(reasoning, answer)
        if redact is not None:
            found += turn_shares(turns, redact)
        raise
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    yield from _ended(reasoning, answer)
    if redact is not None:
        found += turn_shares(turns, redact)
    if final is None:
        raise MalformedModelReply("the model's stream ended without a reply")
    message = without_shares(unique_call_ids(final.message), found)
    return final if message is final.message else replace(final, message=message)


def _ended(reasoning: _Settled, answer: _Settled) -> list[Event]:
    """The deltas of what ``reasoning`` and ``answer`` held back, in that order."""
    shown = reasoning.flush(), answer.flush()
    return [e for e in (ReasoningDelta(shown[0]) if shown[0] else None,
                        MessageDelta(shown[1]) if shown[1] else None) if e is not None]


class _Settled:
    """One streamed part, passed on redacted as far as no later delta can join it to a key.

    That is up to its last whitespace (a word appears whole) and never past a tail that could
    still become a secret (:mod:`goosectx.secret_tail`: a key split by whitespace, percent-
    encoded...); the rest is held back, at most a long word or a secret's forms long. Each
    delta costs O(its length + that bound). Without a redactor, every delta passes at once.

    When the other part interrupts this one (:meth:`pause`: reasoning between two pieces of
    the answer), what was held is shown as a key cut short is, and kept: the next delta is
    joined to it, so a key split by the other part is redacted whole and its end is not
    shown as new text (what the joined text adds to what was shown is passed on). And what
    the other part held then is this one's lead (:meth:`follow`): a key whose start ended
    the reasoning and whose rest starts the answer is held and redacted read after it
    (:mod:`goosectx.redaction_joined`), until this part passes text on.
    """

    def __init__(self, redact: Callable[[str], str] | None, shares: list[str]) -> None:
        self._redact = redact
        self._tail = SecretTail.of(redact)
        self._pieces = fragments_of(redact)  # a key's 12+ characters alone, redacted too
        self._held = ""
        self._lead = ""  # the other part's held text, right before this part's (raw)
        self.shares = shares
        """Raw pieces of a key found across the lead's join (both sides'; one list for the
        answer and the reasoning): the reply as the provider puts it together may not have
        them side by side (:func:`goosectx.redaction_reply.without_shares`)."""
        self._last = False  # the last delta was this part's
        self._long = False  # in a word too long to wait for: passed on as it comes
        self._shown_chars = 0  # the first characters of ``_held`` were shown (a pause) …
        self._shown = ""  # … as this
        self._offered: str | None = None  # the other part's lead and held text (follow)

    def follow(self, other: _Settled) -> None:
        """Go on after ``other``: what it holds (its last delta was the last) leads this text.

        With its lead: the text it holds then reads on from that (the stream's order), however
        many times the parts took turns since a text was passed on. When this part holds
        text itself, that order is offered to the next delta (:meth:`_rebased`).
        """
        if not other._last:
            return
        other._last = False
        if self._redact is None:
            return
        chain = (other._lead + other._held)[-_CHAIN_CHARS:]
        if not self._held:
            self._lead = chain
        else:
            self._offered = chain

    def feed(self, text: str) -> str:
        self._last = True
        if self._redact is None:
            return text
        if self._offered is not None:
            self._rebased(self._offered, text)
        pending = self._held + text
        self._long = self._long and _SPACE.search(text) is None
        lead = self._lead
        end = max(0, settled_end(lead + pending, self._tail, in_long_word=self._long)
                  - len(lead))
        if end and end <= self._shown_chars:  # nothing new settled past what a pause showed
            end = 0
        self._long = not pending[end - 1].isspace() if end else self._long
        self._held = pending[end:]
        if not end:
            return ""
        self._lead = ""
        settled = pending[:end]
        redacted = self._clean(after(lead, settled, self._redact, self.shares) if lead
                               else self._redact(settled))
        return self._past_shown(settled, redacted, reset=True)

    def _rebased(self, chain: str, text: str) -> None:
        """Read ``text`` after ``chain`` (the stream's order) when a key runs on from it.

        This part held text when the other one took its turn (shown by :meth:`pause`); the
        other's text then went on from it (``chain``: its lead and its held text). A key
        whose pieces took turns between the parts (each too short to say anything) runs
        from ``chain`` into ``text``: what this part held is dropped as shown, and ``chain``
        leads ``text``. Otherwise ``text`` goes on after what this part held (a key split
        by the other part's words).
        """
        self._offered = None
        assert self._redact is not None
        if not self._held or not chain or self._tail is None:
            return
        if (self._tail.start(chain + text) >= len(chain)
                and not crossing_cuts((chain, text), self._redact)):
            return
        self._held, self._lead, self._long = "", chain, False
        self._shown_chars, self._shown = 0, ""

    def pause(self) -> str:
        """The other part begins: what was held, redacted (a key's start too), still held."""
        if not self._held or self._redact is None:
            return ""
        shown = self._cut(self._held)
        added = self._past_shown(self._held, shown, reset=False)
        self._shown_chars, self._shown = len(self._held), shown
        return added

    def flush(self) -> str:
        """The part ended (or the stream stopped): what was held, redacted, a key's start too."""
        held, self._held = self._held, ""
        shown = held if not held or self._redact is None else self._past_shown(
            held, self._cut(held), reset=True)
        self._lead = ""
        return shown

    def _clean(self, redacted: str) -> str:
        """``redacted`` with a piece of a key (12+ of its characters) redacted too."""
        return redacted if self._pieces is None else self._pieces(redacted)

    def _cut(self, held: str) -> str:
        """``held`` redacted as the end of a text: a key's start at its end too."""
        return self._clean(self._cut_redacted(held))

    def _cut_redacted(self, held: str) -> str:
        redact = self._redact
        assert redact is not None
        if self._tail is None:
            return redact(held)
        lead = self._lead
        if not lead:
            return redact(self._tail.cut_short(held))
        joined = lead + held  # a key's start may begin in the lead
        if self._tail.cut_short(joined) == joined:
            return after(lead, held, redact, self.shares)
        start = self._tail.start(joined) - len(lead)
        if start <= 0:  # (a key's start from the lead on: cut short)
            self.shares += [lead[len(lead) + start:], held]
        return (after(lead, held[:start], redact, self.shares) if start > 0 else "") + REDACTED

    def _past_shown(self, raw: str, redacted: str, *, reset: bool) -> str:
        """What ``redacted`` (of ``raw``: the held text joined to more) adds to what was shown.

        A pause showed ``raw``'s first characters: the rest of ``redacted`` when it starts
        with what was shown; all of it when the joining redacted what was shown as it is (a
        key split by the other part: its end is not shown, its start shows as it was); the
        new text alone, redacted, when the pause showed a key's start redacted and the joined
        text holds no key there.
        """
        chars, shown = self._shown_chars, self._shown
        if reset:
            self._shown_chars, self._shown = 0, ""
        if redacted.startswith(shown):
            return redacted[len(shown):]
        if shown == raw[:chars]:
            return redacted
        assert self._redact is not None
        return self._clean(self._redact(raw[chars:]))


def unique_call_ids(message: Message) -> Message:
    """``message`` with a tool-call id it repeats made unique: ``call_0``, ``call_0-2``, ...

    A model may give two calls of one reply the same id; stored so, they could not each be
    paired with their own tool response (and providers reject the repeat). Renamed on receipt,
    the store, display, approval, compaction and the requests sent back all see distinct ids.
    """
    ids = [p.id for p in message.content if isinstance(p, ToolRequest)]
    if len(set(ids)) == len(ids):
        return message
    taken = set(ids)
    seen: set[str] = set()
    parts = []
    for p in message.content:
        if isinstance(p, ToolRequest):
            if p.id in seen:
                n = 2
                while f"{p.id}-{n}" in taken:
                    n += 1
                p = replace(p, id=f"{p.id}-{n}")
                taken.add(p.id)
            seen.add(p.id)
        parts.append(p)
    return replace(message, content=tuple(parts))


def writing_text(delta: ToolCallDelta) -> str:
    """The progress text of a streaming tool call, e.g. ``writing tool call shell… 120 KB``."""
    kib = delta.argument_chars / 1024
    size = f"{kib:.1f} KB" if kib < 10 else f"{kib:,.0f} KB"
    return f"writing tool call {delta.name or 'tool'}… {size}"


def cut_off_notice(response: ProviderResponse, provider: Provider,
                   settings: Settings) -> str | None:
    """The notice after a reply the provider ended at its output limit, else ``None``.

    A reply with ``finish_reason`` ``length`` is kept as it arrived; the notice says it was
    cut and names ``max_output_tokens`` (config ``[models."MODEL"]``), the one setting of it.
    It names a figure only when one was sent (``max_output_tokens``, sent as ``max_tokens``);
    otherwise the provider applied a limit of its own, which goosectx does not know (litellm's
    figure or goosectx's 4,096 fallback would be a guess), so none is named.
    """
    if response.finish_reason != "length":
        return None
    model = provider.model
    configured = settings.model_config(model).max_output_tokens
    where = f'[models."{model}"] in the config file'
    if configured:
        return (f"the answer was cut off at the output limit (max_output_tokens = "
                f"{configured:,}); raise max_output_tokens under {where}")
    return ("the answer was cut off at the provider's output limit (no max_output_tokens was "
            f"sent); to raise it, set max_output_tokens under {where}")


def empty_reply_notice(message: Message) -> str | None:
    """What to tell the user about a reply with no answer in it, or None when it has one.

    A reply of reasoning only (no text, no tool call) ends the turn as quietly as an empty
    one would; both get a notice and the same exit status.
    """
    if not message.content:
        return "the model returned an empty reply"
    content = message.content
    if (any(isinstance(p, ThinkingContent) for p in content)
            and not any(isinstance(p, ToolRequest) for p in content)
            and not any(isinstance(p, TextContent) and p.text.strip() for p in content)):
        return "the model replied with reasoning only, no answer"
    return None
