"""A session name given on the command line, with this environment's secrets redacted.

``sessions rename S NAME``, ``run --name NAME`` and the REPL's ``--name`` store the name and
show it in ``sessions list`` and ``sessions search``: a name that held a secret's value (a key
pasted with it, ``"x$OPENAI_API_KEY"``) reads ``redacted`` there, as an imported one does
(README, "Security"; :func:`goosectx.cli.import_secrets.secret_free_name`), with a note on
stderr. A name stored before that is drawn so (:func:`names_shown`). See
docs/architecture.md §2 (redaction).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from goosectx.cli.sanitize import one_line_safe

if TYPE_CHECKING:
    from goosectx.config import Settings


def secret_free_name(settings: Settings, name: str) -> str:
    """``name`` with each secret of this environment (every listed form) read ``redacted``.

    ``name`` itself when it held none; else the note ``… was redacted from the session name:
    it reads 'xredacted'`` goes to stderr. Called before the name is checked, so an error
    about it (too long, taken) quotes it redacted too.
    """
    from goosectx.cli.import_secrets import secret_free_name as readable
    from goosectx.env_secrets import tool_output_redactor

    clean = readable(tool_output_redactor(settings)(name))
    if clean != name:
        sys.stderr.write(one_line_safe(
            "goosectx: a secret of this environment (an API key's value) was redacted from "
            f"the session name: it reads {clean!r}") + "\n")
        sys.stderr.flush()
    return clean


def names_shown(settings: Settings, redact: Callable[[str], str] | None = None
                ) -> Callable[[str | None], str | None]:
    """How a stored session name is drawn: each secret of this run read ``redacted``.

    A name stored before names were redacted (an older goosectx) may still hold a key:
    ``sessions list``, ``search``, ``show``, the exports and the REPL draw it as
    :func:`secret_free_name` would have stored it (no note). One redactor for the names of
    a command (``redact``, else :func:`goosectx.env_secrets.tool_output_redactor` of
    ``settings``); a name without a key is given back as it is.
    """
    from goosectx.cli.import_secrets import secret_free_name as readable
    from goosectx.env_secrets import tool_output_redactor

    each = redact or tool_output_redactor(settings)

    def shown(name: str | None) -> str | None:
        return readable(each(name)) if name else name

    return shown
