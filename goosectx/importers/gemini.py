"""Gemini CLI chat recordings and Qwen Code (a gemini-cli fork) chat files.

**Gemini CLI** (``~/.gemini/tmp/<project>/chats/``): a JSON object ``{sessionId, …, messages}``
or the newer JSONL form — a header line, message records and ``{"$set": …}`` updates. A record
whose ``id`` was seen before replaces the earlier version of the same type (the CLI rewrites a
message as its tool calls finish); one of another type is another message, kept, and the
import's notes say so. Message ``type``: ``user`` (``content`` text or parts), ``gemini``
(``content`` text, ``thoughts[]`` → thinking, ``tokens`` → usage, ``toolCalls[]`` each with
``args`` and ``result`` → a tool request, answered in the following user message), and
``info`` / ``error`` / ``warning`` → user-only notifications. ``System: Please continue.`` is
the CLI's own nudge (``harness``).

**Qwen Code** (``~/.qwen/projects/<dir>/chats/*.jsonl``): records ``{uuid, type, message}``
with Gemini ``parts`` — ``text`` (``thought: true`` → thinking), ``functionCall``,
``functionResponse`` — of type ``user``, ``assistant`` and ``tool_result``; ``system``
records are telemetry and skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from goosectx.conversation import (
    MessageMetadata,
    Part,
    SystemNotification,
    TextContent,
    ThinkingContent,
)
from goosectx.importers.builder import (
    TranscriptBuilder,
    content_text,
    format_error,
    read_json,
    read_jsonl,
)
from goosectx.importers.fields import check_tool_call, reused_id_note
from goosectx.importers.figures import optional_tokens
from goosectx.importers.times import parse_time
from goosectx.session import Session
from goosectx.usage import Usage

_NUDGE = "System: Please continue."


def load_gemini_cli(path: Path, *, working_dir: Path) -> list[Session]:
    """One session from a Gemini CLI chat recording (JSON or JSONL).

    Raises:
        ImportFormatError: a broken line or a message without a type.
    """
    builder = TranscriptBuilder("gemini-cli", path)
    records: dict[str, tuple[str, dict[str, Any]]] = {}
    order: list[str] = []
    reused: list[tuple[str, str]] = []  # (where, where the id was first): another message
    if path.suffix == ".json":
        data = read_json(path)
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            raise format_error(path, "", "no \"messages\" list")
        _header(builder, data)
        items = [(f"messages[{i}]", m) for i, m in enumerate(data["messages"])]
    else:
        items = []
        for number, record in read_jsonl(path):
            if "sessionId" in record and "type" not in record:
                _header(builder, record)
            elif "type" in record:
                items.append((f"line {number}", record))
    for where, record in items:
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            raise format_error(path, where, "message without a type")
        key = str(record.get("id") or where)
        if key in records and records[key][1]["type"] != record["type"]:
            reused.append((where, records[key][0]))  # another message: kept, under a new key
            key = f"{key}\0{where}"
        if key not in records:
            order.append(key)
        records[key] = (where, record)
    if reused:
        builder.notes.append(reused_id_note(reused, "id"))
    for key in order:
        where, record = records[key]
        _gemini_message(builder, record, where)
    return [builder.session(working_dir=working_dir)]


def _header(builder: TranscriptBuilder, data: dict[str, Any]) -> None:
    builder.metadata.update({"source_session_id": data.get("sessionId"),
                             "source_project_hash": data.get("projectHash")})


def _gemini_message(builder: TranscriptBuilder, record: dict[str, Any], where: str) -> None:
    kind = record["type"]
    when = parse_time(record.get("timestamp"))
    if kind == "user":
        text = _parts_text(record.get("content"))
        builder.add("user", builder.text(text), created=when,
                    source_kind="harness" if text.strip() == _NUDGE else None)
    elif kind in ("gemini", "model", "assistant"):
        parts: list[Part] = []
        thoughts = [f"**{t.get('subject', '')}** {t.get('description', '')}".strip()
                    for t in record.get("thoughts") or [] if isinstance(t, dict)]
        if thoughts:
            parts.append(ThinkingContent("\n\n".join(thoughts)))
        parts += builder.text(_parts_text(record.get("content")))
        calls = [c for c in record.get("toolCalls") or [] if isinstance(c, dict)]
        for k, call in enumerate(calls):
            check_tool_call(builder.path, f"{where} toolCalls[{k}]", call, ("id", "name", "args"))
            parts.append(builder.request(call.get("id", ""), call.get("name", "tool"),
                                         call.get("args")))
        if record.get("model"):
            builder.metadata["source_model"] = record["model"]
        tokens = record.get("tokens") if isinstance(record.get("tokens"), dict) else None
        usage = None
        if tokens:
            def figure(name: str) -> int | None:
                value = tokens.get(name) or None
                return optional_tokens(builder.path, where, value, f"tokens.{name}")

            inp = figure("input") or 0
            out = (figure("output") or 0) + (figure("thoughts") or 0)
            usage = Usage(inp, out, figure("total") or inp + out,
                          cache_read_tokens=figure("cached"))
        builder.add("assistant", parts or builder.text("(empty reply)"), created=when,
                    metadata=MessageMetadata(usage=usage))
        responses: list[Part] = []
        for call in calls:
            output, failed = _call_result(call)
            responses.append(builder.response(call.get("id", ""), output, is_error=failed))
        builder.add("user", responses, created=when)
    elif kind in ("info", "error", "warning"):
        text = _parts_text(record.get("content"))
        builder.add("assistant", [SystemNotification("inline", f"{kind}: {text}")],
                    created=when, metadata=MessageMetadata.user_only())
    else:
        raise format_error(builder.path, where, f"unknown message type {kind!r}")


def _parts_text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(p["text"]) for p in content
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
    return content_text(content)


def _function_response_text(response: Any) -> tuple[str, bool]:
    if isinstance(response, dict):
        if "error" in response and response["error"]:
            return content_text(response["error"]), True
        if "output" in response:
            return content_text(response["output"]), False
        if "llmContent" in response:
            return content_text(response["llmContent"]), False
    return json.dumps(response, ensure_ascii=False), False


def _call_result(call: dict[str, Any]) -> tuple[str, bool]:
    status = str(call.get("status") or "")
    failed = status in ("error", "cancelled")
    texts = []
    for item in call.get("result") or []:
        if isinstance(item, dict) and isinstance(item.get("functionResponse"), dict):
            text, is_error = _function_response_text(item["functionResponse"].get("response"))
            texts.append(text)
            failed = failed or is_error
    if not texts:
        texts.append(content_text(call.get("resultDisplay")) or status or "(no result)")
    return "\n".join(texts), failed


def load_qwen_code(path: Path, *, working_dir: Path) -> list[Session]:
    """One session from a Qwen Code chat JSONL file.

    Raises:
        ImportFormatError: a broken line, or a message record without parts.
    """
    builder = TranscriptBuilder("qwen-code", path)
    for number, record in read_jsonl(path):
        kind = record.get("type")
        if kind not in ("user", "assistant", "tool_result"):
            continue
        message = record.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
            raise format_error(path, f"line {number}", f"{kind} record without message parts")
        builder.metadata.setdefault("source_session_id", record.get("sessionId"))
        builder.metadata.setdefault("source_working_dir", record.get("cwd"))
        if record.get("model"):
            builder.metadata["source_model"] = record["model"]
        failed = isinstance(record.get("toolCallResult"), dict) and (
            record["toolCallResult"].get("status") == "error")
        parts: list[Part] = []
        for part in message["parts"]:
            if not isinstance(part, dict):
                raise format_error(path, f"line {number}", "a part is not an object")
            if isinstance(part.get("functionCall"), dict):
                call = part["functionCall"]
                check_tool_call(path, f"line {number} functionCall", call, ("id", "name", "args"))
                parts.append(builder.request(call.get("id", ""), call.get("name", "tool"),
                                             call.get("args")))
            elif isinstance(part.get("functionResponse"), dict):
                resp = part["functionResponse"]
                text, is_error = _function_response_text(resp.get("response"))
                parts.append(builder.response(resp.get("id", ""), text,
                                              is_error=is_error or failed))
            elif isinstance(part.get("text"), str):
                if part.get("thought"):
                    parts.append(ThinkingContent(part["text"]))
                elif part["text"].strip():
                    parts.append(TextContent(part["text"]))
        role = "assistant" if kind == "assistant" else "user"
        builder.add(role, parts, created=parse_time(record.get("timestamp")),
                    source_id=str(record.get("uuid") or "") or None)
    return [builder.session(working_dir=working_dir)]
