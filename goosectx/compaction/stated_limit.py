"""The context window a server stated in a rejection, kept with the session across processes.

A server that rejects a request as too long often says its window ("maximum context length is
4096 tokens"); the provider then takes it over a larger configured limit
(:data:`~goosectx.providers.base.STATED_LIMIT_SOURCE`). :func:`kept_limit` stores that figure
in the session's state (``stated_limits``, saved with it) with the configured limit it
replaced and that limit's kind (:func:`source_kind`), and on a resumed session — a new process
whose provider knows only the configuration — gives it back, and tells the provider, while the
configured limit is still the same one. The user's new word replaces it: another configured
figure, or one set explicitly (``GOOSE_CONTEXT_LIMIT``, a ``context_limit`` in the config file)
where the replaced one was not set there, whatever its value (the default's 128,000 too). The
same explicit setting again (a ``GOOSE_CONTEXT_LIMIT`` always exported) keeps it; so does
removing an explicit setting that leaves the same figure. Pure but for the state it updates;
never prints.
"""

from __future__ import annotations

from goosectx.providers.base import STATED_LIMIT_SOURCE, ContextLimit, Provider
from goosectx.session import SessionState

KEPT_SOURCE = STATED_LIMIT_SOURCE + " (kept with the session)"
"""The source of a stated limit read back from the session."""


def source_kind(source: str) -> int:
    """Where a configured limit was set: 1 ``GOOSE_CONTEXT_LIMIT``, 2 the config file, 0 else."""
    if source.startswith("env"):
        return 1
    return 2 if source.startswith("config") else 0


def configured_entry(provider: Provider) -> tuple[int, int]:
    """(tokens, kind) of the limit the provider's configuration gives; (0, 0): cannot say."""
    method = getattr(provider, "configured_context_limit", None)
    limit = method() if callable(method) else None
    if not isinstance(limit, ContextLimit):
        return 0, 0
    return limit.tokens, source_kind(limit.source)


def holds(kept: list[int] | None, configured: ContextLimit) -> bool:
    """True when the ``kept`` entry applies under the ``configured`` limit.

    It must be smaller; the configured figure the one it replaced (0: unknown, any); and not
    set explicitly where the replaced one was not (or was set elsewhere).
    """
    if kept is None or kept[0] >= configured.tokens or kept[1] not in (0, configured.tokens):
        return False
    kind = source_kind(configured.source)
    return kind == 0 or kind == kept[2]


def kept_limit(state: SessionState, provider: Provider, limit: ContextLimit) -> ContextLimit:
    """``limit`` (the provider's), or the smaller window its server stated, kept in ``state``.

    A stated ``limit`` is recorded under the provider's model (one read back from the session
    stays as it was); otherwise a recorded one applies when it :func:`holds`.
    """
    model = provider.model
    kept = state.stated_limits.get(model)
    if limit.source == STATED_LIMIT_SOURCE or (limit.source == KEPT_SOURCE and kept is None):
        entry = [limit.tokens, *configured_entry(provider)]
        if kept != entry:
            state.stated_limits[model] = entry
        return limit
    if limit.source == KEPT_SOURCE or kept is None or not holds(kept, limit):
        return limit
    learn = getattr(provider, "learn_stated_limit", None)
    if callable(learn):  # so its own figure (a summary call's room) agrees
        learn(kept[0], KEPT_SOURCE)
    return ContextLimit(kept[0], KEPT_SOURCE)


def session_limit(state: SessionState, model: str, configured: ContextLimit) -> ContextLimit:
    """The limit a session resumed with ``model`` starts from, given the ``configured`` one."""
    kept = state.stated_limits.get(model)
    if kept is None or not holds(kept, configured):
        return configured
    return ContextLimit(kept[0], KEPT_SOURCE)
