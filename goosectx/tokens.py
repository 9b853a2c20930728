"""Token counting with tiktoken, offline, cached per message.

Counts are estimates of what a provider will bill; the provider's reported usage is
preferred wherever it exists (docs/architecture.md §5). Which encoding, and loading it
offline: :mod:`goosectx.encoding` (its names are re-exported here); counting a long text in
pieces: :mod:`goosectx.token_pieces`; many texts at once, on threads:
:mod:`goosectx.token_batch`; a history's uncounted messages together:
:mod:`goosectx.token_first_need`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from goosectx import context_breakdown, text_counts
from goosectx.context_breakdown import ContextBreakdown as ContextBreakdown
from goosectx.conversation import (
    Attachment,
    Message,
    TextContent,
)
from goosectx.encoding import DEFAULT_ENCODING as DEFAULT_ENCODING
from goosectx.encoding import Encoder
from goosectx.encoding import encoding_name as encoding_name
from goosectx.encoding import ensure_offline_tiktoken as ensure_offline_tiktoken
from goosectx.encoding import get_encoder as get_encoder
from goosectx.message_text import MESSAGE_OVERHEAD_TOKENS as MESSAGE_OVERHEAD_TOKENS
from goosectx.message_text import bytes_estimate_tokens as bytes_estimate_tokens
from goosectx.message_text import message_chars_for_count as message_chars_for_count
from goosectx.message_text import message_text_for_count as message_text_for_count
from goosectx.message_text import rough_count_messages as rough_count_messages
from goosectx.session import TokenCount
from goosectx.token_batch import count_each
from goosectx.token_first_need import count_key as _count_key
from goosectx.token_first_need import count_uncounted as _count_uncounted
from goosectx.token_pieces import token_len, token_len_whole

BATCH_MIN_MESSAGES = 16
"""Uncounted messages in one view from which :meth:`TokenCounter.count_uncounted` counts
them together (on threads when long), rather than one by one as they are met."""
COUNT_SLICE_TEXTS = 1_000
"""Texts :meth:`TokenCounter.count_uncounted` counts at a time: each slice's counts are kept
(and ready to be stored) before the next is counted, so a process that ends mid-count keeps
what it made."""
TOOL_SCHEMA_OVERHEAD_TOKENS = 8
"""Per-tool framing tokens around a JSON schema."""

def count_text(text: str, model: str | None = None) -> int:
    """Tokens in ``text`` (special tokens counted as text); linear in its length."""
    if not text:
        return 0
    return token_len(get_encoder(model), text)


class TokenCounter:
    """Counts tokens for one model, caching each message's count.

    The cache key is the message id plus the kinds of its parts, so a message that repair
    trimmed is counted afresh, while a turn costs only its new messages.

    ``stored`` is the session's stored raw counts by message id (``Session.token_counts``,
    docs/architecture.md §8): a message with a stored count made with this counter's encoding
    is not tokenised again, and every count made here is added to it and to
    :attr:`fresh`, for the recorder to store, so a later process never re-counts it.
    """

    def __init__(self, model: str | None = None,
                 stored: dict[str, TokenCount] | None = None) -> None:
        self.model = model
        self._loaded: Encoder | None = None
        self.encoding = encoding_name(model)
        """The encoding's name; stored counts made with it are used as they are. The encoding
        itself is loaded at the first count (a session whose counts are stored never loads
        it); should it fail to load, the chars/4 estimate takes its name from then on."""
        self.stored: dict[str, TokenCount] = {} if stored is None else stored
        self.fresh: dict[str, TokenCount] = {}
        self._cache: dict[tuple[str, int, int], int] = {}
        self._text_cache: dict[str, int] = {}
        self._by_identity: dict[str, tuple[tuple[object, ...], int]] = {}
        self._by_content: dict[int, tuple[tuple[object, ...], int]] = {}
        self._attachments: dict[int, tuple[Attachment, int]] = {}
        self._kept_counts: text_counts.TextCounts | None = None
        self._last_counts: tuple[list[Message], str, list[int]] | None = None

    @property
    def _kept(self) -> text_counts.TextCounts:
        """The counts kept between processes (the user cache dir's file, found at first use)."""
        if self._kept_counts is None:
            self._kept_counts = text_counts.for_path()
        return self._kept_counts

    @property
    def _encoder(self) -> Encoder:
        if self._loaded is None:
            from goosectx.encoder_worker import encoder_for  # not in a counted dry run

            self._loaded = encoder_for(self.encoding) or get_encoder(self.model)
            self.encoding = str(getattr(self._loaded, "name", "chars/4"))
        return self._loaded

    def preload(self) -> None:
        """Load the encoding now (the REPL does it on its start-up thread, off the prompt)."""
        self._encoder  # noqa: B018 - the property loads it

    def count_text(self, text: str) -> int:
        """Tokens in ``text`` (loads the encoding on first use)."""
        if not text:
            return 0
        return token_len(self._encoder, text)

    @property
    def batches(self) -> bool:
        """True when :meth:`count_texts` counts in one round trip (:mod:`.encoder_worker`)."""
        if self._loaded is not None:
            return hasattr(self._loaded, "count_many")
        from goosectx.encoder_worker import encoder_for

        return hasattr(encoder_for(self.encoding), "count_many")

    def count_texts(self, texts: Sequence[str], then_chars: int = 0,
                    meanwhile: Callable[[], object] | None = None) -> list[int]:
        """:meth:`count_text` of each of ``texts``, together (on threads when long).

        ``then_chars``: characters the caller will ask to count next (a worker process may
        prepare to share them, :mod:`goosectx.encoder_worker`). ``meanwhile``: the caller's
        work, called once before the counts are returned (first, in-process; while the worker
        counts, with one).
        """
        many = getattr(self._encoder, "count_many", None)
        if many is not None:
            return many(texts, then_chars, meanwhile)  # type: ignore[no-any-return]
        if meanwhile is not None:
            meanwhile()
        return count_each(self.count_text, texts)

    def count_text_within(self, text: str, limit_tokens: int) -> int:
        """Tokens in ``text`` when at most ``limit_tokens``; past it, some figure above it.

        For "does it fit" checks of long texts: counting stops once the text cannot fit.
        """
        if not text:
            return 0
        return token_len(self._encoder, text, limit_tokens)

    def count_cached_text(self, text: str) -> int:
        """Tokens in ``text``, memoised by the text itself (for system prompts, schemas).

        Also kept between processes (:meth:`count_kept_text`).
        """
        hit = self._text_cache.get(text)
        if hit is None:
            hit = self._text_cache[text] = self.count_kept_text(text)
        return hit

    def count_kept_text(self, text: str, limit_tokens: int | None = None) -> int:
        """:meth:`count_text` (with a limit, :meth:`count_text_within`) of a text that recurs.

        For texts the next process counts again (fixed prompts, the facts of a compaction,
        the summary request chosen): the count is looked up in, and added to, the counts kept
        between processes (:mod:`goosectx.text_counts`, saved by :meth:`take_fresh`), so a
        process that finds them all does not load the encoding. A kept whole count is returned
        as it is (above the limit or not); a count that stopped at the limit is kept for that
        limit only (the same figure the count would give again).
        """
        if not text:
            return 0
        kept = self._kept.get(self.encoding, text)
        if kept is None and limit_tokens is not None:
            kept = self._kept.get(f"{self.encoding}\0within {limit_tokens}", text)
        if kept is not None:
            return kept
        tokens, whole = token_len_whole(self._encoder, text, limit_tokens)  # sets the encoding
        name = self.encoding if whole else f"{self.encoding}\0within {limit_tokens}"
        self._kept.put(name, text, tokens)
        return tokens

    def count_message(self, message: Message, *, kept: bool = False) -> int:
        """Tokens of one message including :data:`MESSAGE_OVERHEAD_TOKENS` (cached).

        ``kept``: a message made afresh each time (a compaction's summary block, planned by
        every dry run): without a stored count its text is counted with
        :meth:`count_kept_text`.
        """
        # Fast path: the very same content tuple as last time for this id (an identity check,
        # exact because the entry keeps the tuple alive). Keeps a warm recount of 1,000
        # messages well under a millisecond; the key below covers repaired copies.
        seen, content = self._by_identity.get(message.id), message.content
        if seen is not None and seen[0] is content:
            return seen[1]
        raw = self._stored_raw(message)  # what _raw_count gives it, without the key below
        if raw is not None:
            tokens = raw + MESSAGE_OVERHEAD_TOKENS + bytes_estimate_tokens(message)
            self._by_identity[message.id] = (content, tokens)
            return tokens
        key = _count_key(message)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = (self._raw_count(message, kept) + MESSAGE_OVERHEAD_TOKENS
                                      + bytes_estimate_tokens(message))
        self._by_identity[message.id] = (content, hit)
        return hit

    def count_attachment(self, attachment: Attachment) -> int:
        """Tokens of one attachment as the model gets it (cached per part).

        Text: its labelled block, counted. Bytes (an image): its ``token_estimate``.
        """
        if not attachment.is_text:
            return attachment.token_estimate
        seen = self._attachments.get(id(attachment))
        if seen is not None and seen[0] is attachment:
            return seen[1]
        tokens = self.count_text(attachment.labelled_text())
        self._attachments[id(attachment)] = (attachment, tokens)
        return tokens

    def _stored_raw(self, message: Message) -> int | None:
        """The id's stored raw count when made with this encoding of as many parts, else None."""
        known = self.stored.get(message.id)
        if (known is None or known.encoding != self.encoding
                or known.parts not in (None, len(message.content))):
            return None
        self._by_content[id(message.content)] = (message.content, known.count)
        return known.count

    def _raw_count(self, message: Message, kept: bool = False) -> int:
        """The stored raw count when it was made with this encoding, else a fresh one.

        A copy that shares its original's content tuple (a re-sent user message, a message
        with new metadata) takes the original's count: the same parts count the same. A copy
        under the same id with another number of parts (repair merged the summary with the
        user messages sent after it, or dropped an orphan part) is counted on its own (with
        :meth:`count_kept_text`: every process makes it again) and its count is not stored
        for the id.
        """
        stored = self._stored_raw(message)
        if stored is not None:
            return stored
        known = self.stored.get(message.id)
        usable = known is not None and known.encoding == self.encoding
        same = self._by_content.get(id(message.content))
        if same is not None and same[0] is message.content:
            raw = same[1]
        else:
            text = message_text_for_count(message)  # counting sets the actual encoding
            copy = usable  # a repaired copy: made again by every process, so its count is kept
            raw = self.count_kept_text(text) if kept or copy else self.count_text(text)
            self._by_content[id(message.content)] = (message.content, raw)
        if not usable:  # the id's own count (a copy's would be wrong for the message)
            self.stored[message.id] = self.fresh[message.id] = TokenCount(
                raw, self.encoding, len(message.content))
        return raw

    def count_uncounted(self, messages: Sequence[Message]) -> None:
        """Count at once the messages :meth:`count_message` would count afresh one by one.

        For a history counted at first need (an imported or old session): with at least
        :data:`BATCH_MIN_MESSAGES` of them, their texts are counted together, a slice of
        :data:`COUNT_SLICE_TEXTS` at a time (:mod:`goosectx.token_first_need`).
        """
        _count_uncounted(self, messages, min_messages=BATCH_MIN_MESSAGES,
                         slice_texts=COUNT_SLICE_TEXTS)

    def message_counts(self, messages: Sequence[Message]) -> list[int]:
        """:meth:`count_message` of each of ``messages``, in their order.

        One pass over a long view: a count already made, or stored with this encoding, is
        taken inline as :meth:`count_message` takes it; the others are counted by it, after
        :meth:`count_uncounted` has counted them together.
        """
        last = self._last_counts  # a view counted just before (the breakdown, then the split)
        if last is not None and last[1] == self.encoding and last[0] == messages:
            return list(last[2])  # list ==: the same messages by identity, a C pass
        seen, stored, same, encoding = (self._by_identity, self.stored, self._by_content,
                                        self.encoding)
        counts: list[int] = []
        missed: list[int] = []
        append = counts.append
        for m in messages:
            content, mid = m.content, m.id
            hit = seen.get(mid)
            if hit is not None and hit[0] is content:
                append(hit[1])
                continue
            known = stored.get(mid)  # count_message's stored path (_stored_raw), inline
            if (known is None or known.encoding != encoding
                    or (known.parts is not None and known.parts != len(content))):
                missed.append(len(counts))
                append(0)
                continue
            raw = known.count
            same[id(content)] = (content, raw)
            tokens = raw + MESSAGE_OVERHEAD_TOKENS
            if len(content) != 1 or type(content[0]) is not TextContent:  # most are one text
                for p in content:  # bytes_estimate_tokens(m), looked for without a call
                    if isinstance(p, Attachment):
                        tokens += bytes_estimate_tokens(m)
                        break
            seen[mid] = (content, tokens)
            append(tokens)
        if missed:
            todo = [messages[i] for i in missed]
            self.count_uncounted(todo)
            for i, m in zip(missed, todo, strict=True):
                counts[i] = self.count_message(m)
        if type(messages) is list:
            self._last_counts = (list(messages), self.encoding, list(counts))
        return counts

    def stored_tokens_per_char(self, message: Message, chars: int | None = None
                               ) -> float | None:
        """Tokens per character of ``message``'s counted text, from its stored count.

        ``None`` when no count made with this encoding is stored (nothing is counted here):
        callers that size pieces of a message (the summary request's lines) estimate them from
        this instead of tokenising them again. ``chars``: the counted text's length, when the
        caller has it (``message_chars_for_count``).
        """
        known = self.stored.get(message.id)
        if known is None or known.encoding != self.encoding:
            return None
        if chars is None:
            chars = message_chars_for_count(message)
        return known.count / max(1, chars)

    def alongside(self, model: str | None) -> TokenCounter:
        """A counter for ``model``, sharing these stored counts when its encoding is the same."""
        other = TokenCounter(model)
        if other.encoding == self.encoding:  # by name: neither encoding is loaded for this
            other.stored = self.stored
        return other

    def save_kept_counts(self) -> None:
        """Write the kept text counts if this counter added one (atomic, best effort)."""
        if self._kept_counts is not None:
            self._kept_counts.save()

    def take_fresh(self) -> dict[str, TokenCount]:
        """The counts made since the last call (to be stored), forgetting them here.

        Also writes the kept text counts (:meth:`count_kept_text`) if one was added.
        """
        self.save_kept_counts()
        fresh, self.fresh = self.fresh, {}
        return fresh

    def count_messages(self, messages: Iterable[Message], *, kept: bool = False) -> int:
        """Sum of :meth:`count_message` over ``messages`` (its identity fast path inlined)."""
        last = self._last_counts
        if not kept and last is not None and last[1] == self.encoding and last[0] == messages:
            return sum(last[2])
        total, seen = 0, self._by_identity
        for m in messages:
            hit = seen.get(m.id)
            total += (hit[1] if hit is not None and hit[0] is m.content
                      else self.count_message(m, kept=kept))
        return total

    def count_tool_schemas(self, schemas: Sequence[dict[str, Any]]) -> int:
        """Tokens of the tool schemas as sent (JSON), with per-tool overhead."""
        if not schemas:
            return 0
        text = json.dumps(list(schemas), sort_keys=True, separators=(",", ":"))
        return self.count_cached_text(text) + TOOL_SCHEMA_OVERHEAD_TOKENS * len(schemas)

    def breakdown(
        self,
        *,
        system_prompt: str,
        project_instructions: str,
        tool_schemas: Sequence[dict[str, Any]],
        messages: Sequence[Message],
    ) -> ContextBreakdown:
        """Estimate a full request by category; summaries and attachments are counted apart.

        When ``system_prompt`` contains ``project_instructions`` (the prompt as sent), the
        instructions are counted once, in their own category.
        """
        return context_breakdown.breakdown(
            self, self.message_counts(messages), system_prompt=system_prompt,
            project_instructions=project_instructions, tool_schemas=tool_schemas,
            messages=messages)
