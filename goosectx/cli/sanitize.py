"""The one terminal-safe print path: outside text made harmless before any console.

Text that goosectx did not write itself — model text and reasoning, tool names, arguments
and output, provider error bodies, imported transcripts, session names, file paths — can
carry bytes that drive a terminal: OSC 52 writes the clipboard, OSC 0/2 sets the title,
OSC 8 draws a hidden link, ``CSI 2J`` clears the screen, a lone CR or backspaces overwrite
what was printed, bidirectional overrides make a command read differently from what runs
(docs/architecture.md, "The print path").

:func:`terminal_safe` is the one function that makes such text safe. Every character that
could drive a terminal or hide text is replaced by a visible stand-in, so the user sees
that something was there and nothing is executed:

* C0 controls except newline and tab become their Unicode control pictures
  (ESC → ``␛``, BEL → ``␇``, BS → ``␈``, a lone CR → ``␍``); DEL becomes ``␡``. An escape
  sequence therefore prints as text (``␛]52;c;…␇``, ``␛[2J``) and cannot act: every
  ESC-based sequence (CSI, OSC, DCS, SOS/PM/APC, single shifts ``ESC N``/``ESC O``) starts
  with ESC. CR LF becomes LF.
* C1 controls (U+0080–U+009F, among them the 8-bit CSI U+009B, OSC U+009D, DCS U+0090,
  ST U+009C) become ``<U+009B>``.
* Bidirectional overrides, embeddings, isolates and marks (U+202A–U+202E, U+2066–U+2069,
  U+200E, U+200F, U+061C), invisible characters (U+200B, U+2060–U+2064, U+FEFF, U+180E,
  U+206A–U+206F, U+FFF9–U+FFFB, the soft hyphen U+00AD, the tag characters U+E0000–U+E007F),
  the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0: blank, and drawn one or two cells wide
  where rich counts none, so they would push a panel's border out) and the line and
  paragraph separators (U+2028, U+2029: a line break to some terminals, nothing to others, so
  a line could read differently from what it holds) become ``<U+202E>``-style stand-ins.
* The zero-width joiner and non-joiner (U+200D, U+200C) are kept between two visible
  non-ASCII characters — where emoji sequences (👨‍💻) and Persian, Arabic and Indic words
  need them — and shown as stand-ins anywhere else (inside or beside ASCII, at a word's
  edge, next to another invisible character).
* Lone surrogates (which no terminal encoding can write) become U+FFFD.
* :data:`APPROVAL_MARKER` (``⚑``, U+2691) becomes ``<U+2691>``: only goosectx's own approval
  question shows it (``cli/approval_view.py``), so outside text cannot imitate that question.

It runs in linear time (one scan, no backtracking) and is idempotent.

:func:`code_safe` is the rule for code-like text — a tool call's name and arguments, a shell
command (the approval question, the tool-call line, ``!cmd``): :func:`terminal_safe`, and the
blank-looking characters a command could hide in or pad itself with (:data:`BLANK_LOOKING`:
U+00A0, U+115F, U+1160, U+2000–U+200A, U+202F, U+205F, U+2800, U+3000, U+3164, U+FFA0 …) and
the variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) as ``<U+3164>``-style stand-ins
too. Prose (an answer, reasoning) keeps them: a full-width space U+3000 in Chinese text, a
no-break space in French or an emoji's U+FE0F is legitimate there.

The rules for code under ``cli/`` (``tests/test_print_path.py`` checks the first two on
the source):

1. Never interpolate outside text into a rich markup string: no ``console.print(f"…{x}…")``
   and no ``print(f"…")`` of outside data. Build a ``rich.text.Text`` (markup never applies
   to it) or print with ``markup=False``; a model answer containing ``[bold red]`` or ``[/]``
   prints literally and never raises ``MarkupError``.
2. Consoles come from :func:`goosectx.cli.safe_console.safe_console` (a ``SafeConsole``),
   which passes every text segment it renders through :func:`terminal_safe` — the backstop
   for tables, panels and Markdown built from outside text. It lives in its own module so
   that writing plain text (``sessions show`` / ``export`` to a pipe) does not import rich.
3. Plain writes (``run``'s text output, plain REPL lines, ``sessions list`` without a
   terminal, ``info``, error lines) call :func:`terminal_safe` (or :class:`SafeStream` for
   text that arrives in pieces) themselves. Sanitise before layout where you can (widths
   then match what is drawn); the console backstop only catches what slipped through.
"""

from __future__ import annotations

import re

from goosectx.blank_chars import BLANK_LOOKING, VARIATION_SELECTORS, stand_in
from goosectx.lazy_pattern import LazyPattern

__all__ = ["APPROVAL_MARKER", "BLANK_LOOKING", "SafeStream", "code_safe", "json_safe",
           "one_line_safe", "strip_csi", "terminal_safe", "terminal_safe_utf8"]

APPROVAL_MARKER = "\u2691"
"""``⚑``: starts every line of goosectx's approval question; never shown from outside text."""

_JOINERS = "\u200c\u200d"
"""The zero-width non-joiner and joiner: kept between visible non-ASCII characters only."""
_INVISIBLE = (
    "\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f"
)
_UNSAFE_CLASS = f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}\ud800-\udfff{APPROVAL_MARKER}]"
"""One character that must not reach a terminal as it is (newline and tab may; a joiner may
where the kept-joiner pattern keeps it): :attr:`_Tables.unsafe`."""
_JOINER_NEIGHBOUR = (f"[^\x00-\x7f\x80-\x9f\\s{_INVISIBLE}\ud800-\udfff"
                     f"{APPROVAL_MARKER}]")
"""A visible non-ASCII character (what a kept joiner stands between)."""
_CSI = LazyPattern(r"\x1b\[[0-?]*[ -/]*[@-~]")
"""A complete 7-bit CSI sequence (colours, cursor moves): tool output may have it removed.
The 8-bit form (U+009B) is no program's normal output, so it stays visible."""


_SAFE_ASCII = b"\t\n" + bytes(range(0x20, 0x7F))
"""The ASCII characters that may reach a terminal as they are."""


def _has_unsafe(text: str) -> bool:
    """True when ``text`` has a character :data:`_UNSAFE_CLASS` matches (most text: C passes only).

    ASCII text: its bytes with the safe ones deleted. Other text: its UTF-8 bytes hold no
    byte that starts an unsafe character's encoding (:attr:`_Tables.safe_utf8`), or the regex.
    Deleting bytes is several times faster than the regex scan.
    """
    if text.isascii():
        return bool(text.encode("ascii").translate(None, _SAFE_ASCII))
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: unsafe
        return True
    tables = _tables or _built()
    if not data.translate(None, tables.safe_utf8):
        return False
    return tables.unsafe.search(text) is not None


def _stand_in(code: int) -> str:
    if code < 0x20:
        return chr(0x2400 + code)  # the control picture: ␛ ␇ ␈ ␍ ␀ …
    if code == 0x7F:
        return "\u2421"  # ␡
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"<U+{code:04X}>"


def _unsafe_codes() -> list[int]:
    ranges = [(0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0x00AD, 0x00AD), (0x061C, 0x061C),
              (0x115F, 0x1160), (0x180E, 0x180E), (0x200B, 0x200F), (0x3164, 0x3164),
              (0xFFA0, 0xFFA0), (0x2028, 0x2029), (0x202A, 0x202E),
              (0x2060, 0x2064), (0x2066, 0x206F),
              (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0xE0000, 0xE007F), (0xD800, 0xDFFF),
              (ord(APPROVAL_MARKER), ord(APPROVAL_MARKER))]
    return [code for low, high in ranges for code in range(low, high + 1)]


class _Tables:
    """The patterns and tables of non-ASCII text, built at the first text that needs them.

    Most commands print only ASCII (a plan, a table of names): they are never built there
    (~1.5 ms of regex compiles and tables at import otherwise).
    """

    __slots__ = ("unsafe", "kept_joiner", "stand_ins", "safe_utf8", "blank_stand_ins")

    def __init__(self) -> None:
        self.unsafe = re.compile(_UNSAFE_CLASS)
        """One character :data:`_UNSAFE_CLASS` matches."""
        self.kept_joiner = re.compile(
            f"(?<={_JOINER_NEIGHBOUR})[{_JOINERS}](?={_JOINER_NEIGHBOUR})")
        """A joiner between two visible non-ASCII characters: kept."""
        codes = _unsafe_codes()
        self.stand_ins = {code: _stand_in(code) for code in codes}
        """``str.translate`` table: each unsafe character to its visible stand-in (one C
        pass)."""
        self.safe_utf8 = bytes(set(range(256)) - {
            chr(code).encode("utf-8")[0] for code in codes if not 0xD800 <= code <= 0xDFFF})
        """Bytes that start no unsafe character's UTF-8 encoding: the ASCII ones of
        :data:`_SAFE_ASCII`, continuation bytes and every lead byte but C2, D8, E1, E2, EF and
        F3. UTF-8 text made only of them has no unsafe character (one with such a lead may be
        safe: the regex then decides)."""
        self.blank_stand_ins = {code: stand_in(code) for code in (
            *BLANK_LOOKING, *map(ord, _JOINERS), *VARIATION_SELECTORS)}
        """:func:`code_safe`'s table: the blank-looking characters, the joiners and the
        variation selectors prose keeps."""


_tables: _Tables | None = None


def _built() -> _Tables:
    """The tables, built at the first call."""
    global _tables
    if _tables is None:
        _tables = _Tables()
    return _tables


def __getattr__(name: str) -> re.Pattern[str]:
    """``_UNSAFE``: the pattern of one unsafe character (``safe_console`` imports it)."""
    if name == "_UNSAFE":
        return _built().unsafe
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def terminal_safe(text: str) -> str:
    """``text`` with every terminal-driving or invisible character shown as a stand-in.

    Args:
        text: Any text that goosectx did not write itself.

    Returns:
        The text with CR LF as LF and the characters listed in this module's docstring
        replaced by visible stand-ins; newline and tab kept. Linear in ``len(text)``;
        ``terminal_safe(terminal_safe(t)) == terminal_safe(t)``.
    """
    if not _has_unsafe(text):  # a CR is unsafe: most text is as it is after this one scan
        return text
    if "\r" in text:  # one character's search (memchr) is several times a two-character one
        text = text.replace("\r\n", "\n")
        if not _has_unsafe(text):
            return text
    if "\u200d" in text or "\u200c" in text:
        return _with_kept_joiners(text)
    return text.translate((_tables or _built()).stand_ins)


def terminal_safe_utf8(text: str) -> bytes:
    """``terminal_safe(text).encode("utf-8")``, text that is safe as it is encoded only once.

    For a long transcript written to a UTF-8 stream's bytes (``sessions show``): the scan of
    :func:`_has_unsafe` reads the UTF-8 bytes it makes, and those bytes are what is written
    (the stream's encoder would make them again). Any other text goes through
    :func:`terminal_safe`.
    """
    if text.isascii():  # as _has_unsafe decides, keeping the bytes
        data = text.encode("ascii")
        if not data.translate(None, _SAFE_ASCII):
            return data
    else:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: unsafe
            return terminal_safe(text).encode("utf-8")
        tables = _tables or _built()
        if not data.translate(None, tables.safe_utf8) or tables.unsafe.search(text) is None:
            return data
    return terminal_safe(text).encode("utf-8")


def _with_kept_joiners(text: str) -> str:
    """:func:`terminal_safe`'s stand-ins, the joiners between visible characters kept."""
    tables = _tables or _built()
    stand_ins = tables.stand_ins
    out: list[str] = []
    start = 0
    for match in tables.kept_joiner.finditer(text):
        out.append(text[start:match.start()].translate(stand_ins))
        out.append(match.group())
        start = match.end()
    out.append(text[start:].translate(stand_ins))
    return "".join(out)


def code_safe(text: str) -> str:
    """:func:`terminal_safe` for code-like text: blank-looking characters shown as well.

    For a tool call's name and arguments and a shell command, where a character that looks
    like a space but is not one can name a program (``ls\u3164``) or pad a command with
    screens of nothing; each of :data:`BLANK_LOOKING`, every zero-width joiner and
    non-joiner, and every variation selector (:data:`VARIATION_SELECTORS`) becomes
    ``<U+3164>``-style. Not for prose, where they are legitimate.
    Idempotent; linear in ``len(text)``.
    """
    text = terminal_safe(text)
    if text.isascii():
        return text
    return text.translate((_tables or _built()).blank_stand_ins)


def one_line_safe(text: str) -> str:
    """:func:`terminal_safe` for a one-line place (a name in a table row, a banner, a hint).

    Newline and tab are shown as their control pictures too (``␊``, ``␉``), so a stored name
    or title cannot split the line it is drawn on.
    """
    return terminal_safe(text).replace("\n", "\u240a").replace("\t", "\u2409")


def strip_csi(text: str) -> str:
    """``text`` without complete CSI sequences (colours, cursor moves, ``CSI 2J``).

    For tool output, where programs emit colour codes as a matter of course: they are
    removed rather than shown. Everything else still needs :func:`terminal_safe`.
    """
    if "\x1b" not in text:
        return text
    return _CSI.sub("", text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # a UTF-16 surrogate pair, as JSON spells astral characters
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_safe(json_text: str) -> str:
    r"""JSON text (from ``json.dumps``) with every unsafe character written as an escape.

    ``json.dumps`` escapes C0 controls but, with ``ensure_ascii=False``, writes C1 controls,
    bidirectional overrides and invisible characters raw. Escaping them too keeps every
    value identical for a JSON reader while no such byte reaches a terminal. Surrogates are
    made whole first (a pair's two halves joined into their character, a lone one U+FFFD),
    so the text is strict JSON: jq rejects a lone ``\ud800`` escape.
    """
    if not _has_unsafe(json_text):
        return json_text
    from goosectx.surrogates import whole_text  # here: most JSON texts have nothing to escape

    return (_tables or _built()).unsafe.sub(_json_escape, whole_text(json_text))


class SafeStream:
    """:func:`terminal_safe` for text that arrives in pieces (a streamed answer).

    A CR at the end of one piece is held back until the next shows whether it starts a
    CR LF, so a line ending split across two pieces is not drawn as ``␍``; so is a joiner at
    the end of a piece, until the next shows what it joins (a joiner that starts a piece is
    judged with the last character of the piece before).
    """

    def __init__(self) -> None:
        self._held = ""
        self._last = ""

    def feed(self, chunk: str) -> str:
        """The safe form of ``chunk``, given everything fed before."""
        text = self._held + chunk
        end = len(text)
        while end and text[end - 1] in _HELD_AT_END:
            end -= 1
        text, self._held = text[:end], text[end:]
        if not text:
            return ""
        last, self._last = self._last, text[-1]
        if last and text[0] in _JOINERS:
            return terminal_safe(last + text)[len(terminal_safe(last)):]
        return terminal_safe(text)

    def flush(self) -> str:
        """What is still held back (a final lone CR as ``␍``, a final joiner's stand-in)."""
        held, self._held = self._held, ""
        return terminal_safe(held) if held else ""


_HELD_AT_END = "\r" + _JOINERS
"""What :class:`SafeStream` holds back at the end of a piece."""
