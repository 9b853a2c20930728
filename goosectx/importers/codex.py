"""OpenAI Codex CLI rollouts (``~/.codex/sessions/…/rollout-*.jsonl``).

Lines are ``{timestamp, type, payload}`` (older rollouts: the response item itself). Only
``response_item`` payloads are the conversation — ``event_msg`` lines repeat them for the UI:

* ``message`` (``input_text`` / ``output_text``) → text; ``<environment_context>`` and
  ``<user_instructions>`` user messages are agent-only ``harness`` text; ``developer`` /
  ``system`` messages → ``session.metadata["system_prompt"]``;
* ``reasoning`` → thinking (its ``summary`` text; ``encrypted_content`` kept as the signature);
* ``function_call`` / ``custom_tool_call`` (e.g. ``apply_patch``) / ``local_shell_call`` → tool
  requests; ``*_output`` → tool responses (the shell's ``{"output", "metadata": {exit_code}}``
  JSON is unwrapped; a non-zero exit code marks an error);
* ``web_search_call`` (no output item) → a line of assistant text.

Two ``event_msg`` kinds hold tool work no response item may hold (a patch applied or a command
run from inside an ``exec`` code cell): ``patch_apply_end`` → an ``apply_patch`` call whose
patch is rebuilt from its ``changes`` (``*** Add/Update/Delete File:`` headers with the diffs,
paths relative to the session's cwd) and its result (an error when ``success`` is false; a
``patch_apply_begin``'s changes stand in for an end that lacks them); ``exec_command_end`` → a
``shell`` call and its output (an error for a non-zero exit code). An event whose call id a
response item already called repeats that call for the UI and is skipped.

A command the user ran (``!cmd``: an ``exec_command_end`` with ``source: "user_shell"``, no
model call behind it, and in newer Codex a ``<user_shell_command>`` user message recording it
for the model) is the user's message, as our own ``!command`` is stored
(:func:`goosectx.shell_escape.escape_message`: the command and its output, user- and
agent-visible, or user-only when a word of it names a sensitive file, ``cat .env``, as with
``!command``); the event and the message of one run make one message.

Consecutive assistant-side items form one assistant message; consecutive outputs one user
message; every user text message stands alone.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from goosectx.compaction.actions import is_harness_text
from goosectx.conversation import (
    MessageMetadata,
    Part,
    TextContent,
    ThinkingContent,
    ToolResponse,
)
from goosectx.importers.builder import (
    TranscriptBuilder,
    as_dict,
    content_text,
    format_error,
    read_jsonl,
)
from goosectx.importers.times import parse_time
from goosectx.session import Session
from goosectx.shell_escape import escape_message

_ASSISTANT_ITEMS = {"reasoning", "function_call", "custom_tool_call", "local_shell_call",
                    "web_search_call"}
_OUTPUT_ITEMS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}


def load(path: Path, *, working_dir: Path,
         own: tuple[Path | None, Path | None] = (None, None)) -> list[Session]:
    """One session from a Codex rollout (``own``: goosectx's config file and data dir).

    Raises:
        ImportFormatError: a line that is not JSON or a response item missing its fields.
    """
    builder = TranscriptBuilder("codex", path)
    system: list[str] = []
    events = _Events(working_dir, own)
    for number, record in read_jsonl(path):
        kind, payload = record.get("type"), record.get("payload")
        if not isinstance(payload, dict):
            kind, payload = "response_item", record
            if "instructions" in record and "type" not in record:
                kind = "session_meta"
        when = parse_time(record.get("timestamp"))
        if kind == "session_meta":
            events.cwd = str(payload.get("cwd") or "")
            builder.metadata.update({
                "source_session_id": payload.get("id"),
                "source_working_dir": payload.get("cwd"),
                "source_cli_version": payload.get("cli_version"),
            })
            if payload.get("instructions"):
                system.append(str(payload["instructions"]))
        elif kind == "turn_context":
            events.cwd = str(payload.get("cwd") or events.cwd)
            if payload.get("model"):
                builder.metadata["source_model"] = payload["model"]
        elif kind == "event_msg":
            events.add(builder, payload, when)
        elif kind == "compacted" and payload.get("message"):
            builder.add("user", builder.text(str(payload["message"])), created=when,
                        metadata=MessageMetadata.agent_only(), source_kind="harness")
        elif kind == "response_item":
            events.called.update(str(payload[k]) for k in ("call_id", "id") if payload.get(k))
            _item(builder, payload, f"line {number}", when, system, events)
    if system:
        builder.metadata["system_prompt"] = "\n\n".join(system)
    return [builder.session(working_dir=working_dir)]


def _item(builder: TranscriptBuilder, item: dict[str, Any], where: str, when: Any,
          system: list[str], events: _Events) -> None:
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        text = content_text(item.get("content"))
        if role in ("developer", "system"):
            system.append(text)
        elif role == "assistant":
            _assistant(builder, builder.text(text), when)
        elif role == "user" and text.lstrip().startswith(USER_SHELL_OPEN):
            command, output, failed = _user_shell_record(text)
            events.user_shell(builder, "record", command, output, failed, when)
        elif role == "user":
            harness = is_harness_text(text)
            builder.add("user", builder.text(text), created=when,
                        metadata=MessageMetadata.agent_only() if harness else None,
                        source_kind="harness" if harness else None)
        else:
            raise format_error(builder.path, where, f"message with unknown role {role!r}")
    elif kind in _ASSISTANT_ITEMS:
        _assistant(builder, _assistant_parts(builder, item, where), when)
    elif kind in _OUTPUT_ITEMS:
        call_id = item.get("call_id")
        if not call_id:
            raise format_error(builder.path, where, f"{kind} without call_id")
        output, is_error = _output(item.get("output"))
        _result(builder, builder.response(call_id, output, is_error=is_error), when)


def _result(builder: TranscriptBuilder, part: ToolResponse, when: Any) -> None:
    """Add a tool result: to the last message when it holds results, else in a new one."""
    last = builder.messages[-1] if builder.messages else None
    if not (last is not None and last.tool_responses and builder.extend_last("user", [part])):
        builder.add("user", [part], created=when)


class _Events:
    """The ``event_msg`` records of tool work (module docstring), with what they need."""

    def __init__(self, working_dir: Path, own: tuple[Path | None, Path | None]) -> None:
        self.working_dir = working_dir  # where the import runs: the cwd's stand-in
        self.own = own  # goosectx's config file and data dir: sensitive, as live
        self.cwd = ""
        self.called: set[str] = set()  # call ids of response items
        self._begun: dict[str, Any] = {}  # call id -> a patch_apply_begin's changes
        self._shell: tuple[str, str] | None = None  # a user shell command's first record

    def user_shell(self, builder: TranscriptBuilder, kind: str, command: str, output: str,
                   failed: bool, when: Any) -> None:
        """A command the user ran (``!cmd``): the user's message, as our ``!command`` is.

        Codex writes its event and (newer Codex) a user message for the model: the second
        of that pair (``kind`` "event" or "record") for the same command is the same run.
        A command a word of which names a sensitive file (``cat .env``, goosectx's config
        file or data dir) is the user's only, as ours is (``cli/shell_escape_cmd.py``): its
        output never reaches the model. Its files are not here: a glob word counts by the
        sensitive names it may match (``cat .[e]nv``, ``cat .en*``: :mod:`goosectx.unseen_globs`).
        Nor does one whose output may hold a secret not known here (``env``, ``gh auth
        token``: :mod:`goosectx.unseen_output`; a live one runs without the secrets).
        """
        if self._shell is not None and self._shell[0] != kind and self._shell[1] == command:
            self._shell = None
            return
        self._shell = (kind, command)
        from goosectx.sensitive_shell import sensitive_words
        from goosectx.unseen_output import unseen_secret_output

        where = Path(self.cwd) if self.cwd else self.working_dir
        secret = next(sensitive_words(command, where, config_file=self.own[0],
                                      data_dir=self.own[1], unseen=True), None
                      ) or unseen_secret_output(command, where)
        message = escape_message(command, output, is_error=failed, to_model=secret is None)
        builder.add("user", list(message.content), created=when, metadata=message.metadata)

    def add(self, builder: TranscriptBuilder, event: dict[str, Any], when: Any) -> None:
        kind, call_id = event.get("type"), str(event.get("call_id") or "")
        if kind == "patch_apply_begin":
            self._begun[call_id] = event.get("changes")
            return
        if kind not in ("patch_apply_end", "exec_command_end") or call_id in self.called:
            return
        self.called.add(call_id)
        if kind == "exec_command_end" and event.get("source") == "user_shell":
            code = event.get("exit_code")
            self.user_shell(builder, "event", _command(event.get("command")),
                            _event_output(event), isinstance(code, int) and code != 0, when)
            return
        if kind == "patch_apply_end":
            changes = event.get("changes") or self._begun.pop(call_id, None)
            name, arguments = "apply_patch", {"input": self._patch(as_dict(changes))}
            failed = event.get("success") is False
        else:
            name, arguments = "shell", {"command": _command(event.get("command"))}
            code = event.get("exit_code")
            failed = isinstance(code, int) and code != 0
        request = builder.request(call_id, name, arguments)
        _assistant(builder, [request], when)
        _result(builder, builder.response(request.id, _event_output(event), is_error=failed),
                when)

    def _patch(self, changes: dict[str, Any]) -> str:
        """A patch in ``apply_patch``'s own form naming each changed file, with its diff."""
        lines = ["*** Begin Patch"]
        for path, raw in changes.items():
            change = as_dict(raw)
            kind = str(change.get("type") or next(iter(change), "update"))
            body = as_dict(change.get(kind)) or change  # {"add": {...}} or {"type": "add", ...}
            verb = {"add": "Add", "delete": "Delete"}.get(kind, "Update")
            lines.append(f"*** {verb} File: {self._relative(path)}")
            if body.get("move_path"):
                lines.append(f"*** Move to: {self._relative(str(body['move_path']))}")
            diff = body.get("unified_diff")
            content = body.get("content")
            if isinstance(diff, str) and diff and verb == "Add":  # the added lines alone
                lines += [line for line in diff.splitlines()
                          if line.startswith("+") and not line.startswith("+++")]
            elif isinstance(diff, str) and diff:
                lines.append(diff.rstrip("\n"))
            elif isinstance(content, str) and content and verb == "Add":
                lines += [f"+{line}" for line in content.splitlines()]
        lines.append("*** End Patch")
        return "\n".join(lines)

    def _relative(self, path: str) -> str:
        cwd = self.cwd.rstrip("/")
        return path[len(cwd) + 1:] if cwd and path.startswith(cwd + "/") else path


def _command(raw: Any) -> str:
    """An ``exec_command_end``'s command as one line (``bash -lc SCRIPT``: the script)."""
    if isinstance(raw, list):
        parts = [str(p) for p in raw]
        if len(parts) >= 3 and parts[0].endswith(("bash", "sh", "zsh")) and parts[1] in (
                "-lc", "-c"):
            return parts[2]
        return shlex.join(parts)
    return str(raw or "")


USER_SHELL_OPEN = "<user_shell_command>"
"""How Codex's record of a user shell command for the model begins (a user message)."""
_USER_SHELL = re.compile(r"<command>\n?(?P<command>.*?)\n?</command>\s*<result>\n?"
                         r"(?P<result>.*?)\n?</result>", re.DOTALL)


def _user_shell_record(text: str) -> tuple[str, str, bool]:
    """(command, output, failed) of a ``<user_shell_command>`` message.

    ``<command>CMD</command><result>Exit code: N / Duration: … / Output: …</result>``; a
    record that does not read so is kept whole as the output of an unnamed command.
    """
    found = _USER_SHELL.search(text)
    if found is None:
        return "", text.strip(), False
    result = found["result"]
    code = re.match(r"Exit code: (-?\d+)", result)
    _, said, output = result.partition("Output:\n")
    return (found["command"].strip(), output if said else result,
            code is not None and code[1] != "0")


def _event_output(event: dict[str, Any]) -> str:
    """What an event's command or patch printed (stdout, then stderr)."""
    for key in ("aggregated_output", "formatted_output"):
        if isinstance(event.get(key), str) and event[key].strip():
            return str(event[key])
    parts = [str(event[k]) for k in ("stdout", "stderr")
             if isinstance(event.get(k), str) and event[k].strip()]
    return "\n".join(p.rstrip("\n") for p in parts)


def _assistant_parts(builder: TranscriptBuilder, item: dict[str, Any], where: str
                     ) -> list[Part]:
    kind = item["type"]
    if kind == "reasoning":
        summary = content_text(item.get("summary"))
        text = summary or content_text(item.get("content"))
        return [ThinkingContent(text, item.get("encrypted_content") or None)]
    if kind == "web_search_call":
        action = as_dict(item.get("action"))
        return [TextContent(f"[web search: {action.get('query') or ''}]".replace(": ]", "]"))]
    call_id = item.get("call_id") or item.get("id")
    if not call_id or not item.get("name") and kind != "local_shell_call":
        raise format_error(builder.path, where, f"{kind} without call_id or name")
    if kind == "custom_tool_call":
        return [builder.request(call_id, item["name"], {"input": item.get("input", "")})]
    if kind == "local_shell_call":
        action = as_dict(item.get("action"))
        return [builder.request(call_id, "local_shell", {"command": action.get("command")})]
    return [builder.request(call_id, item["name"], item.get("arguments"))]


def _assistant(builder: TranscriptBuilder, parts: list[Part], when: Any) -> None:
    last = builder.messages[-1] if builder.messages else None
    if last is not None and last.role == "assistant" and not last.metadata.extra:
        builder.extend_last("assistant", parts)
    else:
        builder.add("assistant", parts, created=when)


def _output(raw: Any) -> tuple[str, bool]:
    if isinstance(raw, dict):
        return content_text(raw.get("content") or raw), bool(raw.get("success") is False)
    text = raw if isinstance(raw, str) else content_text(raw)
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return text, False
        if isinstance(data, dict) and "output" in data:
            code = as_dict(data.get("metadata")).get("exit_code")
            return str(data["output"]), isinstance(code, int) and code != 0
    return text, False
