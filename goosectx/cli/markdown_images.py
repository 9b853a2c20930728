"""How a Markdown image reads in an answer: ``image: alt (target)``, in place, like a link.

A link's target reads the same way as an image's: as written, or as the text reads
(:func:`link_target`).

rich draws an image as a block of its own before the paragraph (``🌆 alt``, no target), and
the paragraph's first line then runs past the panel and is cut, so
:func:`goosectx.cli.stream.markdown_class` draws it as a link. Three slips of that drawing are
mended here:

* a ``data:`` URI target reads as its media type and length (``data: image/png URI, 3,033
  bytes``), never as kilobytes of base64;
* a target markdown-it percent-encoded (``<foo bar.png>`` → ``foo%20bar.png``) reads as
  written (``foo bar.png``); one written encoded stays as written;
* an escape sequence in the text (already made safe: ``␛[31m``, ``␛]0;t␇``) keeps its
  bracket from ending the alt text (or a link's text) early, so the image still reads as an
  image: the bracket after ``␛`` is held out of the parse (:func:`hold_brackets`) and put
  back in every token after it (:func:`put_back`);
* a target markdown-it percent-encoded that holds such a stand-in (``␛``, a held bracket)
  reads with the stand-in (``(http://x.y/␛]0;T␇)``), never with its percent-encoded bytes
  or the held bracket's private-use character.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from goosectx.cli.sanitize import one_line_safe

ESC_PICTURE = "\u241b"
"""``␛``: what :func:`~goosectx.cli.sanitize.terminal_safe` shows for ESC."""
_HELD = {"[": "\ue000", "]": "\ue001"}
"""A bracket after ``␛`` → a private-use stand-in markdown-it does not parse."""
_BACK = str.maketrans({held: bracket for bracket, held in _HELD.items()})


def hold_brackets(markup: str) -> str:
    """``markup`` with each bracket right after ``␛`` held out of the Markdown parse.

    Unchanged when it has no such bracket, or holds a stand-in already (it could not be told
    from a held bracket).
    """
    if ESC_PICTURE not in markup or any(held in markup for held in _HELD.values()):
        return markup
    for bracket, held in _HELD.items():
        markup = markup.replace(ESC_PICTURE + bracket, ESC_PICTURE + held)
    return markup


def put_back(tokens: list[Any]) -> None:
    """The held brackets back in the parsed ``tokens`` (their text, children and attrs)."""
    for token in tokens:
        if token.content:
            token.content = token.content.translate(_BACK)
        if token.attrs:
            token.attrs = {k: v.translate(_BACK) if isinstance(v, str) else v
                           for k, v in token.attrs.items()}
        if token.children:
            put_back(token.children)


def image_target(src: str, markup: str) -> str:
    """How an image's target ``src`` (markdown-it's, normalised) reads in ``markup``."""
    if src.startswith("data:"):
        media = src[5:].partition(",")[0].partition(";")[0]
        return f"data: {media + ' ' if media else ''}URI, {len(src):,} bytes"
    return link_target(src, markup)


def link_target(href: str, markup: str) -> str:
    """How a link's target ``href`` (markdown-it's, percent-encoded) reads in ``markup``.

    Written so, it is shown as written; else decoded, its held brackets put back (unless
    ``markup`` holds a private-use stand-in itself: then none was held) and made safe once
    more, as a ``%1B`` may decode to an escape.
    """
    if href in markup:  # written so: shown as written
        return href
    decoded = unquote(href)  # percent-encoded by the parser: as written
    if not any(held in markup for held in _HELD.values()):
        decoded = decoded.translate(_BACK)
    return one_line_safe(decoded)
