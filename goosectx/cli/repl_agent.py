"""How the REPL builds its session's agent: the loader, the agent with a model or without one.

Part of the REPL (:mod:`goosectx.cli.repl`; docs/architecture.md §1). :func:`new_loader` makes
the :class:`~goosectx.cli.startup.AgentLoader` that builds the agent (in the background, or at
once without background checks); an agent without a model still runs ``!commands`` and the
slash commands. Every agent's compactions resume the facts scan's kept state. The agent's
modules are imported here only when it is built, never before the prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goosectx.cli.model_choice import retreat_for
from goosectx.cli.startup import AgentLoader, no_model_error

if TYPE_CHECKING:
    from goosectx.agent import Agent
    from goosectx.cli.repl import Repl
    from goosectx.compaction.manager import ContextManager


def new_loader(repl: Repl) -> AgentLoader:
    """The agent loader for ``repl.session`` (built now without background checks)."""
    model = repl._model_override
    loader = AgentLoader(repl.settings, build=lambda: build_agent(repl),
                         fallback=lambda: _bare_agent(repl),
                         model_name=model or repl.settings.model)
    if model is None and repl.settings.model is None and repl._agent_factory_given is False:
        loader.setup_error = no_model_error(repl.settings)
    loader.retreat = retreat_for(repl)  # a restored model's key gone: the configured one
    if not repl._background_checks:
        loader.build_now()
    return loader


def build_agent(repl: Repl) -> Agent:
    """The session's agent from the REPL's agent factory, around its approval callable."""
    from goosectx.cli.exit_signals import received_name

    agent = repl._agent_factory(repl.driver.approve)
    agent.stopped_by = received_name  # SIGTERM while a tool runs: the model is told so
    return _scans_kept(repl, agent)


def _bare_agent(repl: Repl) -> Agent:
    from goosectx.agent import Agent
    from goosectx.tools.builtin import default_registry

    return _scans_kept(repl, Agent(repl.session, repl.settings, provider=None,
                                   tools=default_registry(), approve=repl.driver.approve,
                                   mode=repl.mode))


def _scans_kept(repl: Repl, agent: Agent) -> Agent:
    """``agent``, its compactions resuming the facts scan's kept state (as ``compact``'s)."""
    from goosectx.scan_cache import LockedScanCache

    agent.context.scan_cache = LockedScanCache(repl.store.data_dir, repl.session.id)
    return agent


def context_manager(repl: Repl) -> ContextManager:
    """The agent's context manager, or one for the session while the agent has none."""
    from goosectx.compaction.manager import ContextManager

    manager = getattr(repl.agent, "context", None)
    if isinstance(manager, ContextManager):
        return manager
    return ContextManager(repl.session, repl.settings, repl.provider)
