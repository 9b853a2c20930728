"""The attachment content part: a file, an extension resource or an image attached to a message.

One part type (``"attachment"``) for everything the user or a tool attaches to a message (see
docs/architecture.md, "The message model and its two projections"):

* ``kind="file"`` — a file the user mentioned (``@path``), ``source`` is the path;
* ``kind="resource"`` — an extension resource (``@NAME:URI``), ``source`` is ``NAME:URI``;
* ``kind="image"`` — an image, its bytes in ``data``.

The model sees a text attachment as :meth:`Attachment.labelled_text`; places that must not
repeat the content (the transcript, a compaction note, a summary request for an image) use
the one-line :meth:`Attachment.stub`. Import it from :mod:`goosectx.conversation`.
:mod:`base64` (and its C module) is imported where bytes are encoded or decoded: a text
attachment never needs it, nor does a ``compact --dry-run`` (0.44 ms of import).
"""

from __future__ import annotations

from typing import Any, Literal

from goosectx.lazy_pattern import LazyPattern
from goosectx.plain_record import frozen_record

AttachmentKind = Literal["file", "resource", "image"]
ATTACHMENT_KINDS: tuple[AttachmentKind, ...] = ("file", "resource", "image")
_TAG_START = LazyPattern(r"<(?=[\s/]*[Aa][Tt][Tt][Aa][Cc][Hh][Mm][Ee][Nn][Tt])")
"""A ``<`` that opens an attachment tag (``<attachment``, ``</attachment``, any case, spaces
allowed). Spelt without ``re.IGNORECASE``, which made the substitution twice as slow."""


@frozen_record
class Attachment:
    """Something attached to a message: its content and where it came from.

    Exactly one of ``text`` and ``data`` is set.

    Attributes:
        kind: ``file``, ``resource`` or ``image``.
        source: Where it came from: a path (``src/app.py``) or ``NAME:URI`` for a resource.
        media_type: Its MIME type (``text/x-python``, ``image/png``).
        text: The content, for text.
        data: The content, for bytes (an image, a binary resource); base64 in JSON.
        token_estimate: What the content costs in the context window (tokens), as estimated
            when it was attached.
    """

    kind: AttachmentKind
    source: str
    media_type: str
    text: str | None = None
    data: bytes | None = None
    token_estimate: int = 0
    type: Literal["attachment"] = "attachment"

    def __post_init__(self) -> None:
        if self.kind not in ATTACHMENT_KINDS:
            raise ValueError(f"attachment kind must be one of {', '.join(ATTACHMENT_KINDS)}; "
                             f"got {self.kind!r}")
        if (self.text is None) == (self.data is None):
            raise ValueError(f"attachment {self.source!r} needs exactly one of text and data")
        if self.token_estimate < 0:
            raise ValueError(f"attachment {self.source!r} has a negative token_estimate")

    @property
    def is_text(self) -> bool:
        """True when the content is text (the model reads it as text)."""
        return self.text is not None

    @property
    def is_image(self) -> bool:
        """True for image bytes (sent as an image part to a vision-capable model)."""
        return self.data is not None and self.kind == "image"

    def stub(self) -> str:
        """The one-line form for places that must not repeat the content.

        ``[attached: src/app.py, 1,240 tokens]`` for text, ``[image: image/png, 12,345 bytes]``
        for an image, ``[attached: docs:report.pdf, application/pdf, 2,048 bytes]`` for other
        bytes.
        """
        if self.data is None:
            return f"[attached: {self.source}, {self.token_estimate:,} tokens]"
        size = f"{len(self.data):,} bytes"
        if self.kind == "image":
            return f"[image: {self.media_type}, {size}]"
        return f"[attached: {self.source}, {self.media_type}, {size}]"

    def labelled_text(self) -> str:
        """What the model reads for this attachment: the text in a block naming its source.

        ``<attachment kind="file" source="src/app.py" media_type="text/x-python">`` …
        ``</attachment>``; bytes the model cannot read as text give their :meth:`stub`. The
        ``<`` of any attachment tag inside the text is written ``&lt;``, so content cannot
        close the block or forge another one (with another source); nothing else changes.
        """
        if self.text is None:
            return self.stub()
        from html import escape  # (here: html and its entities table cost every command ~1 ms)

        head = (f'<attachment kind="{self.kind}" source="{escape(self.source)}" '
                f'media_type="{escape(self.media_type)}">')
        body = _TAG_START.sub("&lt;", self.text.rstrip("\n"))
        return f"{head}\n{body}\n</attachment>"

    def data_url(self) -> str:
        """The bytes as a ``data:`` URL (``data:image/png;base64,…``); ``""`` for text."""
        if self.data is None:
            return ""
        import base64  # at need (module docstring)

        return f"data:{self.media_type};base64,{base64.b64encode(self.data).decode('ascii')}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: type, kind, source, media type, text or data (base64), estimate."""
        out: dict[str, Any] = {"type": self.type, "kind": self.kind, "source": self.source,
                               "media_type": self.media_type}
        if self.text is not None:
            out["text"] = self.text
        if self.data is not None:
            import base64  # at need (module docstring)

            out["data"] = base64.b64encode(self.data).decode("ascii")
        out["token_estimate"] = self.token_estimate
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Attachment:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: a missing or bad field (named).
        """
        raw = data.get("data")
        payload = None
        if isinstance(raw, str):
            import base64  # at need (module docstring)
            import binascii

            try:
                payload = base64.b64decode(raw, validate=True)
            except binascii.Error:
                raise ValueError("attachment data is not valid base64") from None
        elif raw is not None:
            raise ValueError("attachment data must be a base64 string")
        for name in ("kind", "source", "media_type"):
            if not isinstance(data.get(name), str):
                raise ValueError(f"attachment needs a text {name!r}")
        text = data.get("text")
        if text is not None and not isinstance(text, str):
            raise ValueError("attachment text must be a string")
        estimate = data.get("token_estimate", 0)
        if not isinstance(estimate, int) or isinstance(estimate, bool):
            raise ValueError("attachment token_estimate must be an integer")
        return cls(kind=data["kind"], source=data["source"], media_type=data["media_type"],
                   text=text, data=payload, token_estimate=estimate)


_IMAGE_SIGNATURES: dict[str, tuple[str, tuple[bytes, ...]]] = {
    "image/png": ("PNG", (b"\x89PNG\r\n\x1a\n",)),
    "image/jpeg": ("JPEG", (b"\xff\xd8\xff",)),
    "image/gif": ("GIF", (b"GIF87a", b"GIF89a")),
    "image/webp": ("WebP", (b"RIFF",)),
}
"""The image types models read, by MIME type: a name and the bytes such a file starts with."""


def image_problem(media_type: str, data: bytes) -> str | None:
    """Why ``data`` cannot go to a model as a ``media_type`` image, or ``None`` when it can.

    A provider rejects an image part whose bytes are not the type it names (HTTP 400) — on
    every later request of the session too, since the image stays in the history — so bytes
    are checked against the type's signature before they are attached.
    """
    known = _IMAGE_SIGNATURES.get(media_type.lower())
    if known is None:
        return f"{media_type} is not an image type models read (PNG, JPEG, GIF, WebP)"
    name, starts = known
    webp = name != "WebP" or data[8:12] == b"WEBP"
    if not (data.startswith(starts) and webp):
        return f"its bytes are not a {name} image"
    return None


def sniff_image(data: bytes) -> str | None:
    """The image type ``data`` starts as (``image/png``…, by its magic bytes), or ``None``."""
    for media_type in _IMAGE_SIGNATURES:
        if image_problem(media_type, data) is None:
            return media_type
    return None


def image_type_name(media_type: str) -> str:
    """``PNG`` for ``image/png`` (the names :func:`image_problem` uses); else the type."""
    known = _IMAGE_SIGNATURES.get(media_type.lower())
    return known[0] if known else media_type
