"""The one terminal-safe print path: hostile sequences through every surface of the real CLI.

A corpus of sequences that drive a terminal (OSC 52 clipboard write, OSC 0/2 title, OSC 8
hyperlink, CSI clear screen and cursor moves, DCS, SOS/PM/APC, single shifts, 8-bit C1
CSI/OSC/DCS, BEL, backspace and lone-CR overwrites, bidi overrides, zero-width characters,
rich markup) is fed as model text, reasoning, tool names, tool arguments and output,
provider error bodies, session names and settings; none of it may reach the output as it
is, and its visible stand-in must (docs/architecture.md, "The print path").
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer
from rich.console import Console

from goosectx.cli.folding import clean_output
from goosectx.cli.render import TranscriptRenderer
from goosectx.cli.safe_console import safe_console
from goosectx.cli.sanitize import SafeStream, json_safe, terminal_safe
from goosectx.config import load_settings
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.events import MessageCompleted, MessageDelta, ToolCallFinished, ToolCallStarted
from goosectx.store import SessionStore

CORPUS = (
    "A\x1b]52;c;ZXZpbA==\x07B "
    "\x1b]0;pwned-title\x07\x1b]2;pwned-title\x1b\\ "
    "\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\ "
    "\x1b[2J\x1b[H\x1b[5A\x1b[2K "
    "\x1bP1$r0m\x1b\\ \x1b_apc\x1b\\ \x1b^pm\x1b\\ \x1bXsos\x1b\\ \x1bNx \x1bOy "
    "\x9b2J \x9d0;pwned-c1\x9c \x90dcs\x9c "
    "\x07bell safe\x08\x08\x08\x08EVIL innocent\rOVERWRITE "
    "\u202eevil\u202c \u2066iso\u2069 \u200ezw\u200b\u200c\u200d\u2060\ufeff\u061c "
    "[bold red]markup[/] [/] [link=http://evil.example]x[/link] end"
)
"""Every hostile sequence; no NUL (it cannot travel in a command line)."""

STAND_INS = ("␛]52;c;ZXZpbA==␇", "␛]0;pwned-title␇", "␛[2J", "<U+009B>2J",
             "<U+009D>0;pwned-c1<U+009C>", "safe␈␈␈␈EVIL", "innocent␍OVERWRITE",
             "<U+202E>evil<U+202C>", "zw<U+200B><U+200C><U+200D><U+2060><U+FEFF>",
             "[bold red]markup[/] [/]")
"""What the user sees instead (whole, so a wrapped line could only hide it by accident)."""

RAW = ("\x1b]", "\x1bP", "\x1b_", "\x1b^", "\x1bX", "\x1bN", "\x1bO", "\x07", "\x9b", "\x9d",
       "\x9c", "\x90", "\u202e", "\u202c", "\u2066", "\u2069", "\u200e", "\u200b", "\u200c",
       "\u200d", "\u2060", "\ufeff", "\u061c", "pwned-title\x07")
"""Raw pieces of the corpus that must never be written (rich's own output has none)."""

_CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def assert_safe(out: str, *, styled: bool = False, stand_ins: tuple[str, ...] = STAND_INS
                ) -> None:
    """No raw hostile piece in ``out``; without ``styled`` no ESC, BS or CR at all."""
    for piece in RAW:
        assert piece not in out, f"{piece!r} reached the output"
    # rich's own codes (a live display's CR + cursor moves); the stand-in "␛[2J" stays
    rest = _CSI.sub("", re.sub(r"\r(?=\x1b\[)", "", out)) if styled else out
    assert "\x1b" not in rest and "\x08" not in rest and "\r" not in rest
    for seen in stand_ins:
        assert seen in out, f"{seen!r} is not shown"


# -- the function ----------------------------------------------------------------------------

def test_terminal_safe_shows_every_hostile_piece_and_keeps_text() -> None:
    safe = terminal_safe(CORPUS)
    assert_safe(safe)
    assert terminal_safe(safe) == safe  # idempotent
    assert terminal_safe("tab\tand\r\nnewline: ünïcode 日本 🙂") == "tab\tand\nnewline: ünïcode 日本 🙂"
    assert terminal_safe("\ud800") == "\ufffd"  # a lone surrogate cannot be written
    assert terminal_safe("\U000e0041") == "<U+E0041>"  # tag characters hide text


def test_line_and_paragraph_separators_and_the_soft_hyphen_are_shown() -> None:
    text = "ls\u2028rm -rf ~\u2029then\u00adhidden"  # a line break a terminal may draw, or not
    assert terminal_safe(text) == "ls<U+2028>rm -rf ~<U+2029>then<U+00AD>hidden"
    escaped = json_safe(json.dumps({"t": text}, ensure_ascii=False))
    assert json.loads(escaped) == {"t": text} and "\u2028" not in escaped
    assert "\u00ad" not in escaped and "\\u00ad" in escaped
UNSAFE_RANGES = ((0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x061C, 0x061C),
                 (0x180E, 0x180E), (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064),
                 (0x2066, 0x206F), (0x2691, 0x2691), (0xD800, 0xDFFF), (0xFEFF, 0xFEFF),
                 (0xFFF9, 0xFFFB), (0xE0000, 0xE007F))
"""Every character the sanitiser's docstring lists (controls, C1, the soft hyphen, bidi,
invisible, line/paragraph separators, the approval marker, surrogates, tags)."""


@pytest.mark.parametrize("around", ["ascii ", "ünïcode ", "日本 🙂 "])
def test_every_listed_character_is_replaced_in_any_text(around: str) -> None:
    for low, high in UNSAFE_RANGES:
        for code in range(low, high + 1):
            text = f"{around}{chr(code)} {around}"
            assert chr(code) not in terminal_safe(text), hex(code)
            escaped = json_safe(json.dumps(text, ensure_ascii=False))
            assert chr(code) not in escaped, hex(code)
            lone = 0xD800 <= code <= 0xDFFF  # strict JSON (jq) has no lone surrogate: U+FFFD
            assert json.loads(escaped) == (text.replace(chr(code), "\ufffd") if lone else text)
    kept = "".join(chr(c) for c in (0xA0, 0xC2, 0xDF, 0x600, 0x180F, 0x2010, 0x2690, 0xFEFE,
                                    0xFFFD, 0xE0080, 0x1F642))
    assert terminal_safe(kept) == kept  # neighbours of listed characters stay


def test_a_crlf_split_across_streamed_pieces_is_one_newline() -> None:
    stream = SafeStream()
    assert stream.feed("line\r") + stream.feed("\nnext\r") + stream.flush() == "line\nnext␍"


def test_json_safe_keeps_values_and_escapes_every_unsafe_character() -> None:
    text = json_safe(json.dumps({"t": CORPUS + "\U000e0041"}, ensure_ascii=False))
    assert json.loads(text) == {"t": CORPUS + "\U000e0041"}
    for piece in RAW:
        assert piece not in text


def test_tool_output_loses_colours_but_shows_other_sequences() -> None:
    assert clean_output("\x1b[31mred\x1b[0m \x1b]0;t\x07 \x9b2J") == "red ␛]0;t␇ <U+009B>2J"


def test_huge_hostile_input_is_handled_in_one_pass() -> None:
    safe = terminal_safe("\x1b]52;" * 200_000 + "\u202e" * 200_000)
    assert len(safe) == 5 * 200_000 + 8 * 200_000


def test_safe_console_backstops_text_built_without_the_sanitiser() -> None:
    buf = io.StringIO()
    console = safe_console(file=buf, width=100, force_terminal=True, color_system="truecolor")
    from rich.table import Table

    table = Table()
    table.add_column("name")
    table.add_row("x\x1b]52;c;ZXZpbA==\x07 \u202e")  # what a careless caller builds
    console.print(table)
    # laid out before it was made safe, so the cell may crop the stand-in: safe, not pretty
    assert_safe(buf.getvalue(), styled=True, stand_ins=("x␛]52;",))


# -- the renderer, both looks ------------------------------------------------------------------

@pytest.mark.parametrize("plain", [False, True])
def test_renderer_draws_hostile_model_and_tool_text_visibly(plain: bool) -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=400, force_terminal=not plain,
                      color_system=None if plain else "truecolor", no_color=plain)
    r = TranscriptRenderer(console, plain=plain)
    r.user(CORPUS)
    for piece in (CORPUS[:7], CORPUS[7:50], CORPUS[50:]):
        r.handle(MessageDelta(piece))
    request = ToolRequest("c1", "shell" + CORPUS, {"command": CORPUS})
    r.handle(MessageCompleted(Message("assistant", (request,))))
    r.handle(ToolCallStarted(request))
    r.handle(ToolCallFinished(ToolResponse("c1", CORPUS, True)))
    r.notice(CORPUS)
    r.error(CORPUS, CORPUS)
    r.rule(CORPUS)
    r.panel(CORPUS, title="t")
    out = buf.getvalue()
    assert_safe(out, styled=not plain)
    # rich markup in outside text is printed literally, never applied (and never raises)
    assert out.count("[bold red]markup[/]") >= 7


LINKS = ("See [https://docs.python.org/3/](http://evil.example/steal?x=1) and "
         "<http://auto.example/>")


def test_a_markdown_link_in_an_answer_shows_its_target_and_makes_no_terminal_link() -> None:
    """A link whose text names another site: the terminal shows where it really goes, and no
    OSC 8 hyperlink (clickable text hiding its target) is written."""
    buf = io.StringIO()
    console = Console(file=buf, width=200, force_terminal=True, color_system="truecolor")
    r = TranscriptRenderer(console, plain=False)
    r.handle(MessageDelta(LINKS))
    r.handle(MessageCompleted(Message.assistant(LINKS)))
    out = buf.getvalue()
    assert_safe(out, styled=True, stand_ins=())
    assert "http://evil.example/steal?x=1" in out and "http://auto.example/" in out


# -- `run`, `sessions`, `info` through the CLI --------------------------------------------------

HOSTILE_NAME = "evil\x1b]0;pwned-title\x07\u202e[bold]n[/]\x9b2J"


def _hostile_script(server: FakeServer) -> None:
    server.add(
        {"reasoning": CORPUS, "tool_calls": [
            {"name": "shell", "arguments": {"command": f"printf '%s\\n' '{CORPUS}'; exit 3"}},
            {"name": "shell" + CORPUS, "arguments": {"x": CORPUS}}]},
        {"text": CORPUS + "\n\n" + LINKS},  # Markdown on a terminal: no OSC 8 link either
    )



def test_run_text_stdout_and_stderr(fake_model: FakeServer, workdir: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    _hostile_script(fake_model)
    named = hostile_named_session(load_settings().data_dir, workdir)
    code, out, err = run_cli(capsys, "run", "-t", CORPUS, "--mode", "auto", "--resume", named)
    assert code == 0, err
    assert_safe(out)  # the answer
    # tool arguments, the failing tool's error line, the session name
    assert_safe(err, stand_ins=("  error: A␛]52;c;ZXZpbA==␇", "evil␛]0;pwned-title␇<U+202E>"))


def test_run_error_line_from_a_provider_error_body(fake_model: FakeServer, workdir: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    message = "sep\u2028line\u00adsoft " + CORPUS
    fake_model.add({"status": 400, "body": {"error": {"message": message, "type": "bad"}}})
    code, out, err = run_cli(capsys, "run", "-t", "hi")
    assert code == 1
    assert "goosectx: error:" in err
    # a lone CR is shown (␍), as everywhere else, not dropped from the one-line error
    assert_safe(out + err, stand_ins=("␛]52;c;ZXZpbA==␇", "innocent␍OVERWRITE",
                                      "sep<U+2028>line<U+00AD>soft"))


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_run_json_outputs_escape_what_json_does_not(fake_model: FakeServer, workdir: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    fmt: str) -> None:
    _hostile_script(fake_model)
    code, out, err = run_cli(capsys, "run", "-t", "go", "--mode", "auto", "--output-format",
                             fmt)
    assert code == 0, err
    assert_safe(out, stand_ins=())
    assert_safe(err, stand_ins=())
    values = [json.loads(line) for line in out.splitlines()] if fmt == "stream-json" else [
        json.loads(out)]
    assert any(CORPUS in text for text in _strings(values))  # the values are intact


def hostile_named_session(home: Path, working_dir: Path) -> str:
    """A session named :data:`HOSTILE_NAME` (made before names were checked); its id."""
    store = SessionStore(home)
    try:
        return store.create_session(working_dir, name=HOSTILE_NAME, model="openai/fake-model").id
    finally:
        store.close()


def name_the_only_session(name: str) -> None:
    """Give the store's one session ``name`` as it is (``--name`` refuses such a name now)."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(load_settings().data_dir / "sessions.db")) as db:
        with db:
            assert db.execute("UPDATE sessions SET name = ?", (name,)).rowcount == 1


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for item in value for s in _strings(item)] if isinstance(value, list) else []


@pytest.mark.parametrize("terminal", [False, True])
def test_sessions_list_show_and_info(fake_model: FakeServer, workdir: Path,
                                     capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch, terminal: bool) -> None:
    code, _out, err = run_cli(capsys, "run", "-t", "x", "--name", HOSTILE_NAME)
    assert code == 2 and "session name" in err  # refused, and said safely
    assert_safe(err, stand_ins=())
    _hostile_script(fake_model)
    run_cli(capsys, "run", "-t", CORPUS, "--mode", "auto")
    name_the_only_session(HOSTILE_NAME)  # as a session named before names were checked
    if terminal:  # rich's terminal paths: a table, Markdown
        monkeypatch.setenv("FORCE_COLOR", "1")
        monkeypatch.setenv("COLUMNS", "400")
    name_seen = ("evil␛]0;pwned-title␇<U+202E>[bold]n[/]<U+009B>2J",)
    code, out, err = run_cli(capsys, "sessions", "list")
    assert code == 0, err
    assert_safe(out, styled=terminal, stand_ins=name_seen)
    code, out, err = run_cli(capsys, "sessions", "show", "--", HOSTILE_NAME)
    assert code == 0, err
    assert_safe(out, styled=terminal, stand_ins=("␛]52;c;ZXZpbA==␇", "<U+202E>evil"))
    monkeypatch.setenv("GOOSE_MODEL", "openai/" + CORPUS)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "1000")  # no provider lookup
    code, out, err = run_cli(capsys, "info")
    assert code == 0, err
    assert_safe(out, stand_ins=("openai/A␛]52;c;ZXZpbA==␇",))


# -- the REPL, both looks, through the binary -----------------------------------------------------

def _env(tmp_path: Path, base_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GOOSE_") and not k.endswith(("_API_KEY", "_API_BASE", "_BASE_URL"))}
    (tmp_path / "none.toml").touch()
    env.update(GOOSECTX_HOME=str(tmp_path / "home"), GOOSECTX_CONFIG=str(tmp_path / "none.toml"),
               GOOSE_MODEL="openai/fake-model", OPENAI_API_BASE=base_url,
               OPENAI_API_KEY="sk-test-dummy", GOOSECTX_RETRY_BASE_DELAY_S="0.01",
               PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", COLUMNS="400", LINES="60")
    env.pop("NO_COLOR", None)
    return env


def _repl_script(server: FakeServer) -> None:
    _hostile_script(server)
    server.add({"status": 400, "body": {"error": {"message": CORPUS, "type": "bad"}}})


@pytest.mark.slow
def test_repl_plain_look_with_piped_stdin(tmp_path: Path, work: Path) -> None:
    with FakeServer() as server:
        _repl_script(server)
        named = hostile_named_session(tmp_path / "home", work)
        done = subprocess.run(["goosectx", "session", "--mode", "auto", "--resume", named],
                              input="go\nagain\n", env=_env(tmp_path, server.base_url),
                              capture_output=True, text=True, timeout=120, cwd=str(work))
    assert done.returncode == 0, done.stderr
    assert_safe(done.stdout, stand_ins=(*STAND_INS, "evil␛]0;pwned-title␇<U+202E>"))
    assert "error:" in done.stdout  # the provider's error body, made safe


@pytest.mark.slow
def test_repl_rich_look_in_a_pty(tmp_path: Path, work: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    seen: list[str] = []
    with FakeServer() as server:
        _repl_script(server)
        named = hostile_named_session(tmp_path / "home", work)
        child = pexpect.spawn("goosectx", ["session", "--mode", "auto", "--resume", named],
                              cwd=str(work), env=_env(tmp_path, server.base_url),
                              dimensions=(60, 400), encoding="utf-8", timeout=90)
        child.logfile_read = type("Log", (), {"write": lambda _s, t: seen.append(t),
                                              "flush": lambda _s: None})()
        try:
            child.expect("❯")
            child.send("go\r")
            child.expect("end")  # the streamed answer's last word
            child.expect("❯")
            child.send("again\r")
            child.expect("error")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    out = "".join(seen)
    for piece in RAW:
        assert piece not in out, f"{piece!r} reached the terminal"
    visible = re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]", "", out)
    for shown in ("␛]52;c;ZXZpbA==␇", "<U+009B>2J", "<U+202E>evil", "innocent␍OVERWRITE",
                  "[bold red]markup[/]", "evil␛]0;pwned-title␇<U+202E>"):
        assert shown in visible, shown


# -- the rule, checked on the source ------------------------------------------------------------

CLI = Path(__file__).resolve().parents[1] / "goosectx" / "cli"
_SAFE_CALLS = {"terminal_safe", "one_line_safe", "json_safe", "safe_text", "plural",
               "format_cost", "_cost", "share", "len"}


def _unsafe_fstring(node: ast.expr) -> bool:
    """An f-string (or ``+`` of one) that interpolates a value not made safe."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _unsafe_fstring(node.left) or _unsafe_fstring(node.right)
    if not isinstance(node, ast.JoinedStr):
        return False
    for value in node.values:
        if not isinstance(value, ast.FormattedValue) or value.format_spec is not None:
            continue  # literal text, or a number formatted with a spec (:,)
        inner = value.value
        if isinstance(inner, ast.Call) and getattr(inner.func, "id",
                                                   getattr(inner.func, "attr", "")) in _SAFE_CALLS:
            continue
        return True
    return False


def _receiver(node: ast.expr) -> str:
    parts = []
    while isinstance(node, ast.Attribute | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def test_outside_text_is_never_interpolated_into_markup_or_raw_writes() -> None:
    """``console.print(f"…{x}…")`` (markup) and ``print(f"…{x}…")`` / ``stream.write(...)``
    (raw) must wrap ``x`` in ``terminal_safe``, or print a ``Text`` (see cli/sanitize.py)."""
    found = []
    for path in sorted(CLI.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.Call):
                continue
            func, receiver = node.func, _receiver(node.func)
            markup_off = any(k.arg == "markup" and isinstance(k.value, ast.Constant)
                             and k.value.value is False for k in node.keywords)
            rich_call = (isinstance(func, ast.Attribute)
                         and func.attr in ("print", "rule", "status", "update", "add_row", "log")
                         and ("console" in receiver or receiver.endswith(("table", "_status"))))
            raw_call = (isinstance(func, ast.Name) and func.id in ("print", "input")) or (
                isinstance(func, ast.Attribute) and func.attr == "write"
                and any(s in receiver for s in ("stdout", "stderr", "file")))
            if (rich_call and not markup_off) or raw_call:
                if any(_unsafe_fstring(arg) for arg in node.args):
                    found.append(f"{path.name}:{node.lineno}")
    assert not found, f"outside text interpolated without terminal_safe at {found}"


def test_every_console_is_a_safe_console() -> None:
    made = [f"{path.name}:{n}" for path in sorted(CLI.glob("*.py")) if path.name != "sanitize.py"
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"\bConsole\(", line)]
    assert not made, f"build consoles with safe_console.safe_console, not Console(): {made}"
