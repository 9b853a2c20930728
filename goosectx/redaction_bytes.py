"""An attachment's bytes redacted: a secret in them, in UTF-8 or UTF-16, goes.

Part of the redaction (docs/architecture.md §2, "Secrets"): an extension's binary resource, an
``@`` file's bytes and an imported attachment are stored and exported in base64, which no
text redaction of the stored row sees whole. The bytes are read as Latin-1 (one character a
byte) and redacted, then read again with the NULs between characters dropped: a key in
UTF-16 has a NUL beside each of its characters (:mod:`goosectx.redaction_spread`). Each key
found is written ``[REDACTED]`` in place.

Core module: no printing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from goosectx.attachment import Attachment
from goosectx.parts import Part, TextContent
from goosectx.redaction import replaced
from goosectx.redaction_joined import finder_of
from goosectx.redaction_spread import nul_tokens
from goosectx.redaction_unescape import Unescaped


def redacted_bytes(data: bytes, redact: Callable[[str], str]) -> bytes:
    """``data`` with each secret ``redact`` finds in it (as UTF-8 or UTF-16) ``[REDACTED]``."""
    raw = data.decode("latin-1")
    clean = redact(raw)
    if "\x00" in clean and (finder := finder_of(redact)) is not None and finder.secrets:
        reading = nul_reading(clean)
        if reading.changed:
            clean = replaced(clean, reading.spans(finder.spans(reading.text)))
    return data if clean == raw else clean.encode("latin-1", errors="replace")


def nul_reading(text: str) -> Unescaped:
    """``text`` read with the NULs between characters dropped (UTF-16 read as Latin-1)."""
    return Unescaped(text, tokens=nul_tokens(text))


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
