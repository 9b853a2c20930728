"""Regular expressions compiled at their first use, not at import (docs/architecture.md §5).

The facts scan's modules hold some fifty patterns, most for what few transcripts hold (patch
headers, pytest ids, editor consoles, checklists); compiling them all at import costs every
process that loads the compaction pipeline — a ``compact --dry-run``, which resumes a kept scan
and uses a handful, or none — several milliseconds. The store, session, attachment and
redaction modules' patterns a command may never run (a lone surrogate, a stored time in
another form, a terminal escape) are lazy alike. A :class:`LazyPattern` is compiled by its
first use; from then on its methods are the compiled pattern's own, set on the instance (they
come before the class's), so a hot loop pays nothing for the laziness.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from goosectx.collector import cycle_collector_paused

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "split")


def compile_long(source: str) -> re.Pattern[str]:
    """``re.compile(source)`` with Python's cycle collector paused (on again after).

    For a regex of tens of thousands of characters (the redactor's, of a long key): its
    parse makes ~10 objects a character, which live until it ends, and the young collections
    the parse set off walked them again and again — the compile took 2.5x as long at twice
    the length; paused, it is linear (1.6 µs a character; bench/redaction_keys.py).
    """
    with cycle_collector_paused():
        return re.compile(source)


class LazyPattern:
    """``re.compile(pattern, flags)``, made when one of its methods is first called."""

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled at the first call)."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
            for name in _METHODS:  # instance attributes: found before the methods below
                setattr(self, name, getattr(self._compiled, name))
        return self._compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize
               ) -> re.Match[str] | None:
        """:meth:`re.Pattern.search`."""
        return self.compiled().search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize
              ) -> re.Match[str] | None:
        """:meth:`re.Pattern.match`."""
        return self.compiled().match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize
                  ) -> re.Match[str] | None:
        """:meth:`re.Pattern.fullmatch`."""
        return self.compiled().fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize
                 ) -> Iterator[re.Match[str]]:
        """:meth:`re.Pattern.finditer`."""
        return self.compiled().finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        """:meth:`re.Pattern.findall`."""
        return self.compiled().findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str,
            count: int = 0) -> str:
        """:meth:`re.Pattern.sub`."""
        return self.compiled().sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        """:meth:`re.Pattern.split`."""
        return self.compiled().split(string, maxsplit)
