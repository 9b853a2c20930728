"""The escape guard of every prompt: unknown escape sequences in the keys read are dropped.

prompt-toolkit's parser splits a sequence it does not know (``ESC [ K``, ``ESC [ 2 J``, an OSC
title ``ESC ] 0 ; t BEL``, a DCS string) into an Escape key and text, leaving ``[K`` or
``]0;t`` in the line (and at the approval question the Escape cancelled it).
:func:`guard_input` gives an input :class:`_GuardedParser`, which drops each whole; the keys
prompt-toolkit knows (arrows, F-keys, bracketed paste, mouse reports, a reply to its cursor
position request) and an ``ESC x`` pair something binds (Alt-x) are its as before; the
application keypad's ``ESC O`` keys (``ESC O p`` 0 … ``ESC O y`` 9, ``* + , - . / =``, Enter)
are the keys they stand for (its table has none of them). Keys
arriving in pieces: a control string still open when input pauses is held to its end; a
paste start with no end ends at a Ctrl-C byte, which gives the keys it held back to the line
at a prompt (a pause ends it only in the keys typed during a turn). :func:`parse_keys` reads
the type-ahead kept from a turn (cli/terminal.py) the same way. The prompt's drawing of outside
text is :mod:`goosectx.cli.prompt_safe` (docs/architecture.md, "The print path").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator

from prompt_toolkit.application.current import get_app
from prompt_toolkit.input import Input, vt100_parser
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout.controls import BufferControl

__all__ = ["PENDING", "escape_end", "guard_input", "parse_keys"]

PENDING = -1
""":func:`escape_end`: the text so far starts a sequence that is not complete yet."""
_ESC, _BEL = "\x1b", "\x07"
_STRINGS = "]PX^_"
"""After ESC, what starts a control string: OSC (ends at BEL or ST), DCS, SOS, PM, APC."""
_STRING_STOP = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
"""What ends a control string (BEL, ESC) or shows it was none (another control: typed)."""
_LONGEST_STRING = 4096
"""A control string not ended by then is typing, not a sequence (an Alt-P, then words)."""
_CTRL_C, _PASTE_END = "\x03", "\x1b[201~"
_LONGEST_KEY = 32
"""Longer than any key prompt-toolkit's parser knows (a mouse report is at most 16)."""
_SEQUENCE_CAPITALS = "DEHMNOVWZ"
"""``ESC`` and these capitals are sequences a terminal acts on (index, next line, tab set,
reverse index, SS2 / SS3, guarded area, identify): dropped whole. ``ESC`` and another letter
is the Escape key and a word typed at once (``one ESC Two``): the letter stays."""
_KEYPAD_FINALS = "jklmnopqrstuvwxy"
"""``ESC O`` and these: the keypad's keys in its application mode (``* + , - . /`` and the
digits), the only lowercase finals a terminal sends after SS3; after any other lowercase
letter ``ESC O`` is Alt-O and a word typed at once (``ESC N`` never comes from a key)."""
_KEYPAD_KEYS: dict[str, str | Keys] = {
    **dict(zip(_KEYPAD_FINALS, "*+,-./0123456789", strict=True)), "X": "=", "M": Keys.ControlM}
"""The key each application-keypad ``ESC O`` final stands for (prompt-toolkit's table knows
none of them): its character, and the keypad's Enter (``ESC O M``) an Enter."""


def escape_end(text: str, is_key: Callable[[str], bool] = lambda _c: False) -> int:
    """Where an escape sequence ``text`` starts with ends, to be dropped whole.

    A CSI (``ESC [``, parameters and intermediates 0x20–0x3F, a final 0x40–0x7E), a
    control string (OSC to BEL or ST, ``ESC`` backslash; DCS / SOS / PM / APC to ST; another
    ESC inside ends it there), an ``ESC N`` / ``ESC O`` and one character (not a lowercase
    letter no key sends after it: :data:`_KEYPAD_FINALS`; Alt-O and a word keep it), ``ESC``
    intermediates and a final (``ESC ( B``) or a lone ``ESC final`` pair (``ESC =``, ``ESC
    H``); but ``ESC`` and a letter no sequence starts with (any lowercase one, a capital not
    in :data:`_SEQUENCE_CAPITALS`) is the Escape key and a word typed at once (``one ESC
    hello``, ``one ESC Two``): only the ESC is dropped, so the letter stays.
    ``is_key(c)``: ``ESC c`` is a key something binds (Alt-c; Alt-7 also reads ``ESC 7``):
    then no sequence. Returns the length of the sequence, :data:`PENDING` when ``text`` is
    a start of one, 0 when it starts none (a control character or non-ASCII inside: typing,
    not a sequence).
    """
    if not text.startswith(_ESC):
        return 0
    if len(text) < 2:
        return PENDING
    kind = text[1]
    if kind == "[":
        return _run_end(text, 2, 0x20, 0x3F, 0x40)
    if kind in _STRINGS:
        return _string_end(text, kind)
    if not " " <= kind <= "~" or is_key(kind):
        return 0
    if kind.isalpha() and kind not in _SEQUENCE_CAPITALS:
        return 1  # Escape, then a word typed at once: the ESC alone (no key reads ESC h)
    if kind in "NO":
        if len(text) < 3:
            return PENDING
        if "a" <= text[2] <= "z" and (kind == "N" or text[2] not in _KEYPAD_FINALS):
            return 1  # Alt-O (Alt-N), then a word typed at once: no key sends it
        return 3 if " " <= text[2] <= "~" else 0
    if kind < "0":  # nF: intermediates, then a final
        return _run_end(text, 2, 0x20, 0x2F, 0x30)
    return 2


def _run_end(text: str, start: int, low: int, high: int, final: int) -> int:
    """Past the first character from ``start`` in ``final``–0x7E, all before in low–high."""
    for i in range(start, len(text)):
        code = ord(text[i])
        if final <= code <= 0x7E:
            return i + 1
        if not low <= code <= high:
            return 0
    return PENDING


def _string_end(text: str, kind: str) -> int:
    """:func:`escape_end` of a control string: one search (C speed) for what ends it."""
    found = _STRING_STOP.search(text, 2, _LONGEST_STRING)
    if found is None:
        return PENDING if len(text) < _LONGEST_STRING else 0
    i, char = found.start(), found.group()
    if char == _BEL:
        return i + 1 if kind == "]" else 0
    if char == _ESC:
        if i + 1 == len(text):
            return PENDING
        return i + 2 if text[i + 1] == "\\" else i  # (another sequence: this one ends)
    return 0  # Enter, Ctrl-C: keys typed, not a string


def _bound_after_escape(char: str) -> bool:
    """True when the running application has a key for ``ESC char``.

    Alt-c, or an eager Escape of its own (the approval question's cancel, pressed just
    before ``char``).
    """
    bindings = getattr(get_app().key_processor, "_bindings", None)  # (the merged key bindings)
    if bindings is None:
        return True  # (a prompt-toolkit without it: ESC c stays a key, as before the guard)
    return any(b.filter() for b in bindings.get_bindings_for_keys((Keys.Escape, char))) or any(
        b.filter() and b.eager() for b in bindings.get_bindings_for_keys((Keys.Escape,)))


def _line_under_edit() -> bool:
    """True when the running application's focus is a line being edited (a prompt's)."""
    control = get_app().layout.current_control
    return isinstance(control, BufferControl) and not control.buffer.read_only()


class _GuardedParser(Vt100Parser):
    """prompt-toolkit's parser, with an escape sequence it does not know dropped whole.

    As its own state machine: the keys it knows (a sequence in its table, a cursor position
    reply, a mouse report) first; then, where it would have split what it read into an
    Escape key and text, a sequence :func:`escape_end` reads is waited for and dropped.
    A flush (no more input for a moment: a lone Escape key) ends the wait as before, except
    for a control string already under way (``ESC ] 0 ; ti``, the rest a moment later over a
    slow link): it is held until it ends (dropped), an Enter or another control key comes
    (typing) or it reaches :data:`_LONGEST_STRING`; unless ``ESC ]`` / ``ESC P`` is a key
    something binds, or ``hold_strings`` is off (the end of what was typed during a turn).

    A bracketed paste (prompt-toolkit reads it whole up to its end mark) also ends at a Ctrl-C
    byte: a stray ``ESC [ 200 ~`` no longer swallows every key until an end mark comes. At a
    line being edited (the prompt, the reason prompt) the keys it held are given back into
    the line (as pasted text: an Enter among them is a newline, nothing is sent) and that
    Ctrl-C only ends the paste; with nothing held, or elsewhere (the approval question, keys
    typed during a turn), the Ctrl-C is the key it is. A pause does not end a paste: a real
    paste over a slow link may stall, and its rest read as typed keys would send half of it.
    """

    def __init__(self, feed_key_callback: Callable[[KeyPress], None],
                 hold_strings: bool = True) -> None:
        self.hold_strings = hold_strings
        self._paste_buffer = ""
        super().__init__(feed_key_callback)

    def feed(self, data: str) -> None:
        """prompt-toolkit's; in a paste, a Ctrl-C before the end mark ends the paste there."""
        cut = data.find(_CTRL_C) if self._in_bracketed_paste else -1
        if cut >= 0:
            tail = self._paste_buffer[-(len(_PASTE_END) - 1):]
            end = (tail + data[:cut]).find(_PASTE_END)
            if end < 0:  # (a paste that ended first: prompt-toolkit's, the Ctrl-C after it)
                self._paste_buffer += data[:cut]
                gives_back = bool(self._paste_buffer) and _line_under_edit()
                self._end_paste()
                super().feed(data[cut + 1:] if gives_back else data[cut:])
                return
        super().feed(data)

    def flush(self) -> None:
        """prompt-toolkit's; a paste still open ends here where no more input follows.

        That is what was typed during a turn (``hold_strings`` off); at a prompt a pause does
        not end a paste.
        """
        if self._in_bracketed_paste and not self.hold_strings:
            self._end_paste()
        super().flush()

    def _end_paste(self) -> None:
        self._in_bracketed_paste = False
        pasted, self._paste_buffer = self._paste_buffer, ""
        if pasted:
            self.feed_key_callback(KeyPress(Keys.BracketedPaste, pasted))

    def _holds(self, prefix: str) -> bool:
        """Whether a pending ``prefix`` is a control string under way, kept past a flush."""
        return self.hold_strings and len(prefix) > 2 and prefix[1] in _STRINGS \
            and not _bound_after_escape(prefix[1])

    def _input_parser_generator(self) -> Generator[None, str | vt100_parser._Flush, None]:
        prefix = ""
        retry = False
        while True:
            flush = False
            if retry:
                retry = False
            else:
                char = yield
                if isinstance(char, vt100_parser._Flush):
                    flush = True
                else:
                    prefix += char
            if not prefix or (not flush and len(prefix) <= _LONGEST_KEY
                              and vt100_parser._IS_PREFIX_OF_LONGER_MATCH_CACHE[prefix]):
                continue  # (its cache keeps each prefix: a long string's are no key's)
            match = self._get_match(prefix)
            if match:
                self._call_handler(match, prefix)
                prefix = ""
                continue
            end = escape_end(prefix, _bound_after_escape)
            if end == PENDING and (not flush or self._holds(prefix)):
                continue
            retry = True
            if end == 3 and prefix[1] == "O" and prefix[2] in _KEYPAD_KEYS:
                key = _KEYPAD_KEYS[prefix[2]]
                self._call_handler(key, "\r" if key == Keys.ControlM else key)
                prefix = prefix[3:]
                retry = bool(prefix)
                continue
            if end > 0:
                prefix = prefix[end:]  # dropped whole
                retry = bool(prefix)
                continue
            for i in range(len(prefix), 0, -1):  # prompt-toolkit's: the longest known first
                if match := self._get_match(prefix[:i]):
                    self._call_handler(match, prefix[:i])
                    prefix = prefix[i:]
                    break
            else:
                self._call_handler(prefix[0], prefix[0])
                prefix = prefix[1:]


_PARSER_INTERNALS = (
    (vt100_parser, "_IS_PREFIX_OF_LONGER_MATCH_CACHE"), (vt100_parser, "_Flush"),
    (Vt100Parser, "_input_parser_generator"), (Vt100Parser, "_get_match"),
    (Vt100Parser, "_call_handler"))
"""What :class:`_GuardedParser` uses of prompt-toolkit's parser that is not its public API."""
_PARSER_INTERNALS_PRESENT = all(hasattr(owner, name) for owner, name in _PARSER_INTERNALS) \
    and hasattr(Vt100Parser(lambda _key: None), "_in_bracketed_paste")  # (set by its reset)


def guard_input(input: Input) -> None:
    """Parse ``input``'s keys with unknown escape sequences dropped (:class:`_GuardedParser`).

    For a terminal's input (and a pipe's: tests); once per input, which every prompt and
    question reading it then shares. Other inputs (Windows' console) are left as they are.
    """
    parser = getattr(input, "vt100_parser", None)
    if not _PARSER_INTERNALS_PRESENT:
        return  # (another prompt-toolkit: its keys as they come, unknown sequences too)
    if isinstance(parser, Vt100Parser) and not isinstance(parser, _GuardedParser):
        guarded = _GuardedParser(parser.feed_key_callback)
        guarded._in_bracketed_paste = parser._in_bracketed_paste
        guarded._paste_buffer = getattr(parser, "_paste_buffer", "")
        input.vt100_parser = guarded  # type: ignore[attr-defined]


def parse_keys(feed_key_callback: Callable[[KeyPress], None], *,
               hold_strings: bool = True) -> Vt100Parser:
    """A parser of terminal input that drops unknown escape sequences (:class:`_GuardedParser`).

    For keys read outside a prompt (typed during a turn: ``hold_strings`` off, as no more
    input follows); prompt-toolkit's own parser where its internals the guard uses are
    missing.
    """
    if not _PARSER_INTERNALS_PRESENT:
        return Vt100Parser(feed_key_callback)
    return _GuardedParser(feed_key_callback, hold_strings)
