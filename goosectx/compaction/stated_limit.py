"""The context window a server stated in a rejection, kept with the session across processes.

A server that rejects a request as too long often says its window ("maximum context length is
4096 tokens"); the provider then takes it over a larger configured limit
(:data:`~goosectx.providers.base.STATED_LIMIT_SOURCE`). :func:`kept_limit` stores that figure
in the session's state (``stated_limits``, saved with it) with the configured limit it
replaced, and on a resumed session — a new process whose provider knows only the configuration
— gives it back, and tells the provider, while the configured limit is still the same one. A
changed configuration (``GOOSE_CONTEXT_LIMIT``, the model's ``context_limit``) is the user's
new word and replaces it. Pure but for the state it updates; never prints.
"""

from __future__ import annotations

from goosectx.providers.base import STATED_LIMIT_SOURCE, ContextLimit, Provider
from goosectx.session import SessionState

KEPT_SOURCE = STATED_LIMIT_SOURCE + " (kept with the session)"
"""The source of a stated limit read back from the session."""


def configured_tokens(provider: Provider) -> int:
    """The limit the provider's configuration gives, or 0 when it cannot say."""
    method = getattr(provider, "configured_context_limit", None)
    if not callable(method):
        return 0
    limit = method()
    return limit.tokens if isinstance(limit, ContextLimit) else 0


def kept_limit(state: SessionState, provider: Provider, limit: ContextLimit) -> ContextLimit:
    """``limit`` (the provider's), or the smaller window its server stated, kept in ``state``.

    A stated ``limit`` is recorded under the provider's model; otherwise a recorded one applies
    when it is smaller and the configured limit is the one it replaced (0: unknown, any).
    """
    model = provider.model
    if limit.source in (STATED_LIMIT_SOURCE, KEPT_SOURCE):
        entry = [limit.tokens, configured_tokens(provider)]
        if state.stated_limits.get(model) != entry:
            state.stated_limits[model] = entry
        return limit
    kept = state.stated_limits.get(model)
    if kept is None or kept[0] >= limit.tokens or kept[1] not in (0, limit.tokens):
        return limit
    learn = getattr(provider, "learn_stated_limit", None)
    if callable(learn):  # so its own figure (a summary call's room) agrees
        learn(kept[0], KEPT_SOURCE)
    return ContextLimit(kept[0], KEPT_SOURCE)


def session_limit(state: SessionState, model: str, configured: ContextLimit) -> ContextLimit:
    """The limit a session resumed with ``model`` starts from, given the ``configured`` one."""
    kept = state.stated_limits.get(model)
    if kept is None or kept[0] >= configured.tokens or kept[1] not in (0, configured.tokens):
        return configured
    return ContextLimit(kept[0], KEPT_SOURCE)
