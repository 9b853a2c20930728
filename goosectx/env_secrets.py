"""The secrets of this environment and config: what a redactor looks for.

The values of secret-looking variables, configured API keys and extension headers, redacted
from tool output, an import, a pasted line (:class:`~goosectx.redaction.Redactor`).

Apart from the tools (``tools/builtin.py`` takes them from here) so that a command which only
redacts — ``sessions import`` — does not load the tool set to learn them.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping

from goosectx.config import Settings
from goosectx.redaction import Redactor
from goosectx.redaction_fragments import WithPieces, known_pieces, with_pieces
from goosectx.secret_names import argv_secrets, secret_values
from goosectx.url_secrets import credential_header, header_secrets


def configured_key_vars(settings: Settings) -> set[str]:
    """The variables the configured models read their API keys from (``api_key_env``)."""
    return {m.api_key_env for m in settings.models.values() if m.api_key_env}


def make_redactor(settings: Settings, environ: Mapping[str, str] | None = None) -> Redactor:
    """A redactor for the values of secret variables and configured API keys.

    It matches each value in the encodings :func:`goosectx.redaction.encodings` lists.
    Allowed variables (``allow_secret_env``) are still redacted: letting the shell use a
    token does not mean storing it.
    """
    env = os.environ if environ is None else environ
    values = secret_values(dict(env))
    values += [env[name] for name in configured_key_vars(settings) if env.get(name)]
    values += _extension_secrets(settings, env)
    return Redactor(values)


def tool_output_redactor(settings: Settings | None = None,
                         environ: Mapping[str, str] | None = None) -> WithPieces:
    """The redaction a tool output gets; every name, title and command line shown or stored too.

    :func:`make_redactor` of ``settings`` followed by
    :class:`~goosectx.redaction_fragments.WithPieces` (each run of 13+ of a key's characters,
    a key written as a list of its characters or bytes). Without ``settings`` (a session's
    ``display_name``, an extension's stored record: none at hand) the secrets the process
    knows, so redacted (:func:`~goosectx.redaction_fragments.known_pieces`). One
    function for them all: a session name, a title, an ``@`` completion, a history entry and
    a tool output hide the same things.
    """
    if settings is None:
        return known_pieces()
    return with_pieces(make_redactor(settings, environ))


def spec_secrets(settings: Settings) -> list[str]:
    """The values of the specs' ``NAME=value`` words, and each 12+ character word of one.

    The leading words of ``--with-extension`` and ``/extension add`` specs, a removed
    extension's too (its values stay secrets for the process); a word alone is a token. And
    the secrets their arguments hold (:func:`goosectx.secret_names.argv_secrets`: the value
    of ``--token=``, ``--password``, ``--api-key``…, a vendor's key).
    """
    found: list[str] = []
    for _name, value in settings.extensions.spec_envs(removed=True):  # "NAME=value cmd"
        found += [value, *(w for w in value.split() if len(w) >= 12)]
    for spec in (*settings.extensions.flags[0], *settings.extensions.added):
        try:
            words = shlex.split(spec)
        except ValueError:
            words = spec.split()
        found += argv_secrets(words)  # "cmd --token=… --gh=ghp_…"
    return found


def _extension_secrets(settings: Settings, env: Mapping[str, str]) -> list[str]:
    """The extensions' credential ``headers`` and ``envs`` values (a bearer token, a key).

    From the config file's tables, and the leading ``NAME=value`` words of the
    ``--with-extension`` and ``/extension add`` specs.

    Secrets the config holds, redacted wherever a tool prints them (``cat`` of the config);
    and the values of the variables an ``env_keys`` hands a server (a name that does not
    look secret: ``MY_SERVICE_AUTH``), as the agent's redactor has them.
    """
    found = spec_secrets(settings)
    for table in settings.extensions.tables.values():
        names = table.get("env_keys") if isinstance(table, dict) else None
        if isinstance(names, list):
            found += [env[n] for n in names if isinstance(n, str) and env.get(n)]
        for key in ("headers", "envs"):
            values = table.get(key) if isinstance(table, dict) else None
            if isinstance(values, dict):
                for name, value in values.items():
                    if isinstance(value, str) and (key == "envs" or credential_header(
                            str(name), value)):  # not ``Accept: application/json``
                        found += header_secrets(value)  # and a token alone
    return found
