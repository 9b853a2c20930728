"""The litellm adapter: the ONLY module that imports litellm (lazily, offline settings first).

One :class:`LiteLLMProvider` per model. It streams a chat completion with
``stream_options.include_usage``, folds the chunks into our message parts
(:mod:`goosectx.providers.openai_format`), prices the call with litellm's bundled cost map
(``None`` when the model is not priced), and translates litellm's exceptions into
:mod:`goosectx.errors`. Transient failures (429, 5xx, timeouts, connection errors) are
retried with bounded exponential backoff before anything is streamed; litellm's own retries
are disabled so the bound is ours.

The HTTP call and the chunk reading run in a worker thread; the caller's generator polls a
queue, so a ``cancel`` event or a KeyboardInterrupt ends the stream promptly even while the
socket is quiet.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import threading
import time
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any, Literal

from goosectx.config import DEFAULT_CONTEXT_LIMIT_TOKENS, Settings
from goosectx.conversation import Attachment, Message, ToolResponse
from goosectx.errors import (
    AuthFailed,
    ConfigError,
    ContextLengthExceeded,
    MissingApiKey,
    ModelNotConfigured,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from goosectx.providers.base import ContextLimit, ProviderResponse, StreamItem, ToolSchema
from goosectx.providers.openai_format import StreamAssembler, to_openai_messages, to_openai_tools
from goosectx.tokens import ensure_offline_tiktoken
from goosectx.usage import Usage

log = logging.getLogger("goosectx.provider")

DEFAULT_OUTPUT_LIMIT_TOKENS = 4_096
MAX_RETRIES = 3
"""Retries of a transient failure (so at most 4 attempts per model call)."""
MAX_RETRY_DELAY_S = 30.0
DEFAULT_REQUEST_TIMEOUT_S = 600.0
PLACEHOLDER_API_KEY = "sk-goosectx-placeholder"
"""Sent to an ``api_base`` that needs no key (local servers), since clients insist on one."""
RETRY_BASE_DELAY_ENV = "GOOSECTX_RETRY_BASE_DELAY_S"
"""First backoff delay in seconds (default 1; doubled per retry). Tests set it small."""
REQUEST_TIMEOUT_ENV = "GOOSECTX_REQUEST_TIMEOUT_S"
"""Per-read timeout of a model call in seconds (default 600)."""
_POLL_S = 0.05
MAX_TOOL_ARGUMENT_CHARS = 4 * 1024 * 1024
"""Streamed tool-call arguments of one model call, characters; past it the call is stopped."""

CONTEXT_ERROR_PATTERNS = (
    "maximum context length", "context length", "context_length_exceeded", "too many tokens",
    "exceeds the context", "prompt is too long", "exceed_context_size_error",
    "exceeds the available context size", "context window",
)
"""Wordings providers use for "the request does not fit" (matched case-insensitively)."""
STATED_LIMIT_PATTERNS = (r"maximum context length is (\d+)", r'"n_ctx"\s*:\s*(\d+)',
                         r"exceed context window of (\d+)")
"""Where a context error states the real window: OpenAI / llama-cpp-python, llama-server."""


@cache
def _litellm() -> Any:
    """Import litellm with its offline, quiet settings (once)."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ["LITELLM_MODE"] = "PRODUCTION"
    # litellm's own stream handler prints records below WARNING to stdout; with --debug they
    # would land in `run --output-format json` output. They still reach the debug log file.
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    ensure_offline_tiktoken()
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.num_retries = 0
    return litellm


def preload() -> None:
    """Import litellm now (e.g. in a background thread while the REPL shows its prompt)."""
    _litellm()


def _clean(text: str, limit: int = 300) -> str:
    """One line of a litellm error message without its class-name prefixes."""
    line = " ".join(text.split())
    previous = None
    while previous != line:
        previous = line
        line = re.sub(r"^(litellm\.)?\w*(Error|Exception)\s*[:-]\s*", "", line)
        line = re.sub(r"^Error_str:\s*", "", line)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def is_context_error_text(text: str) -> bool:
    """True when ``text`` reads like a context-window rejection."""
    lowered = text.lower()
    return any(p in lowered for p in CONTEXT_ERROR_PATTERNS)


class _Cancelled(Exception):
    """The caller cancelled while waiting to retry."""


class LiteLLMProvider:
    """A model reached through litellm (see :class:`goosectx.providers.base.Provider`).

    Args:
        model: The model as litellm names it (``openai/gpt-4o-mini``).
        settings: Resolved settings (per-model table, context-limit override).
        role: ``main`` honours ``GOOSE_CONTEXT_LIMIT``; a ``summarizer`` uses only its own
            model's limit (DESIGN.md §3).
    """

    def __init__(self, model: str, settings: Settings, *, role: Literal["main", "summarizer"]
                 = "main") -> None:
        self.model = model
        self.settings = settings
        self.role = role
        self.config = settings.model_config(model)
        self.manages_own_context = self.config.manages_own_context
        self._credentials: dict[str, str] | None = None
        self._provider_name: str | None = None
        self._stated_limit_tokens: int | None = None

    # -- limits ----------------------------------------------------------------------------
    def _model_info(self) -> dict[str, Any]:
        try:
            info = _litellm().get_model_info(self.model)
        except Exception:  # noqa: BLE001 - litellm raises various errors for unmapped models
            return {}
        return dict(info or {})

    def context_limit(self) -> ContextLimit:
        """The context window and where the figure came from (DESIGN.md §3).

        Precedence: ``GOOSE_CONTEXT_LIMIT`` → ``[models."x"].context_limit`` → top-level
        ``context_limit`` → litellm ``max_input_tokens`` → 128,000. A summariser skips the
        two global overrides. A smaller window the server itself stated when it rejected a
        request ("maximum context length is 4096 tokens") wins from then on: a request
        over it cannot succeed, whatever the configuration says.
        """
        configured = self._configured_context_limit()
        stated = self._stated_limit_tokens
        if stated is not None and stated < configured.tokens:
            return ContextLimit(stated, "stated by the server when it rejected a request")
        return configured

    def _configured_context_limit(self) -> ContextLimit:
        s = self.settings
        source = s.source("context_limit_tokens")
        if self.role == "main" and s.context_limit_tokens and source.startswith("env"):
            return ContextLimit(s.context_limit_tokens, source)
        if self.config.context_limit:
            return ContextLimit(self.config.context_limit, f'config [models."{self.model}"]')
        if self.role == "main" and s.context_limit_tokens:
            return ContextLimit(s.context_limit_tokens, source)
        tokens = self._model_info().get("max_input_tokens")
        if isinstance(tokens, int) and tokens > 0:
            return ContextLimit(tokens, "litellm model info")
        return ContextLimit(DEFAULT_CONTEXT_LIMIT_TOKENS, "default")

    def output_limit_tokens(self) -> int:
        """Most tokens one reply may have: config ``max_output_tokens`` → litellm → 4,096."""
        if self.config.max_output_tokens:
            return self.config.max_output_tokens
        info = self._model_info()
        tokens = info.get("max_output_tokens") or info.get("max_tokens")
        return tokens if isinstance(tokens, int) and tokens > 0 else DEFAULT_OUTPUT_LIMIT_TOKENS

    def _sends_images(self, messages: Sequence[Message]) -> bool:
        """True when ``messages`` hold an image and litellm says the model reads images."""
        if not any(isinstance(p, Attachment) and p.is_image for m in messages for p in m.content):
            return False
        return self._model_info().get("supports_vision") is True

    # -- credentials -----------------------------------------------------------------------
    def _env_api_base(self) -> str | None:
        prefix = self.model.split("/", 1)[0].upper() if "/" in self.model else "OPENAI"
        for var in (f"{prefix}_API_BASE", f"{prefix}_BASE_URL"):
            if os.environ.get(var):
                return os.environ[var]
        return None

    def check_credentials(self) -> dict[str, str]:
        """Resolve ``api_base`` / ``api_key`` for the call (cached); fail fast without a key.

        With ``api_key_env`` configured, that variable must be set. With an ``api_base``
        (config, or litellm's ``<PROVIDER>_API_BASE`` variable) and no key, a placeholder is
        sent. Otherwise litellm's ``validate_environment`` names the missing key variable.

        Returns:
            Extra keyword arguments for litellm (``api_base``, ``api_key``); never logged.

        Raises:
            AuthFailed: the key variable is not set.
            ConfigError: litellm does not know the model's provider (names the setting).
        """
        if self._credentials is not None:
            return self._credentials
        litellm = _litellm()
        extra: dict[str, str] = {}
        if self.config.api_base:
            extra["api_base"] = self.config.api_base
        try:
            provider = litellm.get_llm_provider(self.model)[1]
        except Exception:  # noqa: BLE001 - litellm's "LLM Provider NOT provided"
            # A configuration value (exit 2) that names where it was set, e.g. GOOSE_MODEL.
            setting = "compaction_model" if self.role == "summarizer" else "model"
            source = (self.settings.source(setting)
                      if self.model == getattr(self.settings, setting) else "--model")
            raise ConfigError(
                f"litellm does not know which provider serves {self.model!r} "
                f"({source.removeprefix('env ')})",
                "prefix the model with its provider, e.g. openai/gpt-4o-mini or "
                "anthropic/claude-sonnet-4-20250514",
            ) from None
        key_env = self.config.api_key_env
        if key_env:
            if not os.environ.get(key_env):
                raise MissingApiKey(f"{key_env} is not set (api_key_env of {self.model})",
                                 f"export {key_env}=<your key>")
            extra["api_key"] = os.environ[key_env]
        else:
            missing = [
                k for k in litellm.validate_environment(self.model).get("missing_keys", [])
                if k.endswith("_API_KEY")
            ]
            if missing and (extra.get("api_base") or self._env_api_base()):
                extra["api_key"] = PLACEHOLDER_API_KEY
            elif missing:
                raise MissingApiKey(
                    f"{self.model} needs an API key in {' or '.join(missing)}, which is not set",
                    f"export {missing[0]}=<your key> (or set api_base / api_key_env for this "
                    f"model in the config file)",
                )
        self._provider_name = provider
        log.debug("model %s via %s, api_base=%s", self.model, provider,
                  extra.get("api_base") or self._env_api_base() or "default")
        self._credentials = extra
        return extra

    # -- calls -----------------------------------------------------------------------------
    def stream(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        max_tokens: int | None = None,
        tool_choice: str | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[StreamItem]:
        """Stream one model call; the last item is a :class:`ProviderResponse`.

        When ``cancel`` is set mid-stream, the stream stops and the final response holds the
        text so far (no tool calls) with ``finish_reason="cancelled"``. ``max_tokens``
        defaults to the model's configured ``max_output_tokens``; ``tool_choice`` to its
        configured one on a turn's first call (a tool name forces that tool). A stream the
        server ends without a single chunk is asked again without streaming (llama.cpp's
        Python server sends an empty 200 stream when the request fails, e.g. over its
        window), so the real error is raised. Usage the server did not report is ``None``
        (litellm would otherwise put its own count in its place).

        Raises:
            ContextLengthExceeded, RateLimited, AuthFailed, ProviderUnavailable, ProviderError.
        """
        cancel = cancel or threading.Event()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(system, messages, vision=self._sends_images(messages)),
            "stream": True,
            "stream_options": {"include_usage": True},
            "num_retries": 0,
            "max_retries": 0,
            "drop_params": True,  # a provider without e.g. stream_options ignores it
            "timeout": float(os.environ.get(REQUEST_TIMEOUT_ENV) or DEFAULT_REQUEST_TIMEOUT_S),
            **self.check_credentials(),
        }
        if tools:
            kwargs["tools"] = to_openai_tools(tools)
            choice = tool_choice or self._configured_tool_choice(messages)
            if choice:
                kwargs["tool_choice"] = _tool_choice_param(choice)
        max_tokens = max_tokens or self.config.max_output_tokens
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        inbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        stop = threading.Event()
        worker = threading.Thread(target=self._pump, args=(kwargs, inbox, stop, cancel),
                                  name="goosectx-model-call", daemon=True)
        worker.start()
        assembler = StreamAssembler()
        finished = False
        usage_reported = True
        deadline = time.monotonic() + self.settings.request_deadline_s
        argument_chars = 0
        try:
            while not cancel.is_set():
                if time.monotonic() > deadline:
                    raise self._overrun(f"did not finish within request_deadline_s = "
                                        f"{self.settings.request_deadline_s:g} s")
                try:
                    kind, value = inbox.get(timeout=_POLL_S)
                except queue.Empty:
                    continue
                if kind == "chunk":
                    argument_chars += _tool_argument_chars(value)
                    if argument_chars > MAX_TOOL_ARGUMENT_CHARS:
                        raise self._overrun(f"streamed more than {MAX_TOOL_ARGUMENT_CHARS:,} "
                                            "characters of tool-call arguments")
                    yield from assembler.add(value)
                elif kind == "error":
                    raise value
                else:
                    finished = kind == "end"
                    usage_reported = value is not False
                    break
        finally:
            stop.set()
        message = assembler.message(include_tool_calls=finished)
        usage = assembler.usage_figures() if usage_reported else None
        if usage is not None:
            usage = Usage(usage.input_tokens, usage.output_tokens, usage.total_tokens,
                          usage.cache_read_tokens, usage.cache_write_tokens, self._cost(usage))
        reason = assembler.finish_reason if finished else "cancelled"
        yield ProviderResponse(message, usage, self.model, reason)

    def _overrun(self, what: str) -> ProviderError:
        """The error ending a call that ran past a bound (the streamed text is kept)."""
        return ProviderError(f"the call to {self.model} {what}, so it was stopped",
                             "try again, or raise request_deadline_s in the config")

    def _pump(self, kwargs: dict[str, Any], inbox: queue.SimpleQueue[tuple[str, Any]],
              stop: threading.Event, cancel: threading.Event) -> None:
        """Worker thread: open the stream (with retries) and forward its chunks."""
        response: Any = None
        try:
            response = self._open(kwargs, cancel)
            for chunk in response:
                if stop.is_set():
                    return
                inbox.put(("chunk", chunk))
            if _stream_was_empty(response) and not stop.is_set():
                log.info("the stream ended without a chunk; asking again without streaming")
                plain = {k: v for k, v in kwargs.items() if k != "stream_options"}
                reply = self._open({**plain, "stream": False}, cancel)
                inbox.put(("chunk", _reply_as_chunk(reply)))
                inbox.put(("end", True))
                return
            inbox.put(("end", _server_reported_usage(response)))
        except _Cancelled:
            inbox.put(("cancelled", None))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            inbox.put(("error", self._translate(exc) if self._is_api_error(exc) else exc))
        finally:
            closer = getattr(getattr(response, "completion_stream", None), "close", None)
            if callable(closer):
                try:
                    closer()
                except Exception:  # noqa: BLE001 - best effort on a connection we drop
                    log.debug("closing the model stream failed", exc_info=True)

    def _open(self, kwargs: dict[str, Any], cancel: threading.Event) -> Any:
        """Start the call, retrying transient failures (429, 5xx, timeouts) with backoff.

        Raises:
            _Cancelled: ``cancel`` was set while waiting.
            The translated error after :data:`MAX_RETRIES` retries, or a non-transient one.
        """
        litellm = _litellm()
        base_delay_s = float(os.environ.get(RETRY_BASE_DELAY_ENV) or 1.0)
        for attempt in range(MAX_RETRIES + 1):
            try:
                return litellm.completion(**kwargs)
            except Exception as exc:
                if not self._is_api_error(exc):
                    raise
                error = self._translate(exc)
                if not isinstance(error, RateLimited | ProviderUnavailable):
                    raise error from None
                if attempt == MAX_RETRIES:
                    raise self._give_up(error) from None
                delay_s = min(base_delay_s * 2**attempt, MAX_RETRY_DELAY_S)
                log.info("model call failed (%s); retry %d in %.2fs", error.message,
                         attempt + 1, delay_s)
                if cancel.wait(delay_s):
                    raise _Cancelled() from None
        raise AssertionError("unreachable")

    def _cost(self, usage: Usage) -> float | None:
        try:
            prompt_usd, completion_usd = _litellm().cost_per_token(
                model=self.model, prompt_tokens=usage.input_tokens,
                completion_tokens=usage.output_tokens,
                cache_read_input_tokens=usage.cache_read_tokens or 0,
                cache_creation_input_tokens=usage.cache_write_tokens or 0,
            )
        except Exception:  # noqa: BLE001 - unpriced model: cost unknown
            return None
        return float(prompt_usd) + float(completion_usd)

    def _configured_tool_choice(self, messages: Sequence[Message]) -> str | None:
        """The configured ``tool_choice`` on a turn's first call, else ``None``.

        A first call is one whose last message is the user's text, not tool results.
        """
        last = messages[-1] if messages else None
        if (not self.config.tool_choice or last is None or last.role != "user"
                or any(isinstance(p, ToolResponse) for p in last.content)):
            return None
        return self.config.tool_choice

    # -- errors ----------------------------------------------------------------------------
    @staticmethod
    def _is_api_error(exc: BaseException) -> bool:
        import httpx
        import openai

        return isinstance(exc, openai.OpenAIError | httpx.HTTPError | ConnectionError
                          | TimeoutError)

    def _where(self) -> str:
        creds = self._credentials or {}
        return creds.get("api_base") or self._env_api_base() or self.model

    def _translate(self, exc: BaseException) -> ProviderError:
        """Map a litellm / transport exception to our error tree."""
        litellm = _litellm()
        text = _clean(str(exc))
        status = getattr(exc, "status_code", None)
        if isinstance(exc, litellm.ContextWindowExceededError) or (
            status not in (401, 403, 429) and is_context_error_text(str(exc))
        ):
            self._stated_limit_tokens = _stated_limit_tokens(str(exc)) or self._stated_limit_tokens
            log.info("context error from %s (window stated: %s): %s", self.model,
                     self._stated_limit_tokens, text)
            return ContextLengthExceeded(f"{self.model} rejected the request as longer than its "
                                         f"context window: {text}")
        if isinstance(exc, litellm.RateLimitError) or status == 429:
            return RateLimited(f"{self.model} is rate limited (429): {text}")
        if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError) or (
            status in (401, 403)
        ):
            key = self.config.api_key_env or f"{(self._provider_name or 'openai').upper()}_API_KEY"
            return AuthFailed(f"{self.model} rejected the API key: {text}",
                              f"check {key} (the key is wrong, expired or lacks access)")
        if isinstance(exc, litellm.Timeout | litellm.APIConnectionError
                      | litellm.ServiceUnavailableError | litellm.InternalServerError) or (
            isinstance(status, int) and status >= 500
        ) or not isinstance(status, int):
            return ProviderUnavailable(f"no reply from {self._where()}: {text}")
        if isinstance(exc, litellm.NotFoundError) or status == 404:
            return ProviderError(f"{self.model} was not found at the provider: {text}",
                                 "check the model name (GOOSE_MODEL, --model or config)")
        return ProviderError(f"{self.model} rejected the request ({status}): {text}")

    def _give_up(self, error: ProviderError) -> ProviderError:
        if isinstance(error, RateLimited):
            return RateLimited(f"{error.message} — still after {MAX_RETRIES} retries",
                               "wait a minute and try again, or switch model with --model")
        return ProviderUnavailable(
            f"{error.message} — still after {MAX_RETRIES} retries",
            "check that the server is up and api_base / OPENAI_API_BASE is right, then retry",
        )


def _stated_limit_tokens(text: str) -> int | None:
    """The window a context error states, if it does (OpenAI's and llama.cpp's wordings)."""
    for pattern in STATED_LIMIT_PATTERNS:
        found = re.search(pattern, text, re.IGNORECASE)
        if found:
            return int(found.group(1))
    return None


def _tool_choice_param(choice: str) -> str | dict[str, Any]:
    """``auto`` / ``required`` / ``none`` as they are; a tool name as OpenAI's forced form."""
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _tool_argument_chars(chunk: Any) -> int:
    """Characters of tool-call arguments in one stream chunk."""
    total = 0
    for choice in getattr(chunk, "choices", None) or ():
        delta = getattr(choice, "delta", None)
        for call in getattr(delta, "tool_calls", None) or ():
            function = getattr(call, "function", None)
            arguments = getattr(function, "arguments", None)
            if isinstance(arguments, str):
                total += len(arguments)
    return total


def _stream_was_empty(response: Any) -> bool:
    """True when the server sent no chunk and no finish reason; False when unsure.

    litellm then reports an empty reply that finished with ``stop``.
    """
    chunks = getattr(response, "chunks", None)
    return (isinstance(chunks, list) and not chunks
            and getattr(response, "received_finish_reason", "") is None)


def _server_reported_usage(response: Any) -> bool:
    """False when no chunk from the server carried usage; True when unsure.

    The usage litellm adds at the end is then its own count (messages only), not the server's.
    """
    chunks = getattr(response, "chunks", None)
    if not isinstance(chunks, list):
        return True
    return any(getattr(chunk, "usage", None) is not None for chunk in chunks)


def _reply_as_chunk(reply: Any) -> dict[str, Any]:
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


def make_provider(settings: Settings, model: str | None = None, *,
                  role: Literal["main", "summarizer"] = "main") -> LiteLLMProvider:
    """The provider for ``model`` (default: ``settings.model``); litellm is not imported yet.

    Raises:
        ModelNotConfigured: no model given and none configured.
    """
    name = model or settings.model
    if not name:
        where = settings.config_path or "the config file"
        raise ModelNotConfigured(
            "no model is configured",
            f"set GOOSE_MODEL (e.g. export GOOSE_MODEL=openai/gpt-4o-mini), pass --model, or "
            f"add model = \"...\" to {where}",
        )
    return LiteLLMProvider(name, settings, role=role)


def resolve_context_limit(settings: Settings, model: str) -> ContextLimit:
    """``model``'s context limit as the main model, with its source (for ``goosectx info``)."""
    return LiteLLMProvider(model, settings).context_limit()
