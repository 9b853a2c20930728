"""The system prompt and the project instructions (.goosehints, AGENTS.md) it carries."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from agent_harness import EchoTool, make_harness

from goosectx.config import Settings
from goosectx.prompts import (
    MAX_INSTRUCTION_FILE_CHARS,
    build_system_prompt,
    instruction_files,
    load_project_instructions,
)
from goosectx.providers.scripted import ScriptedProvider
from goosectx.tools.base import ToolRegistry


def make_repo(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    repo = outside / "repo"
    sub = repo / "pkg" / "sub"
    sub.mkdir(parents=True)
    (repo / ".git").mkdir()
    (outside / "AGENTS.md").write_text("ABOVE THE REPO")
    (repo / "AGENTS.md").write_text("root agents: run pytest -q")
    (repo / ".goosehints").write_text("root hints: use ruff")
    (repo / "pkg" / ".goosehints").write_text("pkg hints: keep modules small")
    (sub / "AGENTS.md").write_text("sub agents: this is the sub package")
    return repo, sub


def test_instructions_come_from_working_dir_up_to_repo_root(tmp_path: Path) -> None:
    repo, sub = make_repo(tmp_path)
    files = instruction_files(sub)
    assert files == [repo / ".goosehints", repo / "AGENTS.md", repo / "pkg" / ".goosehints",
                     sub / "AGENTS.md"]
    text = load_project_instructions(sub)
    assert "ABOVE THE REPO" not in text
    order = [text.index(s) for s in ("root hints", "root agents", "pkg hints", "sub agents")]
    assert order == sorted(order)


def test_outside_a_repo_only_the_working_dir_counts(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("parent file")
    work = tmp_path / "work"
    work.mkdir()
    (work / ".goosehints").write_text("local hints")
    text = load_project_instructions(work)
    assert "local hints" in text and "parent file" not in text


def test_huge_instruction_files_are_cut(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("x" * (MAX_INSTRUCTION_FILE_CHARS * 3))
    assert len(load_project_instructions(tmp_path)) < MAX_INSTRUCTION_FILE_CHARS + 500


def test_system_prompt_parts(tmp_path: Path) -> None:
    prompt = build_system_prompt(tmp_path, tool_names=["shell", "tree"], mode="auto",
                                 project_instructions="be nice", today=date(2025, 1, 2))
    assert str(tmp_path) in prompt.text and "2025-01-02" in prompt.text
    assert "Tools available: shell, tree." in prompt.text
    assert prompt.text.endswith("be nice") and prompt.project_instructions == "be nice"
    chat = build_system_prompt(tmp_path, tool_names=["shell"], mode="chat",
                               project_instructions="")
    assert "chat mode" in chat.text and "Tools available" not in chat.text
    assert chat.project_instructions == ""


def test_the_model_receives_the_project_instructions(tmp_path: Path) -> None:
    provider = ScriptedProvider(["ok"])
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     tools=ToolRegistry([EchoTool()]))
    (h.session.working_dir / "AGENTS.md").write_text("ALWAYS ANSWER IN HAIKU")
    h.turn("hello")
    system = provider.requests[0].system
    assert "ALWAYS ANSWER IN HAIKU" in system
    assert h.agent.request_context.project_instructions.endswith("ALWAYS ANSWER IN HAIKU")
    assert provider.requests[0].tools[0]["name"] == "echo"


def test_context_breakdown_counts_instructions_once(tmp_path: Path) -> None:
    from goosectx.tokens import count_text

    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"),
                     provider=ScriptedProvider([]), tools=ToolRegistry([]))
    (h.session.working_dir / "AGENTS.md").write_text("rule number one. " * 500)
    request = h.agent.request_context
    breakdown = h.agent.context.breakdown(request)
    whole = count_text(request.system_prompt)
    assert breakdown.project_instructions > 2_000
    assert abs(breakdown.system_prompt + breakdown.project_instructions - whole) < 10


def test_thousands_of_deferred_tools_are_not_all_named_in_the_system_prompt(
        tmp_path: Path) -> None:
    """5,000 deferred extension tools named one by one were 65 KB of system prompt (~30k
    tokens, more than an 8k context window) on every request; search_tools finds them all."""
    deferred = [f"evil__t{i}" for i in range(5000)]
    prompt = build_system_prompt(tmp_path, tool_names=["shell", "search_tools"], mode="auto",
                                 project_instructions="", deferred_tools=deferred).text
    assert len(prompt) < 4_000
    assert "evil__t0" in prompt and "evil__t4999" not in prompt
    assert "and 4,950 more" in prompt and "search_tools" in prompt
    few = build_system_prompt(tmp_path, tool_names=["shell"], mode="auto",
                              project_instructions="", deferred_tools=deferred[:3]).text
    assert "evil__t0, evil__t1, evil__t2. To use one" in few


def test_a_key_written_in_the_instruction_files_never_reaches_the_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tester D: AGENTS.md holding the API key (and .goosehints its base64) went into every
    request's system prompt; an ``@`` file or a custom command file was redacted."""
    import base64

    key = "sk-proj-T3stKeyAbCdEfGh1234567890XyZqWeRtY"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    provider = ScriptedProvider(["ok"])
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     tools=ToolRegistry([EchoTool()]))
    (h.session.working_dir / "AGENTS.md").write_text(f"Use this key for tests: {key}\n")
    (h.session.working_dir / ".goosehints").write_text(
        f"hint b64: {base64.b64encode(key.encode()).decode()}\n")
    h.turn("hello")
    system = provider.requests[0].system
    assert "Use this key for tests:" in system and "hint b64:" in system
    assert key[8:] not in system
    assert base64.b64encode(key.encode()).decode()[8:30] not in system
