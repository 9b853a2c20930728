"""Settings from a TOML file and the environment, validated once.

Precedence everywhere: environment → config file → default. Each resolved value remembers
where it came from (``Settings.sources``) so ``goosectx info`` can say so.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from goosectx.config_values import (
    APPROVAL_MODES,
    COST_USD_EXPECTED,
    TOP_LEVEL_KEYS,
    ApprovalMode,
    fail,
    parse_bool,
    parse_context_limit,
    parse_cost_usd,
    parse_count,
    parse_max_turns,
    parse_mode,
    parse_positive_float,
    parse_positive_int,
    parse_ratio,
    parse_share,
    parse_str,
    read_toml,
    top_level_key_error,
)
from goosectx.errors import ConfigError
from goosectx.extension_settings import ExtensionSettings, apply_extension_settings
from goosectx.permission_rules import PermissionRules, parse_permissions
from goosectx.plain_record import mutable_record, plain_record

# The value parsers live in goosectx/config_values.py; callers import them from here too.
__all__ = [
    "APPROVAL_MODES",
    "ApprovalMode",
    "COST_USD_EXPECTED",
    "DEFAULT_CONTEXT_LIMIT_TOKENS",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_THRESHOLD_RATIO",
    "ModelConfig",
    "Settings",
    "default_config_path",
    "default_data_dir",
    "env_config_path",
    "fail",
    "load_settings",
    "parse_bool",
    "parse_cost_usd",
    "parse_count",
    "parse_mode",
    "parse_positive_float",
    "parse_positive_int",
    "parse_ratio",
    "parse_share",
    "parse_str",
    "read_toml",
    "user_config_path",
]

DEFAULT_THRESHOLD_RATIO = 0.8
DEFAULT_CONTEXT_LIMIT_TOKENS = 128_000
DEFAULT_MAX_TURNS = 1000


_MODEL_KEYS = {"context_limit", "manages_own_context", "api_base", "api_key_env",
               "max_output_tokens", "tool_choice", "supports_vision"}


@plain_record  # read-only to mypy; compared, printed nowhere (a test)
class ModelConfig:
    """Per-model settings from a ``[models."provider/name"]`` table.

    Attributes:
        context_limit: Context window in tokens, overriding litellm's model info.
        manages_own_context: The model/provider manages its context; goosectx never compacts.
        api_base: Base URL of an OpenAI-compatible (or other) endpoint.
        api_key_env: Name of the environment variable that holds this model's API key.
        max_output_tokens: Output limit in tokens, overriding litellm's model info; also
            sent as every call's ``max_tokens`` (local servers otherwise generate until
            their window is full).
        tool_choice: Sent as ``tool_choice`` on the first call of each turn (after the
            user's text, not after tool results): ``auto``, ``required``, ``none``, or a
            tool name to force that tool. For servers that ignore tools unless told, e.g.
            llama-cpp-python's ``chatml-function-calling``.
        supports_vision: Whether the model reads images (``@image`` mentions, extension
            images), overriding litellm's ``supports_vision``; ``None``: ask litellm.
    """

    context_limit: int | None = None
    manages_own_context: bool = False
    api_base: str | None = None
    api_key_env: str | None = None
    max_output_tokens: int | None = None
    tool_choice: str | None = None
    supports_vision: bool | None = None


@mutable_record  # compared, printed nowhere (a test)
class Settings:
    """Resolved settings.

    Attributes:
        model: The main model as litellm names it (``openai/gpt-4o-mini``), or ``None``.
        compaction_model: A cheaper model for summaries; ``None`` = the main model.
        mode: Approval mode.
        threshold_ratio: Fraction of the context limit above which auto-compaction runs;
            values outside (0, 1) disable auto-compaction.
        context_limit_tokens: ``GOOSE_CONTEXT_LIMIT`` (wins over a model's own limit) or the
            top-level ``context_limit`` (the main model's when its table sets none), or
            ``None``.
        max_turns: Bound on model calls per turn.
        tool_pair_summarization: Summarise old tool pairs (DESIGN.md §4.3).
        tool_call_cutoff: Override of the tool-pair cutoff, or ``None`` for the formula.
        data_dir: Where sessions, logs and tool-output overflow files live.
        allow_secret_env: Secret-looking variable names the shell tool may still see.
        shell_timeout_s: Default timeout of one shell command, seconds.
        tool_output_max_chars: Cap on the tool output kept and sent to the model, characters;
            ``None`` = 0.1 × the context limit at 4 characters a token, at most 40,000
            (``tools.runner.output_cap_chars``), and that share in counted tokens too
            (``tools.runner.output_cap_tokens``).
        request_deadline_s: Overall deadline of one model call (connect to last chunk),
            seconds; past it the call ends with an error.
        keep_recent_ratio: Share of the context limit a compaction keeps verbatim as the tail
            (0 keeps none; docs/architecture.md §5).
        keep_user_tokens: Earlier user messages re-sent verbatim after a compaction (tokens);
            ``None`` = min(8,000, 0.1 × limit), 0 re-sends none.
        summary_result_chars: Tool results longer than this are cut to head and tail lines in
            the summary request (characters).
        summary_facts_tokens: Cap on the facts merged into a summary from the transcript.
        max_cost_usd: Spending cap of a session, US dollars (``None``: no cap); a model call
            whose estimated input cost would take the session past it is not made.
        show_reasoning: Draw the model's reasoning in the REPL (folded under ``thinking``) and
            write ``reasoning_delta`` events in stream-json; False hides it (it is still saved).
        mention_max_tokens: Cap on one ``@path`` file attached to a message (tokens; a larger
            file is attached as head + tail); ``None`` = 0.1 × the context limit.
        shell_escape_to_model: A REPL ``!command`` and its output join the model's view as the
            user's message; False shows them to the user only.
        models: Per-model tables.
        config_path: The config file read, or ``None``.
        permissions: ``[permissions]`` allow / ask / deny rules (user config and the command
            line only, never the project dir).
        sources: Where each value came from, e.g. ``{"model": "env GOOSE_MODEL"}``.
    """

    model: str | None = None
    compaction_model: str | None = None
    mode: ApprovalMode = "smart_approve"
    threshold_ratio: float = DEFAULT_THRESHOLD_RATIO
    context_limit_tokens: int | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    tool_pair_summarization: bool = True
    tool_call_cutoff: int | None = None
    data_dir: Path = field(default_factory=lambda: default_data_dir())
    allow_secret_env: tuple[str, ...] = ()
    shell_timeout_s: float = 120.0
    tool_output_max_chars: int | None = None
    request_deadline_s: float = 600.0
    keep_recent_ratio: float = 0.2
    keep_user_tokens: int | None = None
    summary_result_chars: int = 2_000
    summary_facts_tokens: int = 1_500
    show_reasoning: bool = True
    mention_max_tokens: int | None = None
    max_cost_usd: float | None = None
    shell_escape_to_model: bool = True
    models: dict[str, ModelConfig] = field(default_factory=dict)
    extensions: ExtensionSettings = field(default_factory=ExtensionSettings)
    config_path: Path | None = None
    permissions: PermissionRules = field(default_factory=PermissionRules)
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def auto_compaction_enabled(self) -> bool:
        """True when ``0 < threshold_ratio < 1``."""
        return 0.0 < self.threshold_ratio < 1.0

    @property
    def config_file(self) -> Path:
        """The config file to name to the user: the one read, else where one would be read."""
        return self.config_path or default_config_path()

    @property
    def log_path(self) -> Path:
        """The debug log file (rotated)."""
        return self.data_dir / "goosectx.log"

    def model_config(self, model: str | None) -> ModelConfig:
        """The ``[models."<model>"]`` table, or an empty one."""
        return self.models.get(model or "", ModelConfig())

    def source(self, key: str) -> str:
        """Where ``key`` came from (``default`` when nothing set it)."""
        return self.sources.get(key, "default")


def default_config_path() -> Path:
    """``$GOOSECTX_CONFIG``, else ``<user config dir>/goosectx/config.toml``."""
    return env_config_path() or user_config_path()


def env_config_path() -> Path | None:
    """``$GOOSECTX_CONFIG``; ``None`` when unset or empty (an empty variable is unset)."""
    env = os.environ.get("GOOSECTX_CONFIG", "")
    return Path(env).expanduser() if env.strip() else None


def user_config_path() -> Path:
    """The default location, ``<user config dir>/goosectx/config.toml`` (may not exist)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("goosectx")) / "config.toml"


def default_data_dir() -> Path:
    """The platform's user data dir for goosectx."""
    import platformdirs

    return Path(platformdirs.user_data_dir("goosectx"))


def _parse_models(path: Path, raw: object) -> dict[str, ModelConfig]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: 'models' must be a table of [models.\"provider/name\"] tables")
    models: dict[str, ModelConfig] = {}
    for name, table in raw.items():
        where = f'[models."{name}"]'
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {where} must be a table")
        unknown = sorted(set(table) - _MODEL_KEYS)
        if unknown:
            raise top_level_key_error(f"{path}: ", where, unknown[0]) or ConfigError(
                f"{path}: unknown key {unknown[0]!r} in {where}",
                "valid keys: " + ", ".join(sorted(_MODEL_KEYS)),
            )
        models[name] = _model_config(table, where, path)
    return models


def _model_config(table: dict[str, Any], where: str, path: Path) -> ModelConfig:
    """The ``[models."NAME"]`` table ``where`` of the config file ``path``."""
    def key(name: str) -> str:  # as an error names it: [models."NAME"] KEY in FILE
        return f"{where} {name} in {path}"

    def given(name: str, parse: Any) -> Any:
        return parse(key(name), table[name]) if name in table else None

    return ModelConfig(
        context_limit=given("context_limit", parse_context_limit),
        manages_own_context=parse_bool(key("manages_own_context"),
                                       table.get("manages_own_context", False)),
        api_base=given("api_base", parse_str),
        api_key_env=given("api_key_env", parse_str),
        max_output_tokens=given("max_output_tokens", parse_positive_int),
        tool_choice=given("tool_choice", parse_str),
        supports_vision=given("supports_vision", parse_bool),
    )


def parse_home(key: str, value: object) -> Path:
    """``GOOSECTX_HOME``: an absolute path (``~`` expanded); a relative one is refused.

    Read from wherever goosectx runs, its sessions would seem lost in another directory and
    its database would land inside a project.
    """
    path = Path(parse_str(key, value)).expanduser()
    if path.is_absolute():
        return path
    try:
        example = str(Path.cwd() / path)
    except OSError:  # the current directory was deleted
        example = f"$HOME/{path}"
    raise ConfigError(f"{key}={str(value)!r} is a relative path: the data dir would move with "
                      "the current directory", f"give an absolute path, e.g. {key}={example}")


_ENV: dict[str, tuple[str, Any]] = {
    # setting name -> (environment variable, parser)
    "model": ("GOOSE_MODEL", parse_str),
    "mode": ("GOOSE_MODE", parse_mode),
    "threshold_ratio": ("GOOSE_AUTO_COMPACT_THRESHOLD", parse_ratio),
    "context_limit_tokens": ("GOOSE_CONTEXT_LIMIT", parse_context_limit),
    "max_turns": ("GOOSE_MAX_TURNS",
                  lambda k, v: parse_max_turns(k, v, "e.g. GOOSE_MAX_TURNS=1000")),
    "tool_pair_summarization": ("GOOSE_TOOL_PAIR_SUMMARIZATION", parse_bool),
    "tool_call_cutoff": ("GOOSE_TOOL_CALL_CUTOFF", parse_positive_int),
    "data_dir": ("GOOSECTX_HOME", parse_home),
    "keep_recent_ratio": ("GOOSECTX_KEEP_RECENT_RATIO", parse_share),
    "show_reasoning": ("GOOSECTX_SHOW_REASONING", parse_bool),
    "max_cost_usd": ("GOOSECTX_MAX_COST_USD",
                     lambda k, v: parse_cost_usd(k, v, "e.g. GOOSECTX_MAX_COST_USD=5")),
    "shell_escape_to_model": ("GOOSECTX_SHELL_ESCAPE_TO_MODEL", parse_bool),
}

_FILE: dict[str, tuple[str, Any]] = {
    # setting name -> (config key, parser)
    "model": ("model", parse_str),
    "compaction_model": ("compaction_model", parse_str),
    "mode": ("mode", parse_mode),
    "threshold_ratio": ("auto_compact_threshold", parse_ratio),
    "context_limit_tokens": ("context_limit", parse_context_limit),
    "max_turns": ("max_turns", lambda k, v: parse_max_turns(k, v, "e.g. max_turns = 1000")),
    "tool_pair_summarization": ("tool_pair_summarization", parse_bool),
    "tool_call_cutoff": ("tool_call_cutoff", parse_positive_int),
    "data_dir": ("data_dir", lambda k, v: Path(parse_str(k, v)).expanduser()),
    "shell_timeout_s": ("shell_timeout_s", parse_positive_float),
    "tool_output_max_chars": ("tool_output_max_chars", parse_positive_int),
    "request_deadline_s": ("request_deadline_s", parse_positive_float),
    "keep_recent_ratio": ("keep_recent_ratio", parse_share),
    "keep_user_tokens": ("keep_user_tokens", parse_count),
    "summary_result_chars": ("summary_result_chars", parse_positive_int),
    "summary_facts_tokens": ("summary_facts_tokens", parse_positive_int),
    "show_reasoning": ("show_reasoning", parse_bool),
    "mention_max_tokens": ("mention_max_tokens", parse_positive_int),
    "max_cost_usd": ("max_cost_usd", lambda k, v: parse_cost_usd(k, v, "e.g. max_cost_usd = 5")),
    "shell_escape_to_model": ("shell_escape_to_model", parse_bool),
}


def load_settings(
    config_path: Path | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Read the config file and the environment, validate every value once.

    Args:
        config_path: ``--config``; must exist when given. ``None``: ``$GOOSECTX_CONFIG`` (must
            exist when set and not empty), else the default location if it exists.
        environ: The environment (``os.environ`` by default).

    Returns:
        The resolved :class:`Settings` with ``sources`` filled in.

    Raises:
        ConfigError: a malformed file, an unknown key or a bad value (exit code 2).
    """
    env = os.environ if environ is None else environ
    settings = Settings(data_dir=Path())  # the platform's dir only when nothing names one
    path = config_path
    if path is not None and not path.exists():
        raise ConfigError(f"config file {path} does not exist", "check the --config path")
    if path is None:
        named = env_config_path()
        candidate = named or user_config_path()  # (default_config_path)
        if candidate.is_dir():
            raise ConfigError(f"config file {candidate} is a directory",
                              "point GOOSECTX_CONFIG at a file")
        if named is not None and not candidate.exists():
            # A typo must not drop the file's permission rules: refused, as --config is.
            raise ConfigError(f"config file {candidate} does not exist",
                              "check the GOOSECTX_CONFIG path, or unset it for the defaults")
        # A named one is read as --config is, a pipe too (``GOOSECTX_CONFIG=<(…)``): never
        # dropped for the defaults (its deny rules, its mode).
        path = candidate if candidate.is_file() or named is not None else None
    raw: dict[str, Any] = read_toml(path) if path is not None else {}
    settings.config_path = path
    if raw:
        unknown = set(raw) - TOP_LEVEL_KEYS
        if unknown:
            raise ConfigError(
                f"{path}: unknown key {sorted(unknown)[0]!r}",
                "see config.example.toml for the valid keys",
            )
        for name, (key, parser) in _FILE.items():
            if key in raw:
                setattr(settings, name, parser(f"{key} in {path}", raw[key]))
                settings.sources[name] = f"config {path}"
        if path is not None and "data_dir" in raw and not settings.data_dir.is_absolute():
            settings.data_dir = path.parent / settings.data_dir  # not wherever goosectx runs
        if "allow_secret_env" in raw:
            value = raw["allow_secret_env"]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise fail(f"allow_secret_env in {path}", value, "a list of variable names")
            settings.allow_secret_env = tuple(value)
            settings.sources["allow_secret_env"] = f"config {path}"
        if "models" in raw:
            settings.models = _parse_models(path, raw["models"])  # type: ignore[arg-type]
        if "permissions" in raw:
            settings.permissions = parse_permissions(f"[permissions] in {path}",
                                                     raw["permissions"])
            settings.sources["permissions"] = f"config {path}"
        apply_extension_settings(settings, raw, path)
    for name, (var, parser) in _ENV.items():
        value = env.get(var)
        if value is not None and value.strip() != "":
            setattr(settings, name, parser(var, value))
            settings.sources[name] = f"env {var}"
    if "data_dir" not in settings.sources:
        settings.data_dir = default_data_dir()  # imports platformdirs (~1.5 ms): only here
    if any(m.api_base for m in settings.models.values()):  # (the import: only then)
        from goosectx.url_secrets import remember_url_secrets

        # A password or ?key= in an api_base: redacted wherever a piece of it is quoted.
        remember_url_secrets(m.api_base for m in settings.models.values())
    if settings.data_dir.exists() and not settings.data_dir.is_dir():
        raise ConfigError(
            f"data dir {settings.data_dir} exists and is not a directory",
            "set GOOSECTX_HOME to a directory",
        )
    return settings
