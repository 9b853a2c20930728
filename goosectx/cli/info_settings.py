"""The rows of ``goosectx info`` for the settings beyond model, limits and paths.

One row per setting of the config file (config.example.toml), with where its value came from
(``default``, ``config PATH`` or ``env VAR``), so that ``info`` shows every setting.
"""

from __future__ import annotations

from goosectx.config import Settings

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
        ("tool output max chars", f"{settings.tool_output_max_chars:,}",
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
