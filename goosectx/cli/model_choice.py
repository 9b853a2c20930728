"""The model a resumed session starts on: the one chosen with ``/model`` in it, kept.

``/model NAME`` stores its choice in the session (``SessionState.chosen_model``); the REPL
(``--resume``, ``-c``, ``/resume``) and ``run --resume`` start on it again, below ``--model``
and ``GOOSE_MODEL`` (as a mode chosen with ``/mode`` is, ``cli.mode_choice.choose_mode``), and
say where the model comes from. A stored model that cannot be used now (its key is not
set, litellm does not know it) is named in one line and the configured model used instead:
the REPL finds that out on its background check (:func:`retreat_for`), ``run`` before its
turn (:func:`check_for_run`). Model names are outside text here (an imported session
carries its own): every line goes through the sanitiser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from goosectx.cli.sanitize import terminal_safe
from goosectx.config import Settings
from goosectx.errors import GoosectxError
from goosectx.session import Session

if TYPE_CHECKING:
    from goosectx.agent import Agent
    from goosectx.cli.repl import Repl
    from goosectx.providers.base import Provider

RESTORED_MODEL_ORIGIN = "this session"
"""The origin of a model restored from the session (chosen earlier with ``/model``)."""


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """The model a REPL or ``run`` starts a session on, and where it came from.

    Attributes:
        model: The model, or ``None`` (none configured).
        origin: ``--model``, ``env GOOSE_MODEL``, :data:`RESTORED_MODEL_ORIGIN`,
            ``config PATH`` or ``default``.
        stored: The model chosen with ``/model`` in the session, also when another wins.
        configured: The model the settings give (``GOOSE_MODEL`` or the config), the one a
            restored model that cannot be used falls back to.
    """

    model: str | None
    origin: str
    stored: str | None = None
    configured: str | None = None

    @property
    def restored(self) -> bool:
        """True when the model is the one stored in the session (and not the configured one)."""
        return self.origin == RESTORED_MODEL_ORIGIN and self.model != self.configured

    def note(self, changes_it: str) -> str:
        """`` (restored from this session; …)``, `` (--model wins over …)``, or ``""``.

        ``changes_it``: what changes the model here (``/model`` in the REPL, ``--model``).
        """
        if self.restored:
            return f" (restored from this session; {changes_it} changes it)"
        if self.stored and self.stored != self.model and self.origin != RESTORED_MODEL_ORIGIN:
            return f" ({self.origin} wins over {self.stored}, chosen with /model in this session)"
        return ""


def choose_model(settings: Settings, flag: str | None, session: Session) -> ModelChoice:
    """The starting model: ``--model`` > ``GOOSE_MODEL`` > stored (``/model``) > config."""
    stored = session.state.chosen_model
    if flag:
        return ModelChoice(flag, "--model", stored, settings.model)
    source = settings.source("model")
    if stored and not source.startswith("env"):
        return ModelChoice(stored, RESTORED_MODEL_ORIGIN, stored, settings.model)
    return ModelChoice(settings.model, source, stored, settings.model)


def unusable_line(choice: ModelChoice, error: GoosectxError) -> str:
    """The one line saying the restored model cannot be used, and which one is used instead."""
    return terminal_safe(f"this session's model {choice.model} (chosen with /model) cannot be "
                         f"used now: {error.one_line()}; using "
                         f"{choice.configured or 'no model'} instead")


def check_for_run(settings: Settings, choice: ModelChoice, stderr: IO[str]) -> str | None:
    """``run``: the model to use when ``choice`` restored one; ``None``: keep the configured.

    The restored model's key is checked now (litellm's import: the early check loads it
    anyway); a failure is one stderr line and the configured model is kept. A model used is
    named on stderr with where it comes from.
    """
    if not choice.restored or choice.model is None:
        if note := choice.note("--model"):
            stderr.write(terminal_safe(f"goosectx: note: model {choice.model}{note}\n"))
        return None
    from goosectx.providers.litellm_provider import make_provider

    try:
        make_provider(settings, choice.model, named_by="/model").check_credentials()
    except GoosectxError as exc:
        stderr.write(terminal_safe(f"goosectx: warning: {unusable_line(choice, exc)}\n"))
        return None
    stderr.write(terminal_safe(f"goosectx: note: model {choice.model}"
                               f"{choice.note('--model')}\n"))
    return choice.model


def retreat_for(repl: Repl) -> Callable[[GoosectxError], Agent | None] | None:
    """For the REPL's loader: when the restored model's check fails, the configured one.

    Called on the loader's thread with the check's error: it notes the line for the REPL to
    show (:func:`show_retreat`), points the REPL at the configured model and builds the
    agent on it. ``None`` when the model was not restored (nothing to fall back to).
    """
    choice = repl.model_choice
    if choice is None or not choice.restored:
        return None

    def retreat(error: GoosectxError) -> Agent | None:
        repl.retreat_lines.append(unusable_line(choice, error))
        repl._model_override = choice.configured
        repl.model_choice = ModelChoice(choice.configured, repl.settings.source("model"),
                                        None, choice.configured)
        if choice.configured is None:
            return None  # no model: the loader keeps the error, the REPL says how to set one
        from goosectx.cli import repl_agent  # (it imports this module)

        try:
            return repl_agent.build_agent(repl)
        except GoosectxError:
            return None  # the first error stands

    return retreat


def show_retreat(repl: Repl) -> None:
    """Draw the line a failed restored model left (once), above the prompt or the turn."""
    while repl.retreat_lines:
        repl.renderer.notice(f"warning: {repl.retreat_lines.pop(0)}", style="yellow")


def switch_provider(settings: Settings, name: str) -> Provider:
    """The provider ``/model NAME`` switches to, its key checked (the REPL's default)."""
    from goosectx import runtime

    build = getattr(runtime, "build_provider", None)
    if build is not None:
        provider: Provider = build(settings, name)
        return provider
    from goosectx.providers.litellm_provider import make_provider

    made = make_provider(settings, name, named_by="/model")
    made.check_credentials()
    return made
