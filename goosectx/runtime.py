"""Assembling an agent from settings: provider, summariser, context manager, tools.

The one place the REPL and ``run`` share for wiring; tests build :class:`Agent` directly with
a scripted provider.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from goosectx.agent import Agent
from goosectx.approval import ApprovalFn
from goosectx.compaction.manager import ContextManager
from goosectx.config import ApprovalMode, Settings
from goosectx.providers.base import Provider
from goosectx.session import Session

if TYPE_CHECKING:
    from goosectx.extensions.manager import ExtensionManager
    from goosectx.redaction import Redactor


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
        from goosectx.extensions.source import ExtensionToolSource

        source = ExtensionToolSource(extensions, settings.extensions.tool_budget_ratio)
        from goosectx.redaction_fragments import WithPieces, with_pieces

        base = tool_context.redact  # (a key's 13+ characters: redacted after both)
        inner = base.inner if isinstance(base, WithPieces) else base
        extensions.tool_redact = inner  # what the servers send or print: the same, theirs added
        tool_context.redact = with_pieces(_with_extension_secrets(inner, extensions, settings))
    return Agent(
        session, settings, provider=provider, tools=default_registry(), approve=approve,
        mode=mode, context=context, tool_context=tool_context, interactive=interactive,
        tool_source=source,
    )


def _with_extension_secrets(base: Callable[[str], str], extensions: ExtensionManager,
                            settings: Settings) -> Callable[[str], str]:
    """``base`` followed by the redaction of the values given to the servers.

    Those values (``envs``, ``headers``, ``env_keys``' variables now) are secrets: never stored.
    They are read at every call, so an extension added later (``/extension add``) or a
    variable set again is covered too; the :class:`~goosectx.redaction.Redactor` (a regex of
    every encoding of every value) is made again only when they changed, not per output. A
    spec's values stay redacted once its extension is removed (``/extension remove``:
    :meth:`~goosectx.extension_settings.ExtensionSettings.spec_envs`).
    """
    return _ExtensionRedact(base, extensions, settings)


class _ExtensionRedact:
    """:func:`_with_extension_secrets`' callable, with the values it redacts.

    ``secrets`` lists ``base``'s and the servers' values (what a streamed answer is held back
    for: :mod:`goosectx.secret_tail`).
    """

    def __init__(self, base: Callable[[str], str], extensions: ExtensionManager,
                 settings: Settings) -> None:
        self._base = base
        self._extensions = extensions
        self._settings = settings
        self._made: tuple[tuple[str, ...], Redactor] | None = None  # the last one made

    def _redactor(self) -> Redactor:
        from goosectx import redaction
        from goosectx.env_secrets import spec_secrets
        from goosectx.extensions.config import secret_values

        values = tuple(sorted({*secret_values(self._extensions.configs.values()),
                               *spec_secrets(self._settings)}, key=len, reverse=True))
        if self._made is None or self._made[0] != values:
            self._made = (values, redaction.Redactor(values))
        return self._made[1]

    @property
    def secrets(self) -> list[str]:
        """The values redacted: ``base``'s (when it lists them) and the servers'."""
        return [*getattr(self._base, "secrets", ()), *self._redactor().secrets]

    def __call__(self, text: str) -> str:
        return self._redactor()(self._base(text))


def rescrub_extension_env(agent: Agent) -> None:
    """``agent``'s shell environment scrubbed again for the variables its extensions get now.

    For ``/extension add NAME=value cmd`` (its spec recorded in ``settings.extensions.added``:
    ``NAME`` leaves the environment) and ``/extension remove`` (its spec retired: ``NAME`` is
    the shell's again, as this process has it). Taken from ``os.environ`` again as
    :func:`goosectx.tools.builtin.tool_env` does when the agent is built; an agent built later
    reads the specs itself.
    """
    from goosectx.tools.builtin import tool_env

    context = agent.tool_context  # (build_agent made it)
    if context is not None:
        context.env = tool_env(agent.settings)


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
