"""GitHub Copilot CLI session events (``~/.copilot/session-state/<id>/events.jsonl``).

Events are ``{type, data, id, timestamp}``:

* ``system.message`` → ``session.metadata["system_prompt"]`` (repeats are ignored);
* ``user.message`` → user text (``content``; when empty, the ``transformedContent`` the CLI
  sent on its own, e.g. the autopilot "keep working" nudge, marked ``harness``);
* ``assistant.message`` → assistant text, ``reasoningText`` → thinking, ``toolRequests`` →
  tool requests;
* ``tool.execution_complete`` → tool responses (``success: false`` marks an error),
  consecutive ones in one user message. A tool run whose request no assistant message
  announced gets its request from ``tool.execution_start`` in an assistant message of its own;
* ``session.error`` → a user-only notification; other ``session.*`` / ``assistant.turn_*``
  events carry no conversation and only feed metadata.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goosectx.conversation import MessageMetadata, Part, SystemNotification, ThinkingContent
from goosectx.importers.builder import (
    TranscriptBuilder,
    as_dict,
    content_text,
    format_error,
    read_jsonl,
)
from goosectx.importers.times import parse_time
from goosectx.session import Session


def load(path: Path, *, working_dir: Path) -> list[Session]:
    """One session from a Copilot CLI ``events.jsonl``.

    Raises:
        ImportFormatError: a line that is not JSON, or an event without ``type``/``data``.
    """
    builder = TranscriptBuilder("copilot", path)
    started: dict[str, dict[str, Any]] = {}
    for number, event in read_jsonl(path):
        kind, data = event.get("type"), event.get("data")
        if not isinstance(kind, str) or not isinstance(data, dict):
            raise format_error(path, f"line {number}", "event without type and data")
        when = parse_time(event.get("timestamp"))
        if kind == "session.start":
            context = as_dict(data.get("context"))
            builder.metadata.update({"source_session_id": data.get("sessionId"),
                                     "source_working_dir": context.get("cwd")})
        elif kind == "session.model_change" and data.get("newModel"):
            builder.metadata["source_model"] = data["newModel"]
        elif kind == "system.message":
            builder.metadata.setdefault("system_prompt", content_text(data.get("content")))
        elif kind == "user.message":
            text = content_text(data.get("content"))
            if text.strip():
                builder.add("user", builder.text(text), created=when)
            else:
                builder.add("user", builder.text(content_text(data.get("transformedContent"))),
                            created=when, source_kind="harness")
        elif kind == "assistant.message":
            parts: list[Part] = []
            if isinstance(data.get("reasoningText"), str) and data["reasoningText"].strip():
                parts.append(ThinkingContent(data["reasoningText"]))
            parts += builder.text(content_text(data.get("content")))
            for req in data.get("toolRequests") or []:
                if isinstance(req, dict):
                    parts.append(builder.request(req.get("toolCallId", ""),
                                                 req.get("name", "tool"), req.get("arguments")))
            builder.add("assistant", parts or builder.text("(empty reply)"), created=when)
        elif kind == "tool.execution_start":
            started[str(data.get("toolCallId"))] = data
        elif kind == "tool.execution_complete":
            call_id = str(data.get("toolCallId") or "")
            if not call_id:
                raise format_error(path, f"line {number}", "tool.execution_complete without id")
            if not builder.is_requested(call_id):
                start = started.get(call_id, {})
                builder.add("assistant", [builder.request(
                    call_id, start.get("toolName", "tool"), start.get("arguments"))],
                    created=parse_time(start.get("timestamp")) or when,
                    source_kind="unannounced_tool_run")
            output, is_error = _result(data)
            part = builder.response(call_id, output, is_error=is_error)
            last = builder.messages[-1]
            if not (last.tool_responses and builder.extend_last("user", [part])):
                builder.add("user", [part], created=when)
        elif kind == "session.error":
            builder.add("assistant", [SystemNotification(
                "inline", f"error: {content_text(data.get('message') or data)}")],
                created=when, metadata=MessageMetadata.user_only())
    return [builder.session(working_dir=working_dir)]


def _result(data: dict[str, Any]) -> tuple[str, bool]:
    failed = data.get("success") is False
    result = data.get("result")
    if isinstance(result, dict):
        return content_text(result.get("content")), failed
    error = data.get("error")
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        return content_text(message), True
    return content_text(result), failed
