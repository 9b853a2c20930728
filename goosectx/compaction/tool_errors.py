"""What a failed tool result looks like: the telling line of an error in tool output.

Used by the compaction scans (:mod:`goosectx.compaction.gather`, its memo, the tool-pair
notes of :mod:`goosectx.compaction.toolpairs`). All functions are pure.
"""

from __future__ import annotations

import re

_ERROR_LINE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|[\w.]*(?:Error|Exception)\b(?::|$)|"
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
_EXCEPTION_LINE = re.compile(r"^\s*[\w.]*(?:Error|Exception)\b:.*$", re.M)
_MARKER_LINE = re.compile(r"\[stderr\]|\[exit code: -?\d+\]|\(no output\)")
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


def exception_line(text: str) -> str | None:
    """The last ``SomethingError: message`` line of ``text`` (a traceback's end), if any."""
    sample = text if len(text) <= 200_000 else text[:100_000] + "\n" + text[-100_000:]
    exceptions = _EXCEPTION_LINE.findall(sample)
    return str(exceptions[-1]).strip() if exceptions else None


def error_excerpt(text: str) -> str | None:
    """The telling line of an error in tool output, or ``None`` when it does not look failed.

    Prefers the last ``SomethingError: message`` line (the end of a traceback), else the first
    line that matches a common failure pattern; when that is a bare marker (``[exit code: 1]``),
    the last line before it that is not one (``[stderr]``, ``(no output)``), if any.
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
    if _MARKER_LINE.fullmatch(line):  # a bare ``[exit code: 1]``: the message line before it
        before = sample[max(0, start - 4_000):start].splitlines()
        return next((b.strip() for b in reversed(before)
                     if b.strip() and not _MARKER_LINE.fullmatch(b.strip())), line)
    return line
