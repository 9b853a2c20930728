"""``goosectx compact SESSION``: dry run, llm and extractive strategies, JSON, errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cli_support import cli, load_stored, run_cli, stored_session
from compaction_support import SUMMARY_JSON, chat, tool_pair, words
from conftest import DUMMY_API_KEY
from fakeserver import FakeServer

from goosectx.config import load_settings
from goosectx.conversation import Message
from goosectx.store import SessionStore
from goosectx.tokens import TokenCounter

PRICED_MODEL = "openai/gpt-4o-mini"  # litellm's local cost map prices it

# litellm's first completion after a model-info lookup imports a module whose pydantic schema
# warns (only under pytest's warning capture; a user sees nothing). Not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:pydantic")


def saved_session(name: str = "work", messages: list[Message] | None = None) -> str:
    return stored_session(name, messages if messages is not None else [
        *chat(4), *tool_pair(words(400)), Message.user("now write the docs")])


load = load_stored


@pytest.fixture
def priced_model(fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    monkeypatch.setenv("GOOSE_MODEL", PRICED_MODEL)
    monkeypatch.setenv("OPENAI_API_BASE", fake_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    return fake_server


def test_dry_run_prints_the_plan_and_makes_no_request(priced_model: FakeServer,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    sid = saved_session()
    before = load(sid)
    out, _ = cli(capsys, "compact", "work", "--dry-run")
    assert priced_model.requests == []
    assert "Tokens before: " in out and "Rung: 100% of tool results kept (0 of 1 removed)" in out
    assert "Summary request: " in out and "no model was called" in out
    after = load(sid)
    assert after.conversation.messages == before.conversation.messages
    assert after.ledger.entries == []


def test_dry_run_without_tool_results_says_there_are_none_to_trim(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    # test29b LOW 4: it printed "Rung: 0% + elided of tool results kept (0 of 0 removed)".
    saved_session(messages=chat(4))
    out, _ = cli(capsys, "compact", "work", "--dry-run")
    assert "Rung: no tool results to trim\n" in out and "of 0 removed" not in out
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(  # a window the chat fits only elided
        'keep_recent_ratio = 0\nkeep_user_tokens = 0\n'
        f'[models."{PRICED_MODEL}"]\ncontext_limit = 1500\nmax_output_tokens = 300\n')
    saved_session("long", messages=chat(6, 400))
    out, _ = cli(capsys, "compact", "long", "--dry-run")
    assert "Rung: no tool results to trim; the longest texts elided to fit\n" in out, out
    assert priced_model.requests == []


def test_dry_run_json_and_a_rung_below_100(priced_model: FakeServer,
                                           capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(
        # goose's layout and uncut results, so the whole (long) result is in the summary input
        'keep_recent_ratio = 0\nkeep_user_tokens = 0\nsummary_result_chars = 100000\n'
        f'[models."{PRICED_MODEL}"]\ncontext_limit = 3000\nmax_output_tokens = 500\n')
    saved_session(messages=[Message.user("read the log"), *tool_pair(words(5000)),
                            Message.assistant("it is long")])
    out, _ = cli(capsys, "compact", "work", "--dry-run", "--json")
    plan = json.loads(out)
    assert plan["rung"] == "90%" and plan["dry_run"] is True and plan["tokens_after"] is None
    assert plan["request_tokens"] + plan["max_tokens"] <= 0.95 * 3000
    assert plan["tokens_before"] > 3000
    assert priced_model.requests == []


def test_dry_run_imports_neither_litellm_nor_the_agent_loop(tmp_path: Path) -> None:
    """With the limits configured, a dry run needs no model client; it makes no event and
    runs no tool, so its start-up imports neither the agent loop nor the events."""
    config = tmp_path / "config.toml"
    config.write_text('model = "openai/x"\n[models."openai/x"]\ncontext_limit = 50000\n'
                      'max_output_tokens = 1000\n')
    env = {**os.environ, "GOOSECTX_CONFIG": str(config), "OPENAI_API_KEY": DUMMY_API_KEY}
    code = ("import sys\nfrom goosectx.cli.app import main\n"
            "try:\n    main(['compact', 'work', '--dry-run'])\nexcept SystemExit as e:\n"
            "    assert e.code == 0, e.code\n"
            "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
            "loop = [m for m in ('goosectx.agent', 'goosectx.events') if m in sys.modules]\n"
            "assert not loop, loop\n")
    saved_session()
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Rung: 100%" in proc.stdout


def test_dry_run_reads_no_shell_command_it_does_not_need(tmp_path: Path) -> None:
    """The shell rules' reader (``shell_command`` and the modules it imports) is loaded for a
    command that may change a file (the facts scan reads it), not for the settings' rules or
    the scan's build digest: a session of ``cat``/``ls`` commands runs without it."""
    code = ("import sys\nfrom goosectx.cli.app import main\n"
            "try:\n    main(['compact', 'work', '--dry-run', '--strategy', 'extractive'])\n"
            "except SystemExit as e:\n    assert e.code == 0, e.code\n"
            "shell = [m for m in sys.modules if m.startswith(('goosectx.shell_command', "
            "'goosectx.shell_lexer', 'goosectx.permissions'))]\n"
            "assert not shell, shell\n")
    saved_session(messages=[Message.user("look around"),
                            *tool_pair(words(400), args={"command": "cat README.md"}),
                            *tool_pair(words(400), args={"command": "ls -la src"}),
                            Message.user("now write the docs")])
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Dry run: no model was called" in proc.stdout


def test_llm_compaction_prints_before_after_and_cost(priced_model: FakeServer,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    priced_model.add({"text": SUMMARY_JSON,
                      "usage": {"prompt_tokens": 2000, "completion_tokens": 300}})
    sid = saved_session()
    before = load(sid)
    out, _ = cli(capsys, "compact", "work", "--instructions", "keep the docs plan")
    assert len(priced_model.requests) == 1
    sent = priced_model.requests[0]
    assert "keep the docs plan" in json.dumps(sent["messages"])
    assert sent["max_tokens"] <= 8000
    assert out.startswith("Compacted work (llm, rung 100%): ") and " → " in out
    assert "$0.00048" in out  # 2,000 × $0.15/M + 300 × $0.60/M
    after = load(sid)
    old = after.conversation.messages[:len(before.conversation)]
    assert [m.id for m in old] == [m.id for m in before.conversation]
    assert all(m.metadata.user_visible and not m.metadata.agent_visible for m in old)
    view = after.conversation.agent_view()
    assert view[0].metadata.is_summary and "src/p.py" in view[0].text
    assert [e.purpose for e in after.ledger.entries] == ["compaction"]
    assert after.ledger.current_tokens < sum(1 for _ in before.conversation) * 1000


def test_json_output_shape(priced_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    priced_model.add({"text": SUMMARY_JSON,
                      "usage": {"prompt_tokens": 1000, "completion_tokens": 100}})
    sid = saved_session()
    out, _ = cli(capsys, "compact", "work", "--json")
    data = json.loads(out)
    assert set(data) == {"session_id", "trigger", "strategy", "rung", "tokens_before",
                         "tokens_after", "cost_usd"}
    assert (data["session_id"], data["trigger"], data["strategy"], data["rung"]) == (
        sid, "manual", "llm", "100%")
    assert data["tokens_after"] < data["tokens_before"]
    assert data["cost_usd"] == pytest.approx(1000 * 0.15e-6 + 100 * 0.6e-6)


def test_without_a_model_the_extractive_strategy_is_used_and_said(
        capsys: pytest.CaptureFixture[str]) -> None:
    sid = saved_session()
    out, err = cli(capsys, "compact", sid[:12], "--json")
    assert "no model is configured" in err and "extractive" in err
    data = json.loads(out)
    assert data["strategy"] == "extractive" and data["cost_usd"] is None and data["rung"] is None
    view = load(sid).conversation.agent_view()
    assert view[0].metadata.is_summary and "now write the docs" in view[0].text


def test_explicit_llm_without_a_model_is_a_one_line_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    saved_session()
    _, err = cli(capsys, "compact", "work", "--strategy", "llm", code=2)  # configuration error
    assert err.startswith("goosectx: error: ") and "--strategy extractive" in err
    assert len(err.strip().splitlines()) == 1


def test_summary_failure_leaves_the_session_unchanged(priced_model: FakeServer,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    priced_model.add({"error": "auth"})
    sid = saved_session()
    before = load(sid)
    _, err = cli(capsys, "compact", "work", code=1)
    assert "goosectx: error:" in err
    after = load(sid)
    assert after.conversation.messages == before.conversation.messages
    assert after.ledger.entries == []


def test_an_empty_summary_reply_is_an_error_that_says_what_to_do(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    priced_model.add({"text": ""})
    sid = saved_session()
    before = load(sid)
    _, err = cli(capsys, "compact", "work", code=1)
    assert err.strip().splitlines()[-1] == (
        f"goosectx: error: {PRICED_MODEL} returned an empty summary — try again, or use "
        "--strategy extractive")
    assert load(sid).conversation.messages == before.conversation.messages


def test_a_session_too_small_to_shrink_is_left_unchanged_without_a_model_call(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    sid = saved_session(messages=[Message.user("hi"), Message.assistant("hello")])
    before = load(sid)
    _, err = cli(capsys, "compact", "work", code=1)
    assert "compaction would grow the context from " in err and "nothing changed" in err
    assert priced_model.requests == []  # even an empty summary would not help: no call
    after = load(sid)
    assert after.conversation.messages == before.conversation.messages
    assert after.ledger.entries == []


def test_a_summary_larger_than_what_it_replaces_is_billed_and_changes_nothing(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    priced_model.add({"text": "A long recollection: " + words(3000),
                      "usage": {"prompt_tokens": 700, "completion_tokens": 3000}})
    sid = saved_session(messages=chat(1))
    before = load(sid)
    _, err = cli(capsys, "compact", "work", code=1)
    assert "compaction would grow the context from " in err and "nothing changed" in err
    after = load(sid)
    assert after.conversation.messages == before.conversation.messages
    assert [(e.purpose, e.usage.output_tokens) for e in after.ledger.entries] == [
        ("compaction", 3000)]  # the call happened: billed once


def test_model_that_manages_its_own_context_is_refused_with_why(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(
        f'[models."{PRICED_MODEL}"]\nmanages_own_context = true\n')
    saved_session()
    _, err = cli(capsys, "compact", "work", code=1)
    _, dry = cli(capsys, "compact", "work", "--dry-run", code=1)
    assert "manages its own context" in err and priced_model.requests == []
    assert "would change nothing: " in dry and "manages its own context" in dry


def test_a_session_in_use_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    sid = saved_session()
    store = SessionStore(load_settings().data_dir)
    lock = store.lock(sid)
    try:
        _, err = cli(capsys, "compact", "work", "--strategy", "extractive", code=1)
        assert f"in use by PID {os.getpid()}" in err
    finally:
        lock.release()
        store.close()


def test_extractive_dry_run_shows_the_budget(capsys: pytest.CaptureFixture[str]) -> None:
    sid = saved_session()
    out, err = cli(capsys, "compact", "work", "--dry-run", "--max-summary-tokens", "900")
    assert "no model is configured" in err
    assert "Strategy: extractive" in out and "Summary budget: 900 tokens" in out
    assert load(sid).ledger.entries == [] and not any(
        m.metadata.is_summary for m in load(sid).conversation)


def test_dry_run_of_one_message_reads_in_the_singular(
        capsys: pytest.CaptureFixture[str]) -> None:
    saved_session(messages=[Message.user("a long question: " + words(3000))])
    out, _ = cli(capsys, "compact", "work", "--dry-run")
    assert "1 message in the model's view" in out


GROW = re.compile(r"compaction would grow the context from ([\d,]+) to at least ([\d,]+) tokens")


def test_dry_run_refuses_where_the_real_run_would(priced_model: FakeServer,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    sid = saved_session(messages=[Message.user("hi"), Message.assistant("hello")])
    before = load(sid)
    _, dry = cli(capsys, "compact", "work", "--dry-run", code=1)
    out, dry_json = cli(capsys, "compact", "work", "--dry-run", "--json", code=1)
    real_out, real_json = cli(capsys, "compact", "work", "--json", code=1)
    _, real = cli(capsys, "compact", "work", code=1)
    assert dry.startswith("goosectx: error: would change nothing: compaction would grow")
    assert len(dry.strip().splitlines()) == 1 and "Dry run" not in dry
    assert "would change nothing" in dry_json and "nothing changed" in real_json  # stderr
    # --json says so on stdout too, dry run or not: one object, the reason the stderr gives
    said, real_said = json.loads(out), json.loads(real_out)
    assert said == {"session_id": sid, "dry_run": True, "would_change": False,
                    "reason": said["reason"], "hint": said["hint"]}
    assert real_said == {"session_id": sid, "dry_run": False, "changed": False,
                         "reason": said["reason"], "hint": said["hint"]}
    assert said["reason"].startswith("compaction would grow") and said["reason"] in dry
    dry_figures, real_figures = GROW.search(dry), GROW.search(real)
    assert dry_figures and real_figures and dry_figures.groups() == real_figures.groups()
    assert priced_model.requests == []
    after = load(sid)
    assert after.conversation.messages == before.conversation.messages
    assert after.ledger.entries == []


def test_dry_run_of_a_session_with_nothing_to_summarise_changes_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    saved_session(messages=[])
    _, dry = cli(capsys, "compact", "work", "--dry-run", code=1)
    _, real = cli(capsys, "compact", "work", code=1)
    assert "would change nothing: nothing to compact: the model sees no messages" in dry
    assert "nothing to compact: the model sees no messages" in real


def test_extractive_dry_run_shows_the_budget_the_real_run_uses(
        capsys: pytest.CaptureFixture[str]) -> None:
    """With no budget named, at most half of what it summarises (a summary is smaller)."""
    default, named = saved_session("a"), saved_session("b")
    out, _ = cli(capsys, "compact", "a", "--dry-run", "--json")
    plan = json.loads(out)
    budget = plan["max_tokens"]
    assert plan["strategy"] == "extractive" and budget <= plan["tokens_before"] // 2
    cli(capsys, "compact", "a")
    cli(capsys, "compact", "b", "--max-summary-tokens", str(budget))
    summaries = [re.sub(r"call_t\d+", "call", next(  # the sessions differ only in call ids
        m for m in load(sid).conversation.messages  # stored: the view merges the re-sent
        if m.metadata.is_summary and m.metadata.agent_visible).text)  # requests into it
        for sid in (default, named)]
    assert summaries[0] == summaries[1]  # the default run used exactly the budget shown
    assert TokenCounter(None).count_text(summaries[0]) <= budget


def _pending_after_extractive(capsys: pytest.CaptureFixture[str], name: str,
                              messages: list[Message]) -> str:
    """The "Pending tasks" section the model sees after ``compact NAME --strategy extractive``
    of a session saved with ``messages``."""
    saved_session(name, messages)
    cli(capsys, "compact", name, "--strategy", "extractive")
    out, _ = cli(capsys, "sessions", "show", name, "--agent")
    return out.split("Pending tasks", 1)[1].split("##", 1)[0]


def test_open_checklist_items_of_an_answer_are_pending_after_an_extractive_compact(
        capsys: pytest.CaptureFixture[str]) -> None:
    pending = _pending_after_extractive(capsys, "todo2", [
        Message.user("fix the io bug"),
        Message.assistant("Plan:\n- [ ] read code\n- [ ] run pytest\n- [ ] update NEWS"),
        Message.user("go on " + words(300)),
        Message.assistant("Plan:\n- [x] read code\n- [ ] run pytest on tests/test_io.py\n"
                          "- [ ] update CHANGELOG\n\nRead it: " + words(300)),
        *chat(2), Message.user("and then?")])
    assert "run pytest on tests/test_io.py" in pending and "update CHANGELOG" in pending
    assert "read code" not in pending  # ticked in the newest checklist
    assert "update NEWS" not in pending  # the newest checklist replaces the older one


def test_a_checklist_in_a_code_block_is_not_a_task(
        capsys: pytest.CaptureFixture[str]) -> None:
    pending = _pending_after_extractive(capsys, "ck", [
        Message.user("My todo:\n- [x] write spec\n- [ ] fix login bug\n- [ ] deploy"),
        Message.assistant("Plan:\n- [ ] read the login code"),
        Message.user("go on " + words(300)),
        Message.assistant("Write this to TEMPLATE.md:\n```markdown\n- [ ] example item\n"
                          "```\nDone; the login fix is next. " + words(300)),
        *chat(2), Message.user("and then?")])
    assert "example item" not in pending  # an example in a code block, not a plan
    assert "read the login code" in pending  # the newest checklist outside code still holds
    assert "fix login bug" not in pending and "write spec" not in pending


def test_open_items_of_the_users_checklist_are_pending(
        capsys: pytest.CaptureFixture[str]) -> None:
    pending = _pending_after_extractive(capsys, "ck3", [
        Message.user("My todo:\n- [x] write spec\n- [ ] fix login bug\n- [ ] deploy"),
        Message.assistant("On it. " + words(300)),
        *chat(3), Message.user("and then?")])
    assert "fix login bug" in pending and "deploy" in pending
    assert "write spec" not in pending


def test_with_json_a_session_that_cannot_be_had_is_one_object_on_stdout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    sid = saved_session()
    store = SessionStore(load_settings().data_dir)
    lock = store.lock(sid)  # another process drives it
    try:
        cases = [("nosuch", ("--dry-run",), None, {"dry_run": True, "would_change": False}),
                 ("nosuch", (), None, {"dry_run": False, "changed": False}),
                 ("work", (), sid, {"dry_run": False, "changed": False}),
                 ("nosuch", ("--undo",), None, {"undone_compaction_id": None, "changed": False}),
                 ("work", ("--undo",), sid, {"undone_compaction_id": None, "changed": False})]
        for ref, flags, session_id, outcome in cases:
            plain_code, plain_out, plain_err = run_cli(capsys, "compact", ref, *flags)
            code, out, err = run_cli(capsys, "compact", ref, *flags, "--json")
            assert (code, err) == (plain_code, plain_err) and plain_out == ""
            assert code == (2 if ref == "nosuch" else 1)  # a bad SESSION / one in use
            said = json.loads(out)  # one object, the one line stderr gives
            assert said == {"session_id": session_id, **outcome, "reason": said["reason"],
                            "hint": said["hint"]}, (ref, flags)
            assert said["reason"] in err and ("nosuch" in err or "in use" in err)
    finally:
        lock.release()
        store.close()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "sessions.db").write_bytes(b"not a database at all " * 100)
    monkeypatch.setenv("GOOSECTX_HOME", str(broken))
    code, out, err = run_cli(capsys, "compact", "work", "--dry-run", "--json")
    said = json.loads(out)
    assert code == 1 and said["session_id"] is None and said["would_change"] is False
    assert "unreadable" in said["reason"] and said["reason"] in err


@pytest.mark.parametrize("flags", [(), ("--dry-run",), ("--undo",)])
def test_with_json_a_bad_summary_budget_is_one_object_on_stdout_too(
        capsys: pytest.CaptureFixture[str], flags: tuple[str, ...]) -> None:
    sid = saved_session()
    before = load(sid)
    code, out, err = run_cli(capsys, "compact", "work", "--strategy", "extractive", *flags,
                             "--json", "--max-summary-tokens", "50")
    assert code == 2
    assert err == ("goosectx: error: --max-summary-tokens must be a whole number from 100 to "
                   "100,000,000; got '50'\n")
    said = json.loads(out)
    assert said["changed" if "--dry-run" not in flags else "would_change"] is False
    assert said["reason"] in err and said["session_id"] is None
    assert load(sid).conversation.messages == before.conversation.messages


def test_extractive_dry_run_refuses_where_the_built_summary_would_grow_the_view(
        capsys: pytest.CaptureFixture[str]) -> None:
    # Two short messages: an empty summary would shrink the view, the extractive one (with
    # its facts) does not, so the real run refuses after building it — the dry run too.
    sid = saved_session(messages=chat(1, 50))
    before = load(sid)
    _, dry = cli(capsys, "compact", "work", "--dry-run", "--strategy", "extractive", code=1)
    _, real = cli(capsys, "compact", "work", "--strategy", "extractive", code=1)
    assert dry.startswith("goosectx: error: would change nothing: compaction would grow")
    dry_figures = re.search(r"from ([\d,]+) to ([\d,]+) tokens", dry)
    real_figures = re.search(r"from ([\d,]+) to ([\d,]+) tokens", real)
    assert dry_figures and real_figures and dry_figures.groups() == real_figures.groups()
    assert load(sid).conversation.messages == before.conversation.messages


def test_a_summary_far_over_its_budget_is_named_as_the_cause_not_a_small_view(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A 20,000-token window: the summary's budget is 2,000 tokens; the view is about 9,000.
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "20000")
    priced_model.add({"text": "A long recollection: " + words(16000)}, {"text": SUMMARY_JSON})
    saved_session(messages=[*chat(2), *tool_pair(words(3000)), *tool_pair(words(3000)),
                            *chat(2), Message.user("now write the docs")])
    _, err = cli(capsys, "compact", "work", "--json", code=1)
    line = err.strip().splitlines()[-1]
    assert re.fullmatch(r"goosectx: error: the model's summary passed 24,000 characters, twice its "
                        r"budget of 2,000 tokens at 6 characters a token, and was stopped "
                        r"there \([\d,]+ tokens\); nothing changed — try "
                        r"again, or use --strategy extractive", line), line
    assert "already about as small" not in err
    out, _ = cli(capsys, "compact", "work")  # the next try shrinks it: the view was not small
    assert out.startswith("Compacted work")


def test_a_summary_streamed_without_end_is_stopped_and_its_request_closed(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A provider ignoring max_tokens sent a 276k-token summary, read for 68 s before it was
    # refused; this one never ends. The summary's budget is 2,000 tokens.
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "20000")
    hung_up = threading.Event()
    priced_model.add({"text": "A long recollection: " + words(400), "chunk_chars": 200,
                      "endless": hung_up})
    sid = saved_session(messages=[*chat(2), *tool_pair(words(3000)), *tool_pair(words(3000)),
                                  *chat(2), Message.user("now write the docs")])
    before = load(sid).conversation.messages
    _, err = cli(capsys, "compact", "work", code=1)
    line = err.strip().splitlines()[-1]
    assert re.fullmatch(r"goosectx: error: the model's summary passed 24,000 characters, twice its "
                        r"budget of 2,000 tokens at 6 characters a token, and was stopped "
                        r"there \([\d,]+ tokens\); nothing changed — try "
                        r"again, or use --strategy extractive", line), line
    assert hung_up.wait(30), "the summary's request was not closed"
    after = load(sid)
    assert after.conversation.messages == before
    assert len(priced_model.requests) == 1
    (call,) = after.ledger.entries  # the provider billed what it read and wrote: stored
    assert call.purpose == "compaction" and call.usage.input_tokens > 1_000
    assert call.usage.output_tokens > 2_000 and (call.usage.cost_usd or 0) > 0


def test_run_resume_says_auto_compaction_is_paused_after_compact_undo(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    """fresh17b #22: after ``compact --undo`` (which pauses auto-compaction: the restored view
    is over the threshold by construction) a ``run --resume`` in a script sent the whole view,
    twice the window, without a word; the REPL's banner says it, ``run`` now too."""
    saved_session()
    cli(capsys, "compact", "work", "--strategy", "extractive")
    cli(capsys, "compact", "work", "--undo")
    priced_model.add({"text": "done"}, {"text": "done again"})
    _, err = cli(capsys, "run", "--resume", "work", "-t", "go on")
    line = " ".join(err.split())
    assert ("note: auto-compaction is paused (a compaction was undone); "
            "goosectx compact work compacts it") in line
    cli(capsys, "compact", "work", "--strategy", "extractive")  # lifts the pause
    _, err = cli(capsys, "run", "--resume", "work", "-t", "and now")
    assert "auto-compaction is paused" not in err


def test_dry_run_where_no_summary_request_fits_exits_1_as_the_real_run(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(
        f'[models."{PRICED_MODEL}"]\ncontext_limit = 1200\nmax_output_tokens = 500\n')
    saved_session(messages=[m for n in range(40) for m in (
        Message.user(f"step {n}: " + words(200)), Message.assistant(words(200)))])
    out, dry = cli(capsys, "compact", "work", "--dry-run", code=1)
    json_out, _ = cli(capsys, "compact", "work", "--dry-run", "--json", code=1)
    _, real = cli(capsys, "compact", "work", code=1)
    assert "Rung: none fits" in out
    assert "would change nothing: the summary request does not fit the 1,200-token" in dry
    assert "the summary request does not fit the 1,200-token" in real
    said = json.loads(json_out)
    assert said["would_change"] is False and "does not fit" in said["reason"]
    assert priced_model.requests == []
    # The fix it names is one that works: the extractive summary, no model call.
    assert real.rstrip().endswith("— use --strategy extractive (a summary built from the "
                                  "transcript, no model call), or set compaction_model to a "
                                  "model with a larger context window")
    out, _ = cli(capsys, "compact", "work", "--strategy", "extractive")
    assert out.startswith("Compacted work (extractive)") and priced_model.requests == []


def test_instructions_too_large_for_the_window_are_named_as_the_cause(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(
        f'[models."{PRICED_MODEL}"]\ncontext_limit = 4000\nmax_output_tokens = 500\n')
    sid = saved_session()
    before = load(sid)
    long_instructions = "Keep every detail of the parser work. " * 400
    for flags in ((), ("--dry-run",)):
        _, err = cli(capsys, "compact", "work", "--instructions", long_instructions, *flags,
                     code=1)
        line = err.strip().splitlines()[-1]
        assert "the instructions alone are ~" in line, line
        assert line.endswith("— shorten the instructions (--instructions, or the text after "
                             "/compact)"), line
        assert "compaction_model" not in line
    assert priced_model.requests == []
    assert load(sid).conversation.messages == before.conversation.messages



def test_a_summary_reply_nested_60_levels_deep_is_cut_where_it_nests_not_hung_on(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    """Each level of an object in a summary field was read twice: 2⁶⁰ steps."""
    deep = '{"a": ' * 60 + '"deep"' + '}' * 60
    priced_model.add({"text": f'{{"user_intent": {deep}, "current_work": "writing the docs"}}',
                      "usage": {"prompt_tokens": 700, "completion_tokens": 90}})
    sid = saved_session()
    cli(capsys, "compact", "work")
    summary = next(m for m in load(sid).conversation.messages if m.metadata.is_summary)
    assert "writing the docs" in summary.text
    assert "a: a: a:" in summary.text and "…" in summary.text and "deep" not in summary.text


@pytest.mark.parametrize("reply", [
    '{"user_intent": "docs", "pending_tasks": ' + "[" * 3000 + "1" + "]" * 3000 + "}",
    "".join(f'{{"k{i}": ' for i in range(20_000)),
])
def test_a_summary_reply_too_deep_or_unclosed_is_a_fallback_not_a_traceback(
        priced_model: FakeServer, capsys: pytest.CaptureFixture[str], reply: str) -> None:
    """3,000 levels (json's RecursionError ended compact with a traceback) or 20,000 unclosed
    objects (a scan from each brace): a reply that did not follow the format, or one too long."""
    priced_model.add({"text": reply, "usage": {"prompt_tokens": 700, "completion_tokens": 90}})
    sid = saved_session()
    before = load(sid)
    code, out, err = run_cli(capsys, "compact", "work")
    assert "Traceback" not in err and "RecursionError" not in err + out
    assert ("did not follow the requested format" in err
            or "twice its budget" in err), err
    if code == 1:  # the raw reply plus the extractive summary beneath it would not shrink it
        assert "nothing changed" in err
        assert load(sid).conversation.messages == before.conversation.messages
    else:
        assert code == 0 and any(m.metadata.is_summary for m in load(sid).conversation.messages)

