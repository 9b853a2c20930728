"""Extension settings: ``[extensions.NAME]`` tables and the ``--with-extension`` flags.

goose's shape (docs/architecture.md §1, extensions/): ``type = "stdio"`` (``cmd``, ``args``,
``envs``, ``env_keys``, ``cwd``) or ``type = "streamable_http"`` (``uri``, ``headers``), plus
``timeout_s``, ``startup_timeout_s``, ``max_instructions_chars``, ``enabled``, ``trusted``
and ``description``.

This module never imports mcp. The values of ``envs``, ``env_keys`` and ``headers`` are secrets
as far as goosectx is concerned: :meth:`ExtensionConfig.public` is the only form that is ever
stored, exported or logged.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from goosectx.config import parse_bool, parse_positive_float, parse_positive_int
from goosectx.config_values import top_level_key_error
from goosectx.errors import ConfigError
from goosectx.extension_settings import ENV_NAME, leading_envs
from goosectx.extensions.naming import derive_name

ExtensionType = Literal["stdio", "streamable_http"]
Origin = Literal["config", "flag", "repl"]

DEFAULT_TIMEOUT_S = 300.0
DEFAULT_STARTUP_TIMEOUT_S = 30.0
DEFAULT_MAX_INSTRUCTIONS_CHARS = 8_000  # a server's instructions go into every system prompt
NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
SAFE_ENV_NAMES = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "USER", "LOGNAME",
                  "SHELL", "TMPDIR", "TZ")
"""The minimal environment every stdio server gets besides its ``envs`` and ``env_keys``."""

_KEYS = {"type", "cmd", "args", "envs", "env_keys", "cwd", "uri", "headers", "timeout_s",
         "startup_timeout_s", "enabled", "trusted", "description", "max_instructions_chars"}


@dataclass(frozen=True, slots=True)
class ExtensionConfig:
    """One MCP server.

    Attributes:
        name: The extension's name; its tools are offered as ``NAME__tool``.
        type: ``stdio`` (a child process) or ``streamable_http`` (a URL).
        cmd: The program of a stdio server.
        args: Its arguments.
        envs: Extra environment variables for the child (values are secret).
        env_keys: Variables passed through from goosectx's environment (values are secret).
        cwd: The child's working directory (default: the session's).
        uri: The endpoint of a streamable HTTP server.
        headers: HTTP headers sent to it (values are secret).
        timeout_s: Bound on one tool call, seconds.
        startup_timeout_s: Bound on starting and initialising the server, seconds.
        max_instructions_chars: Its instructions past this are cut (with a marker).
        enabled: False keeps a configured server off.
        trusted: True lets ``smart_approve`` run the tools it annotates read-only.
        description: Shown in ``extensions list``.
        origin: Where it came from: the config file, a ``--with-*`` flag or ``/extension add``.
    """

    name: str
    type: ExtensionType = "stdio"
    cmd: str = ""
    args: tuple[str, ...] = ()
    envs: Mapping[str, str] = field(default_factory=dict)
    env_keys: tuple[str, ...] = ()
    cwd: str | None = None
    uri: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float = DEFAULT_TIMEOUT_S
    startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S
    max_instructions_chars: int = DEFAULT_MAX_INSTRUCTIONS_CHARS
    enabled: bool = True
    trusted: bool = False
    description: str = ""
    origin: Origin = "config"

    def __post_init__(self) -> None:
        """The URL's credentials and the credential headers' values become known secrets.

        Whatever made the config (a table, ``--with-remote-extension``, ``/extension add``):
        an error that quotes a piece of one is redacted (:mod:`goosectx.url_secrets`).
        """
        if self.uri or self.headers:
            from goosectx.url_secrets import credential_values, remember_url_secrets

            remember_url_secrets([self.uri], credential_values(self.headers))

    def public(self) -> dict[str, Any]:
        """The settings with no secret value: safe for the store, an export and the log.

        ``envs`` and ``headers`` keep their names only; ``env_keys`` are names already. A
        secret the process knows (the provider's API key, a secret-looking variable's value, or
        13+ of its characters: :func:`goosectx.env_secrets.tool_output_redactor`)
        written in ``cmd``, ``args``, ``cwd`` or the URL is ``[REDACTED]``, as are a URL's
        password and key-like query values; ``redacted`` then says the record is not the
        command line itself (a resume asks for the flag again).
        """
        from goosectx.env_secrets import tool_output_redactor

        redact = tool_output_redactor()
        data: dict[str, Any] = {"name": self.name, "type": self.type, "origin": self.origin,
                                "timeout_s": self.timeout_s,
                                "startup_timeout_s": self.startup_timeout_s,
                                "trusted": self.trusted}
        if self.type == "stdio":
            cmd, args = redact(self.cmd), [redact(a) for a in self.args]
            cwd = redact(self.cwd) if self.cwd else self.cwd
            data.update(cmd=cmd, args=args, env_names=sorted(self.envs),
                        env_keys=list(self.env_keys), cwd=cwd)
            redacted = (cmd, args, cwd) != (self.cmd, list(self.args), self.cwd)
        else:
            uri = redact(_strip_userinfo(self.uri))
            data.update(uri=uri, header_names=sorted(self.headers))
            redacted = uri != self.uri
        if redacted:
            data["redacted"] = True
        return data

    def command_line(self) -> str:
        """``cmd args`` (stdio) or the URL, no known secret nor credential, for messages."""
        from goosectx.env_secrets import tool_output_redactor

        redact = tool_output_redactor()
        if self.type == "stdio":
            return redact(shlex.join([self.cmd, *self.args]))
        return redact(_strip_userinfo(self.uri))


def _strip_userinfo(uri: str) -> str:
    from goosectx.redaction import redact_urls

    parts = urlsplit(uri)
    if "@" not in parts.netloc:
        return redact_urls(uri)  # a ?token= value
    return redact_urls(parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl())


def _str(where: str, key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where} {key} must be a non-empty string; got {value!r}")
    return value


def _str_list(where: str, key: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} {key} must be a list of strings; got {value!r}")
    return tuple(value)


def _str_table(where: str, key: str, value: object) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{where} {key} must be a table of strings",
                          f'write it as {key} = {{ NAME = "value" }}')
    return dict(value)


def parse_table(name: str, table: object, where: str = "") -> ExtensionConfig:
    """One ``[extensions.NAME]`` table → :class:`ExtensionConfig`.

    Raises:
        ConfigError: a bad name, an unknown key, a missing ``cmd`` / ``uri`` or a bad value.
    """
    label = f"{where}: [extensions.{name}]" if where else f"[extensions.{name}]"
    if not NAME_RE.match(name) or "__" in name:
        raise ConfigError(f"{label}: extension names are 1-40 letters, digits, _ or - "
                          "(no '__')", "rename the table")
    if not isinstance(table, dict):
        raise ConfigError(f"{label} must be a table")
    unknown = set(table) - _KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise top_level_key_error(f"{where}: " if where else "", f"[extensions.{name}]",
                                  key) or ConfigError(f"{label}: unknown key {key!r}",
                                                      "valid keys: " + ", ".join(sorted(_KEYS)))
    kind = table.get("type", "stdio")
    if kind not in ("stdio", "streamable_http"):
        raise ConfigError(f"{label} type must be \"stdio\" or \"streamable_http\"; got {kind!r}")
    common: dict[str, Any] = {
        "timeout_s": parse_positive_float(f"{label} timeout_s",
                                          table.get("timeout_s", DEFAULT_TIMEOUT_S)),
        "startup_timeout_s": parse_positive_float(
            f"{label} startup_timeout_s",
            table.get("startup_timeout_s", DEFAULT_STARTUP_TIMEOUT_S)),
        "max_instructions_chars": parse_positive_int(
            f"{label} max_instructions_chars",
            table.get("max_instructions_chars", DEFAULT_MAX_INSTRUCTIONS_CHARS)),
        "enabled": parse_bool(f"{label} enabled", table.get("enabled", True)),
        "trusted": parse_bool(f"{label} trusted", table.get("trusted", False)),
        "description": str(table.get("description", "")),
    }
    if kind == "streamable_http":
        stray = {"cmd", "args", "envs", "env_keys", "cwd"} & set(table)
        if stray:
            raise ConfigError(f"{label}: {sorted(stray)[0]!r} applies to stdio servers only")
        uri = _check_url(label, _str(label, "uri", table.get("uri")))
        headers = _str_table(label, "headers", table.get("headers", {}))
        return ExtensionConfig(name, "streamable_http", uri=uri, headers=headers, **common)
    if "uri" in table or "headers" in table:
        raise ConfigError(f"{label}: uri/headers apply to type = \"streamable_http\" only")
    env_keys = _str_list(label, "env_keys", table.get("env_keys", []))
    envs = _str_table(label, "envs", table.get("envs", {}))
    for field_name, keys in (("env_keys", env_keys), ("envs", tuple(envs))):
        for key in keys:
            if not ENV_NAME.match(key):
                raise ConfigError(f"{label} {field_name}: {key!r} is not a variable name",
                                  "use letters, digits and _ (not starting with a digit)")
    for key, value in envs.items():  # no process takes one: the server would not start
        if "\0" in value:
            raise ConfigError(f"{label} envs: the value of {key} holds a NUL character",
                              "remove the \\u0000 from it")
    cwd = _str(label, "cwd", table["cwd"]) if "cwd" in table else None
    return ExtensionConfig(
        name, "stdio", cmd=_str(label, "cmd", table.get("cmd")),
        args=_str_list(label, "args", table.get("args", [])),
        envs=envs, env_keys=env_keys,
        cwd=str(Path(cwd).expanduser()) if cwd else None, **common)


def parse_tables(tables: Mapping[str, object], where: str = "") -> dict[str, ExtensionConfig]:
    """Every ``[extensions.*]`` table, by name (sorted)."""
    return {name: parse_table(name, tables[name], where) for name in sorted(tables)}


def _check_url(label: str, uri: str) -> str:
    try:
        parts = urlsplit(uri)
    except ValueError:  # "[x]" read as an IPv6 host: a bracket in the password, often
        from goosectx.redaction import redact_urls

        raise ConfigError(f"{label}: {redact_urls(uri)!r} is not a valid URL (its host does "
                          "not parse)", "percent-encode a [ or ] in the password as %5B / "
                          "%5D, or write an IPv6 host as [::1]") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"{label}: {_strip_userinfo(uri)!r} is not an http(s) URL",
                          "give the server's full URL, e.g. http://127.0.0.1:8000/mcp")
    return uri


def parse_flag_spec(spec: str, taken: Iterable[str] = (), origin: Origin = "flag"
                    ) -> ExtensionConfig:
    """``--with-extension "ENV=v cmd args"`` → a stdio :class:`ExtensionConfig`.

    Leading ``NAME=value`` words become ``envs``; the rest is split like a shell would. An
    error names what the user typed: ``/extension add`` for ``origin="repl"``.

    Raises:
        ConfigError: an empty spec or unbalanced quotes.
    """
    typed = "/extension add" if origin == "repl" else "--with-extension"  # as the user did
    try:
        words = shlex.split(spec)
    except ValueError as exc:
        raise ConfigError(f"{typed} {spec!r}: {exc}",
                          f'quote it whole: {typed} "ENV=v cmd args"') from None
    envs, words = leading_envs(words)
    if not words:
        raise ConfigError(f"{typed} {spec!r} names no command",
                          f'give it as {typed} "ENV=v cmd args"')
    name = derive_name(words, taken)
    from goosectx.redaction import remember_secret
    from goosectx.secret_names import argv_secrets

    for value in argv_secrets(words[1:]):  # "--token=…": never shown, logged nor stored
        remember_secret(value)
    return ExtensionConfig(name, "stdio", cmd=words[0], args=tuple(words[1:]), envs=envs,
                           origin=origin)


def parse_remote_spec(url: str, taken: Iterable[str] = (), origin: Origin = "flag"
                      ) -> ExtensionConfig:
    """``--with-remote-extension URL`` → a streamable HTTP :class:`ExtensionConfig`.

    Named after the URL's last path segment other than ``mcp`` (else its host).

    Raises:
        ConfigError: not an http(s) URL.
    """
    uri = _check_url("--with-remote-extension", url.strip())
    parts = urlsplit(uri)
    segments = [s for s in parts.path.split("/") if s and s.lower() not in ("mcp", "sse")]
    word = segments[-1] if segments else (parts.hostname or "remote").split(".")[0]
    if re.fullmatch(r"[0-9_.-]*", word or ""):
        word = "remote"
    return ExtensionConfig(derive_name([word], taken), "streamable_http", uri=uri,
                           origin=origin)


def child_env(config: ExtensionConfig, environ: Mapping[str, str] | None = None
              ) -> dict[str, str]:
    """The environment a stdio server's process gets.

    Only :data:`SAFE_ENV_NAMES` from goosectx's environment, then the ``env_keys`` named
    (passed through; a missing one is skipped), then ``envs``. goosectx's API keys and
    other secrets are never passed unless named in ``env_keys`` or ``envs``.
    """
    env = os.environ if environ is None else environ
    result = {k: env[k] for k in SAFE_ENV_NAMES if k in env and not env[k].startswith("()")}
    result.update({k: env[k] for k in config.env_keys if k in env})
    result.update(config.envs)
    return result


def secret_values(configs: Iterable[ExtensionConfig],
                  environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of ``envs``, ``env_keys`` and credential ``headers`` (8+ chars), to redact."""
    from goosectx.url_secrets import credential_values

    env = os.environ if environ is None else environ
    values: set[str] = set()
    for config in configs:
        values.update(config.envs.values())
        values.update(credential_values(config.headers))
        values.update(env[k] for k in config.env_keys if k in env)
    return sorted((v for v in values if len(v) >= 8), key=len, reverse=True)


def with_overrides(config: ExtensionConfig, **changes: Any) -> ExtensionConfig:
    """A copy of ``config`` with ``changes`` applied."""
    return replace(config, **changes)


def resolve_configs(tables: Mapping[str, object], where: str = "",
                    specs: Iterable[str] = (), remotes: Iterable[str] = ()
                    ) -> list[ExtensionConfig]:
    """The configured extensions plus those added by the ``--with-*`` flags, sorted by name.

    A flag-added server gets a name no configured one has.

    Raises:
        ConfigError: a bad table or flag.
    """
    configs = parse_tables(tables, where)
    for spec in specs:
        cfg = parse_flag_spec(spec, configs)
        configs[cfg.name] = cfg
    for url in remotes:
        cfg = parse_remote_spec(url, configs)
        configs[cfg.name] = cfg
    return [configs[name] for name in sorted(configs)]


def resume_configs(stored: Iterable[Mapping[str, Any]], current: Iterable[ExtensionConfig]
                   ) -> tuple[list[ExtensionConfig], list[str], dict[str, str]]:
    """What a resumed session gets back of the extensions it had (``public()`` records).

    Configured extensions come back from the config file as it is now. One added with a flag
    or ``/extension add`` comes back from its record when it had no secret values (no
    ``envs``, ``env_keys`` or ``headers``, nothing ``redacted``); otherwise it needs the flag
    again, and a notice says which.

    Returns:
        (the extensions to add to ``current``, one-line notices, and the extensions that do
        not come back: name → the notice saying why, which a call of their tools then gets).
    """
    have = {c.name for c in current}
    added: list[ExtensionConfig] = []
    notices: list[str] = []
    absent: dict[str, str] = {}
    for record in stored:
        name = str(record.get("name", ""))
        if not name or name in have:
            continue
        origin = record.get("origin")
        if origin == "config":
            absent[name] = (f"extension {name} was in this session's config but is no longer "
                            "configured (put its table back in the config file to use it)")
            notices.append(absent[name])
            continue
        flag = ("--with-remote-extension " + str(record.get("uri", ""))
                if record.get("type") == "streamable_http"
                else "--with-extension " + shlex.quote(shlex.join(
                    [str(record.get("cmd", "")), *map(str, record.get("args", []))])))
        secret = record.get("env_names") or record.get("env_keys") or record.get("header_names")
        if secret or record.get("redacted"):
            kind = "header" if secret is record.get("header_names") else "environment"
            named = f": {', '.join(map(str, secret))}" if isinstance(secret, list) else ""
            values = " and ".join(what for what, needed in (
                (f"its {kind} values{named}", secret),
                ("what [REDACTED] stands for", record.get("redacted"))) if needed)
            absent[name] = (f"extension {name} was added with a flag and needs its settings "
                            f"again: resume with {flag} (with {values})")
            notices.append(absent[name])
            continue
        try:
            cfg = (parse_remote_spec(str(record.get("uri", "")), have)
                   if record.get("type") == "streamable_http" else
                   ExtensionConfig(name, "stdio", cmd=str(record.get("cmd", "")),
                                   args=tuple(map(str, record.get("args", []))),
                                   cwd=record.get("cwd") or None, origin="flag"))
        except ConfigError:
            absent[name] = f"extension {name} could not be restarted; add it with {flag}"
            notices.append(absent[name])
            continue
        if not cfg.cmd and cfg.type == "stdio":
            continue
        cfg = replace(cfg, name=name)
        added.append(cfg)
        have.add(name)
        notices.append(f"extension {name} (added with a flag last time) started again")
    return added, notices, absent
