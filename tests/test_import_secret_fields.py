"""A secret of this environment anywhere in an imported transcript is never kept.

Not only in text, reasoning, tool arguments and outputs: the source's session id, working
dir, model, title, record ids, tool-call ids and tool names are scrubbed too — they are
printed at import, shown, exported, stored, and (ids, names) sent to the provider on resume.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from store_support import assert_not_in_sessions_db


def _claude_transcript(key: str) -> str:
    base = {"parentUuid": None, "isSidechain": False, "cwd": f"/tmp/{key}",
            "sessionId": f"sess-{key}", "gitBranch": f"br-{key}"}
    lines = [
        dict(base, type="user", uuid=f"u1-{key}", timestamp="2025-08-28T12:57:08.611Z",
             message={"role": "user", "content": "list the files"}),
        dict(base, type="assistant", uuid="u2", timestamp="2025-08-28T12:57:09.611Z",
             message={"id": f"msg_{key}", "role": "assistant", "model": f"claude-{key}",
                      "content": [{"type": "thinking", "thinking": "hm",
                                   "signature": f"sig{key}"},
                                  {"type": "tool_use", "id": f"toolu_{key}",
                                   "name": f"Bash_{key}", "input": {"command": "ls"}}]}),
        dict(base, type="user", uuid="u3", timestamp="2025-08-28T12:57:10.611Z",
             message={"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": f"toolu_{key}", "content": "a.txt"}]}),
        dict(base, type="summary", summary=f"summary {key}", leafUuid="u3"),
        dict(base, type="assistant", uuid="u4", timestamp="2025-08-28T12:57:11.611Z",
             message={"role": "assistant", "content": "one file"}),
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_a_secret_in_an_imported_transcripts_ids_names_and_metadata_is_never_kept(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import DUMMY_API_KEY

    monkeypatch.chdir(tmp_path)
    source = tmp_path / "claude.jsonl"
    source.write_text(_claude_transcript(DUMMY_API_KEY))
    out, err = cli(capsys, "sessions", "import", str(source), "--name", "imp")
    assert DUMMY_API_KEY not in out + err
    assert "imported" in out + err  # what the import says still names the source, scrubbed
    assert_not_in_sessions_db(DUMMY_API_KEY)
    shown, _ = cli(capsys, "sessions", "show", "imp")
    exported_json, _ = cli(capsys, "sessions", "export", "imp", "-f", "json")
    exported_md, _ = cli(capsys, "sessions", "export", "imp")
    for text in (shown, exported_json, exported_md):
        assert DUMMY_API_KEY not in text
    assert '"source_title": "summary [REDACTED]"' in exported_json
    fake_model.default_reply = {"text": "ok"}
    cli(capsys, "run", "--resume", "imp", "-t", "continue")
    sent = fake_model.requests[-1]["messages"]
    assert DUMMY_API_KEY not in json.dumps(sent)
    calls = [c for m in sent for c in m.get("tool_calls") or ()]
    answers = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert len(calls) == 1 and answers == [calls[0]["id"]]  # still a pair
    assert calls[0]["function"]["name"].replace("_", "").replace("-", "").isalnum()


def test_a_secret_in_a_goosectx_exports_session_id_and_name_is_never_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import DUMMY_API_KEY

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    source = tmp_path / "claude.jsonl"
    source.write_text(_claude_transcript("plain-value"))
    cli(capsys, "sessions", "import", str(source), "--name", "first")
    exported, _ = cli(capsys, "sessions", "export", "first", "-f", "json")
    data = json.loads(exported)
    data["session"]["id"] = f"id-{DUMMY_API_KEY}"
    data["session"]["name"] = f"name-{DUMMY_API_KEY}"
    copy = tmp_path / "export.json"
    copy.write_text(json.dumps(data))
    out, err = cli(capsys, "sessions", "import", str(copy), "--force")
    assert DUMMY_API_KEY not in out + err
    assert_not_in_sessions_db(DUMMY_API_KEY)
    listed, _ = cli(capsys, "sessions", "list")
    assert DUMMY_API_KEY not in listed


def test_a_secret_in_a_goosectx_exports_working_dir_metadata_and_ids_is_never_kept(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The export's messages are scrubbed too: it may come from elsewhere, or by hand."""
    from conftest import DUMMY_API_KEY

    monkeypatch.chdir(tmp_path)
    source = tmp_path / "claude.jsonl"
    source.write_text(_claude_transcript("plain-value"))
    cli(capsys, "sessions", "import", str(source), "--name", "first")
    data = json.loads(cli(capsys, "sessions", "export", "first", "-f", "json")[0])
    data["session"].update(id="20250101_000000_abcd", name="second",
                           working_dir=f"/tmp/{DUMMY_API_KEY}",
                           metadata={"note": DUMMY_API_KEY, DUMMY_API_KEY: "k",
                                     "[REDACTED]": "other"})
    data["session"]["state"].update(auto_compaction_paused=True,
                                    pause_reason=f"reason {DUMMY_API_KEY}",
                                    chosen_model=f"openai/{DUMMY_API_KEY}")
    messages = data["messages"]
    for m in messages:
        for part in m["content"]:
            if part["type"] in ("tool_request", "tool_response"):
                part["id"] = f"call_{DUMMY_API_KEY}"
        m["id"] = f"{m['id']}_{DUMMY_API_KEY}"
    messages[-1]["content"][0]["text"] = f"done {DUMMY_API_KEY}"
    messages.append({"id": "msg_copy", "role": "user", "created": messages[0]["created"],
                     "content": [{"type": "text", "text": "list the files"}],
                     "metadata": {"user_visible": False, "agent_visible": False,
                                  "extra": {"copy_of": messages[0]["id"]}}})  # a tail's copy
    copy = tmp_path / "export.json"
    copy.write_text(json.dumps(data))
    out, err = cli(capsys, "sessions", "import", str(copy), "--force")
    assert DUMMY_API_KEY not in out + err
    assert "source working dir /tmp/[REDACTED]" in out
    assert_not_in_sessions_db(DUMMY_API_KEY)
    again = json.loads(cli(capsys, "sessions", "export", "second", "-f", "json")[0])
    metadata = again["session"]["metadata"]
    assert sorted(v for k, v in metadata.items() if "REDACTED" in k) == ["k", "other"]
    assert again["session"]["state"]["pause_reason"] == "reason [REDACTED]"
    ids = [m["id"] for m in again["messages"]]
    assert len(set(ids)) == len(ids) == len(messages)  # two different ids stay different
    assert "REDACTED" in ids[0] and "[" not in ids[0]
    assert again["messages"][-1]["metadata"]["extra"]["copy_of"] == ids[0]  # still names it
    fake_model.default_reply = {"text": "ok"}
    cli(capsys, "run", "--resume", "second", "-t", "continue")
    sent = fake_model.requests[-1]["messages"]
    assert DUMMY_API_KEY not in json.dumps(sent)
    calls = [c for m in sent for c in m.get("tool_calls") or ()]
    answers = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert len(calls) == 1 and answers == [calls[0]["id"]] == ["call_REDACTED"]  # still a pair
