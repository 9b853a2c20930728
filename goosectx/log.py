"""The ``--debug`` log: a rotated file in the data dir that never holds a secret."""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path

from goosectx.private_mode import make_private
from goosectx.redaction import redact_known, redact_urls

LOGGER_NAME = "goosectx"


class _RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = redact_known(redact_urls(record.getMessage()))  # a URL's password too
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
    values of secret-looking environment variables (:mod:`goosectx.redaction`).
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    # One made before (an older version, a umask of 022) or copied in: 0600 again, with the
    # rotated ones; the directory 0700.
    make_private(path.parent, path, *(path.with_name(f"{path.name}.{n}") for n in (1, 2, 3)))
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=5_000_000, backupCount=3)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_RedactingFilter())
    for name in (LOGGER_NAME, "LiteLLM"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
    return path
