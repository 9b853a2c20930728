"""``@NAME:URI`` mentions: the extension resources a user's message names, read as attachments.

A word ``@NAME:URI`` whose NAME is a configured extension attaches that resource to the
message (docs/architecture.md, "@path mentions"): the REPL (``cli/repl_extensions.py``) and
``run`` (``cli/run_cmd.py``) both read them here. A text resource over the mention cap
(``mention_max_tokens``, as for ``@path`` files) is attached as its first and last lines around
a marker (:func:`goosectx.mentions.cap_attachment`). A resource that cannot be read is not
attached, and a one-line notice says why. No printing: the caller draws the notices (server
text in them is not yet sanitised).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.tools import to_attachment
from goosectx.mentions import Mentions, cap_attachment

_MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_-]{1,40}):(\S+)")
_TRAILING = ".,;:)"


def resource_words(text: str, names: Collection[str]) -> list[tuple[str, str]]:
    """``(NAME, URI)`` of every ``@NAME:URI`` word of ``text`` whose NAME is in ``names``.

    In order of mention, each once; trailing punctuation is not part of the URI.
    """
    words = ((name, uri.rstrip(_TRAILING)) for name, uri in _MENTION.findall(text)
             if name in names)
    return list(dict.fromkeys(words))


def read_resource_mentions(manager: ExtensionManager | None, text: str, *,
                           names: Collection[str], cap_tokens: int,
                           model: str | None = None) -> Mentions:
    """Read every ``@NAME:URI`` of ``text`` whose NAME is in ``names`` (configured extensions).

    Waits for a still-starting server (its ``startup_timeout_s``). Returns the attachments in
    order of mention, each text one capped at ``cap_tokens`` (all the text of one mention
    together), and one notice per resource not attached or cut.
    """
    out = Mentions()
    for name, uri in resource_words(text, names):
        if manager is None or name not in manager.configs:
            out.notices.append(f"@{name}:{uri}: extension {name} is not in this session — "
                               "not attached")
            continue
        manager.wait_ready(names=[name])
        outcome = manager.read_resource(name, uri)
        if outcome.is_error:
            out.notices.append(f"@{name}:{uri}: {outcome.text} — not attached")
            continue
        left = cap_tokens
        for item in outcome.attachments:
            part = to_attachment(item, count=False)  # counted once, by the cap
            if part is None:
                continue
            part, notice = cap_attachment(part, max(left, 1), model)
            if notice:
                out.notices.append(notice)
            left -= part.token_estimate
            out.attachments.append(part)
    return out
