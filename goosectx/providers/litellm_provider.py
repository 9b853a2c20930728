"""The litellm adapter (with ``litellm_stream``, ``litellm_call`` and ``litellm_errors``).

litellm is imported lazily (``litellm_stream.load_litellm``, with its offline, flat-cost
settings), and only by these modules.

One :class:`LiteLLMProvider` per model. It streams a chat completion with
``stream_options.include_usage``, folds the chunks into our message parts
(:mod:`goosectx.providers.openai_format`), prices the call with litellm's bundled cost map
(``None`` when the model is not priced), and translates litellm's exceptions into
:mod:`goosectx.errors`. Transient failures (429, 5xx, timeouts, connection errors) are
retried with bounded exponential backoff before anything is streamed; litellm's own retries
are disabled so the bound is ours.

The HTTP call and the chunk reading run in a worker thread (:mod:`.litellm_call`: the call,
its retries, the chunks forwarded); the caller's generator polls a queue, so a ``cancel``
event or a KeyboardInterrupt ends the stream promptly even while the socket is quiet.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from goosectx.config import DEFAULT_CONTEXT_LIMIT_TOKENS, Settings
from goosectx.conversation import Attachment, Message, ToolResponse
from goosectx.errors import (
    ModelNotConfigured,
    ProviderError,
)
from goosectx.providers.base import (
    STATED_LIMIT_SOURCE,
    ContextLimit,
    TokenPrices,
    ToolSchema,
)
from goosectx.providers.litellm_stream import MAX_TOOL_ARGUMENT_CHARS, load_litellm
from goosectx.providers.model_map import bundled_model_info
from goosectx.usage import Usage

if TYPE_CHECKING:
    from goosectx.providers.base import StreamItem

log = logging.getLogger("goosectx.provider")

DEFAULT_OUTPUT_LIMIT_TOKENS = 4_096
MAX_RETRIES = 3
"""Retries of a transient failure (so at most 4 attempts per model call)."""
DEFAULT_REQUEST_TIMEOUT_S = 600.0
REQUEST_TIMEOUT_ENV = "GOOSECTX_REQUEST_TIMEOUT_S"
"""Per-read timeout of a model call in seconds (default 600)."""
_POLL_S = 0.05

def preload() -> None:
    """Import litellm now (e.g. in a background thread while the REPL shows its prompt)."""
    load_litellm()


class LiteLLMProvider:
    """A model reached through litellm (see :class:`goosectx.providers.base.Provider`).

    Args:
        model: The model as litellm names it (``openai/gpt-4o-mini``).
        settings: Resolved settings (per-model table, context-limit override).
        role: ``main`` honours ``GOOSE_CONTEXT_LIMIT``; a ``summarizer`` uses only its own
            model's limit (DESIGN.md §3).
        named_by: What the user typed to choose ``model`` (``/model``), for a configuration
            error to name; ``None``: the configuration, or else ``--model``.
    """

    def __init__(self, model: str, settings: Settings, *, role: Literal["main", "summarizer"]
                 = "main", named_by: str | None = None) -> None:
        self.model = model
        self.named_by = named_by
        self.settings = settings
        self.role = role
        self.config = settings.model_config(model)
        self.manages_own_context = self.config.manages_own_context
        self._credentials: dict[str, str] | None = None
        self._provider_name: str | None = None
        self._stated_limit_tokens: int | None = None
        self._stated_source = STATED_LIMIT_SOURCE

    # -- limits ----------------------------------------------------------------------------
    def _model_info(self, *, ask_litellm: bool = True) -> dict[str, Any]:
        bundled = bundled_model_info(self.model)
        if bundled is not None:
            return dict(bundled)
        if not ask_litellm:
            return {}
        try:
            info = load_litellm().get_model_info(self.model)
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
        configured = self.configured_context_limit()
        stated = self._stated_limit_tokens
        if stated is not None and stated < configured.tokens:
            return ContextLimit(stated, self._stated_source)
        return configured

    def learn_stated_limit(self, tokens: int, source: str) -> None:
        """Take ``tokens`` as the window the server stated (kept with a session: ``source``)."""
        if self._stated_limit_tokens is None or tokens < self._stated_limit_tokens:
            self._stated_limit_tokens, self._stated_source = tokens, source

    def configured_context_limit(self, *, ask_litellm: bool = True) -> ContextLimit:
        """The limit the configuration gives: :meth:`context_limit` without the server's.

        ``ask_litellm=False``: a model litellm's bundled map does not know gets the default
        without importing litellm (seconds) to ask it.
        """
        s = self.settings
        source = s.source("context_limit_tokens")
        if self.role == "main" and s.context_limit_tokens and source.startswith("env"):
            return ContextLimit(s.context_limit_tokens, source)
        if self.config.context_limit:
            return ContextLimit(self.config.context_limit, f'config [models."{self.model}"]')
        if self.role == "main" and s.context_limit_tokens:
            return ContextLimit(s.context_limit_tokens, source)
        tokens = self._model_info(ask_litellm=ask_litellm).get("max_input_tokens")
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

    def prices(self) -> TokenPrices | None:
        """The model's prices from litellm's cost map, or ``None`` when it lists none."""
        info = self._model_info()
        price = info.get("input_cost_per_token")
        if not isinstance(price, int | float) or isinstance(price, bool) or price < 0:
            return None
        out = info.get("output_cost_per_token")
        return TokenPrices(float(price), float(out) if isinstance(out, int | float) else None)

    def reads_images(self) -> bool | None:
        """Reads images? Config ``supports_vision``, else litellm's; ``None``: unknown."""
        if self.config.supports_vision is not None:
            return self.config.supports_vision
        info = self._model_info()
        return info.get("supports_vision") is True if info else None

    def _sends_images(self, messages: Sequence[Message]) -> bool:
        """True when ``messages`` hold an image and :meth:`reads_images` says True."""
        if not any(isinstance(p, Attachment) and p.is_image for m in messages for p in m.content):
            return False
        return self.reads_images() is True

    # -- credentials -----------------------------------------------------------------------
    def check_credentials(self) -> dict[str, str]:
        """Resolve ``api_base`` / ``api_key`` for the call (cached); fail fast without a key.

        See :func:`~goosectx.providers.litellm_credentials.resolve_credentials`.
        """
        if self._credentials is None:
            from goosectx.providers.litellm_credentials import resolve_credentials

            self._credentials, self._provider_name = resolve_credentials(
                self.model, self.role, self.settings, self.config, named_by=self.named_by)
        return self._credentials

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
        retries: int | None = None,
    ) -> Iterator[StreamItem]:
        """Stream one model call; the last item is a :class:`ProviderResponse`.

        When ``cancel`` is set mid-stream, the stream stops and the final response holds the
        text so far (no tool calls) with ``finish_reason="cancelled"``. ``max_tokens``
        defaults to the model's configured ``max_output_tokens``; ``tool_choice`` to its
        configured one on a turn's first call (a tool name forces that tool). A stream the
        server ends without a single chunk is asked again without streaming (llama.cpp's
        Python server sends an empty 200 stream when the request fails, e.g. over its
        window), so the real error is raised. Usage the server did not report is ``None``
        (litellm would otherwise put its own count in its place). ``retries``: transient
        failures retried (``None``: :data:`MAX_RETRIES`; summary calls pass 0).

        Raises:
            ContextLengthExceeded, RateLimited, AuthFailed, ProviderUnavailable, ProviderError.
        """
        # Imported at the first call: a process that makes none (``compact --dry-run``, an
        # extractive compaction) was paying ~3.5 ms of start-up for them (~1 ms more: the
        # queue and the stream's items).
        import queue

        from goosectx.providers.litellm_call import pump
        from goosectx.providers.litellm_errors import overrun_error
        from goosectx.providers.openai_format import (
            StreamAssembler,
            to_openai_messages,
            to_openai_tools,
            tool_choice_param,
        )
        from goosectx.providers.stream_items import ProviderResponse

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
                kwargs["tool_choice"] = tool_choice_param(choice)
        max_tokens = max_tokens or self.config.max_output_tokens
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        inbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        stop = threading.Event()
        tries = MAX_RETRIES if retries is None else max(0, retries)
        worker = threading.Thread(target=pump, args=(kwargs, inbox, stop, cancel, tries,
                                                     self._translate),
                                  name="goosectx-model-call", daemon=True)
        worker.start()
        assembler = StreamAssembler()
        finished = False
        usage_reported = True
        deadline = time.monotonic() + self.settings.request_deadline_s
        try:
            while not cancel.is_set():
                if time.monotonic() > deadline:
                    raise overrun_error(self.model, "did not finish within request_deadline_s"
                                        f" = {self.settings.request_deadline_s:g} s")
                try:
                    kind, value = inbox.get(timeout=_POLL_S)
                except queue.Empty:
                    continue
                if kind == "chunk":
                    yield from assembler.add(value)
                    if assembler.argument_chars > MAX_TOOL_ARGUMENT_CHARS:
                        raise overrun_error(self.model, f"streamed more than "
                                            f"{MAX_TOOL_ARGUMENT_CHARS:,} characters of "
                                            "tool-call arguments",
                                            "that is the size cap of one tool call's "
                                            "arguments: ask the model to write the file in "
                                            "parts (several smaller edits or appends)")
                elif kind == "error":
                    raise value
                else:
                    finished = kind == "end"
                    usage_reported = value is not False
                    break
        finally:
            stop.set()
        yield from assembler.end()  # half an emoji the stream never completed: U+FFFD
        message = assembler.message(include_tool_calls=finished)
        usage = assembler.usage_figures() if usage_reported else None
        if usage is not None:
            usage = Usage(usage.input_tokens, usage.output_tokens, usage.total_tokens,
                          usage.cache_read_tokens, usage.cache_write_tokens, self._cost(usage))
        reason = assembler.finish_reason if finished else "cancelled"
        yield ProviderResponse(message, usage, self.model, reason)

    def _cost(self, usage: Usage) -> float | None:
        try:
            prompt_usd, completion_usd = load_litellm().cost_per_token(
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
    def _where(self) -> str:
        from goosectx.providers.litellm_credentials import env_api_base

        creds = self._credentials or {}
        return creds.get("api_base") or env_api_base(self.model) or self.model

    def _translate(self, exc: BaseException) -> ProviderError:
        """Map a litellm / transport exception to our error tree (remembering a stated window)."""
        from goosectx.providers.litellm_errors import translate_error

        error, stated = translate_error(
            exc, model=self.model, where=self._where(),
            key_env=self.config.api_key_env
            or f"{(self._provider_name or 'openai').upper()}_API_KEY")
        if stated:
            self._stated_limit_tokens, self._stated_source = stated, STATED_LIMIT_SOURCE
        return error


def make_provider(settings: Settings, model: str | None = None, *,
                  role: Literal["main", "summarizer"] = "main",
                  named_by: str | None = None) -> LiteLLMProvider:
    """The provider for ``model`` (default: ``settings.model``); litellm is not imported yet.

    ``named_by``: what the user typed to choose ``model`` (``/model``), for errors to name.

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
    return LiteLLMProvider(name, settings, role=role, named_by=named_by)


def resolve_context_limit(settings: Settings, model: str) -> ContextLimit:
    """``model``'s context limit as the main model, with its source (for ``goosectx info``)."""
    return LiteLLMProvider(model, settings).context_limit()


def listed_context_limit(settings: Settings, model: str) -> ContextLimit:
    """``model``'s configured limit as the main model, read without importing litellm.

    For ``sessions list`` (one per model, however many sessions): :func:`resolve_context_limit`
    but for a model that only litellm's own lookup knows, which gets the default.
    """
    return LiteLLMProvider(model, settings).configured_context_limit(ask_litellm=False)
