"""litellm's import and its stream object: the settings that keep a call's cost flat.

Imported only by :mod:`goosectx.providers.litellm_provider` and :mod:`.litellm_call` (and
lazily: importing this module does not import litellm). What grows with the history is the
request, sent once per call; nothing here may cost O(request) per streamed chunk or after
the last one (see docs/architecture.md, "Who owns each outside library"):

* ``litellm.disable_streaming_logging``: otherwise every chunk runs litellm's success-logging
  step in a thread, and each run copies the whole request (minutes per answer at 10,000
  messages).
* ``litellm.disable_token_counter``: litellm counts a stream's tokens itself (two tiktoken
  encodings loaded, ~0.3 s of CPU before the first answer of a process) for a usage goosectx
  never takes as the server's; a non-streamed reply's usage counts only when it has tokens
  (:func:`reply_reported_usage`).
* :func:`skip_success_logging`: the one success log litellm still submits when a stream ends
  copies the whole request too (to truncate base64 in it); goosectx registers no litellm
  callback, so the log is marked as done before the stream starts.
* :func:`skip_final_rebuild`: when a stream ends, litellm rebuilds the whole reply from every
  chunk it kept (``stream_chunk_builder``, about 0.4 ms a chunk: over a minute after a 2 MB
  tool call streamed in 8-character pieces) for its usage figure and logs. goosectx assembles
  the reply itself as it streams and takes the server's usage from the chunk that carried it
  (:func:`server_usage`), so the rebuild is skipped.
* :class:`ChunkTrimmer`: litellm keeps every chunk it passed on (``response.chunks``, about
  5 KB each: 190 MB after 300 KB of tool-call arguments in 8-character chunks, all of it
  walked by the garbage collector again and again) for that rebuild. Once the rebuild is
  skipped, only the newest chunks and the ones carrying usage are kept.

litellm also stops a stream whose chunks (of 3 characters or more) are the same
``REPEATED_STREAMING_CHUNK_LIMIT`` times in a row, as a model stuck in a loop; its default,
100, stopped answers a user asked for (400 zeros, ``0, 0, …``). goosectx sets
:data:`REPEATED_CHUNK_LIMIT` unless that environment variable is set.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from goosectx.tokens import ensure_offline_tiktoken

REPEATED_CHUNK_ENV = "REPEATED_STREAMING_CHUNK_LIMIT"
"""litellm's environment variable for its limit of identical chunks in a row."""
REPEATED_CHUNK_LIMIT = 1000
"""Identical streamed chunks in a row before litellm stops the answer (unless the user set
:data:`REPEATED_CHUNK_ENV`): a bounded waste (about 1,000 tokens) for a model stuck in a loop,
while a long run of one value that was asked for gets through."""
MAX_TOOL_ARGUMENT_CHARS = 4 * 1024 * 1024
"""Streamed tool-call arguments of one model call, characters; past it the call is stopped."""


@cache
def load_litellm() -> Any:
    """Import litellm with its offline, quiet, flat-cost settings (once)."""
    from goosectx.own_env import set_own  # (kept out of the commands goosectx runs)

    set_own("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    set_own("LITELLM_MODE", "PRODUCTION")
    # litellm's own stream handler prints records below WARNING to stdout; with --debug they
    # would land in `run --output-format json` output. They still reach the debug log file.
    if "LITELLM_LOG" not in os.environ:
        set_own("LITELLM_LOG", "ERROR")
    ensure_offline_tiktoken()
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.num_retries = 0
    litellm.disable_streaming_logging = True
    # litellm counts a stream's tokens itself (loading two tiktoken encodings, ~0.3 s of CPU
    # before the first answer) for a usage goosectx never takes as the server's: off.
    litellm.disable_token_counter = True
    if not os.environ.get(REPEATED_CHUNK_ENV, "").strip():
        setattr(litellm, "REPEATED_STREAMING_CHUNK_LIMIT", REPEATED_CHUNK_LIMIT)  # noqa: B010
    return litellm


def skip_success_logging(response: Any) -> None:
    """Mark ``response``'s success log as written, so the stream's end does not build it.

    Harmless where litellm's stream object has no logging object (a fake, a newer layout).
    """
    details = getattr(getattr(response, "logging_obj", None), "model_call_details", None)
    if isinstance(details, dict):
        details["has_logged_sync_success"] = True


def skip_final_rebuild(response: Any) -> bool:
    """Make ``response`` skip rebuilding the whole reply when the stream ends.

    Harmless where litellm's stream object has no such step (a fake, a newer layout): then
    the rebuild runs as before and False is returned.
    """
    if callable(getattr(response, "_build_complete_streaming_response", None)):
        response._build_complete_streaming_response = lambda: None
        return True
    return False


KEPT_CHUNKS = 64
"""The newest stream chunks litellm keeps (it compares the last two for repeats)."""


class ChunkTrimmer:
    """Keeps litellm's list of passed-on chunks (``response.chunks``) short while it streams.

    Only for a stream whose end-of-stream rebuild is skipped (:func:`skip_final_rebuild`),
    the one reader of every chunk. What is kept: the newest :data:`KEPT_CHUNKS` and every
    chunk that carried usage (litellm's usage total and :func:`server_usage` read those),
    in order. A trim looks at each chunk once, so the cost per chunk is constant.
    """

    def __init__(self, response: Any) -> None:
        chunks = getattr(response, "chunks", None)
        self._chunks: list[Any] | None = chunks if isinstance(chunks, list) else None
        self._filtered = 0  # chunks[:_filtered] are the usage chunks kept so far

    def __call__(self) -> None:
        """Trim once the list has grown :data:`KEPT_CHUNKS` past the last trim."""
        chunks = self._chunks
        if chunks is None or len(chunks) < self._filtered + 2 * KEPT_CHUNKS:
            return
        end = len(chunks) - KEPT_CHUNKS
        usage = [c for c in chunks[self._filtered:end] if getattr(c, "usage", None) is not None]
        chunks[self._filtered:end] = usage
        self._filtered += len(usage)


def server_usage(response: Any) -> Any:
    """The usage the server's last usage-carrying chunk reported, or ``None``.

    litellm keeps that chunk (``response.chunks``) but passes it on without its usage.
    """
    chunks = getattr(response, "chunks", None)
    kept: list[Any] = chunks if isinstance(chunks, list) else []
    for chunk in reversed(kept):
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            return usage
    return None


def stream_was_empty(response: Any) -> bool:
    """True when the server sent no chunk and no finish reason; False when unsure.

    litellm then reports an empty reply that finished with ``stop``.
    """
    chunks = getattr(response, "chunks", None)
    return (isinstance(chunks, list) and not chunks
            and getattr(response, "received_finish_reason", "") is None)


def server_reported_usage(response: Any) -> bool:
    """False when no chunk from the server carried usage; True when unsure.

    The usage litellm adds at the end is then its own count (messages only), not the server's.
    """
    chunks = getattr(response, "chunks", None)
    if not isinstance(chunks, list):
        return True
    return any(getattr(chunk, "usage", None) is not None for chunk in chunks)


def reply_reported_usage(reply: Any) -> bool:
    """Whether a non-streamed reply's usage is the server's.

    litellm's own count is off: a usage it makes up when the server sent none has no tokens.
    """
    usage = getattr(reply, "usage", None)
    return bool(getattr(usage, "prompt_tokens", 0) or getattr(usage, "completion_tokens", 0))


def reply_as_chunk(reply: Any) -> dict[str, Any]:
    """A non-streamed litellm reply in the shape of one stream chunk (for the assembler)."""
    choice = reply.choices[0]
    message = choice.message
    calls = [{"index": i, "id": c.id, "function": {"name": c.function.name,
                                                   "arguments": c.function.arguments}}
             for i, c in enumerate(getattr(message, "tool_calls", None) or ())]
    delta = {"content": message.content, "tool_calls": calls,
             "reasoning_content": getattr(message, "reasoning_content", None)}
    return {"model": getattr(reply, "model", None), "usage": getattr(reply, "usage", None),
            "choices": [{"finish_reason": choice.finish_reason, "delta": delta}]}

