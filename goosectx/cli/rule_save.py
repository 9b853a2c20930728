"""Saving an allowed permission rule to the user's config file (the ``s`` approval answer).

The file is the user's (``--config`` / ``GOOSECTX_CONFIG`` / the user config dir), never one in
the project directory. It is rewritten atomically (a temporary file in the same directory,
fsync, rename) and only when the result still parses as TOML and holds the rule; otherwise
nothing is written and the error says why.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import tomllib
from pathlib import Path

from goosectx.errors import ConfigError


def _with_rule(text: str, rule: str) -> str:
    """``text`` with ``rule`` added to ``[permissions] allow`` (section or key created)."""
    item = json.dumps(rule, ensure_ascii=False)
    section = re.search(r"(?m)^\[permissions\]\s*$", text)
    if section is None:
        sep = "" if not text or text.endswith("\n") else "\n"
        return f"{text}{sep}\n[permissions]\nallow = [{item}]\n"
    nxt = re.search(r"(?m)^\[", text[section.end():])
    end = section.end() + nxt.start() if nxt else len(text)
    body = text[section.end():end]
    allow = re.search(r"(?m)^(\s*allow\s*=\s*\[)", body)
    if allow is None:
        body = f"\nallow = [{item}]" + body
    else:
        body = body[:allow.end()] + f"{item}, " + body[allow.end():]
    return text[:section.end()] + body + text[end:]


def save_allow_rule(path: Path, rule: str, *, may_create: bool = True) -> None:
    """Add ``rule`` to ``[permissions] allow`` of the config file at ``path``.

    ``may_create``: create the file if absent (only the default location: a file named by
    ``--config`` or ``GOOSECTX_CONFIG`` that has gone is not silently made again).

    Raises:
        ConfigError: the file cannot be read or parsed, is gone (and may not be created), or
            the edit would not parse.
    """
    if not may_create and not path.exists():
        raise ConfigError(f"cannot add the rule: config file {path} no longer exists",
                          f"add it by hand: [permissions] allow = [{json.dumps(rule)}]")
    path = Path(os.path.realpath(path))  # a symlinked config: edit the file it points to
    if path.exists() and not path.is_file():  # GOOSECTX_CONFIG=/dev/null: never replaced
        raise ConfigError(f"cannot add the rule to {path}: it is not a regular file",
                          f"add it by hand: [permissions] allow = [{json.dumps(rule)}]")
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        current = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot add the rule to {path}: {exc}",
                          f"add it by hand: [permissions] allow = [{json.dumps(rule)}]") from None
    if rule in current.get("permissions", {}).get("allow", []):
        return
    updated = _with_rule(text, rule)
    try:
        parsed = tomllib.loads(updated)
    except tomllib.TOMLDecodeError:
        parsed = {}
    if rule not in parsed.get("permissions", {}).get("allow", []):
        raise ConfigError(f"cannot add the rule to {path} automatically (unusual layout)",
                          f"add it by hand: [permissions] allow = [{json.dumps(rule)}]")
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(updated)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
