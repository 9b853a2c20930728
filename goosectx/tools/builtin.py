"""The built-in tool set and the context its calls run in.

``default_registry()`` is what the agent offers the model; ``make_tool_context()`` turns
settings into the :class:`ToolContext` of one session (working dir, timeouts, output cap,
overflow dir, a scrubbed environment and a redactor).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from goosectx.config import Settings
from goosectx.env_secrets import tool_output_redactor
from goosectx.private_mode import make_private_dir
from goosectx.tools.base import ToolContext, ToolRegistry
from goosectx.tools.shell import ShellTool
from goosectx.tools.text_editor import TextEditorTool
from goosectx.tools.tree import TreeTool

if TYPE_CHECKING:
    from goosectx.redaction import Redactor

_PRIVATE_DIRS: set[Path] = set()
"""Overflow directories made private (with their files) by this process: once each."""


def _make_private_once(overflow_dir: Path) -> None:
    """The overflow directory 0700 and its files 0600 again, once a process (README).

    Its old files are pruned then too (:func:`goosectx.tools.overflow_files.prune`).
    """
    from goosectx.tools.overflow_files import prune

    if overflow_dir not in _PRIVATE_DIRS:
        _PRIVATE_DIRS.add(overflow_dir)
        make_private_dir(overflow_dir)
        prune(overflow_dir)


def make_redactor(settings: Settings, environ: Mapping[str, str] | None = None) -> Redactor:
    """:func:`goosectx.env_secrets.make_redactor` (its home before env_secrets).

    Loaded at the first call: the tool schemas alone (a ``compact --dry-run``) need none.
    """
    from goosectx.env_secrets import make_redactor as make

    return make(settings, environ)


def default_registry() -> ToolRegistry:
    """The built-in tools, in the order offered to the model: shell, text_editor, tree."""
    return ToolRegistry([ShellTool(), TextEditorTool(), TreeTool()])


def tool_env(settings: Settings, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a shell call gets: ``environ`` minus anything that looks secret.

    Dropped: names matching ``*_API_KEY``, ``*_TOKEN``, ``*SECRET*``, ``*PASSWORD*``,
    ``*_ACCESS_KEY_ID``, ``*_PAT`` and the rest of :data:`goosectx.secret_names.SECRET_NAME`
    (``*WEBHOOK*``, ``*_AUTH_*``, ``*COOKIE*``, ``*_PASS``, ``*_PWD``, … but not ``SSH_AUTH_SOCK``;
    case-insensitive), values that are URLs with a password or a token for the user name,
    ``Bearer …``/``Basic …`` header values and Slack/Discord webhook URLs
    (:data:`goosectx.secret_names.SECRET_VALUE`), every configured model's
    ``api_key_env``, and every variable an extension is given (:func:`extension_env_names`:
    ``env_keys = ["ACME_SERVICE"]`` hands a server a credential whose name need not look
    secret) — unless the name is listed in ``settings.allow_secret_env``. The variables
    goosectx set for litellm and tiktoken have the user's values back
    (:mod:`goosectx.own_env`).

    Args:
        settings: Supplies ``allow_secret_env``, the per-model ``api_key_env`` names and the
            extensions' tables and ``--with-extension`` specs.
        environ: The environment to filter (``os.environ`` by default).

    Returns:
        A new dict; ``environ`` is not modified.
    """
    from goosectx.env_secrets import configured_key_vars
    from goosectx.own_env import as_the_user_had
    from goosectx.secret_names import is_secret

    env = as_the_user_had(os.environ if environ is None else environ)
    allowed = set(settings.allow_secret_env)
    key_vars = configured_key_vars(settings) | extension_env_names(settings)
    return {
        name: value
        for name, value in env.items()
        if name in allowed or not (is_secret(name, value) or name in key_vars)
    }


def extension_env_names(settings: Settings) -> set[str]:
    """The variables the configured extensions are given: ``env_keys``, ``envs``' names.

    From the ``[extensions.NAME]`` tables as written (enabled or not: the core does not read
    them further, goosectx/extensions/config.py does) and the leading ``NAME=value`` words of
    the ``--with-extension`` and ``/extension add`` specs. An ``envs`` name counts too: the same
    name in goosectx's environment is likely the same kind of credential.
    """
    names: set[str] = set()
    for table in settings.extensions.tables.values():
        if not isinstance(table, dict):
            continue
        keys, envs = table.get("env_keys"), table.get("envs")
        names.update(k for k in (keys if isinstance(keys, list) else []) if isinstance(k, str))
        names.update(k for k in (envs if isinstance(envs, dict) else {}) if isinstance(k, str))
    names.update(name for name, _value in settings.extensions.spec_envs())
    return names


def make_tool_context(
    settings: Settings, working_dir: Path, cancel: threading.Event | None = None
) -> ToolContext:
    """The :class:`ToolContext` of one session.

    Args:
        settings: ``shell_timeout_s`` (seconds), ``tool_output_max_chars`` (characters; unset:
            40,000 until the agent sets the cap its context limit gives before each call),
            ``data_dir``, ``allow_secret_env``, ``models`` and ``extensions`` are used.
        working_dir: The session's working directory; relative tool paths resolve here.
        cancel: The turn's cancel event; a new one when ``None``.

    Returns:
        A context with ``env`` scrubbed by :func:`tool_env` and ``redact`` from
        :func:`goosectx.env_secrets.tool_output_redactor`, both taken from ``os.environ`` now.

    Side effects:
        Creates ``<data_dir>/tool-output`` (mode 0700) for overflow files, if it can, and
        prunes the old ones there (once a process).
    """
    from goosectx.tools.overflow_files import OVERFLOW_SUBDIR
    from goosectx.tools.runner import DEFAULT_OUTPUT_MAX_CHARS

    overflow_dir = settings.data_dir / OVERFLOW_SUBDIR
    try:
        overflow_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        pass  # a full disk: the output marker says the overflow file could not be saved
    _make_private_once(overflow_dir)
    return ToolContext(
        working_dir=working_dir,
        cancel=cancel if cancel is not None else threading.Event(),
        timeout_s=settings.shell_timeout_s,
        max_output_chars=settings.tool_output_max_chars or DEFAULT_OUTPUT_MAX_CHARS,
        overflow_dir=overflow_dir,
        env=tool_env(settings),
        redact=tool_output_redactor(settings),  # a key's 13+ characters too
    )
