"""The extractive summary's pieces cut to a size: each piece counted once, in batches if asked.

Part of the extractive summariser (:mod:`goosectx.compaction.extractive`, docs/architecture.md
§5). A piece longer than its cap is cut to its head and tail around `` […] ``, shorter each try
until it fits: between words when it has any (a word longer than half the cut is cut), and a piece
cut before (a carried summary's) is cut again on both sides of its one marker, never twice.
The cut is one algorithm (:func:`_cut_steps`, a generator that asks for the count of each text
it tries), driven either one piece at a time or, when the counter counts in
a worker process (:attr:`goosectx.tokens.TokenCounter.batches`), for all the pieces of a level
at once, one round trip per try: the same counts, so the same cuts.
"""

from __future__ import annotations

from collections.abc import Generator

from goosectx.tokens import TokenCounter

CUT = " […] "
"""Where a cut left text out (:data:`goosectx.compaction.carry.CUT`)."""
Key = tuple[str, int | None, bool]
"""(text, max tokens, one line): what a cut is made of."""


class PieceCounts:
    """Counts of the pieces of one summary (each text tokenised once) and the cuts made.

    ``shortened``: (text, max tokens, one line) → the cut text, the same at every level that
    asks for that size. While ``collecting`` is a list, :func:`shorten` records what it is
    asked for there instead of cutting (a first pass over a level, for :meth:`resolve`).
    ``one_line``: text → whether it is cut on one line (a line of it could start a section of
    the summary), decided once a summary, whatever the levels tried.
    """

    def __init__(self, counter: TokenCounter) -> None:
        self._counter = counter
        self._seen: dict[str, int] = {}
        self.shortened: dict[Key, str] = {}
        self.collecting: list[Key] | None = None
        self.one_line: dict[str, bool] = {}

    @property
    def batches(self) -> bool:
        """True when counting many texts together saves round trips (a worker counts)."""
        return self._counter.batches

    def count_text(self, text: str) -> int:
        """Tokens in ``text``, as the counter counts them."""
        hit = self._seen.get(text)
        if hit is None:
            hit = self._seen[text] = self._counter.count_text(text)
        return hit

    def resolve(self) -> None:
        """Make the cuts :attr:`collecting` recorded: each try of every piece in one batch."""
        keys, self.collecting = self.collecting or [], None
        running: dict[Key, tuple[Generator[str, int, str], str]] = {}
        for key in keys:
            if key not in self.shortened and key not in running:
                steps = _cut_steps(*key)
                try:
                    running[key] = (steps, next(steps))
                except StopIteration as done:
                    self.shortened[key] = done.value
        while running:
            todo = list({text: None for _, text in running.values() if text not in self._seen})
            self._seen.update(zip(todo, self._counter.count_texts(todo), strict=True))
            ahead: dict[Key, tuple[Generator[str, int, str], str]] = {}
            for key, (steps, text) in running.items():
                try:
                    ahead[key] = (steps, steps.send(self._seen[text]))
                except StopIteration as done:
                    self.shortened[key] = done.value
            running = ahead


def shorten(text: str, max_tokens: int | None, counts: PieceCounts, *, oneline: bool = True
            ) -> str:
    """``text`` cut to ``max_tokens``: its head and tail around `` […] `` (made once a level)."""
    key = (text, max_tokens, oneline)
    hit = counts.shortened.get(key)
    if hit is None:
        if counts.collecting is not None:
            counts.collecting.append(key)
            return text
        steps = _cut_steps(*key)
        try:
            tried = next(steps)
            while True:
                tried = steps.send(counts.count_text(tried))
        except StopIteration as done:
            hit = counts.shortened[key] = done.value
    return hit


def _fits_without_count(text: str, max_tokens: int) -> bool:
    """True when ``text`` has at most ``max_tokens`` tokens without counting it.

    A token is at least one UTF-8 byte (byte-level BPE), not one character: one emoji is up
    to 4 bytes and as many tokens, so only the byte length bounds the count.
    """
    if len(text) > max_tokens:
        return False
    return text.isascii() or len(text.encode("utf-8", "surrogatepass")) <= max_tokens


def _cut_steps(text: str, max_tokens: int | None, oneline: bool
               ) -> Generator[str, int, str]:
    """The cut of ``text``: yields each text it needs counted, is sent its count."""
    if oneline:
        text = " ".join(text.split())
    if max_tokens is None or _fits_without_count(text, max_tokens):
        return text
    count = yield text
    if count <= max_tokens:
        return text
    keep = int(len(text) * max_tokens / count * 0.9)
    while keep > 8:
        candidate = head_and_tail(text, keep)
        if (yield candidate) <= max_tokens:
            return candidate
        keep = int(keep * 0.8)
    return word_head(text.partition(CUT)[0], max(8, keep)) + " […]"


def head_and_tail(text: str, keep: int) -> str:
    """About ``keep`` characters of ``text``: ⅔ from its head, ⅓ from its tail, whole words.

    A text cut before keeps its one marker: the head comes from before it, the tail from
    after it (what one side lacks the other gets).
    """
    before, cut, after = text.partition(CUT)
    if not cut or CUT in after:
        before = after = text
    head = min(keep * 2 // 3, len(before))
    tail = min(keep - head, len(after))
    head = min(keep - tail, len(before))
    return f"{word_head(before, head)}{CUT}{word_tail(after, tail)}"


def word_head(text: str, chars: int) -> str:
    """The first ``chars`` characters of ``text``, back to the last word boundary if any.

    A word longer than half the cut is cut: going back to its start would drop more than it
    keeps (a blob after a label would leave the label alone).
    """
    if chars >= len(text):
        return text.rstrip()
    if not text[chars].isspace():
        at = max(text.rfind(" ", 0, chars), text.rfind("\n", 0, chars))
        if at > 0 and at >= chars // 2:
            chars = at
    return text[:chars].rstrip()


def word_tail(text: str, chars: int) -> str:
    """The last ``chars`` characters of ``text``, on to the next word boundary if any.

    A word longer than half the cut is cut, as in :func:`word_head`.
    """
    start = len(text) - chars
    if start <= 0:
        return text.lstrip()
    if not text[start - 1].isspace():
        found = [at for at in (text.find(" ", start), text.find("\n", start)) if at != -1]
        if found and min(found) < len(text) - 1 and min(found) - start <= chars // 2:
            start = min(found)
    return text[start:].lstrip()
