"""litellm's exceptions in goosectx's error tree (for :mod:`goosectx.providers.litellm_provider`).

A context-window rejection is recognised by class or by the wordings servers use, and the
window a server states in it ("maximum context length is 4096") is read out; rate limits,
authentication, unreachable servers and unknown models each get their own error with a fix.
litellm is imported only when an error is translated (see docs/architecture.md).
"""

from __future__ import annotations

import logging
import re

from goosectx.errors import (
    AuthFailed,
    ContextLengthExceeded,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
    clause,
)
from goosectx.providers.litellm_stream import load_litellm
from goosectx.redaction import redact_urls
from goosectx.redaction_fragments import redact_known_pieces as redact_known

log = logging.getLogger("goosectx.provider")

CONTEXT_ERROR_PATTERNS = (
    "maximum context length", "context length", "context_length_exceeded", "too many tokens",
    "exceeds the context", "prompt is too long", "exceed_context_size_error",
    "exceeds the available context size", "context window",
)
"""Wordings providers use for "the request does not fit" (matched case-insensitively)."""
STATED_LIMIT_PATTERNS = (r"maximum context length is (\d+)", r'"n_ctx"\s*:\s*(\d+)',
                         r"exceed context window of (\d+)")
"""Where a context error states the real window: OpenAI / llama-cpp-python, llama-server."""


_LINE_SPACE = re.compile(r"(?:\r\n|[^\S\r\x0b\x0c\x1c-\x1f\x85\u2028\u2029])+")
"""Runs of spaces, tabs, newlines (CR LF too) and Unicode spaces: one space in the line. Other
characters ``str.split`` takes for whitespace (a lone CR, VT, FF, the separators) stay, for
the print path to show (``␍``, ``<U+2028>``), as it does everywhere else."""


def clean_message(text: str, limit: int = 300) -> str:
    """One line of a litellm error message without its class-name prefixes."""
    line = _LINE_SPACE.sub(" ", text).strip(" ")
    previous = None
    while previous != line:
        previous = line
        line = re.sub(r"^(litellm\.)?\w*(Error|Exception)\s*[:-]\s*", "", line)
        line = re.sub(r"^Error_str:\s*", "", line)
    line = re.split(r"\s*Original exception:", line, maxsplit=1)[0]  # litellm repeats itself
    return line if len(line) <= limit else line[: limit - 1] + "…"


def is_context_error_text(text: str) -> bool:
    """True when ``text`` reads like a context-window rejection."""
    lowered = text.lower()
    return any(p in lowered for p in CONTEXT_ERROR_PATTERNS)


def stated_limit_tokens(text: str) -> int | None:
    """The window a context error states, if it does (OpenAI's and llama.cpp's wordings)."""
    for pattern in STATED_LIMIT_PATTERNS:
        found = re.search(pattern, text, re.IGNORECASE)
        if found:
            return int(found.group(1))
    return None


def _reply_bodies(exc: BaseException) -> list[str]:
    """The error bodies the server sent, as far as the exception chain carries them.

    litellm's message keeps only the body's ``message``: llama-server states its window in a
    field beside it (``"n_ctx": 8192``), kept in the ``body`` / ``response`` of the exception
    litellm wraps (and of litellm's own, whose ``response`` is the server's reply).
    """
    import json

    bodies: list[str] = []
    for cause in _chain(exc):
        body = getattr(cause, "body", None)
        if isinstance(body, dict | list):
            bodies.append(json.dumps(body)[:BODY_CHARS])
        elif isinstance(body, str):
            bodies.append(body[:BODY_CHARS])
        try:  # a streamed reply not read, or a stand-in litellm made: no text to read
            text = getattr(getattr(cause, "response", None), "text", None)
        except Exception:  # noqa: BLE001 — httpx raises its own for an unread stream
            text = None
        if isinstance(text, str) and text:
            bodies.append(text[:BODY_CHARS])
    return bodies


BODY_CHARS = 20_000
"""How much of an error body is searched for the stated window (it sits near the start)."""


def stated_limit_of(exc: BaseException, said: str) -> int | None:
    """The window a context error states, in its message or in the body the server sent."""
    for text in (said, *_reply_bodies(exc)):
        stated = stated_limit_tokens(text)
        if stated is not None:
            return stated
    return None


def is_api_error(exc: BaseException) -> bool:
    """True for errors of the HTTP call itself (as opposed to bugs of ours)."""
    import httpx
    import openai

    return isinstance(exc, openai.OpenAIError | httpx.HTTPError | ConnectionError
                      | TimeoutError)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it wraps (causes and contexts), outermost first."""
    seen: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and all(cause is not s for s in seen):
        seen.append(cause)
        cause = cause.__cause__ or cause.__context__
    return seen


def _transport_failure(exc: BaseException) -> str | None:
    """How the call failed below HTTP, if it did.

    ``"connect"`` when the server was not reached, ``"stream"`` when its 200 reply could not be
    read, ``None`` otherwise — litellm reports both as a status 500 the server never sent.
    """
    import socket

    import httpx

    chain = _chain(exc)
    if any(isinstance(c, httpx.ConnectError | ConnectionError | socket.gaierror)
           or "connection error" in str(c)[:200].lower() for c in chain):
        return "connect"
    if any(type(c).__name__ in ("MidStreamFallbackError", "APIConnectionError")
           or "APIConnectionError" in str(c)[:200] for c in chain):
        return "stream"
    return None


REPEATING = re.compile(r"The model is repeating the same chunk = (.*)\.\s*$", re.DOTALL)
"""litellm's words when it stops a stream of identical chunks (``raise_on_model_repetition``)."""


def repeated_chunk_error(exc: BaseException) -> ProviderError | None:
    """The error for a stream litellm stopped as a model repeating itself, else ``None``.

    Not a transport or configuration fault: the server answered, the model looped (or was
    asked for a long run of one value past the limit).
    """
    from goosectx.providers.litellm_stream import REPEATED_CHUNK_ENV

    for cause in reversed(_chain(exc)):  # litellm's own, innermost: no wrapper's words after
        found = REPEATING.search(str(cause).split(" Original exception:")[0])
        if found:
            break
    else:
        return None
    chunk = redact_known(found.group(1))
    shown = repr(chunk[:40]) + ("…" if len(chunk) > 40 else "")
    limit = int(getattr(load_litellm(), "REPEATED_STREAMING_CHUNK_LIMIT", 0) or 0)
    return ProviderError(
        f"the model sent the same piece of its answer ({shown}) {limit:,} times in a row, so "
        "goosectx stopped it (what came is kept)",
        "try again, or another model (/model, --model); if the repetition was meant, raise "
        f"{REPEATED_CHUNK_ENV} (now {limit:,}) in the environment")


def translate_error(exc: BaseException, *, model: str, where: str, key_env: str
                    ) -> tuple[ProviderError, int | None]:
    """Map a litellm / transport exception to our error tree.

    The exception's text is redacted of every secret the process knows (the API keys among
    them) first: this is the one place a provider's words become a goosectx error.

    Returns:
        The error, and the context window the server stated in it (``None`` if it did not).
    """
    litellm = load_litellm()
    said = redact_known(redact_urls(str(exc)))  # a 401 may quote the key: redacted first
    where = redact_known(redact_urls(where))  # api_base may hold a key (user:KEY@, ?key=)
    text = clean_message(said)
    status = getattr(exc, "status_code", None)
    if isinstance(exc, litellm.ContextWindowExceededError) or (
        status not in (401, 403, 429) and is_context_error_text(said)
    ):
        stated = stated_limit_of(exc, said)
        log.info("context error from %s (window stated: %s): %s", model, stated, text)
        return ContextLengthExceeded(f"{model} rejected the request as longer than its "
                                     f"context window: {text}"), stated
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return RateLimited(f"{model} is rate limited (429): {text}"), None
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError) or (
        status in (401, 403)
    ):
        return AuthFailed(f"{model} rejected the API key: {text}",
                          f"check {key_env} (the key is wrong, expired or lacks access)"), None
    repeated = repeated_chunk_error(exc)
    if repeated is not None:
        log.info("stream stopped: %s", repeated.message)
        return repeated, None
    failure = None if isinstance(exc, litellm.Timeout) else _transport_failure(exc)
    if failure == "connect":  # the "500" of these two is litellm's, not the server's
        target = f"{model}'s provider" if where == model else where
        return ProviderUnavailable(f"could not connect to {target}: {text}"), None
    if failure == "stream":
        return ProviderUnavailable(f"the model's stream could not be read: {text}",
                                   "check that api_base is the server's OpenAI-compatible /v1 "
                                   "endpoint, or try again"), None
    if isinstance(status, int) and status >= 500:
        return ProviderUnavailable(f"{where} answered {status}: {text}"), None
    if isinstance(exc, litellm.Timeout | litellm.APIConnectionError
                  | litellm.ServiceUnavailableError | litellm.InternalServerError) or (
        isinstance(status, int) and status >= 500
    ) or not isinstance(status, int):
        return ProviderUnavailable(f"no reply from {where}: {text}"), None
    if isinstance(exc, litellm.NotFoundError) or status == 404:
        return ProviderError(f"{model} was not found at the provider: {text}",
                             "check the model name (GOOSE_MODEL, --model or config)"), None
    return ProviderError(f"{model} rejected the request ({status}): {text}"), None


def give_up(error: ProviderError, retries: int) -> ProviderError:
    """The error after ``retries`` retries of a transient failure, with what to do."""
    if isinstance(error, RateLimited):
        return RateLimited(f"{clause(error.message)}; still failing after {retries} retries",
                           "wait a minute and try again, or switch model with --model")
    return ProviderUnavailable(
        f"{clause(error.message)}; still failing after {retries} retries",
        "check the server's log, or that it is up and api_base / OPENAI_API_BASE is right, "
        "then retry",
    )


def overrun_error(model: str, what: str, hint: str = "") -> ProviderError:
    """The error ending a call that ran past a bound (the streamed text is kept).

    ``hint`` says what to do about this bound; the default is for the time limit.
    """
    return ProviderError(f"the call to {model} {what}, so it was stopped",
                         hint or "try again, or raise request_deadline_s in the config")
