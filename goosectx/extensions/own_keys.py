"""goosectx's own API keys never go to an extension: ``env_keys`` naming one is refused.

README promises a stdio server gets "never goosectx's API keys". The keys are those goosectx
reads for its models: the well-known providers' key variables, ``<PROVIDER>_API_KEY`` of every
model the config names, and every ``api_key_env``. A server's own secret (``BRAVE_API_KEY``,
``GITHUB_TOKEN``) is not one of them and still passes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from goosectx.errors import ConfigError

if TYPE_CHECKING:
    from goosectx.config import Settings

PROVIDER_KEY_VARS = frozenset({
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "AZURE_API_KEY",
    "AZURE_OPENAI_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "COHERE_API_KEY",
    "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY", "TOGETHERAI_API_KEY", "TOGETHER_API_KEY",
    "XAI_API_KEY", "FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY", "PERPLEXITYAI_API_KEY",
    "HUGGINGFACE_API_KEY", "HF_TOKEN", "REPLICATE_API_KEY", "CEREBRAS_API_KEY",
    "DEEPINFRA_API_KEY", "ANYSCALE_API_KEY", "NVIDIA_NIM_API_KEY", "VOYAGE_API_KEY",
    "AI21_API_KEY", "NLP_CLOUD_API_KEY", "DATABRICKS_API_KEY", "SAMBANOVA_API_KEY",
    "LITELLM_API_KEY", "OLLAMA_API_KEY", "VERTEX_API_KEY", "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
})
"""Key variables of the providers litellm reads for a model (goosectx's, not a server's)."""


def own_api_key_vars(settings: Settings) -> set[str]:
    """The variables that hold goosectx's API keys under ``settings``."""
    names = set(PROVIDER_KEY_VARS)
    models = {settings.model, settings.compaction_model, *settings.models}
    for model in filter(None, models):
        provider = model.split("/", 1)[0] if "/" in model else "openai"
        names.add(f"{provider.upper().replace('-', '_')}_API_KEY")
        key_env = settings.model_config(model).api_key_env
        if key_env:
            names.add(key_env)
    return names


def refuse_own_keys(configs: Iterable[Any], settings: Settings) -> None:
    """Raise :class:`ConfigError` when an extension's ``env_keys`` names goosectx's API key."""
    own = own_api_key_vars(settings)
    for config in configs:
        for key in getattr(config, "env_keys", ()):
            if key in own:
                raise ConfigError(
                    f"extension {config.name!r} env_keys: {key!r} holds goosectx's own API key, "
                    "which an extension never gets",
                    f"remove {key!r} from env_keys; give the server a key of its own "
                    "(its own variable in env_keys, or envs)")
