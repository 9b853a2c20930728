"""What every importer shares: building messages and a session, reading records, timestamps.

Importers are pure converters: they read one file and return :class:`~goosectx.session.Session`
values; ``goosectx sessions import`` saves them (one transaction per session).

Conventions every importer follows:

* roles are ``user`` | ``assistant``; tool responses travel in user messages;
* tool-request ids are made unique per session (some sources reuse ids): a repeated id gets a
  ``#2``, ``#3``… suffix and the next response naming the raw id answers the newest request;
* ``metadata.extra["source_kind"]`` marks user-role text that is not a request:
  ``observation`` (tool output carried as text), ``harness`` (written by the other agent's
  harness) or ``command`` (a local slash command);
* ``session.metadata``: ``source`` (format name), ``source_path``, and where known
  ``system_prompt``, ``source_session_id``, ``source_title``, ``source_model``,
  ``source_working_dir``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from goosectx.conversation import (
    Conversation,
    Message,
    MessageMetadata,
    Part,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.errors import ImportFormatError
from goosectx.importers.arguments import json_problem, parse_arguments
from goosectx.importers.json_depth import MAX_NESTING, counted_brackets, nesting
from goosectx.importers.progress import reading
from goosectx.importers.times import date_leading, impossible_note, possible
from goosectx.session import Session, new_session_id
from goosectx.usage import UsageLedger

CHECK_HINT = "check the file"
"""A broken file's hint when ``--format`` named its format (:data:`FORMAT_HINT` would repeat it)."""
FORMAT_HINT = f"{CHECK_HINT}, or name its format with --format (see goosectx sessions import -h)"
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
"""Largest file read whole (JSON documents, text transcripts); JSON-lines files are streamed."""
MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest line of a JSON-lines file."""
MAX_MESSAGE_CHARS = 1_000_000
"""Longest text kept per part of an imported message; the middle of a longer one is elided."""
IMPORT_NOTES = "import_notes"
"""``session.metadata`` key: the notes ``sessions import`` prints (and does not store)."""


def format_error(path: Path, where: str, problem: str) -> ImportFormatError:
    """An :class:`ImportFormatError` naming the file and the line or record (``where``)."""
    location = f"{path.name}: {where}: " if where else f"{path.name}: "
    return ImportFormatError(location + problem, FORMAT_HINT)


def _size_limit_error(path: Path, size: int, limit: int, what: str) -> ImportFormatError:
    return ImportFormatError(
        f"{path.name}: {what} is {size / 2**20:,.1f} MB; goosectx imports up to "
        f"{limit // 2**20} MB", "split the transcript, or cut the oversized part out")


def line_too_long(path: Path, number: int) -> ImportFormatError:
    """The error for line ``number`` of a JSON-lines file over :data:`MAX_LINE_BYTES`."""
    return ImportFormatError(
        f"{path.name}: line {number} is longer than {MAX_LINE_BYTES // 2**20} MB: goosectx "
        f"reads JSON-lines files with lines up to {MAX_LINE_BYTES // 2**20} MB",
        "split the transcript, or cut the oversized part out")


UTF8_BOM = b"\xef\xbb\xbf"
"""A byte-order mark some editors put at the start of a UTF-8 file: skipped (JSON forbids it,
but it says nothing about the transcript)."""


def read_text(path: Path) -> str:
    """The file as UTF-8 text, at most :data:`MAX_DOCUMENT_BYTES`.

    Undecodable bytes are replaced; a leading BOM is skipped.

    Raises:
        ImportFormatError: the file cannot be read, or is too large to read whole.
    """
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise _size_limit_error(path, size, MAX_DOCUMENT_BYTES, "the file")
        text = path.read_text(encoding="utf-8-sig", errors="replace")  # (a leading BOM skipped)
        reading.done += size
        return text
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc.strerror}", "check the path") from None


_parsed: tuple[Path, tuple[int, int], Any] | None = None
"""The document :func:`remember_parsed` kept for the next :func:`read_json` of that file."""


def remember_parsed(path: Path, value: Any) -> None:
    """Keep ``path``'s parsed document for the next :func:`read_json` of it.

    Format detection parses the whole file; the importer then does not parse it again.
    """
    global _parsed
    stat = path.stat()
    _parsed = (path, (stat.st_size, stat.st_mtime_ns), value)


def loads(path: Path, where: str, text: str | bytes) -> Any:
    """``text`` parsed as JSON, nested at most :data:`MAX_NESTING` deep.

    Raises:
        ImportFormatError: not JSON, nested too deeply, or a number too large (``where``
            names the line).
    """
    too_deep = format_error(path, where, f"JSON nested more than {MAX_NESTING} levels deep")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        ends_early = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated")
        at = (f"{where} column {exc.colno}" if where.startswith("line ") and not ends_early
              else where) or f"line {exc.lineno} column {exc.colno}"
        raise format_error(path, at, "the JSON ends before it is complete (is the file cut "
                           "short?)" if ends_early else f"not valid JSON: {json_problem(exc)}"
                           ) from None
    except RecursionError:
        raise too_deep from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        problem = (f"a number has more than {sys.get_int_max_str_digits():,} digits"
                   if "digits" in str(exc) else f"not usable JSON ({str(exc)[:120]})")
        raise format_error(path, where, problem) from None
    if counted_brackets(text) > MAX_NESTING and nesting(value) > MAX_NESTING:
        raise too_deep
    return value


def read_json(path: Path) -> Any:
    """The file parsed as one JSON document (see :func:`loads`).

    Raises:
        ImportFormatError: too large, not JSON (names the line and column), nested too deeply.
    """
    global _parsed
    kept, _parsed = _parsed, None
    if kept is not None and kept[0] == path:
        try:
            stat = path.stat()
        except OSError:
            stat = None
        if stat is not None and (stat.st_size, stat.st_mtime_ns) == kept[1]:
            return kept[2]
    return loads(path, "", read_text(path))


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, record)`` for every non-blank line of a JSON-lines file.

    The file is streamed line by line, so memory holds one line (at most
    :data:`MAX_LINE_BYTES`) at a time.

    A last line that does not parse and has no newline at its end — a writer killed
    mid-line — ends the records: the lines before it are read, and the session built from
    them says so (:meth:`TranscriptBuilder.session`'s notes).

    Raises:
        ImportFormatError: a line is not a JSON object or too long (names the line).
    """
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc.strerror}", "check the path") from None
    _cut_tails.pop(path, None)
    complete = 0
    with fh:
        for number, line in enumerate(iter(lambda: fh.readline(MAX_LINE_BYTES + 1), b""),
                                      start=1):
            reading.done += len(line)
            if len(line) > MAX_LINE_BYTES:
                raise line_too_long(path, number)
            if number == 1 and line.startswith(UTF8_BOM):
                line = line[len(UTF8_BOM):]
            if not line.strip():
                continue
            try:
                record = loads(path, f"line {number}", line.decode("utf-8", "replace"))
            except ImportFormatError:
                if line.endswith(b"\n") or not complete:  # (readline: no newline only at EOF)
                    raise
                _cut_tails[path] = (f"the last line (line {number}) was cut off ({len(line):,} "
                                    f"bytes, no newline at its end); imported the {complete:,} "
                                    "complete lines before it")
                return
            if not isinstance(record, dict):
                raise format_error(path, f"line {number}", "expected a JSON object")
            complete += 1
            yield number, record


_cut_tails: dict[Path, str] = {}
"""The note of a JSON-lines file whose cut-off last line :func:`read_jsonl` left out, by path
(the builder of that file's session takes it)."""


def cap_text(text: str) -> str:
    """``text``, or its head and tail around a marker when over :data:`MAX_MESSAGE_CHARS`."""
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    keep = MAX_MESSAGE_CHARS // 2
    cut = len(text) - 2 * keep
    return f"{text[:keep]}\n[... {cut:,} characters elided on import ...]\n{text[-keep:]}"


def _capped(part: Part) -> Part:
    if isinstance(part, TextContent | ThinkingContent) and len(part.text) > MAX_MESSAGE_CHARS:
        return replace(part, text=cap_text(part.text))
    if isinstance(part, ToolResponse) and len(part.output) > MAX_MESSAGE_CHARS:
        return replace(part, output=cap_text(part.output))
    return part


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty dict (for optional nested records)."""
    return value if isinstance(value, dict) else {}


def content_text(value: Any) -> str:
    """Text of a content value: a string, or a list of text blocks (other blocks named)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        pieces = []
        for block in value:
            if isinstance(block, str):
                pieces.append(block)
            elif isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    pieces.append(block["text"])
                elif isinstance(block.get("text"), dict) and "value" in block["text"]:
                    pieces.append(str(block["text"]["value"]))
                elif block.get("type") in ("image", "image_url", "input_image"):
                    pieces.append("[image]")
                else:
                    pieces.append(json.dumps(block, ensure_ascii=False))
        return "\n".join(pieces)
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    return json.dumps(value, ensure_ascii=False)


class TranscriptBuilder:
    """Accumulates the messages of one imported session.

    Args:
        source: The format name (goes to ``session.metadata["source"]``).
        path: The imported file.
    """

    def __init__(self, source: str, path: Path) -> None:
        self.source = source
        self.path = path
        self.messages: list[Message] = []
        self.metadata: dict[str, Any] = {"source": source, "source_path": str(path)}
        self._request_counts: dict[str, int] = {}
        self._unanswered: dict[str, list[str]] = {}
        self._last_time: datetime | None = None
        self._now = datetime.now(UTC)
        self._impossible: list[datetime] = []
        self.notes: list[str] = []
        """What the import changed that the user should hear of (``note:`` lines)."""

    def add(
        self,
        role: str,
        parts: list[Part] | tuple[Part, ...],
        *,
        created: datetime | None = None,
        metadata: MessageMetadata | None = None,
        source_kind: str | None = None,
        source_id: str | None = None,
    ) -> Message | None:
        """Append a message (``None`` and nothing appended when ``parts`` is empty).

        ``created`` defaults to the previous message's time (import time for the first), so
        times never go backwards because a record had none; an impossible one
        (:mod:`goosectx.importers.times`) is counted and treated as none.
        """
        if not parts:
            return None
        if created is not None and not possible(created, self._now):
            self._impossible.append(created)
            created = None
        meta = metadata or MessageMetadata()
        extra = dict(meta.extra)
        if source_kind:
            extra["source_kind"] = source_kind
        if source_id:
            extra["source_id"] = source_id
        if extra != meta.extra:
            meta = MessageMetadata(
                meta.user_visible, meta.agent_visible, meta.usage, meta.is_summary,
                meta.is_continuation, meta.compaction_id, meta.cancelled, extra)
        when = created or self._last_time or self._now
        self._last_time = when
        message = Message(role, tuple(parts), meta, created=when)  # type: ignore[arg-type]
        self.messages.append(message)
        return message

    def extend_last(self, role: str, parts: list[Part]) -> bool:
        """Append ``parts`` to the last message if it has ``role``; return whether it did."""
        if self.messages and self.messages[-1].role == role and parts:
            last = self.messages[-1]
            self.messages[-1] = Message(last.role, last.content + tuple(parts), last.metadata,
                                        last.id, last.created)
            return True
        return False

    def request(self, raw_id: str, name: str, arguments: Any) -> ToolRequest:
        """A tool request with a session-unique id (see module docstring)."""
        raw_id = str(raw_id or f"call_{sum(self._request_counts.values()) + 1}")
        n = self._request_counts.get(raw_id, 0) + 1
        self._request_counts[raw_id] = n
        unique = raw_id if n == 1 else f"{raw_id}#{n}"
        self._unanswered.setdefault(raw_id, []).append(unique)
        args, error, raw = parse_arguments(arguments)
        return ToolRequest(unique, str(name or "tool"), args, error, raw)

    def response(self, raw_id: str, output: str, *, is_error: bool = False) -> ToolResponse:
        """A tool response answering the newest unanswered request with ``raw_id``."""
        raw_id = str(raw_id)
        waiting = self._unanswered.get(raw_id)
        unique = waiting.pop() if waiting else raw_id
        return ToolResponse(unique, output, is_error)

    def is_requested(self, raw_id: str) -> bool:
        """True when a request with ``raw_id`` is still waiting for its response."""
        return bool(self._unanswered.get(str(raw_id)))

    def possible_time(self, when: datetime | None) -> datetime | None:
        """``when`` if a conversation imported now can have it, else ``None``."""
        return when if when is not None and possible(when, self._now) else None

    def text(self, text: str) -> list[Part]:
        """``[TextContent(text)]``, or ``[]`` for blank text."""
        return [TextContent(text)] if text and text.strip() else []

    def session(
        self,
        *,
        working_dir: Path,
        ledger: UsageLedger | None = None,
        created: datetime | None = None,
        updated: datetime | None = None,
    ) -> Session:
        """The finished session (no name; the caller names it).

        Its parts capped and its tool pairs mended (:func:`goosectx.importers.mend.finish`);
        :attr:`notes` and the mends' notes in ``metadata[IMPORT_NOTES]``.

        Raises:
            ImportFormatError: the source held no message.
        """
        from goosectx.importers.mend import finish

        if not self.messages:
            raise format_error(self.path, "", "no conversation messages found")
        date_leading(self.messages, self._now)
        messages, mended = finish(self.messages, _capped)
        if self._impossible:
            self.notes.append(impossible_note(len(self._impossible), self._impossible[0]))
        if self.path in _cut_tails:
            self.notes.insert(0, _cut_tails.pop(self.path))
        created, updated = self.possible_time(created), self.possible_time(updated)
        if self.notes or mended:
            self.metadata[IMPORT_NOTES] = [*self.notes, *mended]
        start = created or messages[0].created
        end = updated or max(start, messages[-1].created)
        return Session(
            id=new_session_id(start), name=None, working_dir=working_dir, model=None,
            created=start, updated=end, conversation=Conversation(messages),
            ledger=ledger or UsageLedger(), metadata={k: v for k, v in self.metadata.items()
                                                      if v not in (None, "")},
        )
