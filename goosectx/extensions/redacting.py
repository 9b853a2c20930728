"""What an extension sends or prints is redacted as a tool's output is, its own values added.

docs/architecture.md §1 (extensions). A server's instructions, tool names, descriptions and
schemas, its replies, its stderr lines and the notices quoting them get the redaction a tool's
output gets (:func:`goosectx.env_secrets.tool_output_redactor`: goosectx's own API key, every
secret-looking variable's value, a run of 13+ of a key's characters) plus the extension's own
``envs``, ``env_keys`` and credential ``headers`` values
(:func:`goosectx.extensions.config.secret_values`) — README (Extensions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from goosectx.extensions.config import ExtensionConfig, secret_values
from goosectx.redaction import Redactor
from goosectx.redaction_fragments import WithPieces

Redact = Callable[[str], str]

_made: dict[tuple[str, ...], WithPieces] = {}
"""The redactors made, by their values: one per extension (each adds its own values)."""
_MADE_MOST = 32


def extension_redactor(configs: Iterable[ExtensionConfig], base: Redact | None = None
                       ) -> Redact:
    """The tool output's redaction (``base``, else the environment's) with ``configs``' values.

    ``base`` is the agent's tool output redactor when one is built (``runtime.build_agent``:
    its configured ``api_key_env`` keys too); without it, the secrets this process knows.
    Made once per set of values (a :class:`~goosectx.redaction.Redactor` is costly to build;
    servers with values of their own alternate, each keeps its own).
    """
    from goosectx.env_secrets import tool_output_redactor

    tools = base if base is not None else tool_output_redactor()
    known = getattr(tools, "secrets", None)
    own = secret_values(configs)
    if known is None:  # a redactor that does not list its values: run it, then ours
        mine = WithPieces(Redactor(own))
        return lambda text: mine(tools(text))
    values = tuple(sorted({*known, *own}, key=len, reverse=True))
    made = _made.get(values)
    if made is None:
        if len(_made) >= _MADE_MOST:  # the environment's secrets changed many times
            _made.clear()
        made = _made[values] = WithPieces(Redactor(values))
    return made
