"""SHA-256 without importing :mod:`hashlib` (docs/architecture.md §8).

The same digests as ``hashlib.sha256``, from CPython's own SHA-2 module: ``hashlib`` loads
OpenSSL's ``_hashlib`` (~2.5 ms at start-up), which a command that hashes a few hundred KB
(the kept token counts, the facts scan's build digest and state) does not earn back. An
interpreter without that module gets ``hashlib``'s. Large payloads (the tokenizer's tables,
megabytes) keep ``hashlib``: OpenSSL's is several times faster there.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the same constructor, typed
    from hashlib import sha256 as sha256
else:
    try:
        if sys.version_info >= (3, 12):
            from _sha2 import sha256 as sha256
        else:
            from _sha256 import sha256 as sha256
    except ImportError:  # pragma: no cover - not CPython
        from hashlib import sha256 as sha256
