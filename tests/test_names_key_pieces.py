"""Names and titles are redacted as tool outputs are: a key's 13+ characters and its lists too.

Session names, titles, the REPL's ``@`` completion menu and the input history all go through
:func:`goosectx.env_secrets.tool_output_redactor` (docs/architecture.md §2, redaction): a
piece of a key (its last 20 characters: no form of the whole key) in a stored title was drawn
as it was by ``sessions list``, and a file named after a key showed it whole in the ``@``
menu.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from test_session_name_shown_redacted import KEY, listed_and_found, old_session

from goosectx.cli.prompt_safe import safe_completions
from goosectx.cli.repl_mentions import SECRET_NAME, MentionCompleter
from goosectx.config import load_settings

PIECE = KEY[-20:]  # 20 of its characters: redacted in a tool output, not a form of the key


@pytest.fixture
def stored(fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> str:
    return old_session(fake_model, monkeypatch, capsys, f"deploy-{PIECE}",
                       title=f"use the key ending {PIECE} to deploy")


def test_sessions_list_and_search_draw_a_piece_of_the_key_in_a_name_or_title_redacted(
        stored: str, capsys: pytest.CaptureFixture[str]) -> None:
    listed, as_json, found, found_json = listed_and_found(capsys)
    for text in (listed, as_json, found, found_json):
        assert PIECE[:13] not in text and PIECE[-13:] not in text, text
    row = json.loads(as_json)[0]
    assert row["name"] == "deploy-redacted"
    assert row["title"] == "use the key ending [REDACTED] to deploy"
    assert json.loads(found_json)[0]["title"] == row["title"]
    assert "deploy-redacted" in listed and stored in listed


def test_a_title_quoting_only_the_keys_vendor_prefix_is_drawn_as_stored(
        fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    old_session(fake_model, monkeypatch, capsys, "plain",
                title="keys look like sk-proj-XXXXXXXXXXXX")
    as_json, _ = cli(capsys, "sessions", "list", "--json")
    assert json.loads(as_json)[0]["title"] == "keys look like sk-proj-XXXXXXXXXXXX"


def test_renaming_a_session_to_a_name_with_a_piece_of_the_key_stores_it_redacted(
        stored: str, capsys: pytest.CaptureFixture[str]) -> None:
    _, err = cli(capsys, "sessions", "rename", stored, f"prod-{PIECE}")
    assert "was redacted from the session name" in err and PIECE not in err
    with sqlite3.connect(load_settings().data_dir / "sessions.db") as conn:
        (name,) = conn.execute("SELECT name FROM sessions").fetchone()
    assert name == "prod-redacted"


def _menu(completer: MentionCompleter, text: str) -> list[tuple[str, str, str]]:
    """(inserted, shown, note) of each completion, as the REPL's menu draws them."""
    safe = safe_completions(lambda: completer)
    return [(c.text, c.display_text, c.display_meta_text)
            for c in safe.get_completions(Document(text), CompleteEvent())]


@pytest.mark.parametrize("name", [f"{KEY}.txt", f"backup-{PIECE}.json"])
def test_a_file_named_after_the_key_is_listed_redacted_and_inserts_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    (tmp_path / name).write_text("x")
    (tmp_path / "notes.md").write_text("x")
    menu = _menu(MentionCompleter(tmp_path), "read @")
    assert ("notes.md", "notes.md", "file") in menu
    [(inserted, shown, note)] = [m for m in menu if m[0] != "notes.md"]
    assert inserted == "" and "[REDACTED]" in shown and note == SECRET_NAME
    assert PIECE[:13] not in repr(menu) and PIECE[-13:] not in repr(menu)
    typed = name[:3]  # a prefix typed: the word stays as it is
    assert _menu(MentionCompleter(tmp_path), f"read @{typed}")[0][0] == typed


def test_the_repls_completer_uses_the_repls_redactor(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # a key only the config names (api_key_env) is no secret the process knows by its name
    monkeypatch.setenv("LLM_AUTH", KEY)
    from goosectx.cli.input_secrets import EnvironmentRedactor
    from goosectx.config import ModelConfig, Settings

    settings = Settings(data_dir=tmp_path / "data",
                        models={"m": ModelConfig(api_key_env="LLM_AUTH")})
    (tmp_path / f"{KEY}.txt").write_text("x")
    menu = _menu(MentionCompleter(tmp_path, redact=EnvironmentRedactor(settings)), "@sk")
    assert menu == [("sk", "[REDACTED].txt", SECRET_NAME)]


def test_an_extensions_stored_command_line_has_a_piece_of_the_key_redacted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.extensions.config import parse_table

    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    cfg = parse_table("deploy", {"cmd": "deployer", "args": ["--token-tail", PIECE, "-v"]})
    stored = cfg.public()
    assert stored["args"] == ["--token-tail", "[REDACTED]", "-v"] and stored["redacted"]
    assert PIECE not in cfg.command_line() and "deployer --token-tail" in cfg.command_line()


@pytest.mark.parametrize("repls", [False, True])
def test_an_input_history_entry_with_a_piece_of_the_key_is_saved_redacted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repls: bool) -> None:
    from goosectx.cli.input_secrets import EnvironmentRedactor
    from goosectx.cli.prompt import InputHistory
    from goosectx.config import Settings

    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    redact = EnvironmentRedactor(Settings(data_dir=tmp_path / "data")) if repls else None
    history = InputHistory(tmp_path / "repl_history", redact)
    history.append_string(f"!deploy --tail {PIECE}")
    saved = (tmp_path / "repl_history").read_text()
    assert PIECE[:13] not in saved and "!deploy --tail [REDACTED]" in saved
