"""Secrets of this environment redacted from what the user sends: typed text, piped data, files.

README, "Security": an API key never reaches a session. Tool output is redacted before the
model or the store sees it (``env_secrets.make_redactor``: the values of secret-looking
variables and configured API keys, in every encoding it lists); what the user sends gets the
same redactor before it is saved or sent — the REPL's typed message and ``run``'s task
(``-t``, ``-i``), the data piped to ``run``, and the ``@`` files and extension resources
attached (scrubbed as an import's parts are: :func:`goosectx.cli.import_secrets.redact_parts`).
The session's title, made of the first message, follows. The user is told in one line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from goosectx.config import Settings
from goosectx.parts import Part

if TYPE_CHECKING:
    from goosectx.redaction_fragments import WithPieces

Redact = Callable[[str], str]
P = TypeVar("P", bound=Part)


class EnvironmentRedactor:
    """One REPL's redactor of this environment's secrets: made once, again when they change.

    :func:`goosectx.env_secrets.tool_output_redactor` of the settings, the tools': compiling
    it takes 1–9 ms with three keys in the environment, which every message, ``/search`` and
    input history entry paid. It is made at the first use, and made again only when the
    environment differs from the one it was made of (a variable set since) or an
    ``/extension add`` gave a server a ``NAME=value``; a ``/model`` sets none (its key
    variable is one the settings name, already redacted).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._environ: dict[str, str] | None = None
        self._made: WithPieces | None = None
        self._added = 0

    def __call__(self, text: str) -> str:
        """``text`` with this environment's secrets redacted (every listed encoding).

        And, in an ``/extension add "NAME=value cmd"`` line (the input history's entry of
        it), each value handed to the server: it is a secret from then on.
        """
        return self._redactor()(redact_added_envs(text))

    def changes_none(self, texts: Iterable[str]) -> bool:
        """True when redacting each of ``texts`` gives it back as it is (one quick check).

        :meth:`goosectx.redaction_fragments.WithPieces.changes_none`: the input history's
        entries at load.
        """
        return self._redactor().changes_none(texts)

    def _redactor(self) -> WithPieces:
        environ = dict(os.environ)
        added = len(self.settings.extensions.added)  # (an /extension add: its NAME=value)
        if self._made is None or environ != self._environ or added != self._added:
            from goosectx.env_secrets import tool_output_redactor

            self._made = tool_output_redactor(self.settings, environ)
            self._environ = environ
            self._added = added
        return self._made


def redact_added_envs(line: str) -> str:
    """``line`` with an ``/extension add`` spec's leading ``NAME=value`` values redacted.

    And its arguments' secrets (``--token=…``, ``--password …``, a vendor's key:
    :func:`goosectx.secret_names.argv_secrets`).

    Those of 8+ characters, as a secret is; any other line is given back as it is.
    """
    command, _, arg = line.strip().partition(" ")
    action, _, spec = arg.strip().partition(" ")
    if command.lower() != "/extension" or action.lower() != "add":
        return line
    import shlex

    from goosectx.extension_settings import leading_envs
    from goosectx.redaction import REDACTED
    from goosectx.secret_names import MIN_SECRET_CHARS, argv_secrets

    spec = spec.strip()
    if len(spec) >= 2 and spec[0] == spec[-1] and spec[0] in "\"'":
        spec = spec[1:-1]
    try:
        words = shlex.split(spec)
        envs = leading_envs(words)[0]
    except ValueError:
        return line
    for value in sorted([*envs.values(), *argv_secrets(words)], key=len, reverse=True):
        if len(value) >= MIN_SECRET_CHARS:
            line = line.replace(value, REDACTED)
    return line


class InputSecrets:
    """Redacts what the user sends, remembering what held a secret for the one-line notice.

    Args:
        redact: The tool outputs' redactor (``agent.redact``), or ``None`` for
            :func:`goosectx.env_secrets.tool_output_redactor` of ``settings`` (before the agent is
            built: a message saved while the model client loads).
        settings: Used when ``redact`` is ``None``.
    """

    def __init__(self, redact: Redact | None = None, settings: Settings | None = None) -> None:
        if redact is None:
            from goosectx.env_secrets import tool_output_redactor

            if settings is None:
                raise ValueError("InputSecrets needs a redactor or the settings")
            redact = tool_output_redactor(settings)
        self.redact = redact
        """The redactor used (the agent's, once it is built)."""
        self.found: list[str] = []
        """What held a secret (``your message``, ``@conf.txt``), in the order found."""

    def text(self, text: str, what: str) -> str:
        """``text`` with secrets redacted; ``what`` (``the task``) is noted when it held one."""
        clean = self.redact(text)
        if clean != text:
            self._note(what)
        return clean

    def parts(self, parts: Sequence[P]) -> list[P]:
        """``parts`` with secrets redacted; each attachment that held one is noted by source."""
        from goosectx.cli.import_secrets import redact_parts  # (at the first attachment)

        clean, _found = redact_parts(list(parts), self.redact, removed="before sending")
        for before, after in zip(parts, clean, strict=True):
            if after is not before:
                source = getattr(before, "source", None)
                self._note(f"@{source}" if isinstance(source, str) else "an attachment")
        return clean  # type: ignore[return-value]  # (an image may become a text part)

    def notice(self) -> str | None:
        """The one-line notice for everything noted so far, then forgets it; ``None``: none.

        ``a secret of this environment (an API key's value) was redacted from your message and
        @conf.txt: it is neither saved nor sent``.
        """
        if not self.found:
            return None
        found, self.found = self.found, []
        names = found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}"
        return (f"a secret of this environment (an API key's value) was redacted from {names}"
                ": it is neither saved nor sent")

    def _note(self, what: str) -> None:
        if what not in self.found:
            self.found.append(what)
