"""The ``--debug`` log: a rotated file in the data dir that never holds a secret.

Nor a raw escape sequence: records quote model-controlled text (a tool name, an error body),
and the log is read with ``cat`` and ``tail -f``, where OSC 52 would write the clipboard. The
formatter (:class:`_EscapingFormatter`) writes every control character of every record as an
escape — C0 but newline and tab, DEL, C1, the bidirectional and invisible formatting
characters — so no call site has to remember.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import re
from pathlib import Path

from goosectx.private_mode import make_private
from goosectx.redaction import redact_urls
from goosectx.redaction_fragments import redact_known_pieces as redact_known

LOGGER_NAME = "goosectx"


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e"
                      "\u2060-\u2064\u2066-\u206f\ufeff\ud800-\udfff]")
"""A character the log writes as an escape: C0 but newline and tab, DEL, C1, bidi controls,
zero-width and invisible formatting characters, line separators, lone surrogates."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    r"""``text`` with each :data:`_CONTROL` character written as ``\x1b`` or ``\u202e``."""
    return _CONTROL.sub(_escape, text)


class _EscapingFormatter(logging.Formatter):
    """The usual line, every control character in it escaped (message, traceback, names)."""

    def format(self, record: logging.LogRecord) -> str:
        return escape_controls(super().format(record))


_STREAMED_PIECE = re.compile(r"Delta\(|ModelResponseStream\(|^\s*(?:chunk|Raw OpenAI Chunk)\b",
                             re.IGNORECASE)
"""A litellm record that dumps a streamed chunk: each piece is too short to redact, and the
pieces joined give back any secret the model wrote (they are left out of the log)."""


class _RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.name.startswith("LiteLLM") and _STREAMED_PIECE.search(message):
            return False
        message = redact_known(redact_urls(message))  # a URL's password too
        if record.exc_info:  # a traceback's last line quotes the exception (a 401's body)
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
        if record.exc_text:
            record.exc_text = redact_known(redact_urls(record.exc_text))
        record.msg, record.args = message, None
        return True


def setup_debug_log(path: Path) -> Path:
    """Send goosectx's (and litellm's) debug records to ``path``, rotated at 5 MB × 3.

    The file is created 0600 (a wider mode left on it, its rotated copies or its directory
    is taken off) and every record passes through a filter that redacts the
    values of secret-looking environment variables (:mod:`goosectx.redaction`), then a
    formatter that escapes control characters (:func:`escape_controls`).

    Raises:
        DataDirUnusable: ``path`` is a symbolic link: the log is never appended to, nor its
            mode changed on, a file that is not goosectx's own (nothing is written).
    """
    from goosectx.errors import DataDirUnusable

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.is_symlink():
        raise DataDirUnusable(f"debug log {path} is a symbolic link (to {os.readlink(path)}): "
                              "goosectx writes its log only to a file of its own",
                              "move it aside, or run without --debug")
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o600))
    # One made before (an older version, a umask of 022) or copied in: 0600 again, with the
    # rotated ones; the directory 0700.
    make_private(path.parent, path, *(path.with_name(f"{path.name}.{n}") for n in (1, 2, 3)))
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=5_000_000, backupCount=3)
    handler.setFormatter(_EscapingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_RedactingFilter())
    for name in (LOGGER_NAME, "LiteLLM"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
    return path
