"""A JSON object too large to read whole, read one member (and one array item) at a time.

A goosectx export of a long session is larger than
:data:`~goosectx.importers.builder.MAX_DOCUMENT_BYTES`; :func:`iter_members` reads its
top-level object with :meth:`json.JSONDecoder.raw_decode` over a buffer filled as needed, so
memory holds one value (at most :data:`~goosectx.importers.builder.MAX_LINE_BYTES`) of the file
at a time. The checks are those of a document read whole: JSON nested at most
:data:`~goosectx.importers.MAX_NESTING` deep (counted from the document's top), no
number too large to convert, nothing after the object. See docs/architecture.md §8
(storage: how an import reads and saves a long session).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from goosectx.errors import ImportFormatError
from goosectx.importers import builder
from goosectx.importers.arguments import json_problem
from goosectx.importers.builder import format_error
from goosectx.importers.json_depth import MAX_NESTING, counted_brackets, nesting
from goosectx.importers.progress import reading

CHUNK_CHARS = 1 << 20
"""Characters read at a time (more while one value is longer than what is buffered)."""
_REFILL_PART = 16
"""A value starting in the last 1/16 of a chunk is read after the next chunk is buffered."""
_NEAR_END = 16
"""A value read or broken this close to the end of what is buffered may go on: read more."""
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class _Reader:
    """The text of one file, consumed from the front; ``where`` names the value being read."""

    def __init__(self, path: Path, fh: TextIO) -> None:
        self.path = path
        self.fh = fh
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.where = ""

    def _fill(self) -> None:
        pending = len(self.buf) - self.pos
        if pending > builder.MAX_LINE_BYTES:
            raise ImportFormatError(
                f"{self.path.name}: {self.where or 'a value'} is over "
                f"{builder.MAX_LINE_BYTES // 2**20} MB; goosectx imports values up to that",
                "split the transcript, or cut the oversized part out")
        # never more than the cap from the start of a value: a longer one cannot parse whole
        chunk = self.fh.read(min(max(CHUNK_CHARS, pending), builder.MAX_LINE_BYTES + 1 - pending))
        if not chunk:
            self.eof = True
        reading.done += len(chunk)
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0

    def peek(self) -> str:
        """The next character that is not white space ("" at the end of the file)."""
        while True:
            self.pos = _SPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf) or self.eof:
                return self.buf[self.pos:self.pos + 1]
            self._fill()

    def take(self, allowed: str) -> str:
        """Consume the next character, which must be one of ``allowed``."""
        char = self.peek()
        if not char or char not in allowed:
            expected = " or ".join(repr(c) for c in allowed)
            raise self.error(f"expected {expected}" if char else None)
        self.pos += 1
        return char

    def value(self, depth: int) -> Any:
        """The next JSON value, at ``depth`` levels inside the document."""
        self.peek()
        if not self.eof and len(self.buf) - self.pos < CHUNK_CHARS // _REFILL_PART:
            # read on before a value that may go past what is buffered: a parse that fails
            # there raises a JSONDecodeError, which counts the buffer's lines up to the failure
            self._fill()
        while True:
            start = self.pos
            try:
                value, end = _DECODER.raw_decode(self.buf, start)
            except json.JSONDecodeError as exc:
                unterminated = exc.msg.startswith("Unterminated")
                ends = len(self.buf.rstrip())
                if not self.eof and (unterminated or exc.pos >= ends - _NEAR_END):
                    self._fill()  # the value goes on past what is buffered
                    continue
                raise self.error(None if unterminated or exc.pos >= ends
                                 else json_problem(exc)) from None
            except RecursionError:
                raise self.too_deep() from None
            except ValueError as exc:  # an integer with more digits than Python converts
                problem = (f"a number has more than {sys.get_int_max_str_digits():,} digits"
                           if "digits" in str(exc) else f"not usable JSON ({str(exc)[:120]})")
                raise format_error(self.path, self.where, problem) from None
            if (type(value) in (int, float) and end > len(self.buf) - _NEAR_END
                    and not self.eof):
                self._fill()  # a number ("1" of "1.5e3") may go on in the next chunk
                continue
            self.pos = end
            brackets = counted_brackets(self.buf, start, end)
            if brackets + depth > MAX_NESTING and (
                    nesting(value) + depth > MAX_NESTING):
                raise self.too_deep()
            return value

    def error(self, problem: str | None) -> ImportFormatError:
        """Not JSON here (``None``: the file ends before the JSON is complete)."""
        return format_error(self.path, self.where, "the JSON ends before it is complete (is the "
                            "file cut short?)" if problem is None
                            else f"not valid JSON: {problem}")

    def too_deep(self) -> ImportFormatError:
        return format_error(self.path, self.where,
                            f"JSON nested more than {MAX_NESTING} levels deep")


def iter_members(path: Path, array_key: str) -> Iterator[tuple[str, int | None, Any]]:
    """The members of the file's top-level JSON object, in file order.

    Yields ``(key, None, value)`` for each member, except the array member ``array_key``,
    whose items come one at a time as ``(array_key, number, item)`` (numbered from 1).

    Raises:
        ImportFormatError: not one JSON object, a value over
            :data:`~goosectx.importers.builder.MAX_LINE_BYTES`, nested too deeply, a number
            too large, ``array_key`` twice, or text after the object (each one line, naming
            the member or the item).
    """
    try:
        fh = path.open(encoding="utf-8-sig", errors="replace")  # (a leading BOM skipped)
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc.strerror}", "check the path") from None
    with fh:
        reader = _Reader(path, fh)
        yield from _members(reader, array_key)
        reader.where = "after the JSON object"
        if reader.peek():
            raise reader.error("Extra data")


def _members(reader: _Reader, array_key: str) -> Iterator[tuple[str, int | None, Any]]:
    reader.take("{")
    if reader.peek() == "}":
        reader.take("}")
        return
    streamed = False
    while True:
        if reader.peek() != '"':
            raise reader.error("Expecting property name enclosed in double quotes"
                               if reader.peek() else None)
        key = reader.value(1)
        reader.where = f'"{key[:40]}"'
        reader.take(":")
        if key == array_key and reader.peek() == "[":
            if streamed:
                raise reader.error(f'"{array_key}" appears twice')
            streamed = True
            yield from _items(reader, key)
        else:
            yield key, None, reader.value(1)
        if reader.take(",}") == "}":
            return


def _items(reader: _Reader, key: str) -> Iterator[tuple[str, int | None, Any]]:
    reader.take("[")
    if reader.peek() == "]":
        reader.take("]")
        return
    number = 0
    while True:
        number += 1
        reader.where = f'"{key[:40]}" item #{number}'
        yield key, number, reader.value(2)
        if reader.take(",]") == "]":
            return
