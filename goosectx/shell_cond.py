r"""Bash's conditional command ``[[ … ]]`` read as bash reads it, for permission rules.

docs/architecture.md §4, clause 2. Inside ``[[ … ]]`` bash reads ``&&`` ``||`` ``(`` ``)``
``<`` ``>`` as the test's operators, not as command separators, subshells or redirections
(``[[ a > b ]]`` writes no file), skips a newline after ``[[``, ``!``, ``(``, ``&&``, ``||``,
reads the regular expression after ``=~`` with its ``( … )`` and ``|`` as one word, and an
extglob pattern (``*.@(c|h)``, ``!(*.py)``) as part of its word, as bash parses ``[[`` with
extglob on. The words are still words: their ``$( )`` run. :class:`CondScanner` is mixed
into :mod:`goosectx.shell_lexer`'s lexer, which says when a ``[[`` starts.

Core module: no printing.
"""

from __future__ import annotations

from goosectx.shell_words import Part, Word, WordScanner

__all__ = ["CondScanner", "open_parens"]

_EXTGLOB = "@!*+?"
"""The characters before an extglob pattern's ``(`` (``@(a|b)``, ``!(x)``, ``*(x)`` …)."""


def open_parens(words: list[Word]) -> int:
    """How many ``(`` of the latest ``[[`` in ``words`` are not closed yet."""
    start = max((k for k, w in enumerate(words) if w.raw == "[["), default=0)
    raws = [w.raw for w in words[start:]]
    return raws.count("(") - raws.count(")")


def _closing_paren(s: str, i: int) -> int | None:
    """Past the ``)`` matching the ``(`` at ``i``; ``None`` past a quote, ``$``, newline or end."""
    depth = 0
    for k in range(i, len(s)):
        if s[k] in "'\"\\$`\n":
            return None
        depth += {"(": 1, ")": -1}.get(s[k], 0)
        if depth == 0:
            return k + 1
    return None


class CondScanner(WordScanner):
    """Reads the operators and ``=~`` patterns of a ``[[ … ]]``; mixed into the lexer."""

    def here_documents(self, i: int) -> int:
        """Skip the bodies of the here-documents of the line that just ended (the lexer's)."""
        raise NotImplementedError

    def test_operator(self, i: int, part: Part) -> int | None:
        """An operator of a ``[[ … ]]`` at ``i`` as a word of ``part``; past it, or ``None``.

        Bash reads ``&&`` ``||`` ``(`` ``)`` ``<`` ``>`` there as the test's (``[[ a > b ]]``
        compares, ``[[ 2>x ]]`` writes no file), and skips a newline after ``[[``, ``!``,
        ``(``, ``&&`` or ``||``; ``None`` for the rest (``<(…)``, ``;``, a newline elsewhere),
        read as outside it (a syntax error to bash, which then runs nothing more).
        """
        s = self.s
        if part.words[-1].raw == "=~" and s[i] not in " \t\n;&<>)":
            return self.pattern_word(i, part)
        if s.startswith("(", i) and s[i - 1] in _EXTGLOB and part.words[-1].raw.endswith(
                s[i - 1]) and (end := _closing_paren(s, i)) is not None:
            return self.extglob(i, end, part)
        op = next((o for o in ("&&", "||", "(", ")", "<", ">") if s.startswith(o, i)), None)
        if op == ")" and not open_parens(part.words):
            return None
        if op is not None and not (op in "<>" and s.startswith("(", i + 1)):
            part.words.append(Word(op, op))
            return i + len(op)
        if s[i] == "\n" and part.words[-1].raw in ("[[", "!", "(", "&&", "||"):
            return self.here_documents(i + 1)  # bash reads bodies at any newline
        return None

    def extglob(self, i: int, end: int, part: Part) -> int:
        """The extglob pattern ``(…)`` at ``i`` (to ``end``) joined to ``part``'s last word.

        Bash parses ``[[ … ]]`` with extglob on: ``*.@(c|h)``, ``!(*.py)``, ``+([0-9])x`` are
        one word, a pattern (text joined after the ``)`` too). One holding a quote, ``$``,
        backquote or newline is not read so (:func:`_closing_paren`): the ``(`` stays an operator.
        """
        s, last = self.s, part.words[-1]
        raw, value, expands = last.raw + s[i:end], last.value + s[i:end], last.expands
        if end < len(s) and s[end] not in " \t\n;&|<>()":
            rest, end = self.word(end)
            raw, value, expands = raw + rest.raw, value + rest.value, expands or rest.expands
        part.words[-1] = Word(raw, value, expands, pattern=True)
        return end

    def pattern_word(self, i: int, part: Part) -> int:
        """The regular expression after ``=~`` at ``i``, a word of ``part``; past it.

        Bash reads a ``|`` and a ``( … )`` there as the pattern's (``^(a|b c)$`` is one word);
        a quote, backslash, ``$`` or backtick inside the parentheses is not followed here.
        """
        s, j = self.s, i
        raw, value, expands, pattern = "", "", False, False
        while j < len(s) and s[j] not in " \t\n;&<>)":
            if s[j] in "(|":
                end = _closing_paren(s, j) if s[j] == "(" else j + 1
                if end is None:
                    part.unreadable = part.unreadable or (
                        "its [[ =~ ]] pattern has parentheses not read here as bash reads them")
                    end = j + 1  # the rest read as a word: its $( ) is seen
                raw, value, j = raw + s[j:end], value + s[j:end], end
                continue
            word, j = self.word(j)
            raw, value = raw + word.raw, value + word.value
            expands, pattern = expands or word.expands, pattern or word.pattern
        part.words.append(Word(raw, value, expands, pattern))
        return j
