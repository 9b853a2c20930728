"""Which tiktoken encoding a model counts with, and loading it offline.

Part of token counting (docs/architecture.md §5; the counting is :mod:`goosectx.tokens`). The
encoding is the model's own where tiktoken knows it and its file is available offline, else
``o200k_base``. tiktoken cannot download here, so ``TIKTOKEN_CACHE_DIR`` points at the
encodings litellm's wheel bundles (found without importing litellm). If no encoding can be
loaded at all, a characters ÷ 4 estimate is used.
"""

from __future__ import annotations

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
            from goosectx.own_env import set_own

            set_own("TIKTOKEN_CACHE_DIR", str(bundled))


class _CharEstimate:
    """Fallback encoder: ~4 characters per token."""

    def encode(self, text: str, *, disallowed_special: Any = ()) -> list[int]:
        """One id per 4 characters (rounded up)."""
        return [0] * ((len(text) + 3) // 4)


_O200K, _CL100K, _P50K, _R50K = "o200k_base", "cl100k_base", "p50k_base", "r50k_base"
MODEL_TO_ENCODING = {
    "o1": _O200K, "o3": _O200K, "o4-mini": _O200K, "gpt-5": _O200K, "gpt-4.1": _O200K,
    "gpt-4o": _O200K, "gpt-4": _CL100K, "gpt-3.5-turbo": _CL100K, "gpt-3.5": _CL100K,
    "gpt-35-turbo": _CL100K, "davinci-002": _CL100K, "babbage-002": _CL100K,
    "text-embedding-ada-002": _CL100K, "text-embedding-3-small": _CL100K,
    "text-embedding-3-large": _CL100K, "text-davinci-003": _P50K, "text-davinci-002": _P50K,
    "text-davinci-001": _R50K, "text-curie-001": _R50K, "text-babbage-001": _R50K,
    "text-ada-001": _R50K, "davinci": _R50K, "curie": _R50K, "babbage": _R50K, "ada": _R50K,
    "code-davinci-002": _P50K, "code-davinci-001": _P50K, "code-cushman-002": _P50K,
    "code-cushman-001": _P50K, "davinci-codex": _P50K, "cushman-codex": _P50K,
    "text-davinci-edit-001": "p50k_edit", "code-davinci-edit-001": "p50k_edit",
    "text-similarity-davinci-001": _R50K, "text-similarity-curie-001": _R50K,
    "text-similarity-babbage-001": _R50K, "text-similarity-ada-001": _R50K,
    "text-search-davinci-doc-001": _R50K, "text-search-curie-doc-001": _R50K,
    "text-search-babbage-doc-001": _R50K, "text-search-ada-doc-001": _R50K,
    "code-search-babbage-code-001": _R50K, "code-search-ada-code-001": _R50K,
    "gpt2": "gpt2", "gpt-2": "gpt2",
}
"""tiktoken's ``tiktoken.model.MODEL_TO_ENCODING``, as of the tiktoken installed (a test
compares them): :func:`encoding_name` reads it without importing tiktoken (~3.5 ms of CPU,
its Rust extension with it, for a command that loads no encoding)."""
MODEL_PREFIX_TO_ENCODING = {
    "o1-": _O200K, "o3-": _O200K, "o4-mini-": _O200K, "gpt-5": _O200K, "gpt-4.5-": _O200K,
    "gpt-4.1-": _O200K, "chatgpt-4o-": _O200K, "gpt-4o-": _O200K, "gpt-4-": _CL100K,
    "gpt-3.5-turbo-": _CL100K, "gpt-35-turbo-": _CL100K, "gpt-oss-": "o200k_harmony",
    "ft:gpt-4o": _O200K, "ft:gpt-4": _CL100K, "ft:gpt-3.5-turbo": _CL100K,
    "ft:davinci-002": _CL100K, "ft:babbage-002": _CL100K,
}
"""tiktoken's ``MODEL_PREFIX_TO_ENCODING`` (the first prefix that matches, in this order)."""


@lru_cache(maxsize=8)
def encoding_name(model: str | None = None) -> str:
    """The name of the tiktoken encoding for ``model`` (``o200k_base`` when unknown).

    Cheap: tiktoken's model table only (:data:`MODEL_TO_ENCODING`), the encoding itself is
    not loaded, tiktoken not even imported.
    """
    if model:
        name = model.rsplit("/", 1)[-1]
        known = MODEL_TO_ENCODING.get(name)
        if known is not None:
            return known
        for prefix, encoding in MODEL_PREFIX_TO_ENCODING.items():
            if name.startswith(prefix):
                return encoding
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
        import hashlib  # (as in _read_tables)

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
    import hashlib  # here, as tiktoken: OpenSSL's for megabytes, loaded with the encoding

    digest, payload = data[:32], data[32:]
    if len(digest) != 32 or hashlib.sha256(payload).digest() != digest:
        return None
    try:
        kwargs = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    return kwargs if isinstance(kwargs, dict) and "mergeable_ranks" in kwargs else None
