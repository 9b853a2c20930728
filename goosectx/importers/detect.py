"""``--format auto``: tell a transcript's format from its first bytes and records."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from goosectx.errors import ImportFormatError
from goosectx.importers.builder import (
    FORMAT_HINT,
    MAX_DOCUMENT_BYTES,
    MAX_LINE_BYTES,
    UTF8_BOM,
    line_too_long,
    loads,
    read_text,
    remember_parsed,
)

_SNIFF_LINES = 40
_OWN_EXPORT = re.compile(rb'(?:\xef\xbb\xbf)?\s*\{\s*"format"\s*:\s*"goosectx-session"')
"""How every goosectx JSON export starts (its first member is ``format``)."""
_SQLITE_MAGIC = b"SQLite format 3\x00"


def is_own_export(path: Path) -> bool:
    """Whether ``path`` starts as every goosectx JSON export does (only its first bytes read)."""
    try:
        with path.open("rb") as fh:
            return _OWN_EXPORT.match(fh.read(1024)) is not None
    except OSError:
        return False


def detect_format(path: Path) -> str:
    """The format name of ``path`` (see :data:`goosectx.importers.FORMATS`).

    Reads a bounded prefix for JSON lines (the first :data:`_SNIFF_LINES` records, at most
    :data:`~goosectx.importers.builder.MAX_LINE_BYTES` in all: a longer line is not held
    whole) and the whole file only for one JSON document (kept for the importer, which then
    does not parse it again) or a text transcript, both at most
    :data:`~goosectx.importers.builder.MAX_DOCUMENT_BYTES`. A leading UTF-8 BOM is skipped.

    Raises:
        ImportFormatError: the file matches no known format; for a file that starts like JSON
            but does not parse, the real reason (truncated, extra data after the document,
            nested too deeply, a number too large, a line or file over its size limit)
            naming the line.
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(len(_SQLITE_MAGIC))
        size = path.stat().st_size
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc.strerror}", "check the path") from None
    if head == _SQLITE_MAGIC:
        return "goose-db"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # a UTF-16 byte order mark
        raise ImportFormatError(f"{path.name} is UTF-16 text; goosectx reads UTF-8 transcripts",
                                "convert it first: iconv -f UTF-16 -t UTF-8 "
                                f"{shlex.quote(path.name)} > converted.jsonl, then import that")
    if is_own_export(path):  # any size: a large one is read a message at a time
        return "goosectx"
    lines, too_long = _head_lines(path)
    first = lines[0][1].lstrip() if lines else _first_chars(path)
    broken: ImportFormatError | None = None  # why the file is not readable JSON, if it is not
    if first.startswith(("{", "[")):
        alone = _parsed_alone(path, lines)
        if alone is not None and (len(lines) > 1 or too_long is not None):
            found, line_error = _jsonl(path, lines)  # JSON lines: the first records tell
            if found:
                return found
            broken = line_error or (line_too_long(path, too_long) if too_long else None)
        elif alone is not None:  # one line, one value: a document (or a lone record)
            found = _json_document(alone)
            if found:
                remember_parsed(path, alone)  # read_json does not parse it again
                return found
            found = _jsonl_format([alone] if isinstance(alone, dict) else [])
            if found:
                return found
        elif size > MAX_DOCUMENT_BYTES:
            raise _too_large(path, size, first_line_too_long=too_long == 1)
        else:
            whole, broken = _document(path)
            found = _json_document(whole) if broken is None else None
            if found:
                remember_parsed(path, whole)  # read_json does not parse it again
                return found
            if too_long is not None and (broken is None or "(Extra data)" in str(broken)):
                broken = line_too_long(path, too_long)  # JSON lines with a line too long
    text = read_text(path) if size <= MAX_DOCUMENT_BYTES else "\n".join(t for _, t in lines)
    stripped = text.lstrip()
    if "# aider chat started at" in text or stripped.startswith("#### "):
        return "aider"
    from goosectx.importers.console import detect as console_flavour

    if console_flavour(text):
        return "console"
    if broken is not None:  # the real reason: truncated, nested too deeply, a huge number…
        raise broken
    if not stripped:
        raise empty_file(path)
    raise ImportFormatError(f"cannot tell the format of {path.name}", FORMAT_HINT)


def empty_file(path: Path) -> ImportFormatError:
    """The error for a file with nothing but whitespace in it."""
    return ImportFormatError(f"{path.name} is empty: nothing to import",
                             "check the path, or export the session again")


def is_blank(path: Path, most: int = 1 << 16) -> bool:
    """True when ``path`` (a regular file) holds only whitespace (at most ``most`` bytes read)."""
    try:
        if not path.is_file() or path.stat().st_size > most:
            return False
        return not path.read_bytes().strip()
    except OSError:
        return False


def _head_lines(path: Path) -> tuple[list[tuple[int, str]], int | None]:
    """(the first non-blank lines as (number, text), the number of a line too long or None).

    At most :data:`_SNIFF_LINES` lines and :data:`MAX_LINE_BYTES` bytes in all (at least one
    line); reading stops at a line over :data:`MAX_LINE_BYTES`, of which no more than that
    is read. A leading BOM is skipped.
    """
    lines: list[tuple[int, str]] = []
    read = 0
    with path.open("rb") as fh:
        for number, raw in enumerate(iter(lambda: fh.readline(MAX_LINE_BYTES + 1), b""),
                                     start=1):
            if len(raw) > MAX_LINE_BYTES:
                return lines, number
            if number == 1 and raw.startswith(UTF8_BOM):
                raw = raw[len(UTF8_BOM):]
            if raw.strip():
                lines.append((number, raw.decode("utf-8", "replace")))
            read += len(raw)
            if len(lines) >= _SNIFF_LINES or (lines and read > MAX_LINE_BYTES):
                break
    return lines, None


def _document(path: Path) -> tuple[Any, ImportFormatError | None]:
    """(the file parsed as one JSON document, None) or (None, why it is not one)."""
    try:
        return loads(path, "", read_text(path)), None
    except ImportFormatError as exc:
        return None, exc


def _first_chars(path: Path) -> str:
    """The file's first characters that are not white space (a BOM skipped)."""
    with path.open("rb") as fh:
        start = fh.read(4096)
    return start.removeprefix(UTF8_BOM).decode("utf-8", "replace").lstrip()


def _parsed_alone(path: Path, lines: list[tuple[int, str]]) -> Any:
    """The first line's JSON value when it is one on its own, else ``None``."""
    if not lines:
        return None
    number, text = lines[0]
    try:
        return loads(path, f"line {number}", text)
    except ImportFormatError:
        return None


def _too_large(path: Path, size: int, *, first_line_too_long: bool) -> ImportFormatError:
    """A JSON file too large to read whole that is no goosectx export (read in parts)."""
    line_cap, document_cap = MAX_LINE_BYTES // 2**20, MAX_DOCUMENT_BYTES // 2**20
    problem = (f"line 1 is longer than {line_cap} MB and the file is {size / 2**20:,.1f} MB"
               if first_line_too_long else f"the file is {size / 2**20:,.1f} MB")
    return ImportFormatError(
        f"{path.name}: {problem}: goosectx reads JSON documents up to {document_cap} MB (a "
        f"goosectx export of any size) and JSON-lines files with lines up to {line_cap} MB",
        "split the transcript, or cut the oversized part out")


def _json_document(data: Any) -> str | None:
    if isinstance(data, list):
        if data and all(isinstance(m, dict) and "role" in m for m in data[:5]):
            return "openai"
        return None
    if not isinstance(data, dict):
        return None
    if data.get("format") == "goosectx-session":
        return "goosectx"
    if "conversation" in data and ("working_dir" in data or "id" in data):
        return "goose-json"
    if isinstance(data.get("history"), list) or isinstance(data.get("trajectory"), list):
        return "swe-agent"
    messages = data.get("messages")
    if isinstance(messages, list):
        first = next((m for m in messages if isinstance(m, dict)), {})
        if first.get("type") in ("user", "gemini", "info") or "projectHash" in data:
            return "gemini-cli"
        if "role" in first:
            return "openai"
    return None


def _jsonl(path: Path, lines: list[tuple[int, str]]
           ) -> tuple[str | None, ImportFormatError | None]:
    """(the JSON-lines format of the first records or None, why a line is not JSON)."""
    records: list[dict[str, Any]] = []
    for number, line in lines:
        try:
            record = loads(path, f"line {number}", line)
        except ImportFormatError as exc:
            if line.endswith("\n") or not records:
                return None, exc
            found = _jsonl_format(records)  # a cut-off last line: read_jsonl leaves it out
            return found, None if found else exc
        if isinstance(record, dict):
            records.append(record)
    return _jsonl_format(records), None


def _jsonl_format(records: list[dict[str, Any]]) -> str | None:
    for record in records:
        kind = record.get("type")
        if "payload" in record and kind in ("session_meta", "response_item", "turn_context",
                                            "event_msg", "compacted"):
            return "codex"
        if isinstance(kind, str) and isinstance(record.get("data"), dict) and (
                kind.startswith(("session.", "user.", "assistant.", "tool.", "system."))):
            return "copilot"
        if "projectHash" in record or kind == "gemini":
            return "gemini-cli"
        message = record.get("message")
        if "uuid" in record and isinstance(message, dict):
            return "qwen-code" if "parts" in message else "claude-code"
        if kind in ("summary", "file-history-snapshot") and ("leafUuid" in record
                                                              or "messageId" in record):
            return "claude-code"
    if any(r.get("type") in ("function_call", "function_call_output", "reasoning")
           or _has_response_text(r) for r in records):
        return "codex"  # an early rollout: bare response items, no {type, payload} wrapper
    if records and "working_dir" in records[0] and any("role" in r for r in records[1:]):
        return "goose-json"
    if records and all("role" in r for r in records):
        return "openai"
    return None


def _has_response_text(record: dict[str, Any]) -> bool:
    content = record.get("content")
    return record.get("type") == "message" and isinstance(content, list) and any(
        isinstance(c, dict) and c.get("type") in ("input_text", "output_text") for c in content)
