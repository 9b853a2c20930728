"""Claude Code session files (``~/.claude/projects/<dir>/<session>.jsonl``).

One record per line; ``type: "user" | "assistant"`` records carry an Anthropic ``message``
(content a string or blocks: ``text``, ``thinking`` with its signature, ``redacted_thinking``,
``tool_use``, ``tool_result``, ``image``). Each record becomes one message (Claude Code writes
one record per content block of a reply). Other record types (``summary``,
``file-history-*``, ``system``...) are not conversation messages: a ``summary`` gives the
title, a ``system`` record with text becomes a notification. Sub-agent records
(``isSidechain``) are skipped — their result reaches the main thread as the Task tool's
result. Duplicate ``uuid`` records (written again on resume) are imported once.

Harness text is marked: ``isMeta`` records (agent-only, ``harness``), local slash commands and
their output (``<command-name>``, ``<local-command-stdout>``: user-only, ``command``) and
``[Request interrupted by user…]`` markers (``harness``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goosectx.conversation import (
    Message,
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
    parse_time,
    read_jsonl,
)
from goosectx.session import Session
from goosectx.usage import Usage

_COMMAND_TAGS = ("<command-name>", "<command-message>", "<local-command-stdout>",
                 "<local-command-stderr>")


def load(path: Path, *, working_dir: Path) -> list[Session]:
    """One session from a Claude Code JSONL file.

    Raises:
        ImportFormatError: a line that is not JSON, or a message record without content.
    """
    builder = TranscriptBuilder("claude-code", path)
    seen: set[str] = set()
    usage_seen: set[str] = set()
    sidechain = 0
    for number, record in read_jsonl(path):
        kind = record.get("type")
        if kind == "summary" and record.get("summary"):
            builder.metadata.setdefault("source_title", str(record["summary"]))
            continue
        if kind == "system" and isinstance(record.get("content"), str):
            builder.add("assistant", [SystemNotification("inline", record["content"])],
                        created=parse_time(record.get("timestamp")),
                        metadata=MessageMetadata.user_only())
            continue
        if kind not in ("user", "assistant"):
            continue
        if record.get("isSidechain"):
            sidechain += 1
            continue
        uuid = str(record.get("uuid") or "")
        if uuid and uuid in seen:
            continue
        seen.add(uuid)
        message = record.get("message")
        if not isinstance(message, dict) or "content" not in message:
            raise format_error(path, f"line {number}", f"{kind} record without message content")
        builder.metadata.setdefault("source_session_id", record.get("sessionId"))
        builder.metadata.setdefault("source_working_dir", record.get("cwd"))
        if kind == "assistant" and message.get("model") and message["model"] != "<synthetic>":
            builder.metadata["source_model"] = message["model"]
        parts = _parts(builder, message.get("content"), f"line {number}")
        usage = None
        usage_key = str(message.get("id") or uuid)
        if kind == "assistant" and isinstance(message.get("usage"), dict) and (
                usage_key not in usage_seen):
            usage_seen.add(usage_key)
            usage = _usage(message["usage"])
        meta, source_kind = _classify(record, parts)
        if usage is not None:
            meta = MessageMetadata(meta.user_visible, meta.agent_visible, usage)
        builder.add(kind, parts, created=parse_time(record.get("timestamp")), metadata=meta,
                    source_kind=source_kind, source_id=uuid or None)
    if sidechain:
        builder.metadata["skipped_sidechain_records"] = sidechain
    return [builder.session(working_dir=working_dir)]


def _parts(builder: TranscriptBuilder, content: Any, where: str) -> list[Part]:
    if isinstance(content, str):
        return builder.text(content)
    if not isinstance(content, list):
        raise format_error(builder.path, where, "message content is neither text nor blocks")
    parts: list[Part] = []
    for block in content:
        if not isinstance(block, dict):
            raise format_error(builder.path, where, "content block is not an object")
        kind = block.get("type")
        if kind == "text":
            parts += builder.text(str(block.get("text") or ""))
        elif kind == "thinking":
            parts.append(ThinkingContent(str(block.get("thinking") or ""),
                                         block.get("signature") or None))
        elif kind == "redacted_thinking":
            parts.append(ThinkingContent("", block.get("data") or None))
        elif kind == "tool_use":
            parts.append(builder.request(block.get("id", ""), block.get("name", "tool"),
                                         block.get("input")))
        elif kind == "tool_result":
            parts.append(builder.response(block.get("tool_use_id", ""),
                                          content_text(block.get("content")),
                                          is_error=bool(block.get("is_error"))))
        elif kind == "image":
            parts.append(TextContent("[image]"))
        else:
            parts += builder.text(content_text([block]))
    return parts


def _classify(record: dict[str, Any], parts: list[Part]) -> tuple[MessageMetadata, str | None]:
    if record.get("isMeta"):
        return MessageMetadata.agent_only(), "harness"
    if record.get("type") != "user":
        return MessageMetadata(), None
    text = Message("user", tuple(parts)).text.lstrip()
    if text.startswith(_COMMAND_TAGS):
        return MessageMetadata.user_only(), "command"
    if text.startswith("[Request interrupted by user") or record.get("isCompactSummary"):
        return MessageMetadata(), "harness"
    return MessageMetadata(), None


def _usage(data: dict[str, Any]) -> Usage:
    cache_read = data.get("cache_read_input_tokens")
    cache_write = data.get("cache_creation_input_tokens")
    input_tokens = int(data.get("input_tokens") or 0) + int(cache_read or 0) + int(
        cache_write or 0)
    output_tokens = int(data.get("output_tokens") or 0)
    return Usage(input_tokens, output_tokens, input_tokens + output_tokens, cache_read,
                 cache_write)
