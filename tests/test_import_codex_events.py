"""Codex ``event_msg`` records of tool work no response item holds (fresh26 A3).

A patch applied from inside an ``exec`` code cell is recorded only as a ``patch_apply_end``
event (its call id answers no ``function_call``): the importer dropped it, so the files it
added and changed were in neither ``sessions show`` nor the summary's Files facts. Such an
event (and ``exec_command_end``) is imported as a tool call and its result; one that repeats a
response item's call is not imported twice.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli

from goosectx.importers import load_sessions

CWD = "/proj/app"


def record(kind: str, payload: dict, second: int = 0) -> dict:
    return {"timestamp": f"2025-09-19T09:09:{second:02d}.000Z", "type": kind,
            "payload": payload}


def rollout(path: Path) -> Path:
    records = [
        record("session_meta", {"id": "r1", "cwd": CWD}),
        record("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "bump the version and add release notes"}]}),
        record("response_item", {"type": "custom_tool_call", "name": "exec",
                                 "input": "await tools.apply_patch(patchText);",
                                 "call_id": "cell1"}, 1),
        record("response_item", {"type": "custom_tool_call_output", "call_id": "cell1",
                                 "output": "Script completed"}, 2),
        record("event_msg", {"type": "patch_apply_begin", "call_id": "pa1", "changes": {}}, 3),
        record("event_msg", {
            "type": "patch_apply_end", "call_id": "pa1", "success": True,
            "stdout": "Success. Updated the following files:\nA docs/RELEASE_NOTES.md\n"
                      "M core/version.go\n",
            "changes": {f"{CWD}/docs/RELEASE_NOTES.md": {
                "type": "add", "unified_diff": "@@ -0,0 +1,1 @@\n+# Release Notes\n"},
                f"{CWD}/core/version.go": {
                "type": "update",
                "unified_diff": "@@ -1,1 +1,1 @@\n-const V = \"1.0\"\n+const V = \"1.1\"\n"}}},
            4),
        record("event_msg", {
            "type": "patch_apply_end", "call_id": "pa2", "success": False,
            "stdout": "", "stderr": "Failed to apply patch: context mismatch\n",
            "changes": {f"{CWD}/should_not_count.txt": {
                "type": "add", "unified_diff": "@@ -0,0 +1,1 @@\n+nope\n"}}}, 5),
        record("event_msg", {
            "type": "exec_command_end", "call_id": "ex1", "command": ["bash", "-lc",
                                                                    "go test ./core"],
            "exit_code": 1, "aggregated_output": "FAIL core 0.01s\n"}, 6),
        # a patch made by an apply_patch call: its event repeats the response items
        record("response_item", {"type": "function_call", "name": "apply_patch",
                                 "call_id": "fc1", "arguments": json.dumps({
                                     "input": "*** Begin Patch\n*** Add File: NOTES.md\n+hi\n"
                                              "*** End Patch"})}, 7),
        record("event_msg", {"type": "patch_apply_end", "call_id": "fc1", "success": True,
                             "stdout": "A NOTES.md\n", "changes": {
                                 f"{CWD}/NOTES.md": {"type": "add", "unified_diff": "+hi"}}}, 8),
        record("response_item", {"type": "function_call_output", "call_id": "fc1",
                                 "output": "Done"}, 8),
        record("response_item", {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Done."}]}, 9),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_patch_and_exec_events_are_imported_as_tool_calls(tmp_path: Path) -> None:
    (session,) = load_sessions(rollout(tmp_path / "rollout.jsonl"), fmt="codex",
                               working_dir=tmp_path)
    requests = [p for m in session.conversation for p in m.tool_requests]
    results = {p.id: p for m in session.conversation for p in m.tool_responses}
    assert [(r.id, r.name) for r in requests] == [
        ("cell1", "exec"), ("pa1", "apply_patch"), ("pa2", "apply_patch"), ("ex1", "shell"),
        ("fc1", "apply_patch")]  # fc1's event is not imported a second time
    patch = requests[1].arguments["input"]
    assert "*** Add File: docs/RELEASE_NOTES.md\n+# Release Notes" in patch
    assert "*** Update File: core/version.go\n@@ -1,1 +1,1 @@" in patch
    assert "A docs/RELEASE_NOTES.md" in results["pa1"].output and not results["pa1"].is_error
    assert results["pa2"].is_error and "context mismatch" in results["pa2"].output
    assert requests[3].arguments == {"command": "go test ./core"}
    assert results["ex1"].is_error and "FAIL core" in results["ex1"].output
    assert results["fc1"].output == "Done"


def test_the_transcript_and_the_summary_facts_list_the_patched_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated_env: dict) -> None:
    cli(capsys, "sessions", "import", str(rollout(tmp_path / "rollout.jsonl")))
    session_id = json.loads(cli(capsys, "sessions", "list", "--json")[0])[0]["id"]
    shown, _ = cli(capsys, "sessions", "show", session_id)
    assert "docs/RELEASE_NOTES.md" in shown and "core/version.go" in shown
    cli(capsys, "compact", session_id, "--strategy", "extractive")
    agent, _ = cli(capsys, "sessions", "show", session_id, "--agent")
    assert "`docs/RELEASE_NOTES.md`: created" in agent and "`core/version.go`: edited" in agent
    assert "`should_not_count.txt`: not changed" in agent  # the failed patch
