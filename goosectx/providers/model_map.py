"""A model's entry in the model map litellm bundles, read without importing litellm.

Part of the litellm adapter (docs/architecture.md §7). A command that only needs a context
window or prices (``compact``, ``info``) reads litellm's bundled
``model_prices_and_context_window_backup.json`` instead of importing litellm (seconds). Parsing
that file (3.5 MB) still costs ~40 ms of CPU in every process, so the entries looked up are
kept in the user cache dir: ``litellm-model-info.json``, one entry per model name (the
model's entry, or ``null`` when the map has none), valid for one map file (its path, size and
modification time), with a SHA-256 of its entries and source checked when it is read. A file
that is missing, unreadable, not ours, of another version, of another map file or whose
checksum does not match is ignored (the map is parsed and the file written anew); writing is
best effort and atomic (:func:`goosectx.text_counts.write_cache_file`). The newest
:data:`MAX_ENTRIES` models are kept.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from functools import cache
from pathlib import Path
from typing import Any

from goosectx.digests import sha256
from goosectx.text_counts import user_cache_dir, write_cache_file

FORMAT = "goosectx-litellm-model-info"
VERSION = 1
"""Bump when what an entry holds changes: old files are ignored."""
MAX_ENTRIES = 64
"""Models kept in the file: the most recently added."""
FILE_NAME = "litellm-model-info.json"
MAP_FILE = "model_prices_and_context_window_backup.json"


@cache
def _map_path() -> Path | None:
    """The bundled map file in litellm's package (found once: ~75 µs a look, three a dry run)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / MAP_FILE


@cache
def _bundled_model_map() -> dict[str, Any]:
    """The whole model map litellm bundles (context windows, prices); ``{}`` when unreadable."""
    path = _map_path()
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _entry_in(table: dict[str, Any], model: str) -> dict[str, Any] | None:
    """``model``'s entry in ``table``: ``openai/gpt-4o`` is ``gpt-4o`` with provider openai."""
    entry = table.get(model)
    if isinstance(entry, dict) and "/" not in model:
        return entry
    provider, _, name = model.partition("/")
    for key in (model, name):
        entry = table.get(key)
        if isinstance(entry, dict) and entry.get("litellm_provider") == provider:
            return entry
    return None


def default_path() -> Path:
    """``<user cache dir>/goosectx/litellm-model-info.json``."""
    return user_cache_dir() / FILE_NAME


def _checksum(source: list[Any], entries: dict[str, Any]) -> str:
    return sha256(json.dumps([source, entries], separators=(",", ":")).encode()
                          ).hexdigest()


def _read(path: Path, source: list[Any]) -> dict[str, Any]:
    """The kept entries for the map file ``source``; empty when none can be trusted."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if (not isinstance(data, dict) or data.get("format") != FORMAT
            or data.get("version") != VERSION or data.get("source") != source):
        return {}
    entries = data.get("entries")
    if not isinstance(entries, dict) or data.get("checksum") != _checksum(source, entries):
        return {}
    return entries


_KEPT: dict[tuple[Path, tuple[Any, ...]], dict[str, Any]] = {}
"""The entries read from (and added to) the cache file, by (its path, the map's source)."""
_LOCK = threading.Lock()  # the REPL asks for limits on more than one thread


def bundled_model_info(model: str, cache_path: Path | None = None) -> dict[str, Any] | None:
    """The model's entry in litellm's bundled map, or ``None`` (then ask litellm itself).

    ``openai/gpt-4o`` is the entry ``gpt-4o`` whose provider is ``openai``. The entry is the
    one the map file gives; it is found in the cache file ``cache_path`` (default
    :func:`default_path`) when an earlier process looked it up in the same map file, else in
    the parsed map (and then kept there). Not to be changed.
    """
    path = _map_path()
    try:
        stat = path.stat() if path is not None else None
    except OSError:
        stat = None
    if path is None or stat is None:
        return _entry_in(_bundled_model_map(), model)
    source = [str(path), stat.st_size, stat.st_mtime_ns]
    cache_path = default_path() if cache_path is None else cache_path
    key = (cache_path, tuple(source))
    with _LOCK:
        entries = _KEPT.get(key)
        if entries is None:
            entries = _KEPT[key] = _read(cache_path, source)
        if model in entries:
            kept = entries[model]
            return kept if isinstance(kept, dict) else None
        entry = _entry_in(_bundled_model_map(), model)
        entries[model] = entry  # newest last: the oldest go first past MAX_ENTRIES
        keep = dict(list(entries.items())[-MAX_ENTRIES:])
    write_cache_file(cache_path, json.dumps({
        "format": FORMAT, "version": VERSION, "source": source, "entries": keep,
        "checksum": _checksum(source, keep)}, separators=(",", ":")).encode())
    return entry
