"""Which ``api_base`` and ``api_key`` a litellm call gets; part of the litellm adapter.

docs/architecture.md §7: litellm is imported only by the ``providers/litellm_*`` modules, and
lazily. The key's value is returned for the call only; it is never logged or stored.
"""

from __future__ import annotations

import logging
import os
from typing import Literal

from goosectx.config import ModelConfig, Settings
from goosectx.errors import ConfigError, MissingApiKey
from goosectx.providers.litellm_stream import load_litellm
from goosectx.redaction import remember_secret
from goosectx.url_secrets import remember_url_secrets

log = logging.getLogger("goosectx.provider")

PLACEHOLDER_API_KEY = "sk-goosectx-placeholder"
"""Sent to an ``api_base`` that needs no key (local servers), since clients insist on one."""


def env_api_base(model: str) -> str | None:
    """Litellm's ``<PROVIDER>_API_BASE`` / ``<PROVIDER>_BASE_URL`` for ``model``, if set."""
    prefix = model.split("/", 1)[0].upper() if "/" in model else "OPENAI"
    for var in (f"{prefix}_API_BASE", f"{prefix}_BASE_URL"):
        if os.environ.get(var):
            return os.environ[var]
    return None


def resolve_credentials(model: str, role: Literal["main", "summarizer"], settings: Settings,
                        config: ModelConfig, *, named_by: str | None = None
                        ) -> tuple[dict[str, str], str]:
    """Resolve ``api_base`` / ``api_key`` for calls to ``model``; fail fast without a key.

    With ``api_key_env`` configured, that variable must be set. With an ``api_base``
    (config, or litellm's ``<PROVIDER>_API_BASE`` variable) and no key, a placeholder is
    sent. Otherwise litellm's ``validate_environment`` names the missing key variable.
    ``named_by`` is what the user typed to choose ``model`` (``/model``), for an error to
    name; ``None``: the setting's source when ``model`` is the configured one, else ``--model``.

    Returns:
        Extra keyword arguments for litellm (``api_base``, ``api_key``; never logged) and the
        provider's name as litellm routes it.

    Raises:
        AuthFailed: the key variable is not set.
        ConfigError: litellm does not know the model's provider (names the setting).
    """
    litellm = load_litellm()
    extra: dict[str, str] = {}
    if config.api_base:
        extra["api_base"] = config.api_base
    remember_url_secrets([env_api_base(model)])  # the config's are known since it was read
    try:
        provider = str(litellm.get_llm_provider(model)[1])
    except Exception:  # noqa: BLE001 - litellm's "LLM Provider NOT provided"
        # A configuration value (exit 2) that names where it was set, e.g. GOOSE_MODEL.
        setting = "compaction_model" if role == "summarizer" else "model"
        source = named_by or (settings.source(setting) if model == getattr(settings, setting)
                              else "--model")
        raise ConfigError(
            f"litellm does not know which provider serves {model!r} "
            f"({source.removeprefix('env ')})",
            "prefix the model with its provider, e.g. openai/gpt-4o-mini or "
            "anthropic/claude-sonnet-4-20250514",
        ) from None
    key_env = config.api_key_env
    if key_env:
        if not os.environ.get(key_env):
            raise MissingApiKey(f"{key_env} is not set (api_key_env of {model})",
                                f"export {key_env}=<your key>")
        extra["api_key"] = os.environ[key_env]
        remember_secret(extra["api_key"])  # a provider's error that echoes it shows it redacted
    else:
        missing = [
            k for k in litellm.validate_environment(model).get("missing_keys", [])
            if k.endswith("_API_KEY")
        ]
        if missing and (extra.get("api_base") or env_api_base(model)):
            extra["api_key"] = PLACEHOLDER_API_KEY
        elif missing:
            raise MissingApiKey(
                f"{model} needs an API key in {' or '.join(missing)}, which is not set",
                f"export {missing[0]}=<your key> (or set api_base / api_key_env for this "
                f"model in the config file)",
            )
    log.debug("model %s via %s, api_base=%s", model, provider,
              extra.get("api_base") or env_api_base(model) or "default")
    return extra, provider
