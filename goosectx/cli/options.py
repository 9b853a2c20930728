"""Shared command-line options and the global state every command reads.

Only typer is imported here, so ``goosectx --help`` stays fast (docs/architecture.md §6).
"""

# No ``from __future__ import annotations`` here: typer reads the ``--resume`` and ``--model``
# callbacks' signatures (typing.get_type_hints) 8 times at every start, and string annotations
# are compiled and evaluated each time (~17 instead of ~3.4 us a call).

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer


class OutputFormat(StrEnum):
    """``run --output-format``."""

    text = "text"
    json = "json"
    stream_json = "stream-json"


class ExportFormat(StrEnum):
    """``sessions export --format``."""

    md = "md"
    json = "json"


class Strategy(StrEnum):
    """``compact --strategy``."""

    llm = "llm"
    extractive = "extractive"


class ImportFormat(StrEnum):
    """``sessions import --format``."""

    auto = "auto"
    goosectx = "goosectx"
    goose_db = "goose-db"
    goose_json = "goose-json"
    openai = "openai"
    swe_agent = "swe-agent"
    claude_code = "claude-code"
    codex = "codex"
    gemini_cli = "gemini-cli"
    qwen_code = "qwen-code"
    copilot = "copilot"
    aider = "aider"
    console = "console"


class _State:
    """Global options, read by every command (root ``--model``/``--mode``: commands' defaults)."""

    config_path: Path | None = None
    debug: bool = False
    exit_at_once: bool = False
    """Set by ``run``, ``compact`` and ``sessions import``: the process ends with ``os._exit``
    once its output is flushed (no seconds of interpreter teardown freeing litellm's objects,
    or an import's)."""
    model: str | None = None
    mode: str | None = None
    max_cost: str | None = None
    """``--max-cost`` as given: overrides ``max_cost_usd`` (config, environment); parsed by
    :func:`settings`, so a bad value is goosectx's one-line error, not typer's usage block."""


STATE = _State()

ConfigOpt = Annotated[
    Path | None, typer.Option("--config", help="Config file (default: user config dir).")
]
SessionArg = Annotated[
    str, typer.Argument(metavar="SESSION", help="Session name, id, or unique id prefix.")
]
NameOpt = Annotated[str | None, typer.Option("--name", "-n", help="Name the new session.")]


def _session_ref(value: str | None) -> str | None:
    """``--resume``'s value; an empty or blank one (an unset ``$SID``) is refused, not "new".

    So is one starting with ``-``: the next option, the name left out (``--resume --debug``).
    """
    if value is not None and not value.strip():
        from goosectx.blank_chars import quoted
        from goosectx.errors import UsageError

        raise UsageError(f"--resume {quoted(value)} names no session (an unset variable?)",
                         "give a session name or id — list them with: goosectx sessions list")
    if value is not None and value.startswith("-"):  # goosectx --resume --debug: no name
        from goosectx.errors import UsageError

        raise UsageError(f"--resume needs a session name or id before {value} (a name never "
                         "starts with '-')", "list them with: goosectx sessions list "
                         "(--continue resumes the latest one in this directory)")
    return value


ResumeOpt = Annotated[
    str | None, typer.Option("--resume", "-r", help="Resume SESSION (name, id or id prefix).",
                             callback=_session_ref)
]
ContinueOpt = Annotated[
    bool,
    typer.Option("--continue", "-c", help="Resume the latest session in this directory."),
]
HistoryOpt = Annotated[
    bool,
    typer.Option("--history", help="With --resume or -c, draw the whole transcript (default: "
                 "the last turns)."),
]
ModeOpt = Annotated[
    str | None,
    typer.Option("--mode", help="Approval mode: auto, approve, smart_approve or chat."),
]


def _model_name(value: str | None) -> str | None:
    """``--model``'s value; an empty or blank one (an unset ``$MODEL``) is refused, not ignored."""
    if value is not None and not value.strip():
        from goosectx.errors import UsageError

        raise UsageError(f"--model {value!r} names no model (an unset variable?)",
                         "give a model, e.g. --model openai/gpt-4o, or leave --model out to "
                         "use the configured one")
    return value


ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="Model, e.g. openai/gpt-4o.",
                                              callback=_model_name)]
MaxCostOpt = Annotated[
    str | None,
    typer.Option("--max-cost", metavar="USD", help="Spending cap of the session in US dollars "
                 "(max_cost_usd): a model call that would pass it is not made."),
]


def settings() -> Any:
    """Load and validate settings once per process (raises ConfigError)."""
    from goosectx.config import load_settings

    loaded = load_settings(STATE.config_path)
    if STATE.max_cost is not None:
        from goosectx.config import parse_cost_usd

        loaded.max_cost_usd = parse_cost_usd("--max-cost", STATE.max_cost, "e.g. --max-cost 5")
        loaded.sources["max_cost_usd"] = "--max-cost"
    if STATE.debug:
        from goosectx.log import setup_debug_log

        setup_debug_log(loaded.log_path)
    return loaded
