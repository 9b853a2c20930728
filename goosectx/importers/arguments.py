"""Tool-call arguments of an imported record, and what a JSON parse error means in words.

Arguments may be a dict, JSON text, or something else (:func:`parse_arguments`); a parse
error's reason is :func:`json_problem`.
"""

from __future__ import annotations

import json
import math
from typing import Any

from goosectx.parts import finite_float, not_json_number

__all__ = ["json_problem", "parse_arguments"]

_REASONS = {
    "Expecting value": "a value was expected",
    "Extra data": "more text follows the JSON value",
    "Invalid \\escape": "a backslash escape JSON does not have",
    "Invalid \\uXXXX escape": "a \\u escape without four hex digits",
    "Expecting ',' delimiter": "a ',' was expected",
    "Expecting ':' delimiter": "a ':' was expected",
    "Expecting property name enclosed in double quotes": "a name in double quotes was expected",
    "Illegal trailing comma before end of object": "a comma before the closing '}'",
    "Illegal trailing comma before end of array": "a comma before the closing ']'",
}


def json_problem(exc: json.JSONDecodeError) -> str:
    """What ``exc`` means, in words (Python's message ends "… at", cut from its position)."""
    reason = exc.msg.removesuffix(" at").strip()
    if reason.startswith("Invalid control character"):
        doc = exc.doc
        code = ord(doc[exc.pos]) if 0 <= exc.pos < len(doc) else 0
        return (f"a raw control character (U+{code:04X}) inside a string (JSON writes it as "
                f"\\u{code:04x})")
    return _REASONS.get(reason, reason[:1].lower() + reason[1:])


def finite_numbers(value: Any) -> bool:
    """False when ``value`` (parsed JSON) holds a NaN or an infinite number."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(finite_numbers(v) for v in value.values())
    if isinstance(value, list):
        return all(finite_numbers(v) for v in value)
    return True


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """Tool-call arguments as ``(arguments, parse_error, raw_arguments)``.

    A dict is taken as is; a JSON string is parsed; anything else is a parse error that keeps
    the raw text.
    """
    if isinstance(raw, dict):
        if not finite_numbers(raw):  # NaN / Infinity from the file: stored, they break the db
            return None, "arguments are not JSON: they hold NaN or Infinity", json.dumps(raw)
        return raw, None, None
    if raw is None or raw == "":
        return {}, None, None
    text = raw if isinstance(raw, str) else json.dumps(raw)
    try:
        parsed = json.loads(text, parse_constant=not_json_number, parse_float=finite_float)
    except json.JSONDecodeError as exc:
        return None, f"arguments are not JSON: {exc.msg}", text
    except ValueError as exc:  # NaN, Infinity, 1e400: stored, they would break the database
        return None, f"arguments are not JSON: {exc}", text
    if not isinstance(parsed, dict):
        return None, "arguments are not a JSON object", text
    return parsed, None, None
