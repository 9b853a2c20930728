"""The spending cap (issue 17 item 8): ``max_cost_usd`` / ``--max-cost`` / GOOSECTX_MAX_COST_USD.

The model is ``openai/gpt-4o-mini`` (litellm's cost map prices its input at $0.15 per million
tokens) served by the fake server; a call the cap refuses never reaches the server, so the
tests count its requests. The REPL is driven over pipe input, ``run``, ``info`` and
``compact`` through the real CLI in-process.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest
from cli_support import cli, run_cli
from fakeserver import FakeServer
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from goosectx.cli.repl import Repl, ReplIO
from goosectx.config import ModelConfig, Settings
from goosectx.store import SessionStore

ENTER = "\r"
CTRL_D = "\x04"
PRICED = "openai/gpt-4o-mini"
BIG = "please read all of this: " + "lorem ipsum dolor sit amet " * 800
"""About 5,400 tokens: one call with it costs about $0.0008 at gpt-4o-mini's input price."""


def _repl(tmp_path: Path, server: FakeServer, keys: str, *, model: str = PRICED,
          **settings: object) -> tuple[str, SessionStore, str]:
    config = Settings(model=model, models={model: ModelConfig(api_base=server.base_url)},
                      data_dir=tmp_path / "data", **settings)  # type: ignore[arg-type]
    workdir = tmp_path / "work"
    workdir.mkdir(exist_ok=True)
    store = SessionStore(config.data_dir)
    session = store.create_session(workdir, name="capped", model=model)
    buf = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        repl = Repl(config, store, session,
                    io=ReplIO(Console(file=buf, width=200), input=pipe, output=DummyOutput(),
                              history=False),
                    mode="auto", background_checks=False)
        assert repl.run() == 0
    return buf.getvalue(), store, session.id


@pytest.fixture
def priced(fake_server: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    """gpt-4o-mini served by the fake server, configured the way a user would."""
    monkeypatch.chdir(work)
    monkeypatch.setenv("GOOSE_MODEL", PRICED)
    monkeypatch.setenv("OPENAI_API_BASE", fake_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    return fake_server


def _session(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
             *lines: str, args: tuple[str, ...]) -> str:
    """The REPL through the real CLI, lines piped to stdin (the plain look)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    out, _ = cli(capsys, "session", *args)
    return " ".join(out.split())


def test_the_cap_stops_a_turn_before_the_call_reaches_the_server(
        priced: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    priced.add({"text": "read it"}, {"text": "never sent"})
    out = _session(capsys, monkeypatch, BIG, "and now summarise it", "/usage",
                   args=("--name", "capped", "--max-cost", "0.001"))
    assert len(priced.requests) == 1  # the second call was not made
    assert "spending cap reached: $0.00" in out and "of the $0.0010 cap (set by --max-cost)" in out
    assert "--max-cost" in out and "GOOSECTX_MAX_COST_USD" in out  # how to raise it
    assert "never sent" not in out
    assert re.search(r"spent \$0\.000\d+ of the \$0\.0010 cap \(set by --max-cost\)", out)  # /usage
    # the history stays valid: both requests kept, one answer, nothing half-written
    saved = json.loads(cli(capsys, "sessions", "export", "capped", "--format", "json")[0])
    # ... and the notice that the turn stopped on the cap, for the user only
    assert [m["role"] for m in saved["messages"]] == ["user", "assistant", "user", "assistant"]
    assert saved["messages"][-1]["metadata"]["agent_visible"] is False
    assert [e["purpose"] for e in saved["usage_ledger"]] == ["reply"]


def test_a_manual_compaction_refused_by_the_cap_changes_nothing(
        priced: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    priced.add({"text": "read it"}, {"text": '{"user_intent": "never written"}'})
    out = _session(capsys, monkeypatch, BIG, "/compact",
                   args=("--name", "capped", "--max-cost", "0.001"))
    assert len(priced.requests) == 1  # the summary call was not made
    assert "spending cap reached" in out and "context compacted" not in out
    saved = json.loads(cli(capsys, "sessions", "export", "capped", "--format", "json")[0])
    assert all(m["metadata"].get("agent_visible", True) for m in saved["messages"])
    assert not any(m["metadata"].get("is_summary") for m in saved["messages"])


def test_run_with_max_cost_auto_compaction_refused_and_info(
        priced: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake_server = priced
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "9000")
    fake_server.add({"text": "read it"}, {"text": '{"user_intent": "never written"}'})
    cli(capsys, "run", "-t", BIG, "--name", "auto", "--max-cost", "0.0015")
    # the second turn needs an auto-compaction first; its summary call would pass the cap
    code, out, err = run_cli(capsys, "run", "--resume", "auto", "-t", BIG, "--max-cost",
                             "0.0015")
    assert code == 1 and len(fake_server.requests) == 1
    assert "compacting the conversation" in err  # refused: the summary call, first of the turn
    assert "spending cap reached" in err and "of the $0.0015 cap" in err
    out, _ = cli(capsys, "sessions", "export", "auto", "--format", "json")
    assert not any(m["metadata"].get("is_summary") for m in json.loads(out)["messages"])

    monkeypatch.setenv("GOOSECTX_MAX_COST_USD", "2.5")
    out, _ = cli(capsys, "info")
    assert "spending cap" in out and "$2.50 per session" in out
    assert "env GOOSECTX_MAX_COST_USD" in out
    out, _ = cli(capsys, "--max-cost", "0.25", "info")
    assert "$0.25 per session" in out and "--max-cost" in out


def test_a_model_without_prices_is_not_capped_and_says_so_once(
        tmp_path: Path, fake_server: FakeServer) -> None:
    fake_server.add({"text": "first"}, {"text": "second"})
    out, store, _ = _repl(tmp_path, fake_server, ENTER.join(["one", "two", "/usage", ""])
                          + CTRL_D, model="openai/fake-model", max_cost_usd=0.001)
    store.close()
    assert len(fake_server.requests) == 2  # both calls made
    flat = " ".join(out.split())
    assert flat.count("cannot be enforced for openai/fake-model") == 1
    assert "first" in out and "second" in out
    assert "? calls not counted" in flat  # /usage: the ledger keeps the cost unknown


def test_a_bad_cap_is_a_configuration_error(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSECTX_MAX_COST_USD", "lots")
    code, _, err = run_cli(capsys, "info")
    assert code == 2 and "GOOSECTX_MAX_COST_USD" in err


def test_a_tool_pair_summary_call_refused_by_the_cap_leaves_every_call_answered(
        tmp_path: Path) -> None:
    from agent_harness import finished, make_harness

    from goosectx.conversation import ToolRequest, ToolResponse
    from goosectx.providers.base import TokenPrices
    from goosectx.providers.scripted import ScriptedProvider, ScriptedReply

    # 13 priced tool calls of $0.01 each; after the 13th reply the tool pairs exceed the
    # cutoff (1 + 10) and the tool-pair notes call would take the session past $0.125
    provider = ScriptedProvider(cost_per_call_usd=0.01,
                                token_prices=TokenPrices(1e-9, 1e-9))
    provider.add(*[ScriptedReply(tool_calls=[("tree", {})]) for _ in range(13)], "unused")
    settings = Settings(data_dir=tmp_path / "data", max_cost_usd=0.125, tool_call_cutoff=1)
    harness = make_harness(tmp_path, settings, provider=provider)
    end = finished(harness.turn("look around, many times"))
    assert end.status == "error" and "spending cap reached: $0.13 spent" in (end.error or "")
    assert len(provider.requests) == 13  # the notes call (and any later reply) was not made
    stored = harness.stored()
    requests = {p.id for m in stored for p in m.content if isinstance(p, ToolRequest)}
    answered = {p.id for m in stored for p in m.content if isinstance(p, ToolResponse)}
    assert len(requests) == 13 and requests == answered  # the 13th answered as cancelled
    harness.store.close()


def test_max_cost_raises_the_cap_in_the_repl_and_the_refused_request_then_goes_through(
        priced: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    priced.add({"text": "read it"}, {"text": "summary after the raise"})
    out = _session(capsys, monkeypatch, BIG, "and now summarise it", "/max-cost",
                   "/max-cost 1", "go on", "/usage",
                   args=("--name", "capped", "--max-cost", "0.001"))
    assert out.count("spending cap reached") == 1
    assert "spending cap: $0.0010 per session; spent $0.00" in out
    assert "/max-cost USD in the REPL" in out  # the refusal says how to raise it here
    assert "spending cap set to $1.00 for the rest of this REPL" in out
    assert len(priced.requests) == 2 and "summary after the raise" in out
    assert "of the $1.00 cap (set by /max-cost)" in out  # /usage shows the new cap


def test_max_cost_sets_a_cap_on_a_session_started_without_one_and_off_removes_it(
        priced: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    priced.add({"text": "read it"}, {"text": "after off"})
    out = _session(capsys, monkeypatch, "/max-cost", "/max-cost 0.000001", BIG,
                   "/max-cost off", BIG, "/max-cost lots",
                   args=("--name", "uncapped"))
    assert "no spending cap; spent $0.00 — /max-cost USD sets one" in out
    assert out.count("spending cap reached") == 1  # the first BIG was refused
    assert "of the $0.0000010 cap (set by /max-cost)" in out  # where the cap came from
    assert "spending cap removed for the rest of this REPL" in out
    assert len(priced.requests) == 1 and "read it" in out  # ... the second went through
    assert ("/max-cost takes a number of US dollars above 0 and up to 1,000,000, in digits 0-9, "
            "or off; got 'lots'") in out


@pytest.mark.parametrize("value", ["abc", "0", "-1", "inf", ""])
@pytest.mark.parametrize("where", [("run", "-t", "hi", "--max-cost"), ("--max-cost",)])
def test_a_bad_max_cost_is_one_line_with_the_fix_and_exit_2(
        capsys: pytest.CaptureFixture[str], where: tuple[str, ...], value: str) -> None:
    args = (*where, value) if where[0] == "run" else (*where, value, "info")
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and not out
    assert err.count("\n") == 1 and "Usage:" not in err  # one line, not typer's three
    assert err.startswith("goosectx: error: --max-cost must be a number") and repr(value) in err
    assert "e.g. --max-cost 5" in err  # the fix


@pytest.mark.parametrize("where", ["env", "config"])
def test_the_refusal_names_where_the_cap_came_from(
        priced: FakeServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path, where: str) -> None:
    if where == "env":
        monkeypatch.setenv("GOOSECTX_MAX_COST_USD", "0.000001")
        source = "GOOSECTX_MAX_COST_USD"
    else:
        config = tmp_path / "goosectx.toml"
        config.write_text("max_cost_usd = 0.000001\n")
        monkeypatch.setenv("GOOSECTX_CONFIG", str(config))
        source = f"max_cost_usd in {config}"
    code, _, err = run_cli(capsys, "run", "-t", BIG)
    assert code == 1 and not priced.requests
    assert f"of the $0.0000010 cap (set by {source})" in " ".join(err.split())


@pytest.mark.parametrize("value", ["١٢", "1e308", "2000000", "1e-3"])
def test_max_cost_takes_only_plain_decimal_amounts_up_to_a_million(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    code, _, err = run_cli(capsys, "--max-cost", value, "info")
    assert code == 2 and err.count("\n") == 1
    assert "--max-cost must be a number of US dollars above 0 and up to 1,000,000" in err
    assert "e.g. --max-cost 5" in err
    monkeypatch.setenv("GOOSECTX_MAX_COST_USD", value)  # the same rule everywhere
    code, _, err = run_cli(capsys, "info")
    assert code == 2 and "GOOSECTX_MAX_COST_USD must be a number of US dollars above 0" in err


def test_a_cap_is_shown_as_it_was_set_not_rounded(
        priced: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    out = _session(capsys, monkeypatch, "/max-cost 0.123456", "/max-cost", "/usage",
                   args=("--name", "exact"))
    assert "spending cap set to $0.123456 for the rest of this REPL" in out
    assert "spending cap: $0.123456 per session" in out
    assert "of the $0.123456 cap (set by /max-cost)" in out  # /usage
    assert "$0.12 " not in out and "$0.12;" not in out
    out, _ = cli(capsys, "--max-cost", "12.3456", "info")
    assert "$12.3456 per session" in out


def test_a_cap_set_at_or_below_what_was_spent_says_the_next_call_will_be_refused(
        priced: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    priced.add({"text": "read it"})
    out = _session(capsys, monkeypatch, BIG, "/max-cost 0.0001", "/max-cost 5", "/max-cost off",
                   args=("--name", "spent"))
    assert re.search(r"spending cap set to \$0\.00010 for the rest of this REPL \(set "
                     r"max_cost_usd in the config file to keep it\); spent \$0\.000\d+, "
                     r"already at or past it: the next model call will be refused", out)
    assert out.count("will be refused") == 1  # not for a cap above what was spent
    assert ("spending cap set to $5.00 for the rest of this REPL (set max_cost_usd in the "
            "config file to keep it); spent $0.000") in out
    assert "spending cap removed for the rest of this REPL; spent" in out
    assert "keeps it" not in out
