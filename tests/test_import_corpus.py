"""Every structured file of the real-transcript corpus imports, and summarises without a model.

Per file the expectations are computed here, independently, from the raw file: how many
messages and tool request/response pairs the import must hold, the newest user request and
the paths the source edited or wrote. Skips visibly when the corpus is absent.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from goosectx.compaction.extractive import extractive_summary
from goosectx.compaction.summary import render_markdown
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse
from goosectx.importers import load_sessions
from goosectx.importers.detect import detect_format
from goosectx.session import Session
from goosectx.tokens import TokenCounter

CORPUS = Path(os.environ.get("GOOSECTX_CORPUS") or Path(__file__).parents[2] / "shared" / "corpus")
RAW = CORPUS / "raw"
COUNTER = TokenCounter()


@dataclass
class Expected:
    """What one imported session must hold, counted from the raw file."""

    messages: int | None  # every message (None: checked per role below instead)
    pairs: int
    newest_request: str
    changed: set[str] = field(default_factory=set)
    user_messages: int | None = None  # user messages that are not pure tool results
    notes: int | None = None  # user-only notifications


def norm(text: str) -> str:
    return " ".join(text.split())


# -- independent counts, one function per format ---------------------------------------------
def swe_agent(path: Path) -> list[Expected]:
    data = json.loads(path.read_text())
    history = [m for m in data["history"] if m["role"] != "system"]
    messages = sum(1 for i, m in enumerate(history)
                   if not (m["role"] == "tool" and i and history[i - 1]["role"] == "tool"))
    calls = sum(len(m["tool_calls"]) for m in history
                if m["role"] == "assistant" and isinstance(m.get("tool_calls"), list))
    assert calls == sum(1 for m in history if m["role"] == "tool")
    changed = set(re.findall(r"diff --git a/(\S+)", (data.get("info") or {}).get("submission")
                             or history[-1]["content"]))
    for m in history:
        if m["role"] == "assistant":
            changed |= set(re.findall(
                r"<parameter=command>(?:create|str_replace|insert)</parameter>\s*"
                r"<parameter=path>(.*?)</parameter>", m["content"]))
            for call in m.get("tool_calls") or []:
                if call["function"]["name"] == "create":
                    changed.add(json.loads(call["function"]["arguments"])["filename"])
    first_user = next(m for m in history if m["role"] == "user")
    return [Expected(messages, calls, first_user["content"], changed)]


def claude_code(path: Path) -> list[Expected]:
    records, seen = [], set()
    for line in path.read_text().splitlines():
        r = json.loads(line)
        if r["type"] in ("user", "assistant") and not r.get("isSidechain") and (
                r["uuid"] not in seen):
            seen.add(r["uuid"])
            records.append(r)
    blocks = [b for r in records if isinstance(r["message"]["content"], list)
              for b in r["message"]["content"]]
    uses = [b for b in blocks if b["type"] == "tool_use"]
    assert len(uses) == sum(1 for b in blocks if b["type"] == "tool_result")
    requests = [r["message"]["content"] for r in records if r["type"] == "user"
                and not r.get("isMeta") and isinstance(r["message"]["content"], str)
                and not r["message"]["content"].startswith("<")]
    changed = {b["input"]["file_path"] for b in uses if b["name"] in ("Edit", "Write",
                                                                        "MultiEdit")}
    return [Expected(len(records), len(uses), requests[-1], changed)]


def codex(path: Path) -> list[Expected]:
    records = list(map(json.loads, path.read_text().splitlines()))
    items = [r["payload"] for r in records if r["type"] == "response_item"]
    called = {i.get("call_id") for i in items}
    cwd = next(r["payload"]["cwd"] for r in records if r["type"] == "session_meta")
    # a patch or command event no response item calls is a call and its result of its own
    events = [r["payload"] for r in records if r["type"] == "event_msg" and r["payload"][
        "type"] in ("patch_apply_end", "exec_command_end")
        and r["payload"]["call_id"] not in called]
    messages, previous = 0, None
    sides = [r["payload"] for r in records if r["type"] == "response_item" or r["payload"]
             in events]
    for item in sides:
        for side in (["assistant", "output"] if item in events else [
                "user" if item["type"] == "message" and item["role"] == "user" else
                "output" if item["type"].endswith("_output") else "assistant"]):
            messages += side == "user" or side != previous
            previous = side
    calls = [i for i in items if i["type"] in ("function_call", "custom_tool_call")] + events
    patches = " ".join(i.get("arguments", "") + i.get("input", "") for i in calls)
    changed = set(re.findall(r"\*\*\* (?:Update|Add|Delete) File: ([^\\\n]+)", patches))
    changed |= {p.removeprefix(cwd + "/") for e in events if e.get("success")
                for p in e.get("changes", {})}
    requests = [i["content"][0]["text"] for i in items if i["type"] == "message"
                and i["role"] == "user" and not i["content"][0]["text"].startswith("<")]
    return [Expected(messages, len(calls), requests[-1], changed)]


def gemini_cli(path: Path) -> list[Expected]:
    latest: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        if r.get("type") in ("user", "gemini", "info"):
            latest[r["id"]] = r
    calls = [c for r in latest.values() if r["type"] == "gemini" for c in r.get("toolCalls") or []]
    messages = len(latest) + sum(1 for r in latest.values() if r.get("toolCalls"))
    requests = [r["content"][0]["text"] for r in latest.values() if r["type"] == "user"
                and r["content"][0]["text"] != "System: Please continue."]
    changed = {c["args"]["file_path"] for c in calls if c["name"] in ("write_file", "replace")}
    return [Expected(messages, len(calls), requests[-1], changed)]


def qwen_code(path: Path) -> list[Expected]:
    records = [r for r in map(json.loads, path.read_text().splitlines())
               if r["type"] in ("user", "assistant", "tool_result")]
    calls = [p["functionCall"] for r in records for p in r["message"]["parts"]
             if "functionCall" in p]
    requests = [r["message"]["parts"][0]["text"] for r in records if r["type"] == "user"]
    changed = {c["args"]["file_path"] for c in calls if c["name"] == "write_file"}
    return [Expected(len(records), len(calls), requests[-1], changed)]


def copilot(path: Path) -> list[Expected]:
    events = [json.loads(line) for line in path.read_text().splitlines()]
    announced = {t["toolCallId"] for e in events if e["type"] == "assistant.message"
                 for t in e["data"].get("toolRequests", [])}
    completes = [e["data"]["toolCallId"] for e in events if e["type"] == "tool.execution_complete"]
    users = [e["data"]["content"] for e in events if e["type"] == "user.message"]
    assistants = sum(1 for e in events if e["type"] == "assistant.message")
    unannounced = sum(1 for c in completes if c not in announced)
    exp = Expected(None, len(completes), [u for u in users if u][-1])
    exp.user_messages = len(users)
    exp.messages_by_role = {"assistant": assistants + unannounced}  # type: ignore[attr-defined]
    return [exp]


def goose_db(path: Path) -> list[Expected]:
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    out = []
    for (sid,) in conn.execute("SELECT id FROM sessions ORDER BY created_at, id"):
        rows = [(role, json.loads(c)) for role, c in conn.execute(
            "SELECT role, content_json FROM messages WHERE session_id=? ORDER BY id", (sid,))]
        out.append(_goose_expected(rows))
    conn.close()
    return out


def goose_json(path: Path) -> list[Expected]:
    data = json.loads(path.read_text())
    return [_goose_expected([(m["role"], m["content"]) for m in data["conversation"]])]


def _goose_expected(rows: list[tuple[str, list[dict]]]) -> Expected:
    requests = sum(1 for _, content in rows for p in content if p["type"] == "toolRequest")
    assert requests == sum(1 for _, content in rows for p in content
                           if p["type"] == "toolResponse")
    texts = [p["text"] for role, content in rows if role == "user" for p in content
             if p["type"] == "text"]
    return Expected(len(rows), requests, texts[-1])


def aider(path: Path) -> list[Expected]:
    groups: list[tuple[str, list[str]]] = []
    for line in path.read_text().splitlines():
        kind = "user" if line.startswith("####") else "note" if line.startswith(">") else "text"
        if line.startswith("# aider chat started"):
            kind = "start"
        if groups and groups[-1][0] == kind:
            groups[-1][1].append(line)
        else:
            groups.append((kind, [line]))
    users = [g for g in groups if g[0] == "user"]
    notes = [g for g in groups if g[0] == "note"]
    newest, last_reply = "", ""
    for kind, lines in groups:
        if kind == "text" and "".join(lines).strip():
            last_reply = "\n".join(lines)
        elif kind == "user":
            text = "\n".join(ln[4:].removeprefix(" ").removesuffix("  ") for ln in lines).strip()
            architect_echo = norm(text) == norm(last_reply)
            if not text.startswith("/") and not architect_echo:
                newest = text
            last_reply = ""
    changed = {m.replace("\\", "/") for m in re.findall(r"^> Applied edit to (.+?)\s*$",
                                                        path.read_text(), re.M)}
    exp = Expected(None, 0, newest, changed, user_messages=len(users), notes=len(notes))
    return [exp]


def console(path: Path) -> list[Expected]:
    text = path.read_text()
    prompts = re.findall(r"^> (.*)$", text, re.M)
    newest = [p for p in prompts if not p.startswith("/")][-1]
    changed = set(re.findall(r"^⏺ (?:Update|Write)\((.+?)\)", text, re.M))
    changed |= {p.removeprefix("...") for p in re.findall(
        r"[✔-]  (?:Edit|WriteFile) (?:Writing to |No file changes to )?(\S+?):?\s", text)}
    return [Expected(None, 0, newest, changed, user_messages=len(prompts))]


FILES: dict[str, tuple[str, object]] = {
    "openai_chat/sweagent-fc-marshmallow-1867.traj": ("swe-agent", swe_agent),
    "openai_chat/sweagent-fc-simple.traj": ("swe-agent", swe_agent),
    "openai_chat/sweagent-ctf-web-i_got_id_demo.traj": ("swe-agent", swe_agent),
    "openai_chat/sweagent-gpt4o-sympy__sympy-16792.traj": ("swe-agent", swe_agent),
    "openai_chat/sweagent-gpt4o-django__django-15127.traj": ("swe-agent", swe_agent),
    "openai_chat/sweagent-gpt4o-pydata__xarray-6938.traj": ("swe-agent", swe_agent),
    "anthropic_claude_code/vct-claude-code-session.jsonl": ("claude-code", claude_code),
    "goose/lantern-goose-1.45-sessions.db": ("goose-db", goose_db),
    "goose/lantern-goose-20260805_3.export.json": ("goose-json", goose_json),
    "goose/lantern-goose-20260805_2.export.json": ("goose-json", goose_json),
    "codex_rollout/vct-codex-rollout.jsonl": ("codex", codex),
    "gemini_cli/vct-gemini-cli-session.jsonl": ("gemini-cli", gemini_cli),
    "copilot_cli/vct-copilot-cli-events.jsonl": ("copilot", copilot),
    "qwen_code/lantern-qwen-code-chat.jsonl": ("qwen-code", qwen_code),
    "aider/pocketflow-text2sql-gui.aider.chat.history.md": ("aider", aider),
    "console_transcript/bookminder-day-009-claude-code.md": ("console", console),
    "console_transcript/bookminder-day-012-gemini-cli.md": ("console", console),
}

_cache: dict[str, list[Session]] = {}


def raw_file(name: str) -> Path:
    path = RAW / name
    if not path.is_file():
        pytest.skip(f"corpus file {path} not found (set GOOSECTX_CORPUS to the corpus dir)")
    return path


def imported(name: str) -> list[Session]:
    if name not in _cache:
        _cache[name] = load_sessions(raw_file(name), working_dir=Path("/tmp"))
    return _cache[name]


def test_every_corpus_file_is_listed() -> None:
    if not RAW.is_dir():
        pytest.skip(f"corpus not found at {CORPUS} (set GOOSECTX_CORPUS)")
    on_disk = {str(p.relative_to(RAW)) for p in RAW.glob("*/*") if p.is_file()}
    assert on_disk == set(FILES)


@pytest.mark.parametrize("name", sorted(FILES))
def test_format_is_detected(name: str) -> None:
    assert detect_format(raw_file(name)) == FILES[name][0]


def tool_parts(messages: list[Message]) -> tuple[list[str], list[str]]:
    requests = [p.id for m in messages for p in m.content if isinstance(p, ToolRequest)]
    responses = [p.id for m in messages for p in m.content if isinstance(p, ToolResponse)]
    return requests, responses


@pytest.mark.parametrize("name", sorted(FILES))
def test_import_matches_the_source(name: str) -> None:
    fmt, expect = FILES[name]
    sessions = imported(name)
    expected = expect(raw_file(name))  # type: ignore[operator]
    assert len(sessions) == len(expected)
    for session, exp in zip(sessions, expected, strict=True):
        messages = session.conversation.messages
        assert session.metadata["source"] == fmt
        if exp.messages is not None:
            assert len(messages) == exp.messages
        if exp.user_messages is not None:
            assert sum(1 for m in messages if m.role == "user" and not m.tool_responses
                       ) == exp.user_messages
        if exp.notes is not None:
            assert sum(1 for m in messages if not m.metadata.agent_visible
                       and m.role == "assistant") == exp.notes
        for role, count in getattr(exp, "messages_by_role", {}).items():
            assert sum(1 for m in messages if m.role == role) == count
        requests, responses = tool_parts(messages)
        assert len(requests) == len(responses) == exp.pairs
        assert len(set(requests)) == len(requests), "tool request ids are unique"
        assert sorted(requests) == sorted(responses), "every request has its response"
        for m in messages:
            assert m.role in ("user", "assistant")
            assert not (m.role == "assistant" and m.tool_responses)
            assert not (m.role == "user" and m.tool_requests)
        # the model's view keeps every pair: repair had no orphan to drop
        view = session.conversation.agent_view(for_sending=False)
        view_requests, view_responses = tool_parts(view)
        assert sorted(view_requests) == sorted(view_responses)
        agent_requests, _ = tool_parts(session.conversation.agent_messages())
        assert sorted(view_requests) == sorted(agent_requests)


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("budget", [4000, 1000])
def test_extractive_summary_fits_and_keeps_request_and_changed_paths(name: str, budget: int
                                                                      ) -> None:
    sessions = imported(name)
    expected = FILES[name][1](raw_file(name))  # type: ignore[operator]
    for session, exp in zip(sessions, expected, strict=True):
        view = session.conversation.agent_view(for_sending=False)
        rendered = render_markdown(extractive_summary(view, max_tokens=budget, counter=COUNTER))
        assert COUNTER.count_text(rendered) <= budget
        flat = norm(rendered.replace("\\", "/"))
        request = norm(exp.newest_request)
        if budget >= 4000 and COUNTER.count_text(exp.newest_request) <= 1000:
            assert request in flat
        else:
            assert request[:40] in flat
        missing = {p for p in exp.changed if norm(p.replace("\\", "/")) not in flat}
        assert not missing, f"changed paths missing from the summary: {missing}"


def test_thinking_is_kept_as_thinking_and_visibility_flags_are_kept() -> None:
    goose = imported("goose/lantern-goose-20260805_3.export.json")[0]
    first_reply = goose.conversation.messages[1]
    thinking = [p for p in first_reply.content if p.type == "thinking"]
    assert len(thinking) == 1 and len(thinking[0].text) > 1000  # 646 streamed blocks joined
    claude = imported("anthropic_claude_code/vct-claude-code-session.jsonl")[0]
    caveat = next(m for m in claude.conversation if m.text.startswith("Caveat:"))
    assert (caveat.metadata.user_visible, caveat.metadata.agent_visible) == (False, False)
    command = next(m for m in claude.conversation if m.text.startswith("<command-name>"))
    assert (command.metadata.user_visible, command.metadata.agent_visible) == (True, False)


def test_system_prompt_and_source_facts_go_to_session_metadata() -> None:
    swe = imported("openai_chat/sweagent-fc-marshmallow-1867.traj")[0]
    assert swe.metadata["system_prompt"].startswith("SETTING: You are an autonomous programmer")
    assert not any("SETTING: You are" in m.text for m in swe.conversation)
    codex_session = imported("codex_rollout/vct-codex-rollout.jsonl")[0]
    assert codex_session.metadata["source_model"] == "aide-gpt-5"
    patch = [p for m in codex_session.conversation for p in m.tool_requests
             if p.name == "exec"]
    assert patch and "apply_patch" in patch[0].arguments["input"]  # custom_tool_call
    goose_sessions = imported("goose/lantern-goose-1.45-sessions.db")
    assert [s.metadata["source_session_id"] for s in goose_sessions] == [
        "20260805_1", "20260805_2", "20260805_3", "20260805_4"]
    assert goose_sessions[0].ledger.entries[0].usage.total_tokens == 2268


def test_timestamps_come_from_the_source() -> None:
    claude = imported("anthropic_claude_code/vct-claude-code-session.jsonl")[0]
    assert claude.conversation.messages[0].created.isoformat() == "2025-08-28T12:57:08.611000+00:00"
    goose = imported("goose/lantern-goose-1.45-sessions.db")[0]
    assert goose.conversation.messages[0].created.timestamp() == 1785964761
    assert goose.created.isoformat() == "2026-08-05T21:19:21+00:00"


def test_repeated_tool_call_ids_stay_paired() -> None:
    # marshmallow's demo reuses call ids (e.g. four calls named call_5iDdbOYybq7L19vqXmR0DPaU)
    swe = imported("openai_chat/sweagent-fc-marshmallow-1867.traj")[0]
    messages = swe.conversation.messages
    for i, m in enumerate(messages):
        for request in m.tool_requests:
            answer = messages[i + 1].tool_responses
            assert [r.id for r in answer] == [request.id]
    assert any(p.id.endswith("#4") for m in messages for p in m.tool_requests)


def test_text_action_formats_stay_text() -> None:
    for name in ("openai_chat/sweagent-gpt4o-sympy__sympy-16792.traj",
                 "aider/pocketflow-text2sql-gui.aider.chat.history.md",
                 "console_transcript/bookminder-day-012-gemini-cli.md"):
        session = imported(name)[0]
        assert all(isinstance(p, TextContent) or p.type == "system_notification"
                   for m in session.conversation for p in m.content), name


def test_the_readme_corpus_table_gives_true_paths_under_raw() -> None:
    """README: "One row is what you get from goosectx sessions import FILE": each row's file,
    under ``../shared/corpus/raw/``, is a real path (the files sit in per-format folders)."""
    if not RAW.is_dir():
        pytest.skip(f"corpus not found at {CORPUS} (set GOOSECTX_CORPUS)")
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### The public transcript corpus"):]
    table = section[section.index("| session "):].split("\n\n")[0]
    rows = [line.split("|")[1].strip() for line in table.splitlines()[2:]]
    named = {row.split(" [")[0] for row in rows}
    assert named == set(FILES), named ^ set(FILES)
    assert all((RAW / name).is_file() for name in named)
