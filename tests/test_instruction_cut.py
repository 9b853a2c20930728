"""An instruction file over the cap is cut visibly (fresh17a finding 13).

An ``AGENTS.md`` over 50,000 characters was cut with no word to the user: the model never saw
most of the rules, and ``/context`` named the file as read. Now the REPL and ``run`` warn once
as they start, like a skipped file, and ``/context`` says the file was cut.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from test_repl import CTRL_D, ENTER, World

RULES = "# Rules\n" + "\n".join(f"- rule {i}: always do thing {i} carefully"
                                for i in range(3_000))


def test_run_warns_that_a_huge_agents_md_is_cut(
    fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "AGENTS.md").write_text(RULES)
    (tmp_path / "CLAUDE.md").write_text("short rules")
    monkeypatch.chdir(tmp_path)
    fake_model.add({"text": "hi"})
    _out, err = cli(capsys, "run", "-t", "hello")
    prompt = str(fake_model.requests[0]["messages"][0]["content"])
    assert "- rule 1000:" in prompt and "- rule 2999:" not in prompt  # cut, as documented
    warnings = [line for line in err.splitlines() if "warning:" in line]
    assert warnings == [
        f"goosectx: warning: project instructions AGENTS.md cut at 50,000 characters (the file "
        f"has {len(RULES.encode()):,} bytes): the model never sees the rest; shorten it"]


def test_the_repl_warns_once_and_slash_context_names_the_cut(tmp_path: Path) -> None:
    world = World(tmp_path)
    try:
        (world.workdir / "AGENTS.md").write_text(RULES)
        world.provider.add("one")
        out = world.run("hello" + ENTER + "/context" + ENTER + CTRL_D, width=150)
        flat = " ".join(out.split())
        assert flat.count("warning: project instructions AGENTS.md cut at 50,000 characters") \
            == 1
        context = flat[flat.index("project instructions", flat.index("/context")):]
        assert "from AGENTS.md cut at 50,000 characters: AGENTS.md tool schemas" in context
    finally:
        world.store.close()
