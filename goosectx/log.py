"""The ``--debug`` log: a rotated file in the data dir that never holds a secret."""

from __future__ import annotations

import logging
import logging.handlers
import os
import re
from pathlib import Path

SECRET_NAME = re.compile(r"(_API_KEY|_TOKEN|SECRET|PASSWORD)", re.IGNORECASE)
LOGGER_NAME = "goosectx"


def secret_values(environ: dict[str, str] | None = None) -> list[str]:
    """Values of secret-looking environment variables (8+ characters), longest first."""
    env = os.environ if environ is None else environ
    values = {v for k, v in env.items() if SECRET_NAME.search(k) and len(v) >= 8}
    return sorted(values, key=len, reverse=True)


def redact(text: str, secrets: list[str]) -> str:
    """Replace each secret value in ``text`` with ``[REDACTED]``."""
    for value in secrets:
        if value in text:
            text = text.replace(value, "[REDACTED]")
    return text


class _RedactingFilter(logging.Filter):
    def __init__(self) -> None:
        super().__init__()
        self._secrets = secret_values()

    def filter(self, record: logging.LogRecord) -> bool:
        message = redact(record.getMessage(), self._secrets)
        record.msg, record.args = message, None
        return True


def setup_debug_log(path: Path) -> Path:
    """Send goosectx's (and litellm's) debug records to ``path``, rotated at 5 MB × 3.

    The file is created 0600 and every record passes through a filter that redacts the
    values of secret-looking environment variables.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=5_000_000, backupCount=3)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_RedactingFilter())
    for name in (LOGGER_NAME, "LiteLLM"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
    return path
