"""Shared test fixtures."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Subprocess tests run the `goosectx` console script of the interpreter running pytest (a
# virtualenv's bin is not necessarily on PATH when pytest is started as .venv/bin/python).
_BIN = str(Path(sys.executable).parent)
if _BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")
