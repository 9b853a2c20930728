"""What a newcomer meets first: root options, /help, cost figures, messages (issue 18).

Each test asserts output a user reads: through the in-process CLI (``main``) or the REPL on
pipe input.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import cli, run_cli
from conftest import FAKE_MODEL
from fakeserver import FakeServer
from rich.console import Console

from goosectx.cli.repl import Repl, ReplIO
from goosectx.cli.reports import usage_string
from goosectx.cli.slash import COMMANDS
from goosectx.config import load_settings
from goosectx.usage import format_cost_usd


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


# -- 1. root options where people type them, one resume wording ------------------------------

def test_root_model_and_mode_open_the_repl_with_them(work: Path) -> None:
    # The real binary (its litellm import stays out of this process); piped stdin = plain REPL.
    proc = subprocess.run(["goosectx", "--model", "openai/some-model", "--mode", "chat"],
                          input="/mode\n/exit\n", cwd=work, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "model openai/some-model · mode chat" in proc.stdout
    assert "mode: chat" in proc.stdout  # /mode shows the mode in force


def test_root_model_applies_to_run(capsys: pytest.CaptureFixture[str], fake_model: FakeServer,
                                   monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.chdir(work)
    monkeypatch.setenv("GOOSE_MODEL", "openai/not-this-one")
    fake_model.add({"text": "hello"})
    out, err = cli(capsys, "--model", FAKE_MODEL, "--mode", "auto", "run", "-t", "hi")
    assert out.strip() == "hello"
    assert fake_model.requests[0]["model"] == FAKE_MODEL.split("/", 1)[1]
    assert "resume with: goosectx run --resume " in err


def test_debug_after_a_subcommand_writes_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    log = load_settings().log_path
    assert not log.exists()
    cli(capsys, "sessions", "list", "--debug")
    assert log.exists()


def test_the_value_debug_of_an_option_stays_a_value(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer,
        monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"text": "ok"})
    cli(capsys, "run", "-t", "--debug")
    assert fake_model.requests[0]["messages"][-1]["content"] == "--debug"
    assert not load_settings().log_path.exists()


def test_the_repl_goodbye_uses_the_readme_wording(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer,
        monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"text": "hi there"})
    _stdin(monkeypatch, "hello\n")
    out, _ = cli(capsys, "--name", "my task")
    assert "resume with: goosectx --resume 'my task'" in out
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    assert "goosectx --resume SESSION" in readme and "session -r" not in readme


# -- 2. /help shows every argument ----------------------------------------------------------

@pytest.mark.parametrize("plain", [False, True])
def test_help_shows_each_command_with_its_arguments(tmp_path: Path, plain: bool) -> None:
    from test_repl import World

    world = World(tmp_path)
    try:
        buf = io.StringIO()
        console = Console(file=buf, width=160, no_color=plain, force_terminal=False)
        repl = Repl(world.settings, world.store, world.session,
                    io=ReplIO(console, plain=True, stdin=io.StringIO("/help\n"), echo=True)
                    if plain else ReplIO(console, plain=True, stdin=io.StringIO("/help\n")),
                    agent_factory=world.agent_factory(), background_checks=False)
        assert repl.run() == 0
    finally:
        world.store.close()
    out = buf.getvalue()
    for info in COMMANDS:
        assert usage_string(info) in out, usage_string(info)
    assert "/compact [--extractive] [instructions]" in out and "/history [agent|user]" in out
    assert "/show [N]" in out  # the README's folded outputs say "(/show 3)"


def test_help_at_80_columns_gives_the_summaries_room(tmp_path: Path) -> None:
    """/extension's long usage line made the command column 52 wide: every summary was
    squeezed into 26 columns ("leave (the session is" / "saved)")."""
    from test_repl import World

    world = World(tmp_path)
    try:
        buf = io.StringIO()
        console = Console(file=buf, width=80, no_color=True, force_terminal=False)
        repl = Repl(world.settings, world.store, world.session,
                    io=ReplIO(console, plain=True, stdin=io.StringIO("/help\n")),
                    agent_factory=world.agent_factory(), background_checks=False)
        assert repl.run() == 0
    finally:
        world.store.close()
    lines = buf.getvalue().splitlines()
    assert any(line.split() == ["/exit", "leave", "(the", "session", "is", "saved)"]
               for line in lines)
    assert any("/compact [--extractive]" in line and "summarise the context now" in line
               for line in lines)
    assert any(line.strip().startswith("/extension list|add") for line in lines)
    assert all(len(line) <= 80 for line in lines)


# -- 5. numbers read like money --------------------------------------------------------------

@pytest.mark.parametrize(("cost", "text"), [
    (0.000066, "$0.000066"), (0.0123, "$0.012"), (12.3456, "$12.35"), (6.6e-05, "$0.000066"),
    (0.004, "$0.0040"), (0.5, "$0.50"), (0.0999, "$0.10"), (0.999, "$1.00"),
    (1234.5, "$1,234.50"), (0.0, "$0.00"), (1e-9, "$0.0000000010"), (None, "cost unknown"),
])
def test_one_cost_formatter_two_significant_digits(cost: float | None, text: str) -> None:
    assert format_cost_usd(cost) == text
    assert "e-" not in format_cost_usd(cost)


def test_cost_unknown_is_said_once_a_session_not_on_every_rule() -> None:
    from goosectx.cli.render import TranscriptRenderer
    from goosectx.conversation import Conversation
    from goosectx.events import HistoryReplaced
    from goosectx.usage import LedgerEntry, Usage

    buf = io.StringIO()
    renderer = TranscriptRenderer(Console(file=buf, width=100), plain=True)
    call = LedgerEntry(Usage.of(900, 100), "openai/local", "compaction")
    for before in (9000, 8000, 7000):
        renderer.handle(HistoryReplaced(Conversation(), "auto", before, 900, None, "llm", call))
    out = buf.getvalue()
    assert out.count("cost unknown") == 1
    assert "8,000 → 900 tokens · auto" in out and "e-0" not in out


def test_usage_table_says_cost_unknown_once() -> None:
    from goosectx.cli.reports import usage_table
    from goosectx.usage import LedgerEntry, Usage, UsageLedger

    ledger = UsageLedger([LedgerEntry(Usage.of(1000, 50), "openai/local"),
                          LedgerEntry(Usage.of(900, 100), "openai/local", "compaction")])
    buf = io.StringIO()
    Console(file=buf, width=120).print(usage_table(ledger))
    assert buf.getvalue().count("cost unknown") == 1


def test_usage_table_prints_small_costs_without_scientific_notation() -> None:
    from goosectx.cli.reports import usage_table
    from goosectx.usage import LedgerEntry, Usage, UsageLedger

    ledger = UsageLedger([LedgerEntry(Usage.of(100, 10, 6.6e-05), "openai/gpt-4o-mini")])
    buf = io.StringIO()
    Console(file=buf, width=120).print(usage_table(ledger))
    assert "$0.000066" in buf.getvalue() and "e-05" not in buf.getvalue()



def test_usage_caption_keeps_each_phrase_on_one_line() -> None:
    from goosectx.cli.reports import usage_table
    from goosectx.cli.toolbar import ContextFigure
    from goosectx.usage import LedgerEntry, Usage, UsageLedger

    ledger = UsageLedger([LedgerEntry(Usage.of(1000, 50), "openai/local"),
                          LedgerEntry(Usage.of(900, 100), "openai/local", "compaction")])
    buf = io.StringIO()
    Console(file=buf, width=150).print(usage_table(
        ledger, figure=ContextFigure(1171, 128000, False), cap_usd=5.0))
    lines = [line.strip() for line in buf.getvalue().splitlines()]
    for phrase in ("? = cost unknown (no prices for this model)",
                   "current context: 1,171 of 128,000 tokens",
                   "spent $0.00 of the $5.00 cap (set by max_cost_usd); ? calls not counted"):
        assert any(phrase in line for line in lines), (phrase, lines)

# -- 6. messages -----------------------------------------------------------------------------

def test_max_turns_stops_with_one_message(capsys: pytest.CaptureFixture[str],
                                          fake_model: FakeServer,
                                          monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": "echo 1"}}]})
    code, _out, err = run_cli(capsys, "run", "--mode", "auto", "--max-turns", "1", "-t", "go")
    assert code == 3
    assert err.count("stopped after") == 1, err
    assert "stopped after 1 model call (the per-turn limit" in err


def _saved_session(name: str, work: Path, *, approval_mode: str | None = None) -> None:
    from goosectx.conversation import Message
    from goosectx.store import SessionStore

    store = SessionStore(load_settings().data_dir)
    session = store.create_session(work, name=name)
    store.append_message(session.id, Message.user("earlier work"))
    if approval_mode:
        store.update_session(session.id, approval_mode=approval_mode)
    store.close()


def test_mode_chosen_with_slash_mode_is_stored(tmp_path: Path) -> None:
    from test_repl import CTRL_D, ENTER, World

    world = World(tmp_path)
    try:
        world.provider.add("hi")
        world.run("hello" + ENTER + "/mode chat" + ENTER + CTRL_D)
        assert world.stored().approval_mode == "chat"
    finally:
        world.store.close()


@pytest.mark.parametrize(("args", "env", "banner"), [
    ((), {}, "mode chat (restored from this session"),
    (("--mode", "auto"), {}, "mode auto ·"),
    ((), {"GOOSE_MODE": "approve"}, "mode approve ·"),
])
def test_a_restored_mode_is_named_and_yields_to_mode_flag_and_env(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, work: Path,
        isolated_env: dict[str, Path], args: tuple[str, ...], env: dict[str, str],
        banner: str) -> None:
    isolated_env["config"].write_text('mode = "auto"\n')  # the config is below the stored mode
    _saved_session("demo", work, approval_mode="chat")
    monkeypatch.chdir(work)  # resumed where it works (else a line names the tmp dir, "restored")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    _stdin(monkeypatch, "/exit\n")
    out, _ = cli(capsys, "--resume", "demo", *args)
    assert banner in out, out
    if args or env:
        assert "restored" not in out


def test_history_agent_draws_the_summary_as_markdown(tmp_path: Path) -> None:
    from test_repl import CTRL_D, ENTER, WORTH_COMPACTING, World

    world = World(tmp_path)
    try:
        world.provider.add("first answer", '{"user_intent": "count **things**"}', "ok")
        out = world.run("hello" + WORTH_COMPACTING + ENTER + "/compact" + ENTER
                        + "/history agent" + ENTER + CTRL_D)
    finally:
        world.store.close()
    view = out[out.index("what the model sees"):]
    assert "Conversation Summary" in view and "count things" in view
    assert "# Conversation Summary" not in view and "**things**" not in view  # rendered


def test_a_denied_call_reads_denied_by_you_not_an_error(tmp_path: Path) -> None:
    from test_repl import CTRL_D, ENTER, World

    from goosectx.providers.scripted import ScriptedReply

    world = World(tmp_path)
    try:
        world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "rm -rf x"})]),
                           "Understood.")
        out = world.run("clean" + ENTER + "n" + ENTER + CTRL_D)
    finally:
        world.store.close()
    assert "✗ shell denied by you" in out
    assert "shell error" not in out and "Do not retry" not in out  # the model's text stays its


def test_run_without_a_terminal_says_denied_not_error(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer,
        monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": "touch x"}}]},
                   {"text": "ok"})
    _stdin(monkeypatch, "")
    _out, err = cli(capsys, "run", "--mode", "approve", "-t", "touch x")
    assert "  denied: no terminal to ask" in err and "error:" not in err


# -- 4. scripting ------------------------------------------------------------------------------

def test_stream_json_starts_with_the_session_id_and_ends_with_one_result(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer,
        monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"text": "hi", "usage": {"prompt_tokens": 50, "completion_tokens": 2}})
    out, _ = cli(capsys, "run", "--name", "scripted", "--output-format", "stream-json",
                 "-t", "hello")
    lines = [json.loads(line) for line in out.splitlines()]
    first, last = lines[0], lines[-1]
    assert first["type"] == "session_started" and first["session_name"] == "scripted"
    assert first["session_id"] and first["resumed"] is False
    assert last == {"type": "result", "session_id": first["session_id"], "status": "done",
                    "exit_code": 0, "error": None, "usage": last["usage"], "cost_usd": None,
                    "compactions": 0, "denied_calls": []}
    assert last["usage"]["input_tokens"] == 50
    assert [line["type"] for line in lines].count("result") == 1


def test_json_output_gains_the_result_fields(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer,
        monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": "echo 1"}}]})
    code, out, _ = run_cli(capsys, "run", "--mode", "auto", "--max-turns", "1",
                           "--output-format", "json", "-t", "go")
    data = json.loads(out)
    assert code == data["exit_code"] == 3 and data["status"] == "max_turns"
    assert data["messages"] and data["compactions"] == 0 and "cost_usd" in data


def test_a_configuration_error_still_ends_stream_json_with_a_result(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.chdir(work)
    code, out, err = run_cli(capsys, "run", "--output-format", "stream-json", "-t", "x")
    assert code == 2 and "no model" in err
    last = json.loads(out.splitlines()[-1])
    assert last["type"] == "result" and last["exit_code"] == 2 and last["session_id"] is None


def test_run_notes_when_auto_compaction_is_off(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer,
        monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.chdir(work)
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "0")
    fake_model.add({"text": "ok"})
    _, err = cli(capsys, "run", "-t", "x")
    assert "note: auto-compaction is off (threshold 0 from env GOOSE_AUTO_COMPACT_THRESHOLD" in err


# -- 3. imports are hygienic -----------------------------------------------------------------

def _chat_file(path: Path) -> Path:
    path.write_text(json.dumps([{"role": "user", "content": "port the parser"},
                                {"role": "assistant", "content": "Done."}]))
    return path


def test_a_second_import_of_the_same_file_is_refused_unless_forced(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    chat = _chat_file(tmp_path / "chat.json")
    out, _ = cli(capsys, "sessions", "import", str(chat), "--name", "first")
    assert "imported " in out
    code, out, err = run_cli(capsys, "sessions", "import", str(chat))
    assert code == 2 and out == ""
    assert "chat.json was already imported as session" in err and "(first)" in err
    assert "--force" in err and "goosectx --resume first" in err
    out, _ = cli(capsys, "sessions", "import", str(chat), "--force", "--name", "second")
    assert "(second)" in out
    listed = json.loads(cli(capsys, "sessions", "list", "--json")[0])
    assert sorted(r["name"] for r in listed) == ["first", "second"]


def test_continue_ignores_an_imported_session_nobody_sent_a_message_in(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    from goosectx.conversation import Message
    from goosectx.store import SessionStore

    monkeypatch.chdir(work)
    _saved_session("mine", work)
    cli(capsys, "sessions", "import", str(_chat_file(work.parent / "chat.json")),
        "--name", "imported")
    _stdin(monkeypatch, "/exit\n")
    out, _ = cli(capsys, "-c")
    assert "resumed session mine" in out
    store = SessionStore(load_settings().data_dir)
    store.append_message(store.resolve("imported"), Message.user("carry on"))  # worked in now
    store.close()
    _stdin(monkeypatch, "/exit\n")
    out, _ = cli(capsys, "-c")
    assert "resumed session imported" in out


def test_the_source_working_dir_is_shown_and_used_only_when_confirmed(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, work: Path,
        tmp_path: Path) -> None:
    from goosectx.store import SessionStore

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _saved_session("orig", elsewhere)
    export = tmp_path / "orig.json"
    cli(capsys, "sessions", "export", "orig", "--format", "json", "-o", str(export))
    cli(capsys, "sessions", "remove", "orig", "--yes")
    monkeypatch.chdir(work)
    out, _ = cli(capsys, "sessions", "import", str(export), "--name", "a")
    assert f"source working dir {elsewhere} (exists here; tools run in {work}" in out
    assert "--use-source-dir" in out
    out, _ = cli(capsys, "sessions", "import", str(export), "--name", "b", "--force",
                 "--use-source-dir")
    assert f"source working dir {elsewhere} (exists here; tools run there)" in out
    store = SessionStore(load_settings().data_dir)
    try:
        assert store.load(store.resolve("a")).working_dir == work
        assert store.load(store.resolve("b")).working_dir == elsewhere
    finally:
        store.close()


def test_the_readme_examples_work_from_any_directory_and_keep_the_terminal_clean() -> None:
    # The adder example's relative cmd failed from any other directory; the fake server's
    # URL landed on the line the user was typing; only the refused flag order was shown.
    import re
    import tomllib

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    block = re.search(r"```toml\n(\[extensions\.adder\]\n.*?)```", readme, re.S)
    assert block is not None
    adder = tomllib.loads(block.group(1))["extensions"]["adder"]
    assert all(Path(p).is_absolute() for p in (adder["cmd"], *adder["args"])), adder
    recipe = re.search(r'^.*tests/fakeserver\.py --script "\$d/replies\.json".*&$', readme, re.M)
    assert recipe is not None and '> "$d/fakeserver.log" 2>&1 &' in recipe.group(0)
    assert "`goosectx extensions list --with-extension " in readme
    _recipe_writes_outside_the_clone(readme)
    assert "PROMPT_TOOLKIT_NO_CPR=1" in readme


def _recipe_writes_outside_the_clone(readme: str) -> None:
    """Every file the fake-server recipe writes or names is in its temporary dir ``$d``.

    replies.json, fake.toml and fakeserver.log written into the clone showed in ``git status``.
    """
    import re

    block = readme[readme.index("d=$(mktemp -d)"):]
    block = block[:block.index("```")]
    targets = re.findall(r'(?:>|--script|GOOSECTX_CONFIG=)\s*("[^"]*"|\S+)', block)
    assert len(targets) == 6, targets  # 3 files written, 2 read, and 2>&1
    assert all(t.startswith('"$d/') for t in targets if t != "&1"), targets
