"""An attachment's bytes redacted: a secret in them, in UTF-8 or UTF-16, goes.

Part of the redaction (docs/architecture.md §2, "Secrets"): an extension's binary resource, an
``@`` file's bytes and an imported attachment are stored and exported in base64, which no
text redaction of the stored row sees whole. The bytes are read as Latin-1 (one character a
byte) and redacted with the tool outputs' readings
(:class:`~goosectx.redaction_fragments.WithPieces`): a key in UTF-16 has a NUL beside each of
its characters, read joined (:mod:`goosectx.redaction_spread`). Each key found is written
``[REDACTED]`` in place.

Core module: no printing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from goosectx.attachment import Attachment
from goosectx.parts import Part, TextContent
from goosectx.redaction_fragments import with_pieces


def redacted_bytes(data: bytes, redact: Callable[[str], str]) -> bytes:
    """``data`` with each secret ``redact`` finds in it (as UTF-8 or UTF-16) ``[REDACTED]``."""
    raw = data.decode("latin-1")
    clean = with_pieces(redact)(raw)
    return data if clean == raw else clean.encode("latin-1", errors="replace")


def attachment_redacted(part: Attachment, redact: Callable[[str], str],
                        removed: str = "at import") -> Part:
    """``part`` whose bytes held a secret, scrubbed; ``part`` itself when they held none.

    An image is not edited so — its bytes would no longer be the image, and a provider
    refuses a broken image on every later request of the session — it becomes a text part
    saying it was removed (``removed``: when, ``at import``, ``before sending``).
    """
    if part.data is None:
        return part
    clean = redacted_bytes(part.data, redact)
    if clean is part.data:
        return part
    if part.kind == "image":
        return TextContent(f"[image {part.media_type} removed {removed}: "
                           "it held a secret of this environment]")
    return replace(part, data=clean)
