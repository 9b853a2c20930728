"""What a failed tool result looks like: the telling line of an error in tool output.

Used by the compaction scans (:mod:`goosectx.compaction.gather`, its memo, the tool-pair
notes of :mod:`goosectx.compaction.toolpairs`). All functions are pure.
"""

from __future__ import annotations

import re

from goosectx.lazy_pattern import LazyPattern

_ERROR_LINE = LazyPattern(
    r"^\s*(?:Traceback \(most recent call last\)|[\w.]*(?:Error|Exception)\b(?: \[\w+\])?(?::|$)|"
    r"(?:[Ee]rror|ERROR)(?:\[\w+\])?:|ERROR\b|FAILED\b|fatal:|npm ERR!|panic:)"
    r"|^[\w./()-]+:(?:[ \w./-]*:)*\s*command not found"
    r"|No such file or directory|Permission denied|[Ee]xit(?:ed with)? code:? [1-9]"
    r"|\b0*[1-9]\d* failed\b|not found\. Available tools", re.M)
_ERROR_WORDS = ("Error", "error", "ERROR", "Exception", "Traceback (most recent call last)",
                "FAILED", "fatal:", "npm ERR!", "panic:", "command not found",
                "No such file or directory", "Permission denied", "xit code", "xited with code",
                " failed", "not found. Available tools")
"""Text :data:`_ERROR_LINE` matches holds one of these (each alternative's literal words,
case as written): a text with none cannot match, and a substring test is many times faster
than the search (a long session's tool outputs are mostly not errors)."""
_EXCEPTION_LINE = LazyPattern(r"^\s*[\w.]*(?:Error|Exception)\b(?: \[\w+\])?:.*$", re.M)
"""``ValueError: bad``, node's ``AssertionError [ERR_ASSERTION]: Expected …``."""
_TRACEBACK = "Traceback (most recent call last):"
_ELIDED = LazyPattern(r"\[… [\d,]+ (?:tokens elided|lines cut)\b.*…\]")
"""The marker of a text cut in the middle (:func:`goosectx.compaction.elision.elide_text`)."""
_RAISED_LINE = LazyPattern(r"[A-Za-z_][\w.]*(?::.*)?")
"""What ends a Python traceback: the exception's (dotted) name, its message after ``: ``
(``AssertionError`` and ``KeyboardInterrupt`` have none)."""
_PYTEST_E_LINE = LazyPattern(r"^E {3,12}(\S.*)$", re.M)
"""pytest's lines that say why a test failed (``E       assert 3 == 6``)."""
_MARKER_LINE = LazyPattern(r"\[stderr\]|\[exit code: -?\d+\]|\(no output\)")
"""A line the shell tool adds around output (:mod:`goosectx.tools.shell`): no message."""


MAX_WORD_HITS = 64
"""Past this many words of :data:`_ERROR_WORDS` in a text, :func:`first_error_match` searches
it whole."""


def first_error_match(text: str) -> re.Match[str] | None:
    r"""``_ERROR_LINE.search(text)``, searching only the lines near the words a match holds.

    Every match holds one of :data:`_ERROR_WORDS` and lies between the start of the line
    before the blank lines before that word's line (``^\s*`` and ``^prog:`` reach back that
    far, no further) and the end of the word's line. Those stretches, merged, are searched in
    order with the pattern's own ``pos``/``endpos`` (each ends at a line end, where ``$`` and
    ``\b`` answer as they do in the whole text): the first match found is the first in the
    text. A tool output that merely mentions "error" is not searched from end to end.
    """
    hits: list[int] = []
    for word in _ERROR_WORDS:
        at = text.find(word)
        while at != -1 and len(hits) <= MAX_WORD_HITS:
            hits.append(at)
            at = text.find(word, at + 1)
    if len(hits) > MAX_WORD_HITS:
        return _ERROR_LINE.search(text)
    stretches: list[list[int]] = []
    for at in sorted(hits):
        start = text.rfind("\n", 0, at) + 1
        while start > 0:  # back over blank lines, then one line more
            before = text.rfind("\n", 0, start - 1) + 1
            blank = not text[before:start - 1].strip()
            start = before
            if not blank:
                break
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        if stretches and start <= stretches[-1][1]:
            stretches[-1] = [min(stretches[-1][0], start), max(stretches[-1][1], end)]
        else:
            stretches.append([start, end])
    for start, end in stretches:
        found = _ERROR_LINE.search(text, start, end)
        if found is not None:
            return found
    return None


def _traceback_end(text: str) -> tuple[int, str] | None:
    """(position, line) of the exception line ending the last Python traceback in ``text``.

    That is the first line after the ``Traceback (most recent call last):`` header indented no
    deeper than it (the frames and their source lines are indented); ``None`` when that line is
    not an exception's name (the traceback was cut, elided). An exception without a message
    (``AssertionError`` of a bare ``assert``) gets where it was raised, the last frame:
    ``AssertionError (File "t.py", line 3, in f: assert total(3) == 6)``.
    """
    at = text.rfind(_TRACEBACK)
    if at == -1:
        return None
    start = text.rfind("\n", 0, at) + 1
    indent = at - start
    pos = text.find("\n", at)
    frame: list[str] = []  # the last ``File …`` line and the source line under it
    while pos != -1:
        end = text.find("\n", pos + 1)
        line = text[pos + 1:end if end != -1 else len(text)]
        stripped = line.strip()
        if stripped and len(line) - len(line.lstrip()) <= indent and not _ELIDED.fullmatch(
                stripped):  # an elided copy keeps the line after its marker (elide_text)
            if not _RAISED_LINE.fullmatch(stripped):
                return None
            if ":" not in stripped and frame:
                stripped = f"{stripped} ({': '.join(frame)})"
            return pos + 1, stripped
        if stripped.startswith('File "'):
            frame = [stripped]
        elif len(frame) == 1 and stripped and not set(stripped) <= {"^", "~"}:  # not carets
            frame.append(stripped)
        pos = end
    return None


def _with_next_line(text: str, pos: int, line: str) -> str:
    """``line`` (at ``pos``) joined with the next non-blank one when it ends in ``:``.

    Node's ``AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:`` says what
    differed on a later line (``3 !== 6``); a stack frame (``at …``) is not that.
    """
    if not line.endswith(":"):
        return line
    for after in text[pos:pos + 2_000].split("\n")[1:6]:
        if after.strip():
            return line if after.strip().startswith("at ") else f"{line} {after.strip()}"
    return line


def _exception_at(sample: str) -> tuple[int, str] | None:
    """(position, line) of :func:`exception_line`'s line, the line as it will read."""
    found = [(m.start() + len(m.group()) - len(m.group().lstrip()), m.group())  # ``\s*``
             for m in _EXCEPTION_LINE.finditer(sample)][-1:]  # may start lines before
    end = _traceback_end(sample)
    if end is not None:
        found.append(end)
    if not found:
        return None
    pos, line = max(found)
    return pos, _with_next_line(sample, pos, line.strip())


def exception_line(text: str) -> str | None:
    """The line naming the exception an output ended with, if any.

    The later of: the line ending the last Python traceback (``AssertionError`` alone, too),
    and the last ``SomethingError: message`` line (node's, and any program's); one that ends in
    ``:`` gets the message line after it (:func:`_with_next_line`).
    """
    sample = text if len(text) <= 200_000 else text[:100_000] + "\n" + text[-100_000:]
    found = _exception_at(sample)
    return found[1] if found is not None else None


def telling_line(text: str) -> str | None:
    """The line of ``text`` (as written) :func:`error_excerpt` reads its excerpt from, if any.

    What an elided copy of a failed result keeps (:func:`goosectx.compaction.elision.elide_text`),
    so the excerpt of the copy names the same error.
    """
    if not any(word in text for word in _ERROR_WORDS):
        return None
    sample = text if len(text) <= 200_000 else text[:100_000] + "\n" + text[-100_000:]
    found = _exception_at(sample) if first_error_match(sample) is not None else None
    if found is None:
        return error_excerpt(text)
    end = sample.find("\n", found[0])
    return sample[found[0]:end if end != -1 else len(sample)].strip()


def error_excerpt(text: str) -> str | None:
    """The telling line of an error in tool output, or ``None`` when it does not look failed.

    Prefers :func:`exception_line` (the end of a traceback), else the first line that matches
    a common failure pattern — but for pytest's output without its ``FAILED test - why``
    summary line, the first ``E   why`` line; when the match is a bare marker
    (``[exit code: 1]``), the last line before it that is not one (``[stderr]``,
    ``(no output)``), if any.
    """
    if not any(word in text for word in _ERROR_WORDS):
        return None  # the search cannot match (the sample below is a part of ``text``)
    sample = text if len(text) <= 200_000 else text[:100_000] + "\n" + text[-100_000:]
    first = first_error_match(sample)
    if first is None:
        return None
    exception = exception_line(sample)
    if exception is not None:
        return exception
    start = sample.rfind("\n", 0, first.start()) + 1
    end = sample.find("\n", first.end())
    line = sample[start:end if end != -1 else len(sample)].strip()
    if not line.startswith("FAILED ") and "E   " in sample:
        why = _PYTEST_E_LINE.search(sample)
        if why is not None:
            return why.group(1).strip()
    if _MARKER_LINE.fullmatch(line):  # a bare ``[exit code: 1]``: the message line before it
        before = sample[max(0, start - 4_000):start].split("\n")
        return next((b.strip() for b in reversed(before)
                     if b.strip() and not _MARKER_LINE.fullmatch(b.strip())), line)
    return line


_RAN_STATUS = LazyPattern(r"\[(?:exit code: -?\d+|killed by signal \d+|timed out after [^\]\n]*"
                         r"|cancelled; the command and its child processes were killed)\]\s*$")
"""The status line the shell tool ends a result with once its command ran (``[exit code: 1]``,
a timeout or cancel that killed it): the command's redirections were made."""


def ran_status(output: str) -> str | None:
    """The status line :data:`_RAN_STATUS` ending ``output`` (stripped), else ``None``.

    A failed result with one shows that its command ran, so what it wrote before failing was
    written (the Files facts: "maybe written by a command that failed").
    """
    found = _RAN_STATUS.search(output[-200:])
    return None if found is None else found.group(0).strip()
