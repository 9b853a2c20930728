"""Session names: a new name that would break a line or an argument is refused (one line,
exit 2, nothing written); a stored one of that kind still lists, shows and resumes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_cli
from test_repl import CTRL_D, ENTER, World

from goosectx.cli.common import open_session
from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings
from goosectx.errors import SessionNameTaken, UsageError
from goosectx.store import SessionStore

BAD_NAMES = ["", "   ", "two\nlines", "tab\there", "-dash", "--", "evil\u202eexe.txt", "\u3164",
             "a\u3164b", "my\u00a0task", "x\u2800"]  # blank-looking: invisible in the list


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_new_name_is_one_line_with_the_fix_and_writes_nothing(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    for start in (lambda: open_session(settings, name=name, resume=None, continue_=False),
                  lambda: run_task(settings, text="hi", input_file=None, name=name, resume=None,
                                   continue_=False, max_turns=None, output_format="text",
                                   mode=None, model=None)):
        with pytest.raises(UsageError) as info:
            start()
        line = info.value.one_line()
        assert info.value.exit_code == 2 and "\n" not in line and "\u202e" not in line
        assert "session name" in line and "--name" in line
    assert not (settings.data_dir / "sessions.db").exists()


@pytest.mark.parametrize(("name", "shown"), [("my\u00a0task", "'my<U+00A0>task'"),
                                             ("x\u2800", "'x<U+2800>'"),
                                             ("a\u3164b", "'a<U+3164>b'")])
def test_a_blank_looking_character_is_shown_where_the_error_names_it(
        name: str, shown: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as info:
        open_session(load_settings(), name=name, resume=None, continue_=False)
    assert f"the session name {shown} holds U+" in info.value.one_line()


def test_import_refuses_a_bad_name_before_reading(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    source = tmp_path / "chat.json"
    source.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    code, _out, err = run_cli(capsys, "sessions", "import", str(source), "--name", "-x")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "session name" in err
    assert not (load_settings().data_dir / "sessions.db").exists()


def test_a_stored_bad_name_still_lists_shows_and_resumes(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    store = SessionStore(load_settings().data_dir)
    odd = store.create_session(tmp_path, name="two\nlines", model="m")
    dash = store.create_session(tmp_path, name="-dash", model="m")
    store.close()
    code, out, _err = run_cli(capsys, "sessions", "list")
    assert code == 0 and len(out.strip().splitlines()) == 3  # header + one row each
    assert odd.id in out and dash.id in out and "two␊lines" in out
    code, _out, err = run_cli(capsys, "sessions", "show", "--", "-dash")
    assert code == 0, err


def test_the_resume_hint_of_a_session_with_a_bad_name_names_its_id(tmp_path: Path) -> None:
    world = World(tmp_path)
    try:
        world.session.name = "two\nlines"
        world.provider.add("hello")
        out = world.run("hi" + ENTER + CTRL_D)
        hint = next(line for line in out.splitlines() if "resume with:" in line)
        assert hint.endswith(f"goosectx --resume {world.session.id}")
    finally:
        world.store.close()


def test_rename_to_a_name_not_starting_with_a_letter_or_digit_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = SessionStore(load_settings().data_dir)
    store.create_session(tmp_path, name="base", model="m")
    store.close()
    code, _out, err = run_cli(capsys, "sessions", "rename", "base", "[bad]name")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "starts with '['" in err and "starts with a letter or digit" in err
    _code, out, _err = run_cli(capsys, "sessions", "list")
    assert "base" in out and "[bad]name" not in out


KEY = "sk-proj-Zq8xW3vB7nT2mK9pL4sR6yH1aa"


def test_an_imported_name_that_was_a_key_gets_a_valid_distinct_placeholder(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "chat.json"
    source.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    for _ in range(2):
        code, out, err = run_cli(capsys, "sessions", "import", str(source), "--force",
                                 "--name", KEY)
        assert code == 0, err
        assert KEY not in out + err
    _code, out, _err = run_cli(capsys, "sessions", "list")
    assert "redacted-1" in out and "redacted-2" in out and "[REDACTED]" not in out
    code, _out, err = run_cli(capsys, "sessions", "show", "redacted-2")
    assert code == 0, err


def test_search_for_a_key_does_not_echo_it(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    SessionStore(load_settings().data_dir).close()
    code, out, err = run_cli(capsys, "sessions", "search", KEY)
    assert code == 0 and KEY not in out + err
    assert "No session mentions '[REDACTED]'." in out


def test_a_taken_name_with_a_space_is_quoted_in_the_resume_hint(tmp_path: Path) -> None:
    # fresh21b #02: "continue it with --resume my task" broke when pasted
    store = SessionStore(tmp_path / "home")
    store.create_session(tmp_path, name="my task")
    with pytest.raises(SessionNameTaken) as info:
        store.create_session(tmp_path, name="my task")
    assert "continue it with --resume 'my task'," in info.value.one_line()
    store.close()


def test_a_lookup_that_finds_nothing_shows_a_blank_looking_character_it_was_given(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = SessionStore(load_settings().data_dir)
    store.create_session(tmp_path, name="fix", model="m")
    store.close()
    code, _out, err = run_cli(capsys, "sessions", "show", "fix\u2800")
    assert code == 2 and "no session matches 'fix<U+2800>'" in err  # not 'fix⠀', like 'fix'
    code, _out, err = run_cli(capsys, "session", "--resume", "\u00a0\u2028")
    assert code == 2 and "--resume '<U+00A0>\\u2028' names no session" in err
