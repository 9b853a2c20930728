"""The rows of ``goosectx info`` for the settings beyond model, limits and paths.

One row per setting of the config file (config.example.toml), with where its value came from
(``default``, ``config PATH`` or ``env VAR``), so that ``info`` shows every setting, and the
configured model's own ``[models."NAME"]`` settings (:func:`model_rows`).
"""

from __future__ import annotations

from goosectx.config import ModelConfig, Settings
from goosectx.redaction import redact_urls

Row = tuple[str, str, str]


def _on_off(value: bool) -> str:
    return "on" if value else "off"


def _or(value: int | None, default: str) -> str:
    return default if value is None else f"{value:,}"


def _listed(values: tuple[str, ...]) -> str:
    return ", ".join(values) if values else "(none)"


def setting_rows(settings: Settings) -> list[Row]:
    """``(name, value, source)`` for compaction, tool, REPL, secret and permission settings."""
    src = settings.source
    rules = settings.permissions
    return [
        ("keep recent ratio", f"{settings.keep_recent_ratio:g}", src("keep_recent_ratio")),
        ("keep user tokens", _or(settings.keep_user_tokens, "min(8,000, 0.1 × context limit)"),
         src("keep_user_tokens")),
        ("summary result chars", f"{settings.summary_result_chars:,}",
         src("summary_result_chars")),
        ("summary facts tokens", f"{settings.summary_facts_tokens:,}",
         src("summary_facts_tokens")),
        ("tool call cutoff", _or(settings.tool_call_cutoff, "by formula"),
         src("tool_call_cutoff")),
        ("tool output max chars", _or(settings.tool_output_max_chars,
                                      "0.1 × context limit × 4 (at most 40,000)"),
         src("tool_output_max_chars")),
        ("tool budget ratio", f"{settings.extensions.tool_budget_ratio:g}",
         src("tool_budget_ratio")),
        ("mention max tokens", _or(settings.mention_max_tokens, "0.1 × context limit"),
         src("mention_max_tokens")),
        ("shell timeout", f"{settings.shell_timeout_s:g} s", src("shell_timeout_s")),
        ("request deadline", f"{settings.request_deadline_s:g} s", src("request_deadline_s")),
        ("show reasoning", _on_off(settings.show_reasoning), src("show_reasoning")),
        ("shell escape to model", _on_off(settings.shell_escape_to_model),
         src("shell_escape_to_model")),
        ("allow secret env", _listed(settings.allow_secret_env), src("allow_secret_env")),
        ("allow rules", _listed(rules.allow), src("permissions")),
        ("ask rules", _listed(rules.ask), src("permissions")),
        ("deny rules", _listed(rules.deny), src("permissions")),
    ]


def _yes_no(value: bool | None) -> str | None:
    return None if value is None else ("yes" if value else "no")


def _tokens(value: int | None) -> str | None:
    return None if value is None else f"{value:,} tokens"


def _count(value: int | None) -> str | None:
    return None if value is None else f"{value:,}"


def _table_values(table: ModelConfig) -> list[tuple[str, str | None]]:
    """``(row name, value)`` for each key of a model's table (``None``: not set)."""
    return [
        ("model context limit", _tokens(table.context_limit)),
        ("model max output tokens", _count(table.max_output_tokens)),
        ("model api base", None if table.api_base is None else redact_urls(table.api_base)),
        ("model api key env", table.api_key_env),  # the variable's name, never its value
        ("model tool choice", table.tool_choice),
        ("model supports vision", _yes_no(table.supports_vision)),
        ("model manages own context", _yes_no(table.manages_own_context)),
    ]


def model_rows(settings: Settings) -> list[Row]:
    """The configured model's ``[models."NAME"]`` settings (none without a model).

    Each set key is a row whose source names the config file and the table; a model without
    a table gets one row saying so. Values are outside text: the caller sanitises them, and a
    password or key in ``api_base`` is redacted here.
    """
    model = settings.model
    if not model:
        return []
    where = f'[models."{model}"]'
    file = f"config {settings.config_path}" if settings.config_path else "no config file"
    if model not in settings.models:
        return [("model settings", f"(none: no {where} table)", file)]
    return [(name, value, f"{file}, {where}")
            for name, value in _table_values(settings.models[model]) if value is not None]
