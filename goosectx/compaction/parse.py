"""Lenient parsing of a summariser's reply (DESIGN.md §4.2(3)).

Models wrap JSON in prose and fences, put numbers or objects where strings belong and add
keys of their own. The rules: take the last fenced JSON block, else the first balanced
``{…}`` (``[…]`` for note lists); where a string is expected, numbers and booleans become
their JSON text, objects become ``k: v; …`` and lists are joined; blank items are dropped;
unknown keys are kept. A field no such reading fits — ``files`` that are no list or object (or
list a number), a list field that is a number or a boolean — is a reply in the wrong format
(:func:`parse_summary`). When nothing usable parses the caller keeps the raw text — a summary
is never lost to a parse error.
"""

from __future__ import annotations

import json
import re
from typing import Any

from goosectx.compaction.carry import EXTRACTIVE_MARK
from goosectx.compaction.summary import FileNote, StructuredSummary

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)
_CLOSER = re.compile(r"\n?[ \t]*```")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")

_STRING_FIELDS = ("user_intent", "problem_solving", "current_work", "next_step")
_LIST_FIELDS = ("technical_concepts", "errors_and_fixes", "user_messages", "pending_tasks")
_PATH_KEYS = ("path", "file", "filename", "name")
_FILE_SUMMARY_KEYS = ("summary", "changes", "change", "description", "what_changed")
_KEY_CODE_KEYS = ("key_code", "code", "snippet")


def _balanced(text: str, opener: str) -> str | None:
    """The first balanced ``{…}`` / ``[…]`` in ``text``, skipping brackets inside strings.

    One pass (a reply of thousands of unclosed brackets took seconds per thousand when each
    opener started a scan of its own): every opener met outside a string is stacked; a closer
    that pops one closes a balanced span, and the span whose opener comes first wins.
    """
    closer = "}" if opener == "{" else "]"
    start = text.find(opener)
    if start == -1:
        return None
    opened: list[int] = []
    best: tuple[int, int] | None = None
    in_string = escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == opener:
            opened.append(i)
        elif ch == closer and opened:
            first = opened.pop()
            if best is None or first < best[0]:
                best = (first, i)
            if not opened and first == start:
                break  # the first opener closed: nothing can start earlier
    return text[best[0]:best[1] + 1] if best is not None else None


def _loads(candidate: str) -> Any:
    """``candidate`` parsed, or ``None`` (broken, or nested deeper than the parser recurses)."""
    try:
        return json.loads(candidate)
    except (ValueError, RecursionError):
        pass
    try:
        return json.loads(_TRAILING_COMMA.sub(r"\1", candidate))
    except (ValueError, RecursionError):
        return None


def extract_json(text: str, opener: str = "{") -> Any:
    """The JSON value a reply carries, or ``None``.

    The last fenced block (any language tag, ``json`` or none) wins; without a fenced block
    that parses, the first balanced ``opener`` … bracket in the text is tried. A trailing
    comma is tolerated; truncated JSON yields ``None``.
    """
    for match in reversed(list(_FENCE.finditer(text))):
        if match.group(1).lower() not in ("", "json", "json5", "javascript", "js"):
            continue
        value = _fenced_value(text, match)
        if value is not None:
            return value
        break  # the last fenced JSON block is authoritative even when broken
    candidate = _balanced(text, opener)
    return _loads(candidate) if candidate is not None else None


def _fenced_value(text: str, match: re.Match[str]) -> Any:
    """The JSON of a fenced block, or ``None``: its body up to the first closing fence that parses.

    A field's own code (a ``current_work`` holding a fenced bash line, its newlines JSON
    escapes) has fences the first reading took for the block's end; later closing fences
    are tried (at most 8).
    """
    value = _loads(match.group(2).strip())
    start = match.start(2)
    for later in list(_CLOSER.finditer(text, match.end()))[:8] if value is None else ():
        value = _loads(text[start:later.start()].strip())
        if value is not None:
            break
    return value


MAX_NESTING = 16
"""Deeper objects/lists in a summary field are shown as ``…``: a summariser's reply nested a
few hundred levels deep must not exhaust the stack (nor the time: each level is read once)."""


def as_text(value: Any, depth: int = 0) -> str:
    """A JSON value as the string a field expects (see module docstring)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    if isinstance(value, dict | list) and depth >= MAX_NESTING:
        return "…"
    if isinstance(value, dict):
        texts = ((k, as_text(v, depth + 1)) for k, v in value.items())
        return "; ".join(f"{k}: {text}" for k, text in texts if text)
    if isinstance(value, list):
        return "\n".join(t for t in (as_text(v, depth + 1) for v in value) if t)
    return str(value).strip()


def as_list(value: Any) -> list[str]:
    """A JSON value as a list of non-blank strings (an object gives one ``k: v`` per key)."""
    if value is None:
        return []
    if isinstance(value, list):
        items = [as_text(v, 1) for v in value]
    elif isinstance(value, dict):
        texts = ((k, as_text(v, 1)) for k, v in value.items())
        items = [f"{k}: {text}" if text else str(k) for k, text in texts]
    else:
        items = [as_text(value)]
    return [item for item in items if item.strip()]


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in data:
            return data[key]
    return None


def as_files(value: Any) -> list[FileNote]:
    """File notes from a list of objects/strings, or an object mapping path → summary."""
    notes: list[FileNote] = []
    if isinstance(value, dict):
        if any(k in value for k in _PATH_KEYS):
            value = [value]
        else:
            for path, about in value.items():
                if isinstance(about, dict):
                    notes.append(FileNote(str(path).strip(),
                                          as_text(_first(about, _FILE_SUMMARY_KEYS)),
                                          as_text(_first(about, _KEY_CODE_KEYS))))
                else:
                    notes.append(FileNote(str(path).strip(), as_text(about)))
            return [n for n in notes if n.path]
    if not isinstance(value, list):
        value = [value] if value is not None else []
    for item in value:
        if isinstance(item, dict):
            notes.append(FileNote(as_text(_first(item, _PATH_KEYS)),
                                  as_text(_first(item, _FILE_SUMMARY_KEYS)),
                                  as_text(_first(item, _KEY_CODE_KEYS))))
        else:
            notes.append(FileNote(as_text(item)))
    return [n for n in notes if n.path]


def summary_from_dict(data: dict[str, Any]) -> StructuredSummary:
    """Fill a :class:`StructuredSummary` from a parsed JSON object, leniently."""
    summary = StructuredSummary()
    for key, value in data.items():
        if key in _STRING_FIELDS:
            setattr(summary, key, as_text(value))
        elif key in _LIST_FIELDS:
            setattr(summary, key, as_list(value))
        elif key == "files":
            summary.files = as_files(value)
        elif value not in (None, "", [], {}):
            summary.extra[str(key)] = value
    if " ".join(summary.problem_solving.split()).startswith(EXTRACTIVE_MARK):
        summary.problem_solving = f"(the summariser's words) {summary.problem_solving}"
    return summary  # a model's summary never passes for an extractive one (carry.own_sections)


_ANALYSIS = re.compile(r"<analysis>.*?(</analysis>|$)", re.DOTALL | re.IGNORECASE)
_KNOWN_FIELDS = frozenset((*_STRING_FIELDS, *_LIST_FIELDS, "files"))


def _wrong_types(data: dict[str, Any]) -> bool:
    """True when a known field holds what no lenient reading makes a summary of.

    ``files`` must be a list (of objects or paths) or an object (path → summary); a list
    field must not be a bare number or boolean (a count where items belong).
    """
    files = data.get("files")
    if files is not None and (not isinstance(files, list | dict) or isinstance(files, list)
                              and any(not isinstance(f, str | dict) for f in files
                                      if f is not None)):
        return True
    return any(isinstance(data.get(key), bool | int | float) for key in _LIST_FIELDS)


def summary_json(text: str) -> Any:
    """The JSON a summary reply carries where a summary may stand, or ``None``.

    Accepted (goose's current parser): the last fenced block (```json or untagged) outside the
    ``<analysis>`` section, else an object that follows ``</analysis>``, else an object that
    starts the reply. JSON inside the analysis or quoted mid-prose is never taken.
    """
    outside = _ANALYSIS.sub("", text)
    for match in reversed(list(_FENCE.finditer(outside))):
        if match.group(1).lower() in ("", "json"):
            return _fenced_value(outside, match)
    end = text.lower().rfind("</analysis>")
    if end != -1:
        candidate = _balanced(text[end:], "{")
        return _loads(candidate) if candidate is not None else None
    stripped = text.lstrip()
    if stripped.startswith("{"):
        candidate = _balanced(stripped, "{")
        return _loads(candidate) if candidate is not None else None
    return None


def parse_summary(text: str) -> StructuredSummary | None:
    """Parse a summariser's reply; ``None`` when nothing usable parses (keep the raw text).

    Only JSON where :func:`summary_json` accepts it counts; an object with no known field,
    one whose known fields normalise to nothing (``{"status": "ok"}``), or one with a field of
    the wrong type (``"files": "notalist"``, :func:`_wrong_types`) is not a summary.
    """
    data = summary_json(text)
    if isinstance(data, dict) and len(data) == 1:
        inner = next(iter(data.values()))
        if isinstance(inner, dict) and next(iter(data)) in ("summary", "conversation_summary"):
            data = inner
    if not isinstance(data, dict) or not _KNOWN_FIELDS & set(data) or _wrong_types(data):
        return None
    summary = summary_from_dict(data)
    known = StructuredSummary(**{k: getattr(summary, k) for k in _KNOWN_FIELDS})
    return None if known.is_empty() else summary


def parse_note_list(text: str, expected: int) -> list[str | None]:
    """Parse a JSON list of one-line notes; ``expected`` slots, ``None`` where one is missing.

    An object keyed by ``"1"``, ``"2"``, … is accepted too. Blank notes count as missing.
    """
    data = extract_json(text, "[")
    if data is None or isinstance(data, dict):
        obj = data if isinstance(data, dict) else extract_json(text, "{")
        if isinstance(obj, dict):
            ordered: list[Any] = [None] * expected
            for key, value in obj.items():
                digits = re.sub(r"\D", "", str(key))
                if digits and 1 <= int(digits) <= expected:
                    ordered[int(digits) - 1] = value
            data = ordered
    if not isinstance(data, list):
        return [None] * expected
    notes: list[str | None] = []
    for i in range(expected):
        note = " ".join(as_text(data[i]).split()) if i < len(data) else ""
        notes.append(note or None)
    return notes
