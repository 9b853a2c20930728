"""goose sessions: the SQLite store (goose ≥ 1.10 ``sessions.db``), its JSON export, old JSONL.

goose message content parts: ``text``, ``thinking`` (streamed token by token: consecutive ones
are joined into one thinking part), ``redactedThinking``, ``toolRequest`` (``toolCall`` =
``{status, value: {name, arguments}}`` or ``{status: "error", error}``), ``toolResponse``
(``toolResult`` = ``{status: "success", value: [content] | {content, isError}}`` or
``{status: "error", error}``), ``image``, ``systemNotification``, ``frontendToolRequest`` and a
few UI-only kinds kept as notifications. ``metadata.userVisible`` / ``agentVisible`` map to our
visibility flags; ``metadata.usage`` to the message's usage; the ``usage_ledger`` table to ours.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

from goosectx.conversation import (
    MessageMetadata,
    Part,
    SystemNotification,
    TextContent,
    ThinkingContent,
)
from goosectx.errors import ImportFormatError
from goosectx.importers.arguments import json_problem
from goosectx.importers.builder import (
    TranscriptBuilder,
    content_text,
    format_error,
    read_json,
    read_jsonl,
)
from goosectx.importers.fields import check_tool_call, text_field
from goosectx.importers.figures import cost_usd, optional_tokens, tokens
from goosectx.importers.times import parse_time
from goosectx.session import Session
from goosectx.usage import CallPurpose, LedgerEntry, Usage, UsageLedger


def load_db(path: Path, *, working_dir: Path, source_session: str | None = None) -> list[Session]:
    """Every session of a goose ``sessions.db`` (oldest first), or only ``source_session``.

    The database is opened read-only and never changed.

    Raises:
        ImportFormatError: not a goose database, no such session, or a broken message row.
    """
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as exc:
        raise format_error(path, "", f"cannot open as SQLite ({exc})") from None
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"sessions", "messages"} <= tables:
            raise format_error(path, "", "not a goose sessions.db (no sessions/messages tables)")
        if "schema_migrations" in tables or "message_index" in tables:
            raise format_error(path, "", "a goosectx sessions.db, not goose's: point "
                                         "GOOSECTX_HOME at its directory to use its sessions, "
                                         "or export one with goosectx sessions export")
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT * FROM sessions ORDER BY created_at, id").fetchall()
        if source_session is not None:
            rows = [r for r in rows if r["id"] == source_session]
            if not rows:
                known = ", ".join(r[0] for r in conn.execute("SELECT id FROM sessions"))
                raise ImportFormatError(f"{path.name} has no session {source_session!r}",
                                        f"pick one of: {known}")
        sessions = []
        for row in rows:
            builder = TranscriptBuilder("goose-db", path)
            _session_metadata(builder, dict(row))
            messages = conn.execute(
                "SELECT id, message_id, role, content_json, created_timestamp, metadata_json"
                " FROM messages WHERE session_id=? ORDER BY id", (row["id"],)).fetchall()
            for msg in messages:
                where = f"session {row['id']} message row {msg['id']}"
                try:
                    content = json.loads(msg["content_json"])
                    meta = json.loads(msg["metadata_json"] or "{}")
                except json.JSONDecodeError as exc:
                    raise format_error(path, where, f"bad JSON: {json_problem(exc)}") from None
                _add_message(builder, {"role": msg["role"], "content": content,
                                       "created": msg["created_timestamp"], "metadata": meta,
                                       "id": msg["message_id"]}, where)
            ledger = UsageLedger()
            if "usage_ledger" in tables:
                for e in conn.execute("SELECT * FROM usage_ledger WHERE session_id=? ORDER BY id",
                                      (row["id"],)):
                    at = f"session {row['id']} usage_ledger"
                    usage = Usage(
                        tokens(path, at, e["input_tokens"], "input_tokens"),
                        tokens(path, at, e["output_tokens"], "output_tokens"),
                        tokens(path, at, e["total_tokens"], "total_tokens"),
                        optional_tokens(path, at, e["cache_read_tokens"], "cache_read_tokens"),
                        optional_tokens(path, at, e["cache_write_tokens"], "cache_write_tokens"),
                        cost_usd(path, at, e["cost"], "cost"))
                    purpose: CallPurpose = "compaction" if e["is_compaction"] else "reply"
                    ledger.entries.append(LedgerEntry(
                        usage, str(e["model"] or ""), purpose,
                        builder.possible_time(parse_time(e["created_timestamp"]))
                        or builder.messages[-1].created))
            sessions.append(builder.session(
                working_dir=working_dir, ledger=ledger, created=parse_time(row["created_at"]),
                updated=parse_time(row["updated_at"])))
        return sessions
    except sqlite3.DatabaseError as exc:
        raise format_error(path, "", f"unreadable SQLite database ({exc})") from None
    finally:
        conn.close()


def load_json(path: Path, *, working_dir: Path) -> list[Session]:
    """A goose session export (``goose session export --format json``) or legacy ``.jsonl``.

    Raises:
        ImportFormatError: a broken message (named by its index or line).
    """
    builder = TranscriptBuilder("goose-json", path)
    if path.suffix == ".jsonl":
        for number, record in read_jsonl(path):
            if "role" in record:
                _add_message(builder, record, f"line {number}")
            else:
                _session_metadata(builder, record)
        return [builder.session(working_dir=working_dir)]
    data = read_json(path)
    if not isinstance(data, dict):
        raise format_error(path, "", "expected a JSON object with a conversation")
    conversation = data.get("conversation")
    if isinstance(conversation, dict):
        conversation = conversation.get("messages")
    if not isinstance(conversation, list):
        raise format_error(path, "", "no \"conversation\" list")
    _session_metadata(builder, data)
    for i, record in enumerate(conversation):
        _add_message(builder, record, f"conversation[{i}]")
    return [builder.session(working_dir=working_dir, created=parse_time(data.get("created_at")),
                            updated=parse_time(data.get("updated_at")))]


def _session_metadata(builder: TranscriptBuilder, row: dict[str, Any]) -> None:
    config = row.get("model_config_json") or row.get("model_config")
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except json.JSONDecodeError:
            config = None
    model = config.get("model_name") if isinstance(config, dict) else None
    builder.metadata.update({
        "source_session_id": row.get("id"),
        "source_title": row.get("name") or row.get("description"),
        "source_working_dir": row.get("working_dir"),
        "source_model": model,
        "source_provider": row.get("provider_name"),
    })


def _add_message(builder: TranscriptBuilder, record: Any, where: str) -> None:
    if not isinstance(record, dict) or record.get("role") not in ("user", "assistant"):
        raise format_error(builder.path, where, "expected a message with role user|assistant")
    content = record.get("content")
    if not isinstance(content, list):
        raise format_error(builder.path, where, "message content is not a list")
    parts: list[Part] = []
    for j, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise format_error(builder.path, f"{where} content[{j}]", "not a typed content part")
        _convert_part(builder, block, parts, f"{where} content[{j}]")
    meta = record.get("metadata") or {}
    usage = meta.get("usage") if isinstance(meta, dict) else None
    builder.add(
        record["role"], parts, created=parse_time(record.get("created")),
        metadata=MessageMetadata(
            user_visible=bool(meta.get("userVisible", True)),
            agent_visible=bool(meta.get("agentVisible", True)),
            usage=_usage(builder, usage, where) if isinstance(usage, dict) else None,
        ),
        source_id=str(record["id"]) if record.get("id") else None,
    )


def _convert_part(builder: TranscriptBuilder, block: dict[str, Any], parts: list[Part],
                  where: str) -> None:
    kind = block["type"]
    if kind == "text":
        parts.extend(builder.text(text_field(builder.path, where, block, "text")))
    elif kind == "thinking":
        text, signature = str(block.get("thinking") or ""), block.get("signature") or None
        if parts and isinstance(parts[-1], ThinkingContent):
            prev = parts[-1]
            parts[-1] = ThinkingContent(prev.text + text, signature or prev.signature)
        else:
            parts.append(ThinkingContent(text, signature))
    elif kind == "redactedThinking":
        parts.append(ThinkingContent("", block.get("data") or None))
    elif kind in ("toolRequest", "frontendToolRequest"):
        call = block.get("toolCall") or {}
        value = call.get("value") if isinstance(call, dict) else None
        if isinstance(value, dict):
            check_tool_call(builder.path, where, {**value, "id": block.get("id")})
            parts.append(builder.request(block.get("id", ""), value.get("name", "tool"),
                                         value.get("arguments")))
        else:
            request = builder.request(block.get("id", ""), "unparsed_tool_call", None)
            error = str(call.get("error") if isinstance(call, dict) else call)
            parts.append(replace(request, arguments=None, parse_error=error, raw_arguments=error))
    elif kind == "toolResponse":
        output, is_error = _tool_result(block.get("toolResult"))
        parts.append(builder.response(block.get("id", ""), output, is_error=is_error))
    elif kind == "image":
        parts.append(TextContent(f"[image {block.get('mimeType') or ''}]".replace(" ]", "]")))
    elif kind == "systemNotification":
        parts.append(SystemNotification("inline", str(block.get("msg") or "")))
    else:
        label = str(block.get("msg") or block.get("text") or kind)
        parts.append(SystemNotification("inline", f"[goose {kind}] {label}".strip()))


def _tool_result(result: Any) -> tuple[str, bool]:
    if not isinstance(result, dict):
        return content_text(result), False
    if result.get("status") == "error" or "error" in result and "value" not in result:
        return str(result.get("error") or "error"), True
    value = result.get("value")
    if isinstance(value, dict):
        return content_text(value.get("content")), bool(value.get("isError"))
    return content_text(value), False


def _usage(builder: TranscriptBuilder, usage: dict[str, Any], where: str) -> Usage:
    """A goose message's ``metadata.usage``, each figure checked (:func:`tokens`)."""
    def figure(name: str) -> int:
        return tokens(builder.path, where, usage.get(name) or 0, f"metadata.usage.{name}")

    return Usage(figure("inputTokens"), figure("outputTokens"), figure("totalTokens"))
