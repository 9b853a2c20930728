"""The name a server added on the command line gets (``--with-extension``, ``/extension add``).

From its package or script: ``uvx mcp-server-time`` is ``time``. Part of the extension config
(docs/architecture.md, extensions); :mod:`goosectx.extensions.config` parses the specs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from goosectx.extension_settings import ENV_NAME

_PREFIXES = ("mcp-server-", "server-", "mcp_server_", "mcp-")
# Programs that run the server named by an argument (a package or script); any other command
# is the server itself and names it.
_LAUNCHER = re.compile(r"(npx|uvx|bunx|pnpx|pipx|uv|npm|pnpm|yarn|bun|deno|node|docker|podman"
                       r"|python[0-9.]*|pypy[0-9.]*|ruby|perl|php|java|sh|bash|dash|zsh)"
                       r"(\.exe)?")
_SUBCOMMANDS = frozenset({"run", "exec", "dlx", "x", "tool"})


_GENERIC_STEMS = frozenset({"index", "main", "server", "cli", "__main__"})
"""Script names that say nothing: the nearest directory not in :data:`_BUILD_DIRS` names it."""
_BUILD_DIRS = frozenset({"dist", "build", "lib", "src", "bin", "out"})
_ENV_TAKES_VALUE = frozenset({"-u", "--unset", "-C", "--chdir"})


def _after_env(words: list[str]) -> list[str]:
    """``env [-i] [-u NAME] [NAME=value …] CMD ARGS`` → ``[CMD, ARGS…]`` (``[]``: none)."""
    i = 1
    while i < len(words):
        word = words[i]
        if word in _ENV_TAKES_VALUE:
            i += 2
        elif word.startswith("-") or ("=" in word and ENV_NAME.match(word.split("=", 1)[0])):
            i += 1
        else:
            return words[i:]
    return []


def derive_name(words: Iterable[str], taken: Iterable[str]) -> str:
    """A name for a flag-added server, from its package or script.

    ``uvx mcp-server-time`` → ``time``, ``npx -y @modelcontextprotocol/server-everything`` →
    ``everything``: for a launcher (npx, uvx, python, node, docker …) the first argument that
    is not an option or ``run``-like subcommand, else the program itself (``/opt/bin/srv arg``
    → ``srv``); without directories, ``@scope/``, a file suffix, a version, an
    ``mcp-server-`` prefix and a ``-server`` suffix; ``_2``, ``_3`` … are added when taken.
    ``env … CMD`` is named as ``CMD`` is; a script named ``index``/``main``/``server``/``cli``
    after its nearest directory that is not ``dist``/``build``/``lib``/``src``/``bin``/``out``.
    """
    words = list(words)
    program = words[0].rstrip("/").rsplit("/", 1)[-1] if words else ""
    if program in ("env", "env.exe") and _after_env(words):
        return derive_name(_after_env(words), taken)
    candidates = [w for w in words[1:] if w and not w.startswith("-")
                  and w not in _SUBCOMMANDS] if _LAUNCHER.fullmatch(program) else []
    candidates = candidates or words[:1]
    base = candidates[0] if candidates else "ext"
    parts = [p for p in base.split("/") if p]
    if len(parts) > 1 and re.sub(r"\.[A-Za-z]+$", "", parts[-1]).lower() in _GENERIC_STEMS:
        # .../server-filesystem/dist/index.js: named after its package's directory
        base = next((p for p in reversed(parts[:-1]) if p.lower() not in _BUILD_DIRS), base)
    base = base.rstrip("/").rsplit("/", 1)[-1].split("@", 1)[0] or base
    base = re.sub(r"\.(py|js|mjs|ts|sh)$", "", base)
    for prefix in _PREFIXES:
        if base.lower().startswith(prefix) and len(base) > len(prefix):
            base = base[len(prefix):]
            break
    base = re.sub(r"[-_](server|mcp)$", "", base) or base
    base = re.sub(r"[^A-Za-z0-9_-]+", "_", base).strip("_-").replace("__", "_")[:30] or "ext"
    used = set(taken)
    name, n = base, 2
    while name in used:
        name, n = f"{base}_{n}", n + 1
    return name
