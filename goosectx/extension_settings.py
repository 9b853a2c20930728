"""The config keys of extensions: ``[extensions.NAME]`` tables and ``tool_budget_ratio``.

Core settings (docs/architecture.md §1): the tables are kept raw here and validated where
extensions are started (``goosectx/extensions/config.py``, the only place that knows their
keys); ``tool_budget_ratio`` is validated at load like every other number.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import field
from pathlib import Path
from typing import Any

from goosectx.errors import ConfigError
from goosectx.lazy_pattern import LazyPattern
from goosectx.plain_record import mutable_record

DEFAULT_TOOL_BUDGET_RATIO = 0.10
ENV_NAME = LazyPattern(r"^[A-Za-z_][A-Za-z0-9_]*$")
"""A variable's name (``env_keys``, ``envs``, a spec's leading ``NAME=value``)."""


def leading_envs(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """A ``--with-extension`` spec's leading ``NAME=value`` words as ``envs``, and the rest.

    Args:
        words: The spec split like a shell would (``shlex.split``).
    """
    envs: dict[str, str] = {}
    rest = list(words)
    while rest and "=" in rest[0] and ENV_NAME.match(rest[0].split("=", 1)[0]):
        key, value = rest.pop(0).split("=", 1)
        envs[key] = value
    return envs, rest


@mutable_record  # compared, printed nowhere (a test)
class ExtensionSettings:
    """The extension keys of the config file (``Settings.extensions``).

    Attributes:
        tables: The raw ``[extensions.NAME]`` tables, by name.
        tool_budget_ratio: Fraction of the context limit that all tool schemas together may
            take before extension tools are deferred behind ``search_tools``; 1 = never.
        flags: This process's ``--with-extension`` specs and ``--with-remote-extension`` URLs.
        added: The specs of the extensions ``/extension add`` started in this process (the
            REPL's; :meth:`spec_envs` reads them with the flags').
        removed: Those of the flags' and ``added`` specs whose extension ``/extension
            remove`` stopped (:meth:`retire`).
    """

    tables: dict[str, Any] = field(default_factory=dict)
    tool_budget_ratio: float = DEFAULT_TOOL_BUDGET_RATIO
    flags: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def spec_envs(self, *, removed: bool = False) -> list[tuple[str, str]]:
        """The leading ``NAME=value`` words of the specs: ``--with-extension`` and ``added``.

        Variables handed to a server (a credential, whatever its name): kept out of the shell
        tool's environment by name and redacted by value. A spec that does not parse gives
        none (that extension does not start: its error says why). Those of a removed
        extension's spec only with ``removed``: its names are the shell's again, its values
        stay redacted for the process (the server may have shown one already).
        """
        found: list[tuple[str, str]] = []
        gone = [] if removed else list(self.removed)
        for spec in (*self.flags[0], *self.added):
            if spec in gone:
                gone.remove(spec)
                continue
            found += _envs(spec).items()
        return found

    def retire(self, envs: dict[str, str]) -> None:
        """An extension given ``envs`` by a spec was removed: that spec is no longer live."""
        live = list(self.flags[0]) + list(self.added)
        for spec in self.removed:
            live.remove(spec)
        for spec in live:
            if envs and _envs(spec) == envs:
                self.removed.append(spec)
                return


def _envs(spec: str) -> dict[str, str]:
    """A spec's leading ``NAME=value`` words; none when it does not parse."""
    try:
        return leading_envs(shlex.split(spec))[0]
    except ValueError:
        return {}


def apply_extension_settings(settings: Any, raw: dict[str, Any], path: Path | None) -> None:
    """Read ``extensions`` and ``tool_budget_ratio`` from the config file's ``raw`` table.

    Raises:
        ConfigError: ``extensions`` is not a table of tables, or the ratio is not in (0, 1].
    """
    if "extensions" in raw:
        if not isinstance(raw["extensions"], dict):
            raise ConfigError(f"{path}: 'extensions' must be a table of [extensions.NAME] "
                              "tables", "see config.example.toml")
        settings.extensions.tables = dict(raw["extensions"])
    if "tool_budget_ratio" in raw:
        value = raw["tool_budget_ratio"]
        ratio = float(value) if isinstance(value, int | float) and not isinstance(
            value, bool) else math.nan
        if not 0.0 < ratio <= 1.0:
            raise ConfigError(f"tool_budget_ratio in {path} must be a number above 0 and at "
                              f"most 1 (1 = never defer tools); got {value!r}")
        settings.extensions.tool_budget_ratio = ratio
        settings.sources["tool_budget_ratio"] = f"config {path}"
