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

_MENTION = re.compile(r'(?<![\w@])@(?:"([A-Za-z0-9_-]{1,40}):((?:\\.|[^"\\\n])+)"'
                      r"|([A-Za-z0-9_-]{1,40}):(\S+))")
"""``@"NAME:URI"`` (groups 1, 2: a backslash escapes a quote or a backslash, and ``\\n``
``\\r`` ``\\t`` are a line break, a carriage return, a tab) or ``@NAME:URI`` (groups 3, 4)."""
_QUOTED_ESCAPE = re.compile(r"\\(.)")
_CONTROL_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
_TRAILING = ".,;:)"


def resource_mention(name: str, uri: str) -> str:
    """``@NAME:URI`` as written in a message so that :func:`resource_words` reads it back.

    Quoted (``@"NAME:URI"``, quotes, backslashes and line breaks escaped) when the URI holds
    whitespace or a quote, or ends with punctuation the plain word drops.
    """
    if uri and not re.search(r'[\s"]', uri) and not uri.endswith(tuple(_TRAILING)):
        return f"@{name}:{uri}"
    escaped = uri.replace("\\", "\\\\").replace('"', '\\"')
    for letter, char in _CONTROL_ESCAPES.items():
        escaped = escaped.replace(char, "\\" + letter)
    return f'@"{name}:{escaped}"'


def _unescape(match: re.Match[str]) -> str:
    return _CONTROL_ESCAPES.get(match.group(1), match.group(1))


def resource_words(text: str, names: Collection[str]) -> list[tuple[str, str]]:
    """``(NAME, URI)`` of every ``@NAME:URI`` word of ``text`` whose NAME is in ``names``.

    In order of mention, each once; trailing punctuation is not part of a plain word's URI
    (a quoted one, :func:`resource_mention`'s, is read as it is).
    """
    words = ((q_name, _QUOTED_ESCAPE.sub(_unescape, q_uri)) if q_name else
             (name, uri.rstrip(_TRAILING)) for q_name, q_uri, name, uri in _MENTION.findall(text))
    return list(dict.fromkeys((name, uri) for name, uri in words if name in names))


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
