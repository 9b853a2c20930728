"""Which tiktoken encoding a model counts with, and loading it offline.

Part of token counting (docs/architecture.md §5; the counting is :mod:`goosectx.tokens`). The
encoding is the model's own where tiktoken knows it and its file is available offline, else
``o200k_base``. tiktoken cannot download here, so ``TIKTOKEN_CACHE_DIR`` points at the
encodings litellm's wheel bundles (found without importing litellm). If no encoding can be
loaded at all, a characters ÷ 4 estimate is used.
"""

from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

DEFAULT_ENCODING = "o200k_base"


class Encoder(Protocol):
    """What counting needs of an encoding: ``encode``."""

    def encode(self, text: str, *, disallowed_special: Any = ...) -> list[int]:
        """The token ids of ``text``."""
        ...


def _bundled_tiktoken_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    return path if path.is_dir() else None


def ensure_offline_tiktoken() -> None:
    """Point ``TIKTOKEN_CACHE_DIR`` at litellm's bundled encodings unless already set."""
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        bundled = _bundled_tiktoken_dir()
        if bundled is not None:
            os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)


class _CharEstimate:
    """Fallback encoder: ~4 characters per token."""

    def encode(self, text: str, *, disallowed_special: Any = ()) -> list[int]:
        """One id per 4 characters (rounded up)."""
        return [0] * ((len(text) + 3) // 4)


@lru_cache(maxsize=8)
def encoding_name(model: str | None = None) -> str:
    """The name of the tiktoken encoding for ``model`` (``o200k_base`` when unknown).

    Cheap: tiktoken's model table only, the encoding itself is not loaded.
    """
    import tiktoken

    if model:
        try:
            return tiktoken.encoding_name_for_model(model.rsplit("/", 1)[-1])
        except KeyError:
            pass
    return DEFAULT_ENCODING


@lru_cache(maxsize=8)
def get_encoder(model: str | None = None) -> Encoder:
    """The tiktoken encoding for ``model`` (``o200k_base`` when unknown), cached.

    Falls back to a characters ÷ 4 estimate when tiktoken has no encoding offline.
    Loading an encoding takes from a tenth of a second to seconds: :class:`TokenCounter`
    calls this only when it has something to count.
    """
    ensure_offline_tiktoken()
    import tiktoken

    name = encoding_name(model)
    for candidate in (name, DEFAULT_ENCODING, "cl100k_base"):
        try:
            return tiktoken.get_encoding(candidate)
        except Exception:  # noqa: BLE001 - any failure to load means "try the next one"
            continue
    return _CharEstimate()
