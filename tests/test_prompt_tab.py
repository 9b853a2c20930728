"""Tab at the REPL prompt inserts a unique completion, as a shell does (cli/prompt.complete_now).

A Tab read in the same batch as the last key typed (fast typing, a paste, a busy machine) used
to open the menu and insert nothing: the typing's own completion had not run yet, and the one
Tab asked for gave up on seeing its menu.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from goosectx.cli.prompt import SlashCompleter, make_prompt_session
from goosectx.cli.repl_mentions import MentionCompleter


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\n")
    (tmp_path / "src" / "main.py").write_text("y = 2\n")
    (tmp_path / "src" / "main_test.py").write_text("z = 3\n")
    return tmp_path


def _typed(keys: str, completer: object) -> str:
    """What the prompt sends after ``keys`` arrive in one read (Enter ends them)."""
    with create_pipe_input() as pipe:
        session = make_prompt_session(history_path=None, toolbar=lambda: "",
                                      completer=completer,  # type: ignore[arg-type]
                                      input=pipe, output=DummyOutput())
        pipe.send_text(keys)
        return session.prompt()


def test_tab_on_a_unique_mention_inserts_it_and_enter_then_sends(tree: Path) -> None:
    assert _typed("see @src/ap\t\r", MentionCompleter(tree)) == "see @src/app.py"


def test_tab_inserts_the_common_start_of_several_mentions(tree: Path) -> None:
    assert _typed("see @src/ma\t\r", MentionCompleter(tree)) == "see @src/main"


def test_tab_on_a_unique_directory_inserts_it_to_complete_further(tree: Path) -> None:
    assert _typed("see @sr\tap\t\r", MentionCompleter(tree)) == "see @src/app.py"


def test_tab_on_a_unique_command_inserts_it(tree: Path) -> None:
    assert _typed("/usa\t\r", SlashCompleter()) == "/usage"


def test_tab_with_no_common_start_opens_the_menu_and_a_second_tab_takes_the_first(
        tree: Path) -> None:
    assert _typed("see @src/\t\t\r\r", MentionCompleter(tree)) == "see @src/app.py"


def test_tab_with_the_menu_typing_opened_inserts_the_common_start(tree: Path) -> None:
    """Typed slowly, the menu is open before Tab; Tab still writes what all entries share."""
    with create_pipe_input() as pipe:
        session = make_prompt_session(history_path=None, toolbar=lambda: "",
                                      completer=MentionCompleter(tree),
                                      input=pipe, output=DummyOutput())
        buffer = session.default_buffer

        def typist() -> None:
            pipe.send_text("see @src/ma")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not (
                    buffer.complete_state and buffer.complete_state.completions):
                time.sleep(0.02)
            pipe.send_text("\t\r\r")  # (a menu entry chosen: the first Enter takes it)

        thread = threading.Thread(target=typist, daemon=True)
        thread.start()
        assert session.prompt() == "see @src/main"
        thread.join()


def test_tab_inserts_no_common_start_when_the_completions_were_cut(tmp_path: Path) -> None:
    # 200 t_a… files are listed, t_b.py is not (the list stops at MAX_COMPLETIONS): the common
    # start of what was listed, "a", would rule out a file that exists
    from goosectx.cli.repl_mentions import MAX_COMPLETIONS

    (tmp_path / "d").mkdir()
    for i in range(MAX_COMPLETIONS):
        (tmp_path / "d" / f"t_a{i:03}.py").write_text("")
    (tmp_path / "d" / "t_b.py").write_text("")
    assert _typed("@d/t_\t\r", MentionCompleter(tmp_path)) == "@d/t_"


def test_at_exactly_the_cap_nothing_was_cut_and_tab_inserts_the_common_start(
        tmp_path: Path) -> None:
    # MAX_COMPLETIONS files and no more: the list is whole, so its common start ("a") is typed
    from goosectx.cli.repl_mentions import MAX_COMPLETIONS

    (tmp_path / "d").mkdir()
    for i in range(MAX_COMPLETIONS):
        (tmp_path / "d" / f"t_a{i:03}.py").write_text("")
    assert _typed("@d/t_\t\r", MentionCompleter(tmp_path)) == "@d/t_a"


@pytest.mark.parametrize("extra", [0, 1, 5])
def test_the_menu_says_more_were_not_listed_only_past_the_cap(tmp_path: Path,
                                                              extra: int) -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from goosectx.cli.repl_mentions import MAX_COMPLETIONS

    for i in range(MAX_COMPLETIONS + extra):
        (tmp_path / f"f{i:04}.txt").write_text("")
    entries = list(MentionCompleter(tmp_path).get_completions(
        Document("@f"), CompleteEvent(completion_requested=True)))
    files = [e for e in entries if e.text]
    assert len(files) == MAX_COMPLETIONS
    notes = [e.display_meta_text for e in entries if not e.text]
    assert notes == ([f"more than {MAX_COMPLETIONS}: type more of the name"] if extra else [])


def test_tab_on_a_unique_name_holding_a_secret_opens_its_menu_with_the_note(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one match inserts nothing (listed redacted): Tab shows why instead of nothing."""
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.document import Document

    from goosectx.cli.prompt import complete_now
    from goosectx.cli.repl_mentions import SECRET_NAME

    key = "sk-proj-" + "Zq8x" * 10
    monkeypatch.setenv("DEPLOY_TOKEN", key)
    (tmp_path / f"notes-{key}.txt").write_text("x")
    buffer = Buffer(completer=MentionCompleter(tmp_path))
    buffer.set_document(Document("read @note"))
    complete_now(buffer)
    assert buffer.text == "read @note"  # the word stays as typed
    state = buffer.complete_state
    assert state is not None
    [(shown, note)] = [(c.display_text, c.display_meta_text) for c in state.completions]
    assert shown == "notes-[REDACTED].txt" and note == SECRET_NAME
    assert _typed("see @src/ap\t\r", MentionCompleter(tmp_path)) == "see @src/ap"  # no match
