"""MCP results → :class:`~goosectx.extensions.model.CallOutcome` (text plus attachments).

Content blocks are read by their ``type`` tag, so this module needs no mcp
import: text as is; ``structured_content`` as JSON text only when there is no other content;
images and embedded resources as attachments (each also named in the text by its stub);
resource links as a line naming the URI; ``is_error`` kept.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from goosectx.attachment import image_problem
from goosectx.extensions.model import Attachment, CallOutcome


def _decode(blob: str | None) -> bytes:
    try:
        return base64.b64decode(blob or "", validate=False)
    except (binascii.Error, ValueError):
        return b""


def _image(source: str, mime: str, data: bytes) -> Attachment:
    """An image attachment, or a text one saying why the image was left out.

    Left out when its bytes are not the image type named: a provider would refuse the
    request, and every later one (:func:`goosectx.attachment.image_problem`).
    """
    problem = image_problem(mime, data)
    if problem is None:
        return Attachment("image", source, mime, data=data)
    return Attachment("resource", source, "text/plain",
                      text=f"[image from {source} left out: {problem}]")


def resource_contents(contents: Iterable[Any], source: str) -> list[Attachment]:
    """``TextResourceContents`` / ``BlobResourceContents`` → attachments."""
    found: list[Attachment] = []
    for item in contents:
        uri = str(getattr(item, "uri", "") or "")
        label = f"{source}:{uri}" if uri and not source.endswith(uri) else source
        mime = getattr(item, "mime_type", None) or "application/octet-stream"
        text = getattr(item, "text", None)
        if isinstance(text, str):
            found.append(Attachment("resource", label, mime if mime != "application/octet-stream"
                                    else "text/plain", text=text))
        elif mime.startswith("image/"):
            found.append(_image(label, mime, _decode(getattr(item, "blob", None))))
        else:
            found.append(Attachment("resource", label, mime,
                                    data=_decode(getattr(item, "blob", None))))
    return found


def convert_blocks(blocks: Iterable[Any], source: str) -> tuple[list[str], list[Attachment]]:
    """Content blocks → (text pieces, attachments); an attachment's stub joins the text."""
    texts: list[str] = []
    attachments: list[Attachment] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(str(getattr(block, "text", "")))
        elif kind in ("image", "audio"):
            mime = getattr(block, "mime_type", None) or f"{kind}/unknown"
            data = _decode(getattr(block, "data", None))
            item = (_image(source, mime, data) if kind == "image"
                    else Attachment("resource", source, mime, data=data))
            if item.data is not None:
                attachments.append(item)
            texts.append(item.stub() if item.data is not None else item.text or "")
        elif kind == "resource":
            for item in resource_contents([getattr(block, "resource", None)], source):
                attachments.append(item)
                texts.append(item.text if item.text is not None else item.stub())
        elif kind == "resource_link":
            texts.append(f"[resource link: {getattr(block, 'uri', '')}"
                         f" ({getattr(block, 'name', '')})]")
        else:
            texts.append(f"[unsupported content: {kind or type(block).__name__}]")
    return texts, attachments


def convert_call_result(result: Any, source: str) -> CallOutcome:
    """A ``CallToolResult`` → outcome.

    The content blocks are what the model gets: a server that sends ``structured_content``
    is asked to send it serialised in a text block too, and server-filesystem repeats its
    blocks there, base64 included. ``structured_content`` is sent, as JSON, only when there
    is no content or only empty text; image and audio blocks inside it become attachments.
    """
    texts, attachments = convert_blocks(getattr(result, "content", None) or [], source)
    structured = getattr(result, "structured_content", None)
    if structured is not None and not attachments and not any(t.strip() for t in texts):
        found: list[Attachment] = []
        texts = [json.dumps(_lift_media(structured, source, found), ensure_ascii=False,
                            sort_keys=True)]
        attachments = found
    text = "\n".join(t for t in texts if t) or "(no output)"
    return CallOutcome(text, bool(getattr(result, "is_error", False)), tuple(attachments))


def _lift_media(value: object, source: str, found: list[Attachment]) -> object:
    """``value`` with each image or audio block in it (base64 ``data``) replaced by its stub."""
    if isinstance(value, list):
        return [_lift_media(item, source, found) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") in ("image", "audio") and isinstance(value.get("data"), str):
        block = SimpleNamespace(type=value["type"], data=value["data"],
                                mime_type=value.get("mimeType") or value.get("mime_type"))
        (text,), attachments = convert_blocks([block], source)
        found.extend(attachments)
        return text
    return {key: _lift_media(item, source, found) for key, item in value.items()}


def convert_prompt(result: Any) -> tuple[str, list[Attachment]]:
    """A ``GetPromptResult`` → the user's turn text (messages joined) and attachments."""
    texts: list[str] = []
    attachments: list[Attachment] = []
    for message in getattr(result, "messages", None) or []:
        content = getattr(message, "content", None)
        blocks = content if isinstance(content, list) else [content]
        pieces, found = convert_blocks(blocks, "prompt")
        role = getattr(message, "role", "user")
        body = "\n".join(pieces)
        texts.append(body if role == "user" else f"[{role}]: {body}")
        attachments.extend(found)
    return "\n\n".join(texts), attachments
