"""Environment variables goosectx sets in its own process, kept out of the commands it runs.

docs/architecture.md §4 (what a tool's process gets). litellm and tiktoken read settings from
the environment only (``LITELLM_LOCAL_MODEL_COST_MAP``, ``LITELLM_MODE``, ``LITELLM_LOG``,
``TIKTOKEN_CACHE_DIR``), so goosectx sets them in ``os.environ``; a command the model or the
user runs must not inherit them — a project that uses litellm or tiktoken itself would behave
differently under goosectx than in the user's own shell. :func:`set_own` records what the
variable was before (or that it was unset); :func:`as_the_user_had` gives an environment back
its user's values.

Core module: no printing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

_BEFORE: dict[str, str | None] = {}
"""Name → the user's value before goosectx set it (``None``: it was unset)."""


def set_own(name: str, value: str) -> None:
    """Set ``os.environ[name]`` for goosectx's own use, remembering the user's value."""
    _BEFORE.setdefault(name, os.environ.get(name))
    os.environ[name] = value


def as_the_user_had(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with every variable :func:`set_own` set back to the user's value (or removed)."""
    result = dict(env)
    for name, before in _BEFORE.items():
        if before is None:
            result.pop(name, None)
        elif name in result:
            result[name] = before
    return result
