"""A secret of this environment in any part of an imported message is never kept.

review21 #04: the import's scrubber passed every part type but text, reasoning and tool
calls and results through untouched, so a key in an ``@``-file's text or source (read by
the model on resume) or in a notice was stored, shown by ``sessions show`` and exported.
Each case below puts the secret ``K`` in every string field of one part type, in an export
written by the export writer itself; then the same for the other formats' readers that
make notices and reasoning.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cli_support import cli
from import_support import (
    write_goose_db,
    write_goose_json,
    write_jsonl,
)
from store_support import assert_not_in_sessions_db

from goosectx.attachment import Attachment
from goosectx.parts import (
    _PART_TYPES,
    Part,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)

_PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)


def _cases(k: str) -> dict[str, list[tuple[str, list[Part]]]]:
    """Per case (named by its part type first), the messages of an export: (role, parts)."""
    ask: tuple[str, list[Part]] = ("user", [TextContent("go")])
    call: tuple[str, list[Part]] = ("assistant", [ToolRequest("call_1", "shell", {})])
    return {
        "text": [("user", [TextContent(f"use {k}")])],
        "tool_request": [ask, ("assistant", [ToolRequest(
            "call_1", f"shell_{k}", {"command": f"echo {k}", k: [k]}, None, None)])],
        "tool_request unparsed": [ask, ("assistant", [ToolRequest(
            "call_1", "shell", None, f"bad JSON near {k}", f'{{"command": "{k}')])],
        "tool_response": [ask, call, ("user", [ToolResponse(
            "call_1", f"KEY={k}", False, f"+{k}")])],
        "thinking": [ask, ("assistant", [ThinkingContent(f"hm {k}", f"sig{k}"),
                                         TextContent("ok")])],
        "system_notification": [ask, ("assistant", [SystemNotification("inline", f"notice {k}")])],
        "attachment file": [("user", [TextContent("see"), Attachment(
            "file", f"notes-{k}.txt", f"text/{k}", text=f"token={k}", token_estimate=5)])],
        "attachment resource": [("user", [TextContent("see"), Attachment(
            "resource", f"docs:{k}", "application/octet-stream", data=b"\0\1")])],
        "attachment image": [("user", [TextContent("see"), Attachment(
            "image", f"/tmp/{k}.png", "image/png", data=_PNG)])],
        "attachment resource bytes": [("user", [TextContent("see"), Attachment(
            "resource", "vault:file:///.env", "application/octet-stream",
            data=b"\0\xffKEY=" + k.encode() + b"\n\1")])],
        "attachment image bytes": [("user", [TextContent("see"), Attachment(
            "image", "shot.png", "image/png", data=_PNG + b"tEXtkey\0" + k.encode())])],
    }


def _export(tmp: Path, k: str, case: str) -> Path:
    from goosectx.conversation import Conversation, Message
    from goosectx.export import session_to_json_text
    from goosectx.session import Session

    when = datetime(2025, 8, 28, 12, 57, 8, tzinfo=UTC)
    messages = [Message(role, tuple(parts), id=f"msg_{i}", created=when)  # type: ignore[arg-type]
                for i, (role, parts) in enumerate(_cases(k)[case])]
    session = Session("20250828_125708_aaaa", "src", tmp, None, when, when,
                      conversation=Conversation(messages))
    path = tmp / "export.json"
    path.write_text(session_to_json_text(session))
    return path


def _held(export: str, k: str) -> bool:
    """Whether a JSON export holds ``k``: in a string, or in an attachment's bytes (base64)."""
    parts = [p for m in json.loads(export)["messages"] for p in m["content"]]
    return k in export or any(k.encode() in base64.b64decode(p.get("data", "")) for p in parts)


def _assert_never_kept(capsys: pytest.CaptureFixture[str], source: Path, fmt: str, k: str
                       ) -> str:
    """Import ``source``; ``k`` is not printed, stored, shown nor exported (JSON, Markdown).

    Returns what the import printed.
    """
    out, err = cli(capsys, "sessions", "import", str(source), "--format", fmt, "--name", "imp")
    assert k not in out + err
    assert "a secret of this environment was redacted" in out + err
    assert_not_in_sessions_db(k)
    for args in (("show", "imp"), ("export", "imp", "-f", "json"), ("export", "imp")):
        shown = cli(capsys, "sessions", *args)[0]
        assert k not in shown, args
    exported = cli(capsys, "sessions", "export", "imp", "-f", "json")[0]
    assert _held(exported, "[REDACTED]") or "removed at import" in exported
    return out + err


def test_every_part_type_is_here() -> None:
    assert {case.split()[0] for case in _cases("k")} == set(_PART_TYPES)


@pytest.mark.parametrize("case", sorted(_cases("k")))
def test_a_secret_in_any_part_of_a_goosectx_export_is_never_kept(
        case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import DUMMY_API_KEY

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    source = _export(tmp_path, DUMMY_API_KEY, case)
    assert _held(source.read_text(), DUMMY_API_KEY)  # (the writer kept it: the import must not)
    note = _assert_never_kept(capsys, source, "goosectx", DUMMY_API_KEY)
    named = {"attachment": "in 1 attachment", "system_notification": "in 1 notice"}
    assert named.get(case.split()[0], "redacted in") in note
    exported = json.loads(cli(capsys, "sessions", "export", "imp", "-f", "json")[0])
    assert not _held(json.dumps(exported), DUMMY_API_KEY)
    parts = [p for m in exported["messages"] for p in m["content"]]
    kept = [p["type"] for p in parts]
    if case == "attachment image bytes":  # bytes a redaction would break: the image goes
        assert "attachment" not in kept
        assert "image image/png removed at import" in " ".join(p.get("text", "") for p in parts)
    else:
        assert case.split()[0] in kept  # the part is still there, scrubbed


def _aider(tmp: Path, k: str) -> Path:
    path = tmp / ".aider.chat.history.md"
    path.write_text("\n# aider chat started at 2025-08-06 12:06:30\n\n#### run it  \n\n"
                    f"> Tokens: 1k sent, key {k}\n\nDone.\n")
    return path


def _claude_code(tmp: Path, k: str) -> Path:
    base = {"sessionId": "s1", "cwd": str(tmp), "isSidechain": False}
    return write_jsonl(tmp / "session.jsonl", [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "ls"}},
        {**base, "type": "system", "uuid": "s1", "content": f"hook said {k}"},
        {**base, "type": "assistant", "uuid": "a1", "message": {
            "id": "m1", "role": "assistant", "content": [
                {"type": "thinking", "thinking": f"hm {k}", "signature": "sig"},
                {"type": "text", "text": "done"}]}}])


def _copilot(tmp: Path, k: str) -> Path:
    def ev(kind: str, **data: object) -> dict[str, object]:
        return {"type": kind, "data": data, "timestamp": "2026-04-23T17:11:16.000Z"}

    return write_jsonl(tmp / "events.jsonl", [
        ev("session.start", sessionId="cp1", context={"cwd": str(tmp)}),
        ev("user.message", content="look"),
        ev("assistant.message", content="ok", reasoningText=f"hm {k}"),
        ev("session.error", message=f"failed with {k}")])


def _gemini_cli(tmp: Path, k: str) -> Path:
    path = tmp / "session.json"
    path.write_text(json.dumps({"sessionId": "g1", "projectHash": "p", "messages": [
        {"id": "1", "type": "user", "content": [{"text": "hi"}]},
        {"id": "2", "type": "gemini", "content": "ok",
         "thoughts": [{"subject": "plan", "description": f"use {k}"}]},
        {"id": "3", "type": "error", "content": f"quota for {k}"}]}))
    return path


def _qwen_code(tmp: Path, k: str) -> Path:
    return write_jsonl(tmp / "chat.jsonl", [
        {"uuid": "q1", "sessionId": "s1", "cwd": str(tmp), "type": "user",
         "message": {"role": "user", "parts": [{"text": "hi"}]}},
        {"uuid": "q2", "type": "assistant", "message": {"role": "model", "parts": [
            {"text": f"hm {k}", "thought": True}, {"text": "ok"}]}}])


def _goose_blocks(k: str) -> list[tuple[str, list[dict[str, object]]]]:
    return [("user", [{"type": "text", "text": "hi"}]),
            ("assistant", [{"type": "thinking", "thinking": f"hm {k}", "signature": "s"},
                           {"type": "text", "text": "ok"},
                           {"type": "systemNotification", "msg": f"notice {k}"},
                           {"type": "contextLengthExceeded", "msg": f"over {k}"}])]


def _goose_json(tmp: Path, k: str) -> Path:
    return write_goose_json(tmp / "goose.json", _goose_blocks(k), session_id="s1",
                            working_dir=str(tmp))


def _goose_db(tmp: Path, k: str) -> Path:
    return write_goose_db(tmp / "sessions.db", _goose_blocks(k), session_id="s1",
                          working_dir=str(tmp))


def _codex(tmp: Path, k: str) -> Path:
    def item(payload: dict[str, object]) -> dict[str, object]:
        return {"timestamp": "2025-09-19T09:02:12.000Z", "type": "response_item",
                "payload": payload}

    return write_jsonl(tmp / "rollout.jsonl", [
        {"timestamp": "2025-09-19T09:02:12.000Z", "type": "session_meta",
         "payload": {"id": "r1", "cwd": str(tmp)}},
        item({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "ls"}]}),
        item({"type": "reasoning", "summary": [{"type": "summary_text", "text": f"hm {k}"}],
              "encrypted_content": f"enc{k}"}),
        item({"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "ok"}]})])


def _openai(tmp: Path, k: str) -> Path:
    path = tmp / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"},
                                {"role": "assistant", "content": "ok",
                                 "reasoning_content": f"hm {k}"}]))
    return path


def _swe_agent(tmp: Path, k: str) -> Path:
    path = tmp / "run.traj"
    path.write_text(json.dumps({"history": [
        {"role": "user", "content": "fix it"},
        {"role": "assistant", "content": "done", "reasoning_content": f"hm {k}"}],
        "info": {"exit_status": "submitted"}}))
    return path


READERS: dict[str, Callable[[Path, str], Path]] = {
    "aider": _aider, "claude-code": _claude_code, "copilot": _copilot,
    "gemini-cli": _gemini_cli, "qwen-code": _qwen_code, "goose-json": _goose_json,
    "goose-db": _goose_db, "codex": _codex, "openai": _openai, "swe-agent": _swe_agent,
}
"""The formats whose readers make notices or reasoning parts, each given both it makes."""


def test_every_format_making_other_parts_than_text_and_tools_is_here() -> None:
    from goosectx.importers import FORMATS

    # goosectx: every part type, above; console: text only (test_import_secret_formats)
    assert set(FORMATS) - set(READERS) == {"goosectx", "console"}


@pytest.mark.parametrize("fmt", sorted(READERS))
def test_a_secret_in_a_notice_or_reasoning_of_any_format_is_never_kept(
        fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import DUMMY_API_KEY

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    _assert_never_kept(capsys, READERS[fmt](tmp_path, DUMMY_API_KEY), fmt, DUMMY_API_KEY)
