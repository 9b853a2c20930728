"""goosectx's own files as protected writes: its config file and its data dir.

docs/architecture.md §4, clause 2 of the one approval decision: part of
:func:`goosectx.protected_paths.protected_write`. A command or edit that writes goosectx's
config (``echo … > ~/.config/goosectx/config.toml``) may delete the user's deny rules or add
an allow rule for every later session; one writing into its data dir may rewrite a stored
session (``sessions.db``) or the log. Both are judged as a write of a git hook is. The files
are the ones this process uses (:func:`deciding`, set by :func:`goosectx.approval.decide`
from the settings) and the defaults (``$GOOSECTX_CONFIG``, the platform's config dir for
goosectx — ``config.toml`` and the user's ``commands/`` —, ``$GOOSECTX_HOME``, the platform's
data dir), as written and resolved.

Core module: no printing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

from goosectx.sensitive import inside, resolve

_GIVEN: ContextVar[tuple[tuple[Path, ...], tuple[Path, ...]]] = ContextVar(
    "goosectx_own_files", default=((), ()))
"""The config files and data dirs of the decision being made (:func:`deciding`)."""


@contextmanager
def deciding(config_file: Path | None, data_dir: Path | None) -> Iterator[None]:
    """Judge writes of ``config_file`` and into ``data_dir`` as protected while in the block."""
    token = _GIVEN.set((_forms(config_file), _forms(data_dir)))
    try:
        yield
    finally:
        _GIVEN.reset(token)


def own_write(done: str, target: Path) -> str | None:
    """Why ``done`` (``tee writes``) at the absolute ``target`` changes goosectx, or ``None``."""
    if not target.is_absolute():
        return None
    given_files, given_dirs = _GIVEN.get()
    files, dirs, config_dirs = _defaults(*(os.environ.get(k, "") for k in _VARIABLES))
    if target in (*given_files, *files):
        return (f"{done} {target}: goosectx's config, whose permission rules and settings "
                "every later session reads")
    if any(inside(target, d) for d in config_dirs):
        return (f"{done} {target} in goosectx's config dir, whose config and commands every "
                "later session reads")
    if any(inside(target, d) for d in (*given_dirs, *dirs)):
        return (f"{done} {target} in goosectx's data dir, which holds its sessions and "
                "log")
    return None


_VARIABLES = ("GOOSECTX_CONFIG", "GOOSECTX_HOME", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME")


Found = tuple[Path, ...]


@lru_cache(maxsize=8)
def _defaults(config: str, home: str, *_where: str) -> tuple[Found, Found, Found]:
    """The default config files and data dirs, given these variables' values.

    ``_where``: the values the platform dirs depend on (``HOME``, ``XDG_*``), for the cache.
    """
    from goosectx.config import default_data_dir, user_config_path

    files = [user_config_path()]
    config_dir = files[0].parent  # config.toml, commands/
    dirs = [default_data_dir()]
    if config.strip():
        files.append(Path(config).expanduser())
    if home.strip():
        dirs.append(Path(home).expanduser())
    return (tuple(f for p in files for f in _forms(p)), tuple(d for p in dirs for d in _forms(p)),
            _forms(config_dir))


def _forms(path: Path | None) -> tuple[Path, ...]:
    """``path`` absolute as written and resolved (``()`` for ``None``)."""
    if path is None:
        return ()
    written = Path(os.path.abspath(path))
    return tuple(dict.fromkeys((written, resolve(written))))
