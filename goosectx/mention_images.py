"""``@image.png`` mentions: an image file the user names, attached as an image part.

A mentioned file whose first bytes are a PNG, JPEG, GIF or WebP signature (its content, not
its name: a text file named ``notes.png`` is text) is attached as one
``Attachment(kind="image")`` — the part an extension's image becomes — when the model reads
images (the config's ``supports_vision`` for the model, else litellm's, asked by the caller
through the providers layer). It
is not attached, and a one-line notice says why, when the model does not read images, when
litellm does not know whether it does, or when the file is over :data:`IMAGE_MAX_BYTES`.
Pure: no printing.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

from goosectx.attachment import Attachment, image_type_name, sniff_image
from goosectx.read_target import JudgedFile
from goosectx.tools.files import open_regular

IMAGE_MAX_BYTES = 5 * 1024 * 1024
"""Largest image file attached (5 MB): Anthropic's per-image limit, the smallest of the
providers' (OpenAI takes 20 MB); base64 makes it about 6.7 MB in the request and the session."""
SNIFF_BYTES = 32
"""Bytes read to tell an image by its signature (and a PNG's or GIF's size)."""
IMAGE_TOKENS_MAX = 1_600
"""Tokens an image is estimated at when its size is unknown, and at most: providers scale a
larger image down (Anthropic: width × height / 750 tokens, about 1,600 at most)."""


def model_reads_images(provider: Any, model: str | None) -> bool | None:
    """Whether the model reads images (``supports_vision``); ``None``: unknown.

    The provider's answer (the config's setting, else litellm's); without a provider yet,
    litellm's bundled map for ``model``.
    """
    ask = getattr(provider, "reads_images", None)
    if callable(ask):
        answer = ask()
        return answer if isinstance(answer, bool) else None
    if not model:
        return None
    from goosectx.providers.model_map import bundled_model_info

    info = bundled_model_info(model)
    return info.get("supports_vision") is True if info else None


def image_mention(judged: JudgedFile, shown: str, *, provider: Any, model: str | None,
                  config_path: Path | None = None
                  ) -> tuple[Attachment | None, str | None] | None:
    """The file ``judged`` as an image attachment, or why not; ``None``: not an image.

    The file read is the one judged (:func:`goosectx.read_target.judge`), not what its path
    leads to by now: a path swapped for a link elsewhere since is refused (``FileError``).

    ``provider`` says whether the model reads images (:func:`model_reads_images`, where the
    config's ``supports_vision`` overrides litellm), asked only for an image. When that is
    unknown, the notice names the setting and ``config_path``, the file to set it in.

    Returns:
        ``None`` when the file does not start as an image (read it as text);
        ``(attachment, None)`` when it is attached; ``(None, notice)`` when it is not.

    Raises:
        FileError, OSError: the file cannot be opened or read (as a text mention's).
    """
    fd, st = open_regular(judged.path, judged)
    with os.fdopen(fd, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
        media_type = sniff_image(head)
        if media_type is None:
            return None
        name = image_type_name(media_type)
        who = model or "the model"
        reads_images = model_reads_images(provider, model)
        if reads_images is None:
            return None, (f"@{shown} is a {name} image ({st.st_size:,} bytes) and whether "
                          f"{who} reads images is unknown (litellm does not list it) — not "
                          "attached" + _vision_hint(model, config_path))
        if not reads_images:
            return None, (f"@{shown} is a {name} image ({st.st_size:,} bytes) and {who} does "
                          "not read images — not attached")
        if st.st_size > IMAGE_MAX_BYTES:
            return None, (f"@{shown} is a {name} image of {st.st_size:,} bytes, over the "
                          f"{IMAGE_MAX_BYTES // 2**20} MB an image may be "
                          f"({IMAGE_MAX_BYTES:,} bytes) — not attached; shrink it first")
        data = head + fh.read(IMAGE_MAX_BYTES + 1 - len(head))
    if len(data) > IMAGE_MAX_BYTES:  # grew since it was opened
        return None, f"@{shown} grew past {IMAGE_MAX_BYTES:,} bytes while read — not attached"
    return Attachment("image", shown, media_type, data=data,
                      token_estimate=image_tokens(media_type, data)), None


def _vision_hint(model: str | None, config_path: Path | None) -> str:
    """How to say the model reads images: the setting, its table, the file."""
    if not model:
        return ""
    where = f" in {config_path}" if config_path else ""
    return (f'; set supports_vision = true under [models."{model}"]{where} if it reads '
            "images")


def image_tokens(media_type: str, data: bytes) -> int:
    """An image's estimated cost: width × height / 750 (at least 85, at most 1,600).

    The size is read from a PNG's or GIF's header; other types count the most.
    """
    if media_type == "image/png" and len(data) >= 24:
        width, height = (int(n) for n in struct.unpack(">II", data[16:24]))
    elif media_type == "image/gif" and len(data) >= 10:
        width, height = (int(n) for n in struct.unpack("<HH", data[6:10]))
    else:
        return IMAGE_TOKENS_MAX
    return max(85, min(IMAGE_TOKENS_MAX, width * height // 750))
