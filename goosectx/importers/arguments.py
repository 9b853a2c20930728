"""Tool-call arguments of an imported record (a dict, JSON text, or something else)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse_arguments"]


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """Tool-call arguments as ``(arguments, parse_error, raw_arguments)``.

    A dict is taken as is; a JSON string is parsed; anything else is a parse error that keeps
    the raw text.
    """
    if isinstance(raw, dict):
        return raw, None, None
    if raw is None or raw == "":
        return {}, None, None
    text = raw if isinstance(raw, str) else json.dumps(raw)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"arguments are not JSON: {exc.msg}", text
    if not isinstance(parsed, dict):
        return None, "arguments are not a JSON object", text
    return parsed, None, None
