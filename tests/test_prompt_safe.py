"""What the REPL prompt draws of outside text goes through the sanitiser (cli/prompt_safe.py).

A file name holding U+202E, Tab-completed after ``@``, reached the terminal raw (a bidi-aware
terminal showed ``@oscexe.txt`` for ``osc<U+202E>txt.exe``); ``ESC [ 31 m`` typed at the
prompt was read as a mouse event whose handler raised (a traceback, "Press ENTER to
continue…").
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.data_structures import Size
from prompt_toolkit.document import Document
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from goosectx.cli.prompt import SlashCompleter, make_prompt_session
from goosectx.cli.prompt_safe import PENDING, escape_end, is_mouse_event, shown_characters
from goosectx.cli.repl_mentions import MentionCompleter
from goosectx.mentions import mentioned_words

BIDI_NAME = "osc\u202etxt.exe"


def _prompt(keys: str, completer: Completer | None = None, history: Sequence[str] = (),
            then: str = "", once_drawn: str = "") -> tuple[str, str]:
    """What the prompt returns after ``keys`` and what it drew.

    ``then``: keys sent once ``once_drawn`` was drawn (within 20 s), e.g. the Enter that
    ends the prompt after its line showed what Tab inserted.
    """
    drawn = io.StringIO()
    output = Vt100_Output(drawn, lambda: Size(rows=24, columns=100), term="xterm")
    with create_pipe_input() as pipe:
        session = make_prompt_session(history_path=None, toolbar=lambda: "",
                                      completer=completer, input=pipe, output=output)
        if history:
            store = InMemoryHistory()
            for entry in history:
                store.append_string(entry)
            session.history = session.default_buffer.history = store
            session.default_buffer.reset()  # (loads the history into the up arrow)
        pipe.send_text(keys)
        if then:
            def later() -> None:
                deadline = time.monotonic() + 20
                while once_drawn not in drawn.getvalue() and time.monotonic() < deadline:
                    time.sleep(0.01)
                pipe.send_text(then)

            threading.Thread(target=later, daemon=True).start()
        return session.prompt(), drawn.getvalue()


def test_tab_inserts_a_bidi_file_name_that_attaches_the_file_and_draws_its_stand_in(
        tmp_path: Path) -> None:
    (tmp_path / BIDI_NAME).write_text("x")
    sent, drawn = _prompt("@os\t", MentionCompleter(tmp_path), then="\r", once_drawn="exe")
    assert mentioned_words(sent) == [(BIDI_NAME, False)]  # the very file, as named
    assert "\u202e" not in drawn
    assert "@osc<U+202E>txt.exe" in drawn


def test_a_file_name_holding_escape_is_drawn_as_its_control_picture(tmp_path: Path) -> None:
    name = "a\x1b]0;pwned\x07.txt"
    (tmp_path / name).write_text("x")
    sent, drawn = _prompt("@a\t", MentionCompleter(tmp_path), then="\r", once_drawn=".txt")
    assert mentioned_words(sent) == [(name, False)]
    assert "\x1b]0;pwned" not in drawn and "\x07" not in drawn
    assert "␛]0;pwned␇.txt" in drawn


class _Hostile(Completer):
    """Offers names and descriptions as a custom command file or an extension could."""

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Iterator[Completion]:
        yield Completion("/one", -len(document.text_before_cursor),
                         display="/on\u202eeno", display_meta="desc\x1b[2J\u2066")
        yield Completion("/two", -len(document.text_before_cursor),
                         display_meta="fine\u200bhere")


def test_the_completion_menu_draws_outside_names_and_descriptions_safely() -> None:
    sent, drawn = _prompt("/\t\t", _Hostile(), then="\r\r", once_drawn="here")  # menu: first
    assert sent == "/one"
    for raw in ("\u202e", "\x1b[2J", "\u2066", "\u200b"):
        assert raw not in drawn
    assert "/on<U+202E>eno" in drawn and "desc␛[2J<U+2066>" in drawn
    assert "fine<U+200B>here" in drawn


def test_a_history_entry_recalled_by_up_arrow_or_ctrl_r_is_drawn_safely() -> None:
    entry = "ls \u202egnp.exe"
    sent, drawn = _prompt("\x1b[A", history=[entry], then="\r", once_drawn="exe")
    assert sent == entry and "\u202e" not in drawn and "ls <U+202E>gnp.exe" in drawn
    sent, drawn = _prompt("\x12gnp", history=["other", entry], then="\r\r",
                           once_drawn=".exe")  # Ctrl-R, then Enter, Enter
    assert sent == entry and "\u202e" not in drawn and "ls <U+202E>\x1b[0;7mgnp" in drawn


def test_the_cursor_lands_after_the_stand_in_so_typing_goes_where_it_shows() -> None:
    sent, _drawn = _prompt("a\u202eb\x1b[DX\r")  # left arrow once: between the two
    assert sent == "a\u202eXb"


@pytest.mark.parametrize("keys", ["red \x1b[31mtext", "red \x1b[1;31mte\x1b[0mxt",
                                  "red \x1b[38;5;196mtext", "red \x1b[<1;2mtext"])
def test_a_colour_sequence_typed_at_the_prompt_is_dropped_not_a_traceback(keys: str) -> None:
    sent, drawn = _prompt(keys + "\r")
    assert sent == "red text"
    assert "Unhandled exception" not in drawn and "Press ENTER" not in drawn


def test_a_well_formed_mouse_event_still_reaches_prompt_toolkit() -> None:
    for report in ("\x1b[<0;3;1M", "\x1b[<0;3;1m", "\x1b[32;5;1M", "\x1b[M !!"):
        assert is_mouse_event(report), report
        sent, drawn = _prompt("ab" + report + "c\r")
        assert sent == "abc" and "Unhandled exception" not in drawn
    for colour in ("\x1b[31m", "\x1b[1;2m", "\x1b[38;5;196m", "\x1b[1;2;3m", "\x1b[Mzzz"):
        assert not is_mouse_event(colour), colour


def test_an_emoji_joiner_is_kept_and_a_stray_one_shown() -> None:
    assert "".join(shown_characters("👨\u200d💻")) == "👨\u200d💻"
    assert "".join(shown_characters("a\u200db")) == "a<U+200D>b"


def test_resume_completion_draws_hostile_session_names_and_titles_safely() -> None:
    sessions = [("evil\u202ename", "evil\u202ename", "title\x1b]0;x\x07"),
                ("evil-two", "evil-two", "t\u2067wo")]
    completer = SlashCompleter(sessions=lambda: sessions)
    sent, drawn = _prompt("/resume ev\t", completer, then="\t\r\r", once_drawn="wo")
    assert sent == "/resume evil\u202ename"  # the menu's first entry, the name as stored
    for raw in ("\u202e", "\x1b]0;x", "\x07", "\u2067"):
        assert raw not in drawn
    assert "evil<U+202E>name" in drawn and "title␛]0;x␇" in drawn and "t<U+2067>wo" in drawn


def test_a_colour_sequence_typed_at_an_approval_question_is_dropped_and_the_key_answers() -> None:
    """``ESC[31m`` there raised prompt-toolkit's "not enough values to unpack" (its mouse
    handler) and "Press ENTER to continue", as at the prompt."""
    import threading

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from goosectx.cli.approval_keys import ask_approval

    answers: list[str] = []
    with create_pipe_input() as pipe:
        pipe.send_text("\x1b[31m\x1b[38;5;196my")
        asking = threading.Thread(target=lambda: answers.append(
            ask_approval("shell", input=pipe, output=DummyOutput())), daemon=True)
        asking.start()
        asking.join(20)  # without the guard it waits on "Press ENTER to continue"
        if asking.is_alive():
            pipe.send_text("\r\x03")  # let it end
    assert answers == ["allow_once"]


def _reason(keys: str) -> tuple[str, str]:
    """What the approval's reason prompt returns after ``keys`` and what it drew."""
    from goosectx.cli.repl_approval import REASON_PROMPT, reason_session

    drawn = io.StringIO()
    output = Vt100_Output(drawn, lambda: Size(rows=24, columns=100), term="xterm")
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        return reason_session(pipe, output).prompt(REASON_PROMPT), drawn.getvalue()


def test_the_reason_prompt_draws_what_is_pasted_through_the_sanitiser() -> None:
    """The reason typed after ``n`` at the approval question was drawn raw: a pasted
    U+202E reversed the line on a bidi-aware terminal, a pasted ESC reached it."""
    sent, drawn = _reason("use\u202e the \x1b[200~tests\x1b]0;x\x07\x1b[201~ runner\r")
    assert sent == "use\u202e the tests\x1b]0;x\x07 runner"  # kept as typed: the model's
    assert "\u202e" not in drawn and "\x1b]0;x" not in drawn and "\x07" not in drawn
    assert "use<U+202E> the tests␛]0;x␇ runner" in drawn


@pytest.mark.parametrize("keys", ["red \x1b[31mtext", "red \x1b[<1;2mtext"])
def test_a_colour_sequence_typed_at_the_reason_prompt_is_dropped_not_a_traceback(
        keys: str) -> None:
    sent, drawn = _reason(keys + "\r")
    assert sent == "red text"
    assert "Unhandled exception" not in drawn and "Press ENTER" not in drawn


UNKNOWN_SEQUENCES = {
    "reset colour": "\x1b[m", "erase line": "\x1b[K", "clear screen": "\x1b[2J",
    "hide cursor": "\x1b[?25l", "cursor shape": "\x1b[ q", "an F-key no terminal sends": "\x1b[99~",
    "OSC title": "\x1b]0;title\x07", "OSC 8 link": "\x1b]8;;https://evil.example/\x1b\\",
    "DCS": "\x1bPq#0;2;0;0;0\x1b\\", "APC": "\x1b_apc\x1b\\", "PM": "\x1b^pm\x1b\\",
    "SOS": "\x1bXsos\x1b\\", "charset": "\x1b(B", "keypad mode": "\x1b=", "identify": "\x1bZ",
    "SS3 and a character no key sends": "\x1bOZ",
}


@pytest.mark.parametrize("sequence", UNKNOWN_SEQUENCES.values(), ids=UNKNOWN_SEQUENCES.keys())
def test_an_escape_sequence_typed_at_the_prompt_is_dropped_whole(sequence: str) -> None:
    """prompt-toolkit split these into an Escape key and text: ``[K``, ``]0;title`` stayed in
    the line (and went to the model with Enter)."""
    sent, drawn = _prompt("ab " + sequence + "cd\r")
    assert sent == "ab cd"
    assert "Unhandled exception" not in drawn


@pytest.mark.parametrize(("keys", "sent"), [
    ("abc\x1b[D\x1b[DX\r", "aXbc"),  # left arrow
    ("abc\x1b[HX\x1b[FY\r", "XabcY"),  # Home, End
    ("abc\x1b[1~X\x1b[4~Y\r", "XabcY"),  # Home, End (vt220)
    ("ab cd\x1b[1;5DX\r", "ab Xcd"),  # Ctrl-Left: a word back
    ("ab cd\x1bbX\r", "ab Xcd"),  # Alt-b: a word back
    ("ab cd\x1b\x7fX\r", "ab X"),  # Alt-Backspace: the word before deleted
    ("a\x1b3b\r", "abbb"),  # Alt-3: the next key three times
    ("a\x1b[15~\x1bOPb\r", "ab"),  # F5, F1: keys, no text
    ("a\x1b[200~line [K with ]0;x\x1b[201~b\r", "aline [K with ]0;xb"),  # bracketed paste
    ("ab\x1b[<0;3;1Mc\r", "abc"),  # a mouse report
])
def test_prompt_toolkits_own_keys_still_work(keys: str, sent: str) -> None:
    assert _prompt(keys)[0] == sent


def test_a_sequence_cut_off_by_enter_is_typing_and_stays() -> None:
    """An OSC start with no end before Enter is what was typed (Alt-], then words)."""
    assert _prompt("a\x1b]0;b\r")[0] == "a]0;b"


def test_escape_end_reads_each_sequence_form() -> None:
    assert escape_end("\x1b[31mrest") == 5 and escape_end("\x1b[31") == PENDING
    assert escape_end("\x1b]0;t\x07x") == 6 and escape_end("\x1b]0;t\x1b") == PENDING
    assert escape_end("\x1b]0;t\x1b[K") == 5  # another sequence ends the string
    assert escape_end("\x1b]0;t\r") == 0 and escape_end("\x1b[3\r") == 0  # typed
    assert escape_end("\x1b(B") == 3 and escape_end("\x1b7") == 2 and escape_end("\x1bOx") == 3
    assert escape_end("\x1bb", lambda c: c == "b") == 0  # Alt-b: a key
    assert escape_end("plain") == 0 and escape_end("\x1b") == PENDING
    assert escape_end("\x1bPq" + "x" * 5000) == 0  # no end so far on: typing (Alt-P, words)
    assert escape_end("\x1bP\x07") == 0  # BEL ends only an OSC


def _approval_answer(keys: str) -> list[str]:
    import threading

    from prompt_toolkit.output import DummyOutput

    from goosectx.cli.approval_keys import ask_approval

    answers: list[str] = []
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        asking = threading.Thread(target=lambda: answers.append(
            ask_approval("shell", input=pipe, output=DummyOutput())), daemon=True)
        asking.start()
        asking.join(20)
        if asking.is_alive():
            pipe.send_text("\x03")  # let it end
            asking.join(5)
    return answers


def test_an_escape_sequence_typed_at_the_approval_question_is_dropped_and_the_key_answers(
        ) -> None:
    """Its Escape key cancelled the question (``ESC [ K`` ended the turn)."""
    assert _approval_answer("\x1b[K\x1b]0;title\x07\x1b[2J\x1bPq\x1b\\y") == ["allow_once"]


def test_escape_alone_still_cancels_the_approval_question() -> None:
    assert _approval_answer("\x1b") == ["cancel"]
    assert _approval_answer("\x1by") == ["cancel"]  # Escape, then y at once: Escape counts


@pytest.mark.parametrize("sequence", ["\x1b[K", "\x1b]0;title\x07", "\x1b(B"])
def test_an_escape_sequence_typed_at_the_reason_prompt_is_dropped_whole(sequence: str) -> None:
    assert _reason("use " + sequence + "tests\r")[0] == "use tests"


def test_guard_stands_aside_on_a_prompt_toolkit_without_the_parser_internals_it_uses(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard subclasses prompt-toolkit's parser through names outside its public API:
    on a release without them the prompt keeps prompt-toolkit's own parser (keys as before)
    instead of failing to start."""
    from prompt_toolkit.input import vt100_parser

    from goosectx.cli import input_guard

    with create_pipe_input() as pipe:
        input_guard.guard_input(pipe)
        assert type(pipe.vt100_parser) is not vt100_parser.Vt100Parser  # (guarded here)
    monkeypatch.delattr(vt100_parser, "_Flush")
    monkeypatch.setattr(input_guard, "_PARSER_INTERNALS_PRESENT", all(
        hasattr(owner, name) for owner, name in input_guard._PARSER_INTERNALS))
    with create_pipe_input() as pipe:
        input_guard.guard_input(pipe)
        assert type(pipe.vt100_parser) is vt100_parser.Vt100Parser
    assert type(input_guard.parse_keys(lambda _key: None)) is vt100_parser.Vt100Parser
