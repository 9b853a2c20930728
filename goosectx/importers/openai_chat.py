"""OpenAI chat-completions message lists, and SWE-agent trajectories (``.traj``).

Accepted shapes: a JSON list of messages; ``{"messages": [...]}`` (a chat request); a
SWE-agent ``.traj`` (``history`` — the chat as the model saw it; the per-step ``trajectory``
snapshots are not needed).

* ``system`` messages before the conversation → ``session.metadata["system_prompt"]``; later
  ones → agent-only user text marked ``harness``.
* ``assistant.tool_calls`` → tool requests; ``role: "tool"`` (``tool_call_id``, or SWE-agent's
  ``tool_call_ids`` list) → tool responses, consecutive ones in one user message; the legacy
  ``function_call`` / ``role: "function"`` pair likewise.
* SWE-agent text-action runs (no native tool calls: backtick or XML ``<function=…>`` actions in
  the assistant text, observations as user messages) stay text; every user message after the
  first is marked ``observation``, demonstrations (``is_demo``) ``harness`` and agent-only.
* ``reasoning_content`` / ``thinking_blocks`` → thinking.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from goosectx.conversation import MessageMetadata, Part, ThinkingContent
from goosectx.importers.builder import (
    TranscriptBuilder,
    as_dict,
    content_text,
    format_error,
    read_json,
)
from goosectx.importers.fields import check_tool_call
from goosectx.parts import json_kind
from goosectx.session import Session


def load(path: Path, *, working_dir: Path, source: str = "openai") -> list[Session]:
    """One session from an OpenAI chat list or a SWE-agent trajectory.

    Raises:
        ImportFormatError: no message list, or a message that is not ``{role, content}``.
    """
    data = read_json(path)
    swe_agent = isinstance(data, dict) and ("history" in data or "trajectory" in data)
    if isinstance(data, list):
        messages = data
    elif isinstance(data, dict) and isinstance(data.get("history"), list):
        messages = data["history"]
    elif isinstance(data, dict) and isinstance(data.get("messages"), list):
        messages = data["messages"]
    else:
        raise format_error(path, "", "no message list (expected a list, \"messages\" or "
                                     "\"history\")")
    builder = TranscriptBuilder("swe-agent" if swe_agent else source, path)
    if swe_agent and isinstance(data, dict):
        _trajectory_metadata(builder, data)
    field = "history" if swe_agent else "messages"
    system: list[str] = []
    seen_user = False
    last_function_call: str | None = None
    for i, msg in enumerate(messages):
        where = f"{field}[{i}]"
        if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
            raise format_error(path, where, "expected a message object with a role")
        role = msg["role"]
        content = msg.get("content")
        if content is not None and not isinstance(content, str | list):
            raise format_error(path, where, '"content" must be text or a list of parts, not '
                                            f"{json_kind(content)}")
        if role in ("system", "developer"):
            text = content_text(msg.get("content"))
            if not builder.messages and not msg.get("is_demo"):
                system.append(text)
            else:
                builder.add("user", builder.text(text), metadata=MessageMetadata.agent_only(),
                            source_kind="harness")
        elif role == "user":
            kind = None
            meta = None
            if msg.get("is_demo"):
                kind, meta = "harness", MessageMetadata.agent_only()
            elif swe_agent and seen_user:
                kind = "observation"
            seen_user = seen_user or kind is None
            builder.add("user", builder.text(content_text(msg.get("content"))), metadata=meta,
                        source_kind=kind)
        elif role == "assistant":
            parts = _assistant_parts(builder, msg, where)
            call = msg.get("function_call")
            if isinstance(call, dict):
                check_tool_call(path, where, {"function_call.name": call.get("name"),
                                              "function_call.arguments": call.get("arguments")},
                                (None, "function_call.name", "function_call.arguments"),
                                json_text=True)
                last_function_call = f"function_call_{i}"
                parts.append(builder.request(last_function_call, call.get("name", "function"),
                                             call.get("arguments")))
            meta = MessageMetadata.agent_only() if msg.get("is_demo") else None
            if not builder.add("assistant", parts, metadata=meta):
                builder.add("assistant", builder.text("(empty reply)"), metadata=meta)
        elif role in ("tool", "function"):
            ids = _tool_ids(msg) if role == "tool" else [last_function_call or ""]
            if not ids:
                raise format_error(path, where, "tool message without tool_call_id")
            output = content_text(msg.get("content"))
            parts_: list[Part] = [builder.response(ids[0], output)]
            parts_ += [builder.response(extra, "(see the first result of this batch)")
                       for extra in ids[1:]]
            previous = builder.messages[-1] if builder.messages else None
            if not (previous is not None and previous.tool_responses
                    and builder.extend_last("user", parts_)):
                builder.add("user", parts_)
        else:
            raise format_error(path, where, f"unknown role {role!r}")
    if system:
        builder.metadata["system_prompt"] = "\n\n".join(system)
    return [builder.session(working_dir=working_dir)]


def _assistant_parts(builder: TranscriptBuilder, msg: dict[str, Any], where: str) -> list[Part]:
    parts: list[Part] = []
    reasoning = msg.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning.strip():
        parts.append(ThinkingContent(reasoning))
    for block in msg.get("thinking_blocks") or []:
        if isinstance(block, dict) and block.get("thinking"):
            parts.append(ThinkingContent(str(block["thinking"]), block.get("signature")))
    parts += builder.text(content_text(msg.get("content")))
    calls = msg.get("tool_calls")
    if isinstance(calls, str):  # some SWE-agent versions store the Python repr
        try:
            calls = ast.literal_eval(calls)
        except (ValueError, SyntaxError):
            raise format_error(builder.path, where, "tool_calls do not parse") from None
    if calls and not isinstance(calls, list):
        raise format_error(builder.path, f"{where}.tool_calls", "expected a list")
    for j, call in enumerate(calls or []):
        if not isinstance(call, dict):
            raise format_error(builder.path, f"{where}.tool_calls[{j}]", "expected an object")
        function = call.get("function") or {}
        if not isinstance(function, dict):
            raise format_error(builder.path, f"{where}.tool_calls[{j}].function",
                               "expected an object")
        check_tool_call(builder.path, f"{where}.tool_calls[{j}]",
                        {"id": call.get("id"), "function.name": function.get("name"),
                         "function.arguments": function.get("arguments")},
                        ("id", "function.name", "function.arguments"), json_text=True)
        parts.append(builder.request(call.get("id", ""), function.get("name", "tool"),
                                     function.get("arguments")))
    return parts


def _tool_ids(msg: dict[str, Any]) -> list[str]:
    if msg.get("tool_call_id"):
        return [str(msg["tool_call_id"])]
    ids = msg.get("tool_call_ids")
    if isinstance(ids, str):
        try:
            ids = ast.literal_eval(ids)
        except (ValueError, SyntaxError):
            ids = [ids]
    return [str(i) for i in ids] if isinstance(ids, list) else []


def _trajectory_metadata(builder: TranscriptBuilder, data: dict[str, Any]) -> None:
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    config = data.get("replay_config")
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except json.JSONDecodeError:
            config = None
    model = None
    if isinstance(config, dict):
        model = as_dict(as_dict(config.get("agent")).get("model")).get("name")
    builder.metadata.update({
        "source_model": model,
        "source_title": (config or {}).get("problem_statement", {}).get("id")
        if isinstance(config, dict) and isinstance(config.get("problem_statement"), dict)
        else None,
        "exit_status": info.get("exit_status") if isinstance(info, dict) else None,
    })
