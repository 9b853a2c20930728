"""The input guard when keys arrive in pieces: a paste start with no end, a control string
split across two writes, Escape then typing at once, escape sequences typed during a turn
(cli/input_guard.py, cli/terminal.py).

A stray ``ESC [ 200 ~`` locked the prompt and the approval question (Enter, Ctrl-C, Ctrl-D,
Esc swallowed until an ``ESC [ 201 ~``); ``ESC ] 0 ; ti`` then ``tle BEL`` a moment later left
``]0;title`` in the line; ``one ESC hello`` sent ``one ello``; ``ESC [ 2 J`` typed while the
model answered reached the next prompt as ``[2J``.
"""

from __future__ import annotations

import io
import threading
import time

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from goosectx.cli.input_guard import escape_end, parse_keys
from goosectx.cli.prompt import make_prompt_session
from goosectx.cli.terminal import typed_keys

PAUSE_S = 1.0
"""Longer than prompt-toolkit's flush timeout (0.5 s): the input paused."""


def _prompt_in_steps(*steps: str) -> tuple[list[object], str]:
    """What the prompt returns (or raises) after ``steps`` sent with a pause between each."""
    drawn = io.StringIO()
    output = Vt100_Output(drawn, lambda: Size(rows=24, columns=100), term="xterm")
    result: list[object] = []
    with create_pipe_input() as pipe:
        session = make_prompt_session(history_path=None, toolbar=lambda: "", input=pipe,
                                      output=output)

        def run() -> None:
            try:
                result.append(session.prompt())
            except (KeyboardInterrupt, EOFError) as exc:
                result.append(type(exc))

        prompting = threading.Thread(target=run, daemon=True)
        prompting.start()
        for step in steps:
            pipe.send_text(step)
            time.sleep(PAUSE_S)
        prompting.join(10)
        if prompting.is_alive():
            pipe.close()  # (ends the prompt: the test fails on what it returned)
            prompting.join(5)
    return result, drawn.getvalue()


def test_a_paste_paused_mid_way_stays_one_paste_until_its_end_mark() -> None:
    """A paste over a slow link may stall: its newline must not become Enter and send half."""
    result, _drawn = _prompt_in_steps("x\x1b[200~abc\rdef", "gh\x1b[201~", "\r")
    assert result == ["xabc\ndefgh"]


def test_ctrl_c_after_a_paste_start_with_no_end_gives_the_keys_back_in_the_line() -> None:
    """The keys the paste held are the line's again (its Enter a newline: nothing is sent);
    that Ctrl-C only ends the paste, the next ones clear the line and interrupt as always."""
    assert _prompt_in_steps("x\x1b[200~abc", "\x03", "de\r")[0] == ["xabcde"]
    assert _prompt_in_steps("x\x1b[200~abc\x03de\r")[0] == ["xabcde"]
    assert _prompt_in_steps("x\x1b[200~ab\rc", "\x03", "\r")[0] == ["xab\nc"]
    assert _prompt_in_steps("x\x1b[200~abc", "\x03", "\x03new\r")[0] == ["new"]
    assert _prompt_in_steps("x\x1b[200~abc", "\x03", "\x03", "\x03")[0] == [KeyboardInterrupt]


def test_ctrl_c_right_after_a_paste_start_is_ctrl_c() -> None:
    """Nothing held to give back: it clears the line, as Ctrl-C does."""
    assert _prompt_in_steps("x\x1b[200~", "\x03", "y\r")[0] == ["y"]


def test_a_whole_paste_with_newlines_in_one_burst_is_still_one_paste() -> None:
    result, _drawn = _prompt_in_steps("a\x1b[200~one\rtwo\x1b[201~b", "\r")
    assert result == ["aone\ntwob"]


def _keys(*writes: str) -> list[KeyPress]:
    """The keys the guarded parser reads from ``writes``, each followed by a pause (flush)."""
    keys: list[KeyPress] = []
    parser = parse_keys(keys.append)
    for data in writes:
        parser.feed(data)
        parser.flush()
    return keys


def test_a_ctrl_c_byte_ends_a_paste_and_is_a_key_with_the_keys_after_it() -> None:
    keys = _keys("x\x1b[200~abc\x03de")
    assert [(k.key, k.data) for k in keys] == [
        ("x", "x"), (Keys.BracketedPaste, "abc"), (Keys.ControlC, "\x03"), ("d", "d"),
        ("e", "e")]


def _ask(*steps: str) -> list[str]:
    from goosectx.cli.approval_keys import ask_approval

    answers: list[str] = []
    with create_pipe_input() as pipe:
        asking = threading.Thread(target=lambda: answers.append(
            ask_approval("shell", input=pipe, output=DummyOutput())), daemon=True)
        asking.start()
        for step in steps:
            pipe.send_text(step)
            time.sleep(PAUSE_S)
        asking.join(10)
        if asking.is_alive():
            pipe.close()
            asking.join(5)
    return answers


@pytest.mark.parametrize("key", ["\x1b", "\x04", "y", "\r"])
def test_after_a_paste_start_with_no_end_ctrl_c_still_cancels_the_approval_question(
        key: str) -> None:
    """What comes inside the paste answers nothing (pasted text is no answer); Ctrl-C ends
    the paste and cancels."""
    assert _ask("\x1b[200~", key, "\x03") == ["cancel"]


def test_a_ctrl_c_in_the_same_write_as_a_paste_start_cancels_the_approval_question() -> None:
    assert _ask("\x1b[200~pasted\x03") == ["cancel"]


def test_a_title_sequence_split_across_two_writes_is_dropped_whole() -> None:
    result, _drawn = _prompt_in_steps("hello \x1b]0;ti", "tle\x07 world", "\r")
    assert result == ["hello  world"]


def test_an_unended_string_then_enter_is_typing_after_a_pause_too() -> None:
    result, _drawn = _prompt_in_steps("a\x1b]0;b", "c\r")
    assert result == ["a]0;bc"]


def test_escape_then_text_at_once_keeps_the_first_letter_when_no_alt_key_is_bound() -> None:
    result, _drawn = _prompt_in_steps("one \x1bhello world\r")
    assert result == ["one hello world"]
    assert escape_end("\x1bh") == 1  # (the ESC alone)
    assert escape_end("\x1bb", lambda c: c == "b") == 0  # Alt-b: a key


def test_escape_then_a_capital_keeps_it_unless_the_pair_is_a_real_sequence() -> None:
    """``ESC D`` / ``E`` / ``H`` / ``M`` / ``Z`` (index, next line, tab set, reverse index,
    identify) are sequences a terminal acts on: dropped whole; any other capital is Escape,
    then the word typed at once, as for a small letter."""
    assert _prompt_in_steps("one \x1bTwo \x1bHx\r")[0] == ["one Two x"]
    assert [escape_end(f"\x1b{c}x") for c in "ABCTUY"] == [1] * 6
    assert [escape_end(f"\x1b{c}x") for c in "DEHMZ"] == [2] * 5
    assert escape_end("\x1bHx", lambda c: c == "H") == 0  # Alt-Shift-h, bound: a key


def test_alt_o_or_alt_n_then_a_word_at_once_loses_no_letter() -> None:
    """``ESC O`` (SS3) / ``ESC N`` (SS2) and one character were dropped whole: Alt-O then
    "hello" at once sent "ello" (the O and the h lost), at the prompt and in the type-ahead of
    a turn. A lowercase letter no key sends after them is a word: only the ESC goes, as for
    ``ESC T``; the keypad's application keys (``ESC O x``: 8) and the capitals stay sequences."""
    assert _prompt_in_steps("ab \x1bOhello \x1bNice\r")[0] == ["ab Ohello Nice"]
    assert _typed_text(b"ab \x1bOhello") == "ab Ohello"
    assert [escape_end(f"\x1bO{c}") for c in "abhiz"] == [1] * 5
    assert [escape_end(f"\x1bN{c}") for c in "ahx"] == [1] * 3
    assert [escape_end(f"\x1bO{c}") for c in "jxyMPX5"] == [3] * 7  # real SS3 finals
    assert _prompt_in_steps("ab \x1bOxcd\r")[0] == ["ab 8cd"]  # keypad 8 (application mode)


def test_the_application_keypad_types_its_digits_and_signs() -> None:
    """A terminal with its keypad in application mode sends ``ESC O p`` for 0 … ``ESC O y``
    for 9, ``ESC O j``–``o`` for ``* + , - . /``, ``ESC O X`` for ``=`` and ``ESC O M`` for its
    Enter: they were all dropped (no digit could be typed from the keypad, its Enter did
    nothing). At the prompt and in the keys typed during a turn they are those keys."""
    keypad = "".join(f"\x1bO{final}" for final in "jklmnopqrstuvwxyX")
    assert _prompt_in_steps(f"n {keypad}\x1bOM")[0] == ["n *+,-./0123456789="]
    assert _typed_text(f"n {keypad}".encode()) == "n *+,-./0123456789="
    assert _prompt_in_steps("7\x1bOkab\x1bOhi\r")[0] == ["7+abOhi"]  # Alt-O h: still a word


def test_an_alt_shift_letter_binding_still_gets_its_key() -> None:
    from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings

    kb = KeyBindings()
    for letter in "TH":
        kb.add("escape", letter)(lambda e, c=letter: e.current_buffer.insert_text(f"<{c}>"))
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=100), term="xterm")
    result: list[str] = []
    with create_pipe_input() as pipe:
        session = make_prompt_session(history_path=None, toolbar=lambda: "", input=pipe,
                                      output=output)
        session.key_bindings = merge_key_bindings([session.key_bindings or KeyBindings(), kb])
        prompting = threading.Thread(target=lambda: result.append(session.prompt()), daemon=True)
        prompting.start()
        pipe.send_text("a\x1bTb\x1bHc")
        time.sleep(PAUSE_S)
        pipe.send_text("\r")
        prompting.join(10)
        if prompting.is_alive():
            pipe.close()
            prompting.join(5)
    assert result == ["a<T>b<H>c"]


def test_alt_b_still_moves_a_word_back() -> None:
    assert _prompt_in_steps("ab cd\x1bbX\r")[0] == ["ab Xcd"]


def _typed_text(typed: bytes) -> str:
    return "".join(k.data for k in typed_keys(typed))


def test_escape_sequences_typed_during_a_turn_are_dropped_whole_from_the_type_ahead() -> None:
    assert _typed_text(b"typed \x1b[2Jduring\x1b]0;T\x07 turn") == "typed during turn"


def test_a_paste_start_typed_during_a_turn_keeps_the_text_after_it() -> None:
    keys = typed_keys(b"a \x1b[200~pasted words")
    assert "".join(k.data for k in keys) == "a pasted words"
    assert keys[-1].key == Keys.BracketedPaste


def test_type_ahead_keeps_arrows_and_drops_a_nul() -> None:
    keys = typed_keys(b"ab\x00\x1b[Dc")
    assert [k.key for k in keys] == ["a", "b", Keys.Left, "c"]


def test_a_paste_whose_rest_comes_after_a_pause_is_one_paste() -> None:
    assert _prompt_in_steps("a\x1b[200~one", "two\x1b[201~b\r")[0] == ["aonetwob"]


def test_a_split_title_at_the_approval_question_is_its_escape_key_not_held() -> None:
    """Its Escape cancels at once (eager): a held string would wait for keys it swallows."""
    assert _ask("\x1b]0;ti", "tle\x07y") == ["cancel"]


def test_escape_then_a_word_at_the_reason_prompt_keeps_the_word() -> None:
    from goosectx.cli.repl_approval import REASON_PROMPT, reason_session

    output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=100), term="xterm")
    with create_pipe_input() as pipe:
        pipe.send_text("use \x1bhelp\r")
        assert reason_session(pipe, output).prompt(REASON_PROMPT) == "use help"
