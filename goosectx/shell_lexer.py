r"""A bash command line read the way bash reads it, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision. :func:`lex` cuts a command
line into simple commands (:class:`Part`), each a list of words (:class:`Word`), with bash's
own rules, not Python's: only space and tab separate words (a CR, VT, FF, NBSP, U+2028 … is a
character of the word, as bash reads it); ``;`` ``&`` ``|`` ``(`` ``)`` ``<`` ``>`` and
newline end a word; a backslash-newline outside single quotes is deleted before anything
else (``r\\<newline>m`` is ``rm``); ``#`` at the start of a word comments to the end of the
line; quotes are removed (``'…'``, ``"…"``, ``\\x``). The insides of ``$( )``, backticks and
``<( )`` (also inside ``${…}``) are parts of their own; a here-document's body is data, not
commands (an unquoted one's lines joined by backslash-newline before the delimiter test, as
bash does); ``((…))`` is arithmetic, whose ``<<`` is no here-document, unless its
parentheses close otherwise (``((ls) )``: subshells, as bash reads it). A word keeps
what bash would compute at run time (``$X``, ``$'…'``, ``$( )``) and whether it is a pattern
(an unquoted glob or brace expansion), so a rule can tell a command it reads from one it
cannot. A part bash reads in a way a rule cannot follow (a function or alias definition, a
``(`` inside a command, a quote inside ``${…}`` or ``((…))``, an unclosed quote) carries why
in :attr:`Part.unreadable`.

Core module: no printing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BLANKS = " \t"
_ENDS_WORD = " \t\n;&|()<>"
_SPECIAL_PARAMETER = re.compile(r"[A-Za-z_0-9@*#?$!{-]")
_MAX_DEPTH = 40
_BRACE = re.compile(r"\{([^{}]*)\}")
_REDIRECTION = re.compile(r"(\d*|&)(<<<|<<-|<<|>>|<>|>\||<&|>&|<|>)")
_STARTS_REDIRECTION = re.compile(r"\d+[<>]|&>")
_EMPTY_PARENS = re.compile(r"[ \t]*\)")
_RESERVED = frozenset({"!", "{", "if", "then", "else", "elif", "do", "while", "until"})
RESERVED_WORDS = _RESERVED | {"}", "fi", "done", "esac", "coproc"}
"""Reserved words bash reads before a command (``then rm x``): syntax, not a program — but
only where a command starts (after ``</dev/null`` a ``then`` is a program's name)."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a simple command.

    Attributes:
        raw: As written (backslash-newlines deleted, substitutions shown as ``$(…)``).
        value: After quote removal; what bash computes at run time is kept as written.
        expands: Bash computes part of it at run time (``$X``, ``$'…'``, ``$( )``, backticks).
        pattern: An unquoted glob (``*`` ``?`` ``[``) or brace expansion (``{a,b}``): bash
            may make it into other words.
    """

    raw: str
    value: str
    expands: bool = False
    pattern: bool = False


@dataclass(slots=True)
class Part:
    """One simple command (or one redirection, ``> TARGET``) of a command line."""

    words: list[Word] = field(default_factory=list)
    unreadable: str | None = None
    redirected: bool = False  # a redirection came before its first word

    @property
    def text(self) -> str:
        """The part as written, words joined by one space."""
        return " ".join(w.raw for w in self.words)


def _null_device(target: Word) -> bool:
    """True for a redirection target that is ``/dev/null`` as written (nothing computed).

    It reads and writes nothing, so ``2>/dev/null`` is not a part a rule must allow: it names
    no file.
    """
    return target.value == "/dev/null" and not (target.expands or target.pattern)


class _Lexer:
    def __init__(self, text: str, depth: int = 0) -> None:
        self.s = text
        self.depth = depth
        self.parts: list[Part] = []
        self.heredocs: list[tuple[str, bool, bool]] = []  # (delimiter, quoted, strip tabs)

    # -- commands -------------------------------------------------------------------------
    def line(self, i: int, closing: bool) -> int:
        """Scan commands from ``i``; with ``closing``, up to the ``)`` that ends them."""
        if self.depth >= _MAX_DEPTH:
            self.parts.append(Part(unreadable="it nests substitutions too deeply to read"))
            return len(self.s)
        self.depth += 1
        try:
            return self._line(i, closing)
        finally:
            self.depth -= 1

    def _line(self, i: int, closing: bool) -> int:  # noqa: C901 - one scanner
        s, part, depth = self.s, Part(), 0
        while i < len(s):
            c = s[i]
            if s.startswith("\\\n", i):
                i += 2
            elif c in _BLANKS:
                i += 1
            elif c == "#":
                end = s.find("\n", i)
                i = len(s) if end < 0 else end
            elif c == "\n":
                part = self.end(part)
                i = self.here_documents(i + 1)
            elif c in ";&|" and not s.startswith("&>", i):
                part = self.end(part)
                i += 1
            elif s.startswith("((", i) and all(w.raw in _RESERVED for w in part.words) and (
                    after := self.arithmetic(i)) is not None:
                i = after  # an arithmetic command: only its substitutions run
            elif c == "(":
                empty = _EMPTY_PARENS.match(s, i + 1)
                if len(part.words) == 1 and empty:
                    part.unreadable = "it defines a function"
                    i = empty.end()
                else:  # a subshell; in a command (arr=(…), extglob): unreadable
                    if part.words:
                        part.unreadable = "it has a '(' inside a command"
                    depth += 1
                    i += 1
                part = self.end(part)
            elif c == ")":
                part = self.end(part)
                i += 1
                if depth == 0 and closing:
                    return i
                depth = max(0, depth - 1)
            elif c in "<>" or _STARTS_REDIRECTION.match(s, i):
                i = self.redirection(i, part)
            else:
                word, i = self.word(i)
                if word.raw == "function" and not part.words:
                    part.unreadable = "it defines a function"
                if part.redirected and not part.words and word.raw in RESERVED_WORDS:
                    part.unreadable = f"bash runs {word.raw!r} after a redirection as a program"
                part.words.append(word)
        if closing:
            part.unreadable = part.unreadable or "a '$(' or '<(' is not closed"
        self.end(part)
        return i

    def end(self, part: Part) -> Part:
        if part.words or part.unreadable:
            self.parts.append(part)
        return Part()

    def redirection(self, i: int, part: Part) -> int:
        s, start = self.s, i
        match = _REDIRECTION.match(s, i)
        assert match is not None
        op = match.group(2)
        i = match.end()
        part.redirected = part.redirected or not part.words
        if op in "<>" and s.startswith("(", i):  # process substitution <( ) >( )
            glued = bool(match.group(1)) or start > 0 and s[start - 1] not in _ENDS_WORD
            i = self.line(i + 1, closing=True)
            word = Word(f"{op}(…)", f"{op}(…)", expands=True)
            if i < len(s) and s[i] not in _ENDS_WORD:  # <(ls)#x: one word, no comment
                rest, i = self.word(i)
                word, glued = Word(word.raw + rest.raw, word.value + rest.value, True), True
            if glued:  # bash runs ls<(ls) as the file ls/dev/fd/63
                part.unreadable = "a process substitution is joined to a word"
            part.words.append(word)
            return i
        while i < len(s) and (s[i] in _BLANKS or s.startswith("\\\n", i)):
            i += 2 if s[i] == "\\" else 1
        if i >= len(s) or s[i] in _ENDS_WORD:
            return i
        target, i = self.word(i)
        if op in ("<<", "<<-"):
            quoted = any(q in target.raw for q in "'\"\\")
            if "$'" in target.raw:  # bash decodes it: where the body ends is not read here
                self.parts.append(Part(unreadable="its here-document delimiter has $'…'"))
            self.heredocs.append((target.value, quoted, op == "<<-"))
        elif op == "<<<":
            pass  # a here-string: data for the command
        elif not (op.endswith("&") and re.fullmatch(r"\d+-?|-", target.value)
                  or _null_device(target)):
            shown = "<" if op in ("<", "<&") else ">>" if op == ">>" else ">"
            self.parts.append(Part([Word(shown, shown), target]))
        return i

    def here_documents(self, i: int) -> int:
        """Skip the bodies of the here-documents started on the line that just ended."""
        s = self.s
        for delimiter, quoted, strip in self.heredocs:
            start = i
            while i < len(s):
                line, i = self.body_line(i, joined=not quoted)
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
            if not quoted:  # $( ) and backticks in the body run
                self.parts.extend(substitutions(s[start:i], self.depth + 1))
        self.heredocs = []
        return min(i, len(s))

    def body_line(self, i: int, joined: bool) -> tuple[str, int]:
        r"""The here-document line from ``i`` and where the next starts.

        ``joined`` (an unquoted delimiter): a line ending in an odd number of backslashes goes
        on with the next, the backslash-newline deleted, as bash reads it before comparing the
        line with the delimiter (``EO\<newline>F`` ends a body delimited by ``EOF``).
        """
        s, line = self.s, ""
        while True:
            end = s.find("\n", i)
            end = len(s) if end < 0 else end
            piece = s[i:end]
            i = end + 1
            trailing = len(piece) - len(piece.rstrip("\\"))
            if not (joined and trailing % 2 and end < len(s)):
                return line + piece, i
            line += piece[:-1]

    # -- words ------------------------------------------------------------------------------
    def word(self, i: int) -> tuple[Word, int]:  # noqa: C901 - one scanner
        s = self.s
        raw: list[str] = []
        value: list[str] = []
        expands = pattern = False
        plain: list[str] = []  # the unquoted characters, for brace expansion
        while i < len(s) and s[i] not in _ENDS_WORD:
            c = s[i]
            if s.startswith("\\\n", i):
                i += 2
            elif c == "\\":
                raw.append(s[i:i + 2])
                value.append(s[i + 1:i + 2] or "\\")
                plain.append("_")
                i += 2
            elif c == "'":
                end = s.find("'", i + 1)
                end = len(s) if end < 0 else end
                if end == len(s):
                    self.unclosed()
                raw.append(s[i:end + 1])
                value.append(s[i + 1:end])
                plain.append("_")
                i = end + 1
            elif c == '"' or s.startswith('$"', i):
                start = i + 1 if c == '"' else i + 2
                inner, i = self.double_quoted(start, until='"')
                raw.append(s[start - (1 if c == '"' else 2):i])
                value.append(inner.value)
                expands = expands or inner.expands or c == "$"
                plain.append("_")
            elif s.startswith("$'", i):
                end = i + 2
                while end < len(s) and s[end] != "'":
                    end += 2 if s[end] == "\\" else 1
                if end >= len(s):
                    self.unclosed()
                raw.append(s[i:end + 1])
                value.append(s[i:end + 1])
                expands, i = True, end + 1
                plain.append("_")
            elif c in "$`":
                text, i, computed = self.expansion(i)
                raw.append(text)
                value.append(text)
                expands = expands or computed
                plain.append(text if not computed else "_")
            else:
                pattern = pattern or c in "*?"
                raw.append(c)
                value.append(c)
                plain.append(c)
                i += 1
        if raw[:1] == ["~"] and "/" not in "".join(value):
            expands = True  # ~ ~+ ~- ~user: $HOME, $PWD, $OLDPWD, a home directory
        unquoted = "".join(plain)
        bracket = unquoted.find("[")
        pattern = (pattern or bracket >= 0 and "]" in unquoted[bracket:]
                   or any("," in b or ".." in b for b in _BRACE.findall(unquoted)))
        return Word("".join(raw), "".join(value), expands, pattern), i

    def double_quoted(self, i: int, until: str) -> tuple[Word, int]:
        """The inside of ``"…"`` from ``i`` (or a here-document body: ``until`` empty)."""
        s = self.s
        value: list[str] = []
        expands = False
        while i < len(s) and (not until or s[i] != until):
            if s.startswith("\\\n", i):
                i += 2
            elif s[i] == "\\" and i + 1 < len(s) and s[i + 1] in '$`"\\':
                value.append(s[i + 1])
                i += 2
            elif s[i] in "$`":
                text, i, computed = self.expansion(i)
                value.append(text)
                expands = expands or computed
            else:
                value.append(s[i])
                i += 1
        if until and i >= len(s):
            self.unclosed()
        return Word("".join(value), "".join(value), expands), i + (1 if until else 0)

    def expansion(self, i: int) -> tuple[str, int, bool]:
        """``$X``, ``${…}``, ``$( )`` or a backtick at ``i``: (shown text, end, computed)."""
        s = self.s
        if s.startswith("$((", i):  # arithmetic: only its substitutions run
            end = self.arithmetic(i + 1)
            if end is not None:
                return "$((…))", end, True
        if s.startswith("$(", i):
            return "$(…)", self.line(i + 2, closing=True), True
        if s[i] == "`":
            end = i + 1
            while end < len(s) and s[end] != "`":
                end += 2 if s[end] == "\\" else 1
            if end >= len(s):
                self.unclosed()
            inner = re.sub(r"\\([\\`$])", r"\1", s[i + 1:end])
            self.parts.extend(lex(inner, self.depth + 1))
            return "`…`", end + 1, True
        if s.startswith("${", i):
            depth, end = 0, i + 1
            while end < len(s):
                if s.startswith(("$(", "`"), end):
                    _text, end, _computed = self.expansion(end)
                    continue
                if s[end] in "'\"\\":  # bash's quoting inside ${…} is not followed here
                    self.parts.append(Part(unreadable="it has a quote inside ${…}"))
                depth += {"{": 1, "}": -1}.get(s[end], 0)
                end += 1
                if depth == 0:
                    break
            return s[i:end], end, True
        if _SPECIAL_PARAMETER.match(s, i + 1):
            end = i + 2
            if s[i + 1].isalpha() or s[i + 1] == "_":
                while end < len(s) and (s[end].isalnum() or s[end] == "_"):
                    end += 1
            return s[i:end], end, True
        return "$", i + 1, False

    def arithmetic(self, i: int) -> int | None:
        """``((…))`` at ``i`` as bash reads it: the end past its ``))``, or ``None``.

        Bash reads ``((`` as arithmetic when the parenthesis it opens closes with ``))``, as
        nested subshells otherwise (``((ls) )``, ``$((ls) )``: ``None``, for the caller to read
        as commands). The substitutions inside become parts; a quote or backslash inside
        makes the command unreadable (bash matches parentheses around quotes, this scan does
        not), so ``((x<<2))`` can never be taken for a here-document that hides the next lines.
        """
        s, depth, j = self.s, 1, i + 2
        parts, heredocs = len(self.parts), list(self.heredocs)
        quoted = Part(unreadable="it has a quote inside an arithmetic expression")
        while j < len(s):
            if s.startswith(("$(", "`"), j):
                _text, j, _computed = self.expansion(j)
                continue
            c = s[j]
            if c in "'\"\\" and quoted not in self.parts:
                self.parts.append(quoted)
            depth += {"(": 1, ")": -1}.get(c, 0)
            j += 1
            if depth == 0 and s.startswith(")", j):
                return j + 1
            if depth == 0:
                break
        seen = quoted in self.parts
        del self.parts[parts:]  # the caller reads it again as commands
        self.heredocs = heredocs
        if seen:  # whichever way bash reads it, this scan may not: `(( x<<2 + ')' ))`
            self.parts.append(quoted)
        return None

    def unclosed(self) -> None:
        self.parts.append(Part(unreadable="a quote or '`' is not closed"))


def lex(command: str, depth: int = 0) -> list[Part]:
    """The simple commands of ``command`` as bash reads them (inner ones first).

    ``depth``: how deep in substitutions ``command`` is (past :data:`_MAX_DEPTH` it is not
    read, and a part says so).
    """
    lexer = _Lexer(command, depth)
    lexer.line(0, closing=False)
    return lexer.parts


def substitutions(text: str, depth: int = 0) -> list[Part]:
    """The commands of the ``$( )`` and backticks in ``text``, read as inside double quotes.

    For a here-document's body and an arithmetic expression.
    """
    lexer = _Lexer(text, depth)
    i = 0
    while i < len(text):
        _word, i = lexer.double_quoted(i, until="")
    return lexer.parts
