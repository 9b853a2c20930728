"""Which tiktoken encoding a model counts with, and loading it offline.

Part of token counting (docs/architecture.md §5; the counting is :mod:`goosectx.tokens`). The
encoding is the model's own where tiktoken knows it and its file is available offline, else
``o200k_base``. tiktoken cannot download here, so ``TIKTOKEN_CACHE_DIR`` points at the
encodings litellm's wheel bundles (found without importing litellm). If no encoding can be
loaded at all, a characters ÷ 4 estimate is used.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from goosectx.private_mode import make_private_dir
from goosectx.text_counts import write_cache_file

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
    name = encoding_name(model)
    for candidate in (name, DEFAULT_ENCODING, "cl100k_base"):
        try:
            return _load(candidate)
        except Exception:  # noqa: BLE001 - any failure to load means "try the next one"
            continue
    return _CharEstimate()


def _load(name: str) -> Encoder:
    """The encoding ``name``; its parsed tables are kept in the user cache dir.

    tiktoken reads an encoding from a text file of base64 lines (the slow part of a load); the
    arguments of its public constructor (``tiktoken.Encoding``) are kept in
    ``<user cache dir>/goosectx/`` as a ``marshal`` file named by the encoding, tiktoken's
    version and Python's, after a SHA-256 of the rest: a file that fails the check (or does not
    load) is ignored and written anew. Encodings tiktoken's ``openai_public`` plugin does not
    construct are loaded by ``tiktoken.get_encoding`` as they are.
    """
    import tiktoken

    path = _tables_path(name, tiktoken.__version__)
    make_private_dir(path.parent)  # 0700, its files 0600, as the kept counts (text_counts)
    kwargs = _read_tables(path)
    if kwargs is None:
        from tiktoken_ext.openai_public import ENCODING_CONSTRUCTORS

        if name not in ENCODING_CONSTRUCTORS:
            return tiktoken.get_encoding(name)
        kwargs = ENCODING_CONSTRUCTORS[name]()
        payload = marshal.dumps(kwargs)
        write_cache_file(path, hashlib.sha256(payload).digest() + payload)
    return tiktoken.Encoding(**kwargs)


def _tables_path(name: str, version: str) -> Path:
    import platformdirs

    python = f"{sys.version_info[0]}{sys.version_info[1]}m{marshal.version}"
    return (Path(platformdirs.user_cache_dir("goosectx"))
            / f"tiktoken-{name}-{version}-py{python}.marshal")


def _read_tables(path: Path) -> dict[str, Any] | None:
    """The constructor arguments kept at ``path``, or ``None`` (missing, damaged, not ours)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest, payload = data[:32], data[32:]
    if len(digest) != 32 or hashlib.sha256(payload).digest() != digest:
        return None
    try:
        kwargs = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    return kwargs if isinstance(kwargs, dict) and "mergeable_ranks" in kwargs else None
