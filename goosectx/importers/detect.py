"""``--format auto``: tell a transcript's format from its first bytes and records."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from goosectx.errors import ImportFormatError
from goosectx.importers.builder import (
    FORMAT_HINT,
    MAX_DOCUMENT_BYTES,
    MAX_LINE_BYTES,
    loads,
    remember_parsed,
)

_SNIFF_LINES = 40
_OWN_EXPORT = re.compile(rb'\s*\{\s*"format"\s*:\s*"goosectx-session"')
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

    Raises:
        ImportFormatError: the file matches no known format; for a file that starts like JSON
            but does not parse, the real reason (truncated, nested too deeply, a number too
            large) naming the line.
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc.strerror}", "check the path") from None
    if head == _SQLITE_MAGIC:
        return "goose-db"
    whole_file = path.stat().st_size <= MAX_DOCUMENT_BYTES
    if whole_file:
        text = path.read_text(encoding="utf-8", errors="replace")
    else:  # a large file is a goosectx export (read a message at a time) or JSON lines
        with path.open("rb") as fh:
            head = fh.read(MAX_LINE_BYTES + 1)
        if _OWN_EXPORT.match(head):
            return "goosectx"
        if b"\n" not in head and len(head) > MAX_LINE_BYTES:
            raise ImportFormatError(
                f"{path.name}: line 1 is longer than {MAX_LINE_BYTES // 2**20} MB; goosectx "
                f"imports JSON-lines files with lines up to {MAX_LINE_BYTES // 2**20} MB and "
                f"other files up to {MAX_DOCUMENT_BYTES // 2**20} MB",
                "split the transcript, or cut the oversized part out")
        text = head[: head.rfind(b"\n") + 1].decode("utf-8", "replace")
    stripped = text.lstrip()
    broken: ImportFormatError | None = None  # why the file is not readable JSON, if it is not
    if stripped.startswith(("{", "[")):
        whole = None
        if whole_file:
            try:
                whole = loads(path, "", text)
            except ImportFormatError as exc:  # JSON lines, or one broken document
                broken = None if "(Extra data)" in str(exc) else exc
        if whole is not None:
            found = _json_document(whole)
            if found:
                remember_parsed(path, whole)  # read_json does not parse it again
                return found
        found, line_error = _jsonl(path, text)
        if found:
            return found
        broken = broken or line_error
    if "# aider chat started at" in text or stripped.startswith("#### "):
        return "aider"
    from goosectx.importers.console import detect as console_flavour

    if console_flavour(text):
        return "console"
    if broken is not None:  # the real reason: truncated, nested too deeply, a huge number…
        raise broken
    raise ImportFormatError(f"cannot tell the format of {path.name}", FORMAT_HINT)


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


def _jsonl(path: Path, text: str) -> tuple[str | None, ImportFormatError | None]:
    """(the JSON-lines format of ``text``'s first records or None, why a line is not JSON)."""
    records: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if len(records) >= _SNIFF_LINES:
            break
        if not line.strip():
            continue
        try:
            record = loads(path, f"line {number}", line)
        except ImportFormatError as exc:
            return None, exc
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
