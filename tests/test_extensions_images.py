"""An image a server returns reaches the model only when its bytes are the image type named.

A provider refuses a request whose image part is not what it says (HTTP 400), and the image
stays in the history, so every later request would fail too: bytes that are not a PNG, JPEG,
GIF or WebP image are left out with a line saying why.
"""

from __future__ import annotations

import base64
from types import SimpleNamespace

from goosectx.extensions.results import convert_blocks, resource_contents

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24


def block(data: bytes, mime: str = "image/png") -> SimpleNamespace:
    return SimpleNamespace(type="image", mime_type=mime, data=base64.b64encode(data).decode())


def test_an_image_whose_bytes_are_that_image_is_attached() -> None:
    texts, attachments = convert_blocks([block(PNG)], "media__pic")
    assert [a.data for a in attachments] == [PNG]
    assert texts == ["[image: image/png, 32 bytes, from media__pic]"]


def test_bytes_that_are_not_the_named_image_are_left_out_with_a_line_saying_why() -> None:
    texts, attachments = convert_blocks([block(b"\x00fake" * 5_000)], "media__fakepic")
    assert attachments == []
    assert texts == ["[image from media__fakepic left out: its bytes are not a PNG image]"]
    texts, attachments = convert_blocks([block(PNG, "image/x-icon")], "media__icon")
    assert attachments == [] and "image/x-icon is not an image type models read" in texts[0]


def test_a_webp_needs_its_webp_tag_and_a_resource_image_is_checked_too() -> None:
    webp = b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"\x00" * 8
    assert convert_blocks([block(webp, "image/webp")], "m")[1][0].data == webp
    assert convert_blocks([block(b"RIFF\x10\x00\x00\x00WAVEfmt ", "image/webp")], "m")[1] == []
    item = SimpleNamespace(uri="res://pic", mime_type="image/jpeg",
                           blob=base64.b64encode(b"not a jpeg").decode())
    (found,) = resource_contents([item], "media")
    assert found.data is None and found.text == (
        "[image from media:res://pic left out: its bytes are not a JPEG image]")


def test_an_image_in_structured_content_alone_is_attached_not_sent_as_base64() -> None:
    from goosectx.extensions.results import convert_call_result

    data = base64.b64encode(PNG).decode()
    result = SimpleNamespace(content=[], is_error=False, structured_content={
        "content": [{"type": "image", "data": data, "mimeType": "image/png"}]})
    outcome = convert_call_result(result, "media__pic")
    assert data not in outcome.text
    assert outcome.text == '{"content": ["[image: image/png, 32 bytes, from media__pic]"]}'
    assert [a.data for a in outcome.attachments] == [PNG]
