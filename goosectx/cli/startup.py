"""Getting the REPL's agent ready without delaying the prompt.

Loading tiktoken's encoding (for the context manager) and importing litellm take from half
a second to many seconds on a busy machine. The REPL shows its prompt at once and does that
work on a background thread: build the agent, import litellm, check the model's
credentials. The first turn waits for it (a model call needs litellm anyway); everything a
prompt needs before that (the model's name, the mode) is known without it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from goosectx.cli.render import TranscriptRenderer
from goosectx.cli.terminal import TerminalEcho
from goosectx.config import Settings
from goosectx.errors import GoosectxError, ModelNotConfigured

if TYPE_CHECKING:
    from goosectx.agent import Agent
    from goosectx.providers.base import Provider

POLL_S = 0.1


def no_model_error(settings: Settings) -> ModelNotConfigured:
    """The error that says no model is configured, with the exact fix."""
    where = settings.config_file
    return ModelNotConfigured(
        "no model is configured",
        f"set GOOSE_MODEL (e.g. export GOOSE_MODEL=openai/gpt-4o-mini), pass --model, or add "
        f"model = \"...\" to {where}")


class AgentLoader:
    """Builds the agent now or in the background, and reports what stops it from working.

    Args:
        settings: Resolved settings.
        build: Builds the agent (may raise a user-fixable error).
        fallback: Builds an agent without a model (used when ``build`` raised).
        model_name: The model the agent will use, known up front (``None``: none).

    Attributes:
        setup_error: Why the agent cannot answer, known when the REPL opens (no model).
        late_error: Why it cannot answer, found by the background check (e.g. a missing
            API key); the REPL shows it before the next turn.
        retreat: Called on the background thread with the check's error to build an agent
            on another model instead (a restored model whose key is gone:
            ``cli/model_choice.retreat_for``); ``None`` or a ``None`` result: the error stands.
    """

    def __init__(self, settings: Settings, *, build: Callable[[], Agent],
                 fallback: Callable[[], Agent], model_name: str | None) -> None:
        self.settings = settings
        self._build = build
        self._fallback = fallback
        self._model_name = model_name
        self.setup_error: GoosectxError | None = None
        self.late_error: GoosectxError | None = None
        self.retreat: Callable[[GoosectxError], Agent | None] | None = None
        self._agent: Agent | None = None
        self._built = threading.Event()
        self._bug: BaseException | None = None
        self._thread: threading.Thread | None = None

    # -- the agent -----------------------------------------------------------------------
    def build_now(self) -> None:
        """Build the agent on this thread (tests; no litellm import, no credential check)."""
        self._agent = self._make()
        self._built.set()

    def _make(self) -> Agent:
        try:
            agent = self._build()
        except GoosectxError as exc:
            self.late_error = exc
            agent = self._fallback()
        if agent.provider is None and self.setup_error is None:
            self.setup_error = no_model_error(self.settings)
        return agent

    @property
    def agent(self) -> Agent:
        """The agent; waits for the background build on first use.

        Raises:
            RuntimeError: building it failed with a bug (the cause is chained).
        """
        if self._agent is None:
            self._built.wait()
            if self._agent is None:
                raise RuntimeError("building the agent failed") from self._bug
        return self._agent

    def close(self) -> None:
        """The session ends: close the agent's tools if it was built (the shell namespace)."""
        if self._agent is not None:
            self._agent.close()

    @property
    def ready(self) -> bool:
        """True once the agent is built (using :attr:`agent` then does not wait)."""
        return self._agent is not None

    @property
    def provider(self) -> Provider | None:
        """The agent's model, or ``None`` (also while the agent is being built)."""
        return self._agent.provider if self._agent is not None else None

    @property
    def model_name(self) -> str | None:
        """The model's name, known before the agent is built."""
        if self._agent is None:
            return self._model_name
        provider = self._agent.provider
        return provider.model if provider is not None else None

    # -- the background ------------------------------------------------------------------
    def start(self, on_ready: Callable[[], None]) -> None:
        """Build the agent, import litellm and check credentials on a daemon thread.

        Args:
            on_ready: Called on that thread at the end (refresh the meter, redraw); its
                exceptions are swallowed (the meter then fills in after the first turn).
        """

        def work() -> None:
            try:
                self._agent = self._make()
            except BaseException as exc:  # noqa: BLE001 - re-raised by the agent property
                self._bug = exc
                return
            finally:
                self._built.set()
            try:
                self._agent.context.counter.preload()  # the first turn need not load it
            except Exception:  # noqa: BLE001 - the first count loads it (or falls back)
                pass
            self._check(self._agent.provider)
            if self.late_error is not None and (retreat := self.retreat) is not None:
                self.retreat = None
                if (other := retreat(self.late_error)) is not None:
                    self._agent.close()
                    self._agent, self.late_error = other, None
                    self._check(other.provider)
            try:
                on_ready()
            except Exception:  # noqa: BLE001 - only the meter is late
                pass

        self._thread = threading.Thread(target=work, name="goosectx-startup", daemon=True)
        self._thread.start()

    def _check(self, provider: Provider | None) -> None:
        if provider is None:
            return
        try:
            module = importlib.import_module("goosectx.providers.litellm_provider")
            loader = getattr(module, "preload", None) or getattr(module, "_litellm", None)
            if loader is not None:
                loader()
            verify = getattr(provider, "check_credentials", None)
            if verify is not None:
                verify()
        except GoosectxError as exc:
            self.late_error = exc
        except Exception:  # noqa: BLE001 - a failed preload only means the first call imports
            pass

    def wait(self, renderer: TranscriptRenderer, *, quiet_terminal: bool = False) -> bool:
        """Wait for the background work, with a spinner.

        ``quiet_terminal``: the real terminal's echo is off meanwhile (as while a turn runs),
        so keys typed now do not land on the spinner line; they still reach the next prompt.

        Returns:
            False when the user pressed Ctrl-C meanwhile.
        """
        thread = self._thread
        if thread is None or not thread.is_alive():
            return True
        echo = TerminalEcho(quiet_terminal)
        echo.off()
        renderer.waiting("loading the model client…")
        try:
            while thread.is_alive():
                thread.join(POLL_S)
        except KeyboardInterrupt:
            from goosectx.cli.exit_signals import received_name

            renderer.notice(f"stopped waiting ({received_name() or 'Ctrl-C'}); nothing was sent")
            return False
        finally:
            renderer.settle()
            echo.restore()
        return True

    def take_late_error(self) -> GoosectxError | None:
        """The background check's error, once (it then becomes the ``setup_error``)."""
        error, self.late_error = self.late_error, None
        if error is not None:
            self.setup_error = error
        return error

    def model_changed(self) -> None:
        """``/model`` succeeded: the earlier errors no longer apply."""
        self.setup_error = self.late_error = None
