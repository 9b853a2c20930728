"""The prompt's share of the print path: what it draws of outside text, and stray escapes.

The prompt line draws text goosectx did not write: a file name Tab inserted after ``@``, an
input history entry (the up arrow, Ctrl-R), a pasted line, a session name after ``/resume``,
the completion menu's entries (file names, custom commands' descriptions, extension
resources). It all reaches the terminal through :func:`~goosectx.cli.sanitize.terminal_safe`
(docs/architecture.md, "The print path"):

* :class:`SafeDisplay` draws every buffer of the prompt (the message, the Ctrl-R search
  field) with the sanitiser's stand-ins: a name holding U+202E shows ``<U+202E>``, an ESC
  ``␛``. Only the drawing changes: the buffer keeps the characters, so an inserted
  ``@`` name is the file's real name and the message attaches that very file.
* :func:`safe_completions` passes each completion's menu text (display and meta) through it.

And :func:`guard_escape_input`: an SGR colour sequence (``ESC [ 31 m``) typed or pasted
without bracketed paste is what prompt-toolkit's parser reads as a mouse event; its mouse
handler then raised (a traceback, "Press ENTER to continue…", the next line merged into the
broken one). Such a sequence is dropped (the text around it is kept, as a terminal would
have drawn it); a well-formed mouse event still goes to prompt-toolkit's handler.
:func:`guard_input` does the same for every other escape sequence prompt-toolkit's parser
does not know (``ESC [ K``, ``ESC [ 2 J``, an OSC title ``ESC ] 0 ; t BEL``, a DCS string):
it split them into an Escape key and text, leaving ``[K`` or ``]0;t`` in the line (and at
the approval question the Escape cancelled it). Each is dropped whole; the keys
prompt-toolkit knows (arrows, F-keys, bracketed paste, mouse reports, a reply to its cursor
position request) and an ``ESC x`` pair something binds (Alt-x) are its as before. Keys
arriving in pieces (:class:`_GuardedParser`): a control string still open when input pauses
is held to its end; a paste start with no end ends at the pause or a Ctrl-C byte.
:func:`parse_keys` reads the type-ahead kept from a turn the same way.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Generator, Iterable, Iterator

from prompt_toolkit.application.current import get_app
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, DynamicCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples, to_formatted_text
from prompt_toolkit.formatted_text.utils import fragment_list_to_text
from prompt_toolkit.input import Input, vt100_parser
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyBindings, KeyPress, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.processors import Processor, Transformation, TransformationInput
from prompt_toolkit.layout.utils import explode_text_fragments

from goosectx.cli.sanitize import terminal_safe

__all__ = ["SafeDisplay", "escape_end", "guard_escape_input", "guard_input", "is_mouse_event",
           "parse_keys", "safe_completions", "shown_characters"]

_JOINERS = "\u200c\u200d"
_SGR_MOUSE = re.compile(r"\x1b\[<\d+;\d+;\d+[mM]\Z")
"""xterm SGR mouse report: ``ESC [ < button ; x ; y M`` (``m``: a release)."""
_URXVT_MOUSE = re.compile(r"\x1b\[\d+;\d+;\d+M\Z")
"""urxvt mouse report: ``ESC [ button ; x ; y M`` (a colour sequence ends in ``m``)."""


def shown_characters(line: str) -> list[str]:
    """What the prompt draws for each character of ``line``: itself, or its stand-in.

    As :func:`terminal_safe` draws ``line``, one entry per character (so the cursor can be
    placed): a joiner between two visible non-ASCII characters (an emoji sequence) is kept.
    """
    out: list[str] = []
    for i, char in enumerate(line):
        shown = terminal_safe(char)
        if shown != char and char in _JOINERS and 0 < i < len(line) - 1 \
                and char in terminal_safe(line[i - 1:i + 2]):
            shown = char
        out.append(shown)
    return out


class SafeDisplay(Processor):
    """Draws a buffer's line with the sanitiser's stand-ins; cursor and clicks mapped."""

    def apply_transformation(self, transformation_input: TransformationInput
                             ) -> Transformation:
        """The line's fragments as shown; unchanged (one scan) when nothing needs a stand-in."""
        fragments = transformation_input.fragments
        text = fragment_list_to_text(fragments)
        if terminal_safe(text) == text:
            return Transformation(fragments)
        exploded = explode_text_fragments(fragments)
        shown = shown_characters(fragment_list_to_text(exploded))
        out: StyleAndTextTuples = []
        starts: list[int] = []  # display position of each source character, then the end
        position = 0
        for fragment, char_shown in zip(exploded, shown, strict=True):
            starts.append(position)
            out.append((fragment[0], char_shown, *fragment[2:]))
            position += len(char_shown)
        starts.append(position)

        def source_to_display(source: int) -> int:
            return starts[source] if source < len(starts) else position + source - len(exploded)

        def display_to_source(display: int) -> int:
            return max(0, bisect.bisect_right(starts, display) - 1)

        return Transformation(out, source_to_display=source_to_display,
                              display_to_source=display_to_source)


def show_safely(controls: Iterable[object]) -> None:
    """Add :class:`SafeDisplay` to each buffer control of ``controls`` (a prompt's layout)."""
    for control in controls:
        if isinstance(control, BufferControl) and not any(
                isinstance(p, SafeDisplay) for p in control.input_processors or []):
            if control.input_processors is None:
                control.input_processors = []
            control.input_processors.append(SafeDisplay())


class _SafeMenu(Completer):
    """``completer`` with each completion's menu text passed through the sanitiser."""

    def __init__(self, completer: Completer) -> None:
        self.completer = completer

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Iterator[Completion]:
        """The completer's completions; one whose menu text needs a stand-in remade safe."""
        for completion in self.completer.get_completions(document, complete_event):
            display = [(style, terminal_safe(text), *rest)
                       for style, text, *rest in completion.display]
            meta = [(style, terminal_safe(text), *rest)
                    for style, text, *rest in completion.display_meta]
            if display == completion.display and meta == completion.display_meta:
                yield completion  # (the same object: MoreNotListed stays itself)
            else:
                yield Completion(completion.text, completion.start_position,
                                 display=to_formatted_text(display),  # type: ignore[arg-type]
                                 display_meta=to_formatted_text(meta),  # type: ignore[arg-type]
                                 style=completion.style,
                                 selected_style=completion.selected_style)


def safe_completions(completer: Callable[[], Completer | None]) -> Completer:
    """The completer ``completer()`` returns (it may be replaced later), its menu made safe."""
    def current() -> Completer | None:
        inner = completer()
        return None if inner is None else _SafeMenu(inner)

    return DynamicCompleter(current)


def is_mouse_event(data: str) -> bool:
    """True when ``data`` (what the parser read as a mouse event) is a well-formed one.

    ``ESC [ M`` and three bytes (the classic report), an xterm SGR or an urxvt report.
    Anything else that matched prompt-toolkit's pattern (``ESC [ 31 m``, ``ESC [ 1 ; 2 m``,
    a colour of 256 ``ESC [ 38 ; 5 ; 196 m``) is a colour sequence.
    """
    if data.startswith("\x1b[M"):
        from prompt_toolkit.key_binding.bindings.mouse import typical_mouse_events

        return len(data) == 6 and ord(data[3]) in typical_mouse_events
    return bool(_SGR_MOUSE.match(data) or _URXVT_MOUSE.match(data))


def guard_escape_input(kb: KeyBindings) -> None:
    """Bind ``Keys.Vt100MouseEvent`` in ``kb``: a colour sequence is dropped, no traceback.

    The prompt's own bindings take precedence over prompt-toolkit's defaults (the key
    processor calls the last match, and an application's bindings come after its defaults),
    so this one is called instead of the default mouse handler, which it calls for a
    well-formed event.
    """
    from prompt_toolkit.key_binding.bindings.mouse import load_mouse_bindings

    default = load_mouse_bindings().get_bindings_for_keys((Keys.Vt100MouseEvent,))[0]

    @kb.add(Keys.Vt100MouseEvent)
    def _mouse_or_colour(event: KeyPressEvent) -> object:
        if is_mouse_event(event.data):
            return default.handler(event)
        return None  # a colour sequence typed or pasted: dropped, the text around it kept


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


def escape_end(text: str, is_key: Callable[[str], bool] = lambda _c: False) -> int:
    """Where an escape sequence ``text`` starts with ends, to be dropped whole.

    A CSI (``ESC [``, parameters and intermediates 0x20–0x3F, a final 0x40–0x7E), a
    control string (OSC to BEL or ST, ``ESC`` backslash; DCS / SOS / PM / APC to ST; another
    ESC inside ends it there), an ``ESC N`` / ``ESC O`` and one character, ``ESC``
    intermediates and a final (``ESC ( B``) or a lone ``ESC final`` pair (``ESC =``); but
    ``ESC`` and a lowercase letter is the Escape key and a word typed at once (``one ESC
    hello``): only the ESC is dropped, so the ``h`` stays.
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
    if "a" <= kind <= "z":
        return 1  # Escape, then a word typed at once: the ESC alone (no key reads ESC h)
    if kind in "NO":
        return PENDING if len(text) < 3 else 3 if " " <= text[2] <= "~" else 0
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

    A bracketed paste (prompt-toolkit reads it whole up to its end mark) also ends when the
    input pauses (a flush: a real paste arrives in one burst) or at a Ctrl-C byte, which is
    the key it is: a stray ``ESC [ 200 ~`` no longer swallows Enter, Ctrl-C and Ctrl-D.
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
                self._end_paste()
                super().feed(data[cut:])
                return
        super().feed(data)

    def flush(self) -> None:
        """prompt-toolkit's; a paste not ended by now ends here with what came of it."""
        if self._in_bracketed_paste:
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
