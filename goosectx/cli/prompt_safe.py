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
position request) and an ``ESC x`` pair something binds (Alt-x) are its as before
(:mod:`goosectx.cli.input_guard`, re-exported here).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, DynamicCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples, to_formatted_text
from prompt_toolkit.formatted_text.utils import fragment_list_to_text
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.processors import Processor, Transformation, TransformationInput
from prompt_toolkit.layout.utils import explode_text_fragments

from goosectx.cli.input_guard import PENDING, escape_end, guard_input, parse_keys
from goosectx.cli.sanitize import terminal_safe

__all__ = ["PENDING", "SafeDisplay", "escape_end", "guard_escape_input", "guard_input",
           "is_mouse_event", "parse_keys", "safe_completions", "shown_characters"]

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
