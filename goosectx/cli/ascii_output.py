r"""Output a terminal cannot encode: goosectx's own punctuation as ASCII, not as an escape.

Under ``LC_ALL=C`` (with Python's UTF-8 mode off: ``PYTHONUTF8=0``) or a Latin-1 locale,
stdout and stderr encode ASCII (or Latin-1): stderr showed ``·`` as ``\xb7`` in every notice
(``saved \xb7 resume with``) and stdout ended ``run`` with ``UnicodeEncodeError`` at the first
``·``, ``→`` or ``é`` of an answer. :func:`fit_output` gives such a stream one error handler,
once, at start-up — the one place every writer (rich consoles, plain writes, the one-line
error) goes through:

* goosectx's punctuation (``·`` ``…`` ``→`` ``—`` ``×`` ``✓`` …) becomes its ASCII form
  (``-`` ``...`` ``->`` ``-`` ``x`` ``v``), and the control pictures ``terminal_safe``
  draws (``␛`` ``␊``) caret notation (``^[`` ``^J``);
* a byte that was not UTF-8 on the way in (a lone surrogate, ``surrogateescape``) goes out as
  that byte, as stdout did;
* any other character is ``\uXXXX``.

JSON output is data, not goosectx's prose: :func:`fit_json` writes every character such a
stream cannot encode as its ``\uXXXX`` escape (what json's ``ensure_ascii`` writes), so a
``·`` in an answer reaches a JSON reader as ``·``, not ``-``.

A stream that encodes them (UTF-8: nearly always) is left alone.
"""

from __future__ import annotations

import codecs
import json
import sys
from typing import Any

from goosectx.cli.sanitize import json_safe

ERRORS = "goosectx-ascii"
"""The name the error handler is registered under."""
JSON_ERRORS = "goosectx-json"
"""The handler :func:`fit_json` encodes JSON text with: escapes only."""

ASCII_FORMS = {
    "·": "-", "…": "...", "→": "->", "←": "<-", "⇄": "<->", "—": "-", "–": "-", "−": "-",
    "×": "x", "÷": "/", "≥": ">=", "≤": "<=", "≈": "~", "✓": "v", "✔": "v", "✗": "x",
    "✘": "x", "●": "*", "○": "o", "⏺": "*", "✦": "*", "✻": "*", "⚑": "!", "⚠": "!",
    "▶": ">", "❯": ">", "│": "|", "─": "-", "╭": "+", "╮": "+", "╰": "+", "╯": "+",
    "⎿": "`", "§": "S", "␀": "^@", "␇": "^G", "␈": "^H", "␉": "^I", "␊": "^J", "␍": "^M",
    "␛": "^[", "␡": "^?",
}
"""goosectx's own non-ASCII characters and what an ASCII terminal shows instead."""

_PROBE = "·…→—"


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # as JSON writes it: a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _handler(exc: UnicodeError) -> tuple[str | bytes, int]:
    """The replacement of the first character the stream could not encode."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    char = exc.object[exc.start]
    if "\udc80" <= char <= "\udcff":  # a byte surrogateescape read: that byte again
        return bytes([ord(char) - 0xDC00]), exc.start + 1
    return ASCII_FORMS.get(char) or _escape(char), exc.start + 1


def _json_handler(exc: UnicodeError) -> tuple[str | bytes, int]:
    """The escapes of the characters the stream could not encode (a run at a time)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return "".join(map(_escape, exc.object[exc.start:exc.end])), exc.end


def fit_json(text: str, stream: object) -> str:
    r"""JSON ``text`` as ``stream`` carries it unchanged.

    On a stream :func:`fit_output` fitted (ASCII or Latin-1), each character it cannot encode
    becomes its ``\uXXXX`` escape (a lone surrogate too, as ``ensure_ascii`` writes it), not
    its ASCII form; the same values for a JSON reader. Any other stream gets ``text`` as is.
    """
    if getattr(stream, "errors", None) != ERRORS:
        return text
    encoding = str(getattr(stream, "encoding", "ascii"))
    codecs.register_error(JSON_ERRORS, _json_handler)
    return text.encode(encoding, JSON_ERRORS).decode(encoding)


def json_text(data: Any, stream: object, *, indent: int | None = None) -> str:
    """``data`` as the strict JSON text ``stream`` carries unchanged (no final newline).

    The one way ``run`` writes JSON (its ``json`` object, ``stream-json`` lines, the result
    of a failed or cancelled start): :func:`~goosectx.cli.sanitize.json_safe` (no byte that
    drives a terminal; surrogates made whole, so jq reads it), then :func:`fit_json`.
    """
    return fit_json(json_safe(json.dumps(data, ensure_ascii=False, indent=indent)), stream)


def fit_output() -> None:
    """Give stdout and stderr the handler when they cannot encode goosectx's punctuation."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if not isinstance(encoding, str) or not hasattr(stream, "reconfigure"):
            continue
        try:
            _PROBE.encode(encoding)
        except UnicodeEncodeError:
            codecs.register_error(ERRORS, _handler)
            stream.reconfigure(errors=ERRORS)
        except LookupError:
            continue
