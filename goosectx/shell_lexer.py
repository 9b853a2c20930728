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
parentheses close otherwise (``((ls) )``: subshells, as bash reads it). One word is read by
:mod:`goosectx.shell_words` (``$[…]`` and an assignment's ``a[…]=`` are arithmetic there).
A word keeps what bash would compute at run time (``$X``, ``$'…'``, ``$( )``) and whether it
is a pattern (an unquoted glob or brace expansion), so a rule can tell a command it reads
from one it cannot. A part bash reads in a way a rule cannot follow (a function or alias
definition, a ``(`` inside a command — an array literal, ``a=(1 2)``, is one assignment
word: :mod:`goosectx.shell_assign` —, a quote inside ``${…}`` or ``((…))``, ``${x@P}`` or
``${!x}`` anywhere in the text, an unclosed quote) carries why in :attr:`Part.unreadable`.

Core module: no printing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from goosectx.shell_assign import read_array
from goosectx.shell_builtins import stream_path, unseen_path
from goosectx.shell_cond import CondScanner, open_parens
from goosectx.shell_words import (
    ASSIGNMENT_WORD,
    ENDS_WORD,
    OPENS_ARITHMETIC,
    Part,
    Word,
)

__all__ = ["RESERVED_WORDS", "Part", "Word", "lex", "unexpanded", "substitutions"]

_BLANKS = " \t"
_MAX_DEPTH = 40
_FD = r"\d*|&|\{[A-Za-z_][A-Za-z0-9_]*\}"  # 2>, &>, {fd}> (a new fd put in $fd)
_REDIRECTION = re.compile(rf"({_FD})(<<<|<<-|<<|>>|<>|>\||<&|>&|<|>)")
_STARTS_REDIRECTION = re.compile(r"\d+[<>]|&>|\{[A-Za-z_][A-Za-z0-9_]*\}[<>]")
_HERE = ("", "literal", "body", "expands")  # Part.here, from the most readable
_EMPTY_PARENS = re.compile(r"[ \t]*\)")
_RESERVED = frozenset({"!", "{", "if", "then", "else", "elif", "do", "while", "until"})
RESERVED_WORDS = _RESERVED | {"}", "fi", "done", "esac", "coproc"}
"""Reserved words bash reads before a command (``then rm x``): syntax, not a program — but
only where a command starts (after ``</dev/null`` a ``then`` is a program's name)."""
_RUNS_VALUE = re.compile(r"@P\}|\$\{!(?![A-Za-z_]\w*(?:\[[@*]\]|[*@])\})")
"""``${x@P}`` (prompt expansion runs a value's ``$( )``) or ``${!x}`` (indirection reads a value
as a name, ``a[$(rm y)]``, evaluating its subscript); not ``${!a[@]}`` or ``${!prefix*}``.
Searched in the whole text (a quoted one too), so no reading of bash's can miss it."""
_ASSIGNS_PROMPT = re.compile(r"\$\{(?:!\w+|PS[0124]|PROMPT_COMMAND|BASH_ENV|ENV|BASH_CMDS"
                             r"|BASH_ALIASES)(?:\[[^\]]*\])?:?=")
"""``${PS4:=$x}`` / ``${ENV=…}`` (or an indirect ``${!x=…}``): an expansion that sets a prompt or
startup variable, whose ``$( )`` bash runs when it expands it (:mod:`goosectx.shell_builtins`),
or ``BASH_CMDS`` / ``BASH_ALIASES`` (``${BASH_CMDS[ls]:=/bin/rm}`` binds ``ls`` to ``rm``)."""
_LEADING = RESERVED_WORDS | {"time", "-p", "--"}  # what may come before one of them
_NAMES_STREAM = re.compile(r"/dev\b(?!/null\b)|/proc\b|(?<![\w-])std(?:in|out|err)\b|fd/")
"""Text that names a stream or its directory (``f=/dev/stdout``, ``cd /dev``; not
``2>/dev/null`` or ``--stdin``): a path bash computes may be it."""


def _null_device(target: Word) -> bool:
    """True for a redirection target that is ``/dev/null`` as written (nothing computed).

    It reads and writes nothing, so ``2>/dev/null`` is not a part a rule must allow: it names
    no file.
    """
    return target.value == "/dev/null" and not (target.expands or target.pattern)


_COMPOUND_STARTS = frozenset({"{", "(", "((", "[[", "if", "while", "until", "for", "case",
                              "select"})


def _simple_coprocess(words: list[Word]) -> bool:
    """True for ``coproc CMD …`` (after reserved words) whose command is no compound one.

    Not ``coproc { …; }`` or ``coproc NAME while …``: a named or compound coprocess.
    """
    for k, word in enumerate(words):
        if word.raw == "coproc":
            after = [w.raw for w in words[k + 1:k + 3]]
            return not (after[:1] and after[0] in _COMPOUND_STARTS
                        or after[1:] and after[1] in _COMPOUND_STARTS)
        if word.raw not in RESERVED_WORDS:
            return False
    return False


def _coprocess_word(words: list[Word]) -> bool:
    """True for ``coproc WORD`` (after reserved words): a NAME if a compound command follows."""
    return len(words) >= 2 and words[-2].raw == "coproc" and all(
        w.raw in RESERVED_WORDS for w in words[:-1])


def _arithmetic_for(part: Part) -> bool:
    """True for ``for`` (after reserved words): a ``((`` next is an arithmetic ``for`` loop.

    Elsewhere bash reads no ``((`` after a word (a syntax error), so nothing runs either way;
    after a redirection ``for`` is a program (the ``(`` is then asked about).
    """
    words = part.words
    return bool(words) and words[-1].raw == "for" and not part.redirected and all(
        w.raw in _LEADING for w in words[:-1])


class _Lexer(CondScanner):
    def __init__(self, text: str, depth: int = 0, reprinted: bool = False) -> None:
        self.s = text
        self.depth = depth
        self.reprinted = reprinted  # inside a $( ) or <( ): bash 5.2 prints it back as text
        self.parts: list[Part] = []
        self.heredocs: list[tuple[str, bool, bool]] = []  # (delimiter, quoted, strip tabs)
        self.quoted_bodies: list[tuple[int, int]] = []  # (start, end): see unexpanded()
        self.streams = False  # a stream every part may read (Part.fed): see lex()
        self.mark = 0  # where the parts of the current part's substitutions start
        self.joint = ""  # the operators since the last part ended (Part.joint)

    # -- commands -------------------------------------------------------------------------
    def line(self, i: int, closing: bool) -> int:
        """Scan commands from ``i``; with ``closing``, up to the ``)`` that ends them."""
        if self.depth >= _MAX_DEPTH:
            self.parts.append(Part(unreadable="it nests substitutions too deeply to read"))
            return len(self.s)
        self.depth += 1
        self.joint += "(" if closing else ""  # $( ), <( ): a subshell
        mark, self.mark = self.mark, len(self.parts)
        reprinted, self.reprinted = self.reprinted, self.reprinted or closing
        try:
            return self._line(i, closing)
        finally:
            self.depth -= 1
            self.mark = mark
            self.reprinted = reprinted

    def _line(self, i: int, closing: bool) -> int:  # noqa: C901 - one scanner
        s, part, depth = self.s, Part(), 0
        testing = False  # inside [[ … ]]
        while i < len(s):
            c = s[i]
            testing = testing and bool(part.words)
            if s.startswith("\\\n", i):
                i += 2
            elif c in _BLANKS:
                i += 1
            elif c == "#":
                end = s.find("\n", i)
                i = len(s) if end < 0 else end
            elif testing and (after := self.test_operator(i, part)) is not None:
                i = after  # inside [[ … ]]: && || ( ) < > ! are the test's, a newline may go
            elif testing and c in ";&|\n)":  # not bash's [[ … ]]: read on as outside it
                part.unreadable = part.unreadable or "its [[ … ]] is not read here as bash reads it"
                depth += open_parens(part.words)  # `(` there would have opened a subshell
                testing = False
            elif c == "\n":
                part = self.end(part)
                self.joint += ";"
                i = self.here_documents(i + 1)
            elif c in ";&|" and not s.startswith("&>", i):
                part = self.end(part)
                if c == "|" and not s.startswith("||", i) and s[i - 1:i] != "|":
                    part.piped = True  # `|` or `|&`: bash's `time` is no keyword here
                    self.joint += "|"
                    i += 1 + s.startswith("|&", i)
                elif s.startswith(("&&", "||"), i):
                    self.joint += s[i:i + 2]
                    i += 2
                else:
                    self.joint += c
                    i += 1
            elif OPENS_ARITHMETIC.match(s, i) and (looping := _arithmetic_for(part)
                                                   or all(w.raw in _RESERVED
                                                          for w in part.words)) and (
                    after := self.arithmetic(i)) is not None:
                i = after  # an arithmetic command: only its substitutions run
                if looping:  # for ((…)): a loop whose body follows (`do …` or `{ …; }`)
                    self.streams = self.streams or part.piped  # | for ((…)) do read x
                    part = self.end(Part(piped=part.piped))
            elif c == "(" and (array := read_array(self, i, part, RESERVED_WORDS)) is not None:
                i = array  # arr=(1 2 3), declare -a a=(x y): an assignment, read whole
            elif c == "(":
                empty, opened = _EMPTY_PARENS.match(s, i + 1), False
                if len(part.words) == 1 and empty:
                    part.unreadable = "it defines a function"
                    i = empty.end()
                else:  # a subshell; in a command (arr=(…), extglob): unreadable
                    self.streams = self.streams or part.piped and not part.words  # | ( … )
                    if part.words:
                        part.unreadable = "it has a '(' inside a command"
                    depth += 1
                    i += 1
                    opened = True
                part = self.end(part)
                self.joint += "(" if opened else ""
            elif c == ")":
                part = self.end(part)
                i += 1
                self.joint += ")" if depth or closing else ""
                if depth == 0 and closing:
                    return i
                depth = max(0, depth - 1)
            elif c in "<>" or _STARTS_REDIRECTION.match(s, i) and not (testing and c.isdigit()):
                i = self.redirection(i, part)
            else:
                word, i = self.word(i, assignment=all(
                    w.raw in RESERVED_WORDS or ASSIGNMENT_WORD.match(w.raw) for w in part.words))
                if word.raw == "function" and all(w.raw in _LEADING for w in part.words):
                    part.unreadable = "it defines a function"  # also `then { function f {`
                if not part.words and (word.raw == "coproc" or part.piped and word.raw in
                                       RESERVED_WORDS):  # | while …: its commands read the pipe
                    self.streams = True
                if part.redirected and word.raw in RESERVED_WORDS and all(
                        w.raw in _LEADING for w in part.words):  # `coproc<<s {`: `{` runs
                    part.unreadable = f"bash runs {word.raw!r} after a redirection as a program"
                testing = (word.raw == "[[" and not part.redirected and all(  # else a program
                    w.raw in _LEADING for w in part.words) or testing and word.raw != "]]")
                part.words.append(word)
        if closing:
            part.unreadable = part.unreadable or "a '$(' or '<(' is not closed"
        self.end(part)
        self.joint += ")" if closing else ""
        return i

    def nested(self, text: str) -> list[Part]:
        return self.adopt(lex(text, self.depth + 1, self.reprinted))

    def adopt(self, parts: list[Part]) -> list[Part]:
        """``parts`` read by another lexer, in a subshell of their own (a backtick's inside)."""
        if parts:  # and the `)` of theirs its last part did not take
            still_open = sum(p.joint.count("(") - p.joint.count(")") for p in parts)
            parts[0].joint = self.joint + "(" + parts[0].joint
            self.joint = ")" * (1 + max(0, still_open))
        return parts

    def end(self, part: Part) -> Part:
        if self.reprinted and _simple_coprocess(part.words):
            part.unreadable = part.unreadable or (
                "bash 5.2 runs a coproc command inside $( ) or <( ) as the program COPROC "
                "(`coproc ls` there runs `COPROC ls`), older bash as the command")
        if part.words or part.unreadable:
            part.joint, self.joint = self.joint, ""
            self.parts.append(part)
            if part.piped or part.fed:  # and the commands of its substitutions
                for inner in self.parts[self.mark:]:
                    inner.fed = True
            self.mark = len(self.parts)
            return Part()
        return Part(piped=part.piped)  # `ls |<newline> time x`: still after the pipe

    def redirection(self, i: int, part: Part) -> int:
        s, start = self.s, i
        match = _REDIRECTION.match(s, i)
        assert match is not None
        op = match.group(2)
        i = match.end()
        part.redirected = True
        if _coprocess_word(part.words):  # coproc l<<E { ls: bash runs the program l
            part.unreadable = part.unreadable or (
                "a redirection follows coproc's first word, so bash runs that word as a program")
        if op in "<>" and s.startswith("(", i):  # process substitution <( ) >( )
            self.streams = True  # any command of the line may read its /dev/fd/N
            glued = bool(match.group(1)) or start > 0 and s[start - 1] not in ENDS_WORD
            i = self.line(i + 1, closing=True)
            word = Word(f"{op}(…)", f"{op}(…)", expands=True)
            if i < len(s) and s[i] not in ENDS_WORD:  # <(ls)#x: one word, no comment
                rest, i = self.word(i)
                word, glued = Word(word.raw + rest.raw, word.value + rest.value, True), True
            if glued:  # bash runs ls<(ls) as the file ls/dev/fd/63
                part.unreadable = "a process substitution is joined to a word"
            part.words.append(word)
            return i
        while i < len(s) and (s[i] in _BLANKS or s.startswith("\\\n", i)):
            i += 2 if s[i] == "\\" else 1
        if i >= len(s) or s[i] in ENDS_WORD:
            return i
        target, i = self.word(i)
        if op in ("<<", "<<-", "<<<", "<>") or op == "<&" and target.value != "-" or op == "<" and (
                stream_path(target.value) or unseen_path(target.value) or target.expands):
            self.feed(part)  # not `< list.txt`: a file on disk, as `bash list.txt` names one
        if op in ("<<", "<<-", "<<<"):  # the worst of the part's: diff_targets.diff_writes
            here = "expands" if op == "<<<" and target.expands else "literal" if op == "<<<" or (
                any(q in target.raw for q in "'\"\\")) else "body"
            part.here = max(part.here, here, key=_HERE.index)
        if op in ("<<", "<<-"):
            quoted = any(q in target.raw for q in "'\"\\")
            if "$'" in target.raw:  # bash decodes it: where the body ends is not read here
                self.parts.append(Part(unreadable="its here-document delimiter has $'…'"))
            self.heredocs.append((target.value, quoted, op == "<<-"))
        elif op == "<<<":  # a here-string: data for the command (read B <<< X: B's value)
            part.here_string = target.value
        elif not (op.endswith("&") and re.fullmatch(r"\d+-?|-", target.value)
                  or _null_device(target)):
            shown = "<" if op in ("<", "<&") else ">>" if op == ">>" else ">"
            self.parts.append(Part([Word(shown, shown), target], joint=self.joint,
                                   input_of=part if op == "<" else None))
            self.joint = ""
        return i

    def feed(self, part: Part) -> None:
        """An input redirection may carry a program to ``part``.

        On ``exec`` or a compound command (``} <<<…``, ``done <…``, or before the words:
        ``<<<x . $f``): to every command of the line.
        """
        if part.words and part.words[0].raw != "exec" and part.words[-1].raw not in (
                "}", "done", "fi", "esac"):
            part.fed = True
        else:
            self.streams = True

    def here_documents(self, i: int) -> int:
        """Skip the bodies of the here-documents started on the line that just ended."""
        s = self.s
        for delimiter, quoted, strip in self.heredocs:
            start = i
            while i < len(s):
                before = i
                line, i = self.body_line(i, joined=not quoted)
                if (line.lstrip("\t") if strip else line) == delimiter:
                    if quoted:  # bash expands nothing in it
                        self.quoted_bodies.append((start, before))
                    break
            if not quoted:  # $( ) and backticks in the body run
                for inner in self.adopt(substitutions(s[start:i], self.depth + 1)):
                    inner.fed = True
                    self.parts.append(inner)
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

def lex(command: str, depth: int = 0, reprinted: bool = False) -> list[Part]:
    """The simple commands of ``command`` as bash reads them (inner ones first).

    ``depth``: how deep in substitutions ``command`` is (past :data:`_MAX_DEPTH` it is not
    read, and a part says so). ``reprinted``: ``command`` is inside a ``$( )`` or ``<( )``,
    which bash 5.2 prints back as text and parses again (a simple ``coproc ls`` there comes
    back as ``coproc COPROC ls``: unreadable).
    """
    lexer = _Lexer(command, depth, reprinted)
    lexer.line(0, closing=False)
    if lexer.streams or _NAMES_STREAM.search(command):
        for part in lexer.parts:
            part.fed = True
    if _RUNS_VALUE.search(command.replace("\\\n", "")):  # anywhere: words, ((…)), bodies
        lexer.parts.append(Part(unreadable="it expands a variable's value as a prompt (${x@P}) "
                                "or as a name (${!x}), which runs the commands that value holds"))
    if _ASSIGNS_PROMPT.search(command.replace("\\\n", "")):
        lexer.parts.append(Part(unreadable="it sets a prompt or startup variable (${PS4:=…}) or "
                                "BASH_CMDS/BASH_ALIASES in an expansion: bash runs what it "
                                "holds"))
    return lexer.parts


@lru_cache(maxsize=16)
def unexpanded(command: str) -> str:
    """``command`` without the bodies of its quoted-delimiter here-documents (``<<'EOF'``).

    Bash expands nothing in them: text, not arithmetic (``a[i]`` in a Python file written by
    ``cat``). Only a body its delimiter ends is left out. Cached: each part of a line asks for
    the same line (:func:`goosectx.shell_command.command_forms`), and reading it again per part
    made a line of N parts cost N².
    """
    if "<<" not in command:
        return command
    lexer = _Lexer(command)
    lexer.line(0, closing=False)
    for start, end in reversed(lexer.quoted_bodies):
        command = command[:start] + command[end:]
    return command


def substitutions(text: str, depth: int = 0) -> list[Part]:
    """The commands of the ``$( )`` and backticks in ``text``, read as inside double quotes.

    For a here-document's body and an arithmetic expression.
    """
    lexer = _Lexer(text, depth)
    i = 0
    while i < len(text):
        _word, i = lexer.double_quoted(i, until="")
    return lexer.parts
