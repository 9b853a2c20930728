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
    r"|\b\d+ failed\b|not found\. Available tools", re.M)
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
    first = _ERROR_LINE.search(sample)
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
