"""``goosectx info``: version, paths, model, limits — each with where its value came from.

The calibration row (docs/architecture.md §5, "Calibrated estimates") is the ratio stored with
a session for the model: ``--session SESSION``, else the session last used in this directory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goosectx import __version__
from goosectx.cli.info_settings import model_rows, setting_rows
from goosectx.cli.sanitize import terminal_safe
from goosectx.config import Settings
from goosectx.usage import format_cap_usd

if TYPE_CHECKING:
    from goosectx.session import Session


def show_info(settings: Settings, session_ref: str | None = None, *, model: str | None = None,
              mode: str | None = None) -> None:
    """Print one line per fact: ``name  value  (source)``.

    The context limit needs the provider adapter (it imports litellm) only when a model is
    configured and no override is set. ``session_ref``: the session whose calibration is shown.
    ``model`` / ``mode``: ``--model`` / ``--mode`` (shown as a ``run`` with them would use them:
    that model's limit and settings).

    Raises:
        SessionNotFound, SessionAmbiguous: ``session_ref`` names no single session.
        ConfigError: a bad ``mode``.
    """
    from goosectx.config import default_config_path, parse_mode

    if mode:
        settings.mode, settings.sources["mode"] = parse_mode("--mode", mode), "--mode"
    if model:
        settings.model, settings.sources["model"] = model, "--model"

    rows: list[tuple[str, str, str]] = [("version", __version__, "")]
    config_path = settings.config_path
    rows.append((
        "config file",
        str(config_path or default_config_path()),
        "read" if config_path else "not found (defaults in use)",
    ))
    rows.append(("data dir", str(settings.data_dir), settings.source("data_dir")))
    rows.append(("log file", str(settings.log_path), "written with --debug"))
    rows.append(("model", settings.model or "(none)", settings.source("model")))
    rows.append(("compaction model", settings.compaction_model or "(main model)",
                 settings.source("compaction_model")))
    rows.extend(model_rows(settings))
    rows.append(("approval mode", settings.mode, settings.source("mode")))
    session, no_session = _session(settings, session_ref)
    limit, source = _context_limit(settings, session)
    rows.append(("context limit", limit, source))
    threshold = f"{settings.threshold_ratio:g}"
    if not settings.auto_compaction_enabled:
        threshold += " (auto-compaction off)"
    rows.append(("compaction threshold", threshold, settings.source("threshold_ratio")))
    rows.append(_calibration(settings, session, no_session))
    rows.append(("max turns", str(settings.max_turns), settings.source("max_turns")))
    cap = settings.max_cost_usd
    rows.append(("spending cap", f"{format_cap_usd(cap)} per session" if cap else "none",
                 settings.source("max_cost_usd")))
    rows.append(("tool-pair summarisation", "on" if settings.tool_pair_summarization else "off",
                 settings.source("tool_pair_summarization")))
    rows.extend(setting_rows(settings))
    rows.append(_extensions(settings))
    rows.append(_custom_commands(settings))
    width = max(len(name) for name, _, _ in rows) + 2
    for name, value, src in rows:
        # Values hold outside text (paths, model names from the environment): made safe.
        print(terminal_safe(f"{name:<{width}}{value}" + (f"  [{src}]" if src else "")))


def _extensions(settings: Settings) -> tuple[str, str, str]:
    """The config file's extensions, checked as ``run`` and the REPL check them (none started).

    Raises:
        ConfigError: a table ``run`` would refuse (the same one-line error).
    """
    from goosectx.extensions.config import parse_tables
    from goosectx.extensions.own_keys import refuse_own_keys

    tables = settings.extensions.tables
    if not tables:
        return ("extensions", "(none)", "")
    names = parse_tables(tables, str(settings.config_path or ""))
    refuse_own_keys(names.values(), settings)
    return ("extensions", ", ".join(sorted(names)), "config file")


def _custom_commands(settings: Settings) -> tuple[str, str, str]:
    """The custom command directories of this directory's project and the user's, found."""
    from goosectx.cli.common import current_dir
    from goosectx.cli.custom_commands import info_row
    from goosectx.errors import UsageError

    try:
        return info_row(settings, current_dir())
    except UsageError:  # the current directory was deleted: no project to look in
        return ("custom commands", "(the current directory no longer exists)", "")


def _context_limit(settings: Settings, session: Session | None) -> tuple[str, str]:
    """The context limit and its source; a window the session's server stated, if it holds."""
    from goosectx.compaction.stated_limit import session_limit
    from goosectx.providers.base import ContextLimit

    tokens, source = _configured_limit(settings)
    if tokens is None:
        return "unknown", source
    model = settings.model or (session.model if session is not None else None)
    if session is not None and model:
        kept = session_limit(session.state, model, ContextLimit(tokens, source))
        if kept.tokens != tokens:
            return f"{kept.tokens:,} tokens", f"{kept.source}, session {session.display_name}"
    return f"{tokens:,} tokens", source


def _configured_limit(settings: Settings) -> tuple[int | None, str]:
    """The configured context limit in tokens (``None``: unknown) and its source."""
    env_override = settings.source("context_limit_tokens").startswith("env")
    if settings.context_limit_tokens is not None and (env_override or not settings.model):
        return settings.context_limit_tokens, settings.source("context_limit_tokens")
    if not settings.model:
        return 128_000, "default; no model configured"
    try:
        from goosectx.providers.litellm_provider import resolve_context_limit
    except ImportError:
        return None, "provider adapter unavailable"
    limit = resolve_context_limit(settings, settings.model)
    return limit.tokens, limit.source


def _session(settings: Settings, session_ref: str | None) -> tuple[Session | None, str]:
    """The session ``info`` describes (``--session``, else the last one here), or why none."""
    from goosectx.cli.common import current_dir, open_store, resolve_session

    session_id: str | None
    if session_ref is not None:
        store, session_id = resolve_session(settings, session_ref, read_only=True)
    elif not (settings.data_dir / "sessions.db").exists():
        return None, "no session yet"
    else:
        here = current_dir()
        store = open_store(settings, read_only=True)  # info only reads: a full disk is fine
        session_id = store.most_recent(here)
    try:
        if session_id is None:
            return None, "no session in this directory; --session"
        return store.load_header(session_id), ""
    finally:
        store.close()


def _calibration(settings: Settings, session: Session | None, no_session: str
                 ) -> tuple[str, str, str]:
    """The calibration row: ``estimates ×1.84, calibrated on 12 calls`` and whose it is."""
    from goosectx.compaction import calibration

    if session is None:
        return "calibration", "uncalibrated", no_session
    model = settings.model or session.model
    return ("calibration", calibration.describe(session.state, model),
            f"session {session.display_name}, model {model or '(none)'}")
