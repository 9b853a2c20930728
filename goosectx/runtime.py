"""Assembling an agent from settings: provider, summariser, context manager, tools.

The one place the REPL and ``run`` share for wiring; tests build :class:`Agent` directly with
a scripted provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goosectx.agent import Agent
from goosectx.approval import ApprovalFn
from goosectx.compaction.manager import ContextManager
from goosectx.config import ApprovalMode, Settings
from goosectx.providers.base import Provider
from goosectx.session import Session

if TYPE_CHECKING:
    from goosectx.extensions.manager import ExtensionManager


def build_agent(
    settings: Settings,
    session: Session,
    *,
    approve: ApprovalFn,
    mode: ApprovalMode | None = None,
    model: str | None = None,
    interactive: bool = True,
    extensions: ExtensionManager | None = None,
) -> Agent:
    """An agent for ``session`` wired from ``settings``.

    Args:
        settings: Resolved settings.
        session: The session to drive (its working dir is where tools run).
        approve: The approval callable (the REPL asks; ``run`` without a TTY denies).
        mode: Approval mode; ``settings.mode`` by default.
        model: The main model; ``settings.model`` by default. With neither, the agent has no
            provider and every turn ends with an error naming the fix.
        interactive: False when nobody can answer approvals (see :class:`Agent`).
        extensions: The session's MCP servers; their tools are offered after the built-ins,
            within ``settings.extensions.tool_budget_ratio`` of the context limit.

    litellm is not imported here; the first model call or limit lookup does it.
    """
    from goosectx.providers.litellm_provider import make_provider
    from goosectx.tools.builtin import default_registry, make_tool_context

    provider: Provider | None = None
    if model or settings.model:
        provider = make_provider(settings, model)
    summarizer: Provider | None = None
    if settings.compaction_model and settings.compaction_model != (model or settings.model):
        summarizer = make_provider(settings, settings.compaction_model, role="summarizer")
    context = ContextManager(session, settings, provider, summarizer=summarizer)
    source = None
    tool_context = make_tool_context(settings, session.working_dir)
    if extensions is not None:
        from goosectx.extensions.config import secret_values
        from goosectx.extensions.source import ExtensionToolSource
        from goosectx.redaction import redact

        source = ExtensionToolSource(extensions, settings.extensions.tool_budget_ratio)
        # Values given to servers (envs, env_keys, headers) are secrets: never stored. Read
        # at every call, so an extension added later (/extension add) is covered too.
        base = tool_context.redact
        tool_context.redact = lambda text: redact(
            base(text), secret_values(extensions.configs.values()))
    return Agent(
        session, settings, provider=provider, tools=default_registry(), approve=approve,
        mode=mode, context=context, tool_context=tool_context, interactive=interactive,
        tool_source=source,
    )


def build_provider(settings: Settings, model: str) -> Provider:
    """The main-model provider for ``model`` with its key checked (``/model NAME``).

    Raises:
        AuthFailed: the model's key variable is not set.
        ProviderError: litellm does not know the model's provider.
    """
    from goosectx.providers.litellm_provider import make_provider

    provider = make_provider(settings, model, named_by="/model")
    provider.check_credentials()
    return provider
