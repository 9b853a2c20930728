"""One model call for :mod:`goosectx.providers.litellm_provider`: opened, retried, forwarded.

litellm's ``completion`` is opened with bounded retries, and a worker thread forwards its chunks.

Transient failures (429, 5xx, timeouts, connection errors) are retried with exponential
backoff before anything is streamed (litellm's own retries are off, so the bound is ours);
the worker puts ``("chunk", …)``, then one of ``("end", usage reported?)``,
``("cancelled", None)`` or ``("error", exception)`` on the caller's queue, so the caller's
generator stays responsive to a cancel while the socket is quiet (docs/architecture.md §7).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable
from typing import Any

from goosectx.errors import ProviderError, ProviderUnavailable, RateLimited
from goosectx.providers.litellm_errors import give_up, is_api_error
from goosectx.providers.litellm_stream import (
    ChunkTrimmer,
    load_litellm,
    reply_as_chunk,
    reply_reported_usage,
    server_reported_usage,
    server_usage,
    skip_final_rebuild,
    skip_success_logging,
    stream_was_empty,
)

log = logging.getLogger("goosectx.provider")

MAX_RETRY_DELAY_S = 30.0
RETRY_BASE_DELAY_ENV = "GOOSECTX_RETRY_BASE_DELAY_S"
"""First backoff delay in seconds (default 1; doubled per retry). Tests set it small."""

Translate = Callable[[BaseException], ProviderError]
"""Maps a litellm / transport exception to our error tree (the provider's ``_translate``)."""


class Cancelled(Exception):
    """The caller cancelled while waiting to retry."""


def pump(kwargs: dict[str, Any], inbox: queue.SimpleQueue[tuple[str, Any]],
         stop: threading.Event, cancel: threading.Event, retries: int,
         translate: Translate) -> None:
    """Worker thread: open the stream (with ``retries`` retries) and forward its chunks."""
    response: Any = None
    try:
        response = open_call(kwargs, cancel, retries, translate)
        skip_success_logging(response)
        trim = ChunkTrimmer(response) if skip_final_rebuild(response) else None
        for chunk in response:
            if stop.is_set():
                return
            inbox.put(("chunk", chunk))
            if trim is not None:
                trim()
        if stream_was_empty(response) and not stop.is_set():
            log.info("the stream ended without a chunk; asking again without streaming")
            plain = {k: v for k, v in kwargs.items() if k != "stream_options"}
            reply = open_call({**plain, "stream": False}, cancel, retries, translate)
            inbox.put(("chunk", reply_as_chunk(reply)))
            inbox.put(("end", reply_reported_usage(reply)))
            return
        usage = server_usage(response)
        if usage is not None:  # litellm passed its chunk on without it
            inbox.put(("chunk", {"usage": usage}))
        inbox.put(("end", server_reported_usage(response)))
    except Cancelled:
        inbox.put(("cancelled", None))
    except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
        inbox.put(("error", translate(exc) if is_api_error(exc) else exc))
    finally:
        closer = getattr(getattr(response, "completion_stream", None), "close", None)
        if callable(closer):
            try:
                closer()
            except Exception:  # noqa: BLE001 - best effort on a connection we drop
                log.debug("closing the model stream failed", exc_info=True)


def open_call(kwargs: dict[str, Any], cancel: threading.Event, retries: int,
              translate: Translate) -> Any:
    """Start the call, retrying transient failures (429, 5xx, timeouts) with backoff.

    Returns:
        litellm's response (a stream, or the reply of a call with ``stream=False``).

    Raises:
        Cancelled: ``cancel`` was set while waiting.
        The translated error after ``retries`` retries, or a non-transient one.
    """
    litellm = load_litellm()
    base_delay_s = float(os.environ.get(RETRY_BASE_DELAY_ENV) or 1.0)
    for attempt in range(retries + 1):
        try:
            return litellm.completion(**kwargs)
        except Exception as exc:
            if not is_api_error(exc):
                raise
            error = translate(exc)
            if not isinstance(error, RateLimited | ProviderUnavailable):
                raise error from None
            if attempt == retries:
                raise (give_up(error, retries) if retries else error) from None
            delay_s = min(base_delay_s * 2**attempt, MAX_RETRY_DELAY_S)
            log.info("model call failed (%s); retry %d in %.2fs", error.message,
                     attempt + 1, delay_s)
            if cancel.wait(delay_s):
                raise Cancelled() from None
    raise AssertionError("unreachable")
