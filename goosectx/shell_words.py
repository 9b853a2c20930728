r"""The words of a bash command line, and the expansions inside them, for permission rules.

docs/architecture.md §4, clause 2. :class:`Word` and :class:`Part` are what
:mod:`goosectx.shell_lexer` cuts a command line into; :class:`WordScanner` (mixed into its
lexer) reads one word as bash does: quotes removed (``'…'``, ``"…"``, ``\\x``, ``$"…"``),
what bash computes at run time kept as written and marked (``$X``, ``${…}``, ``$'…'``,
``$( )``, backticks, ``$((…))``, ``$[…]``, a tilde prefix, an assignment's ``a[…]``), and
whether it is a pattern (an unquoted glob or brace expansion). The commands inside ``$( )``
and backticks (also inside ``${…}``, ``$((…))``, ``$[…]``) become parts of their own; where
bash's reading is not followed here (a quote inside ``${…}`` or arithmetic) a part says so.

Core module: no printing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from goosectx.shell_ansi import ansi_c_value, braces

ENDS_WORD = " \t\n;&|()<>"
"""Characters that end an unquoted word (bash's metacharacters and newline)."""
_SPECIAL_PARAMETER = re.compile(r"[A-Za-z_0-9@*#?$!{-]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
OPENS_ARITHMETIC = re.compile(r"\((?:\\\n)*\(")
"""``((`` as bash's tokenizer sees it: a backslash-newline between the two is deleted first
(``(\\<newline>(1<<2))`` is the arithmetic command ``((1<<2))``)."""
ASSIGNMENT_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\n]*\])?\+?=")
"""An assignment word as written (``A=1``, ``a[i]+=x``): more may follow it before the program."""
VARIABLE_EXPANSION = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")
"""``$NAME`` or ``${NAME}`` (the name in group 1 or 2): a variable a line may have set."""
_FAILED_SCANS_READ = 2
"""Characters the ``((`` that do not close as arithmetic may read, per character of the text,
at most (one lexer): each may read the rest of the line, so ``((((…`` would cost the square
of its length."""
_MAX_ARITHMETIC_DEPTH = 40
"""``$((`` inside ``$((`` … read at most (as the lexer's ``$( )``): ``$(($((…`` is unreadable."""


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


_IN_QUOTES = r'(?:[^"\\$`]|\\.|\$(?:[A-Za-z_]\w*|\{[A-Za-z_]\w*\}))'
"""Inside ``"…"``: text and ``$NAME`` / ``${NAME}`` (no ``$( )``, no ``${X%…}``)."""
_QUOTED_DIR = re.compile(rf"""(?:'[^']*'|\\.|"{_IN_QUOTES}*"|[^"'\\$`])*"""
                         rf"""(?:/([\w.+-]+)|"{_IN_QUOTES}*/([\w.+-]+)")""")
"""A path whose expansions are all quoted, ending in a literal name after a ``/``."""


def literal_name(word: Word) -> str | None:
    """The program name a path ends in when bash computes only its directory, or ``None``.

    ``"$HOME/.local/bin/uv"``, ``"${PWD}"/bin/x``, ``~/"$V"/black``: each expansion is a
    variable inside double quotes (or a tilde prefix), so bash neither splits nor globs it,
    and the last component, written after a ``/``, names the program as a literal path
    does. Not ``$HOME/bin/uv``: bash splits an unquoted expansion into words
    (``HOME='rm -rf x '`` makes it run ``rm``).
    """
    found = None if word.pattern else _QUOTED_DIR.fullmatch(word.raw)
    name = found and (found[1] or found[2])
    return name if name and name.strip(".") else None


@dataclass(slots=True)
class Part:
    """One simple command (or one redirection, ``> TARGET``) of a command line."""

    words: list[Word] = field(default_factory=list)
    unreadable: str | None = None
    redirected: bool = False  # a redirection came before its latest word
    piped: bool = False  # it follows a `|` or `|&` (not the start of a pipeline)
    depth: int = 0
    """How deep in command strings the part is (``bash -c '…'``'s: 1), set by
    :func:`goosectx.shell_dirs.command_dirs`."""
    joint: str = ""
    """The operators read since the part before it ended (its own ``)`` included): ``&&``,
    ``||``, ``;`` (a newline too), ``&``, ``|``, and ``(`` / ``)`` where a subshell or a
    substitution opens or closes; what :mod:`goosectx.shell_dirs` follows a ``cd`` by."""
    fed: bool = False
    """A program may reach it on a stream the command line opens: a pipe into it, a
    here-document or here-string, an input redirection from a path the rules cannot see or
    a duplicated descriptor, a process substitution or coprocess anywhere in the line
    (:func:`goosectx.shell_lexer.lex`)."""
    here: str = ""
    """Its own here-document or here-string: ``literal`` (``<<'EOF'``, ``<<< 'x'``), ``body``
    (``<<EOF``: bash expands ``$`` and backticks in the body), ``expands`` (``<<< "$(…)"``)."""
    here_string: str = ""
    """Its here-string's word after quote removal (``read B <<< .git/hooks``: ``.git/hooks``),
    what :mod:`goosectx.assigned_values` reads a ``read``'s values from."""
    input_of: Part | None = None
    """A plain input redirection's part (``< FILE``, ``0< FILE``; not ``<>``, ``<&``): the
    command it gives FILE to read, which reads it as one naming it does (``wc -l < f``)."""

    @property
    def text(self) -> str:
        """The part as written, words joined by one space."""
        return " ".join(w.raw for w in self.words)



class WordScanner:
    """Reads words and their expansions; mixed into the lexer, which provides these."""

    s: str
    depth: int
    parts: list[Part]
    heredocs: list[tuple[str, bool, bool]]  # (delimiter, quoted, strip tabs)
    joint: str  # the operators read since the last part ended (Part.joint)
    failed_read: int = 0  # read by (( scans that did not close as arithmetic (_FAILED_SCANS_READ)
    arithmetic_depth: int = 0  # ((…)) scans open now, one inside another ($(($((…)))))

    def line(self, i: int, closing: bool) -> int:
        """Scan commands from ``i`` (the lexer's)."""
        raise NotImplementedError

    def nested(self, text: str) -> list[Part]:
        """The parts of ``text``, one level deeper (the lexer's: a backtick's inside)."""
        raise NotImplementedError

    def word(self, i: int, assignment: bool = False) -> tuple[Word, int]:  # noqa: C901
        """The word from ``i`` and where it ends (at a blank or a metacharacter).

        ``assignment``: it stands where bash reads assignments (before a command's program),
        so a name's ``[…]=`` is read whole.
        """
        s = self.s
        raw: list[str] = []
        value: list[str] = []
        expands = pattern = False
        plain: list[str] = []  # the unquoted characters, for brace expansion
        while i < len(s) and s[i] not in ENDS_WORD:
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
                decoded = ansi_c_value(s[i + 2:end])  # $'-exec' is -exec, $'\x3b' is ;
                if decoded is None:
                    self.parts.append(Part(unreadable="a $'…' word holds an escape whose value "
                                                      "the rules do not decode"))
                value.append(s[i:end + 1] if decoded is None else decoded)
                expands, i = True, end + 1
                plain.append("_")
            elif c in "$`":
                text, i, computed = self.expansion(i)
                raw.append(text)
                value.append(text)
                expands = expands or computed
                plain.append(text if not computed else "_")
            elif c == "[" and assignment and _NAME.fullmatch("".join(raw)) and (
                    closed := self.subscript(i)) is not None:
                raw.append(s[i:closed])  # an assignment's a[…]=: bash reads the subscript whole
                value.append(s[i:closed])
                plain.append("_")
                expands, i = True, closed
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
                   or braces(unquoted))
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
        if s.startswith("$", i) and OPENS_ARITHMETIC.match(s, i + 1):  # only its $( ) run
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
            self.parts.extend(self.nested(inner))
            return "`…`", end + 1, True
        if s.startswith("$[", i):  # old arithmetic, $[1<<2]: only its substitutions run
            end = self.bracketed(i + 1)
            return "$[…]", len(s) if end is None else end, True
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
        as commands, and the command is unreadable: bash may still reject or read them
        otherwise, ``$((())(ls<<F))``). The substitutions inside become parts; a quote or
        backslash inside makes the command unreadable (bash matches parentheses around
        quotes, this scan does not), so ``((x<<2))`` can never be taken for a here-document
        that hides the next lines.
        """
        opens = OPENS_ARITHMETIC.match(self.s, i)
        assert opens is not None
        if self.failed_read > _FAILED_SCANS_READ * len(self.s) + 1000:  # not read again
            self.parts.append(Part(unreadable="it opens too many '((' that do not close as "
                                              "arithmetic to read"))
            return None
        if self.arithmetic_depth >= _MAX_ARITHMETIC_DEPTH:
            self.parts.append(Part(unreadable="it nests arithmetic too deeply to read"))
            return None
        self.arithmetic_depth += 1
        try:
            return self._arithmetic(opens.end())
        finally:
            self.arithmetic_depth -= 1

    def _arithmetic(self, start: int) -> int | None:
        """:meth:`arithmetic` from ``start``, past the ``((``."""
        s, depth, j = self.s, 1, start
        parts, heredocs, joint = len(self.parts), list(self.heredocs), self.joint
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
        del self.parts[parts:]  # the caller reads it again as commands
        self.heredocs, self.joint = heredocs, joint
        self.failed_read += j - start
        # whichever way bash reads it, this scan may not (`(( x<<2 + ')' ))`, `$((())(…))`)
        self.parts.append(Part(unreadable="bash may read its (( as nested subshells"))
        return None

    def bracketed(self, i: int, line_only: bool = False) -> int | None:
        """The end past the ``]`` that closes the ``[`` at ``i`` (``None``: not closed).

        Its ``$( )`` and backticks become parts; a quote inside makes the command unreadable.
        ``line_only``: a newline before the ``]`` leaves it unclosed.
        """
        s, depth, j = self.s, 0, i
        while j < len(s):
            if s.startswith(("$(", "`"), j):
                _text, j, _computed = self.expansion(j)
                continue
            c = s[j]
            if c == "\n" and line_only:
                return None
            if c in "'\"\\":
                self.parts.append(Part(unreadable="it has a quote inside brackets"))
            depth += {"[": 1, "]": -1}.get(c, 0)
            j += 1
            if depth == 0:
                return j
        return None

    def subscript(self, i: int) -> int | None:
        """After a name, the end of its ``[…]`` when ``=`` or ``+=`` follows on the line."""
        parts, heredocs, joint = len(self.parts), list(self.heredocs), self.joint
        end = self.bracketed(i, line_only=True)
        if end is not None and self.s.startswith(("=", "+="), end):
            return end
        del self.parts[parts:]  # not an assignment: the caller reads it as it is
        self.heredocs, self.joint = heredocs, joint
        return None

    def unclosed(self) -> None:
        """Note a quote or backtick the text never closes: the command is unreadable."""
        self.parts.append(Part(unreadable="a quote or '`' is not closed"))
