"""A key split between two texts of one reply, redacted in both.

A reply's texts are redacted one by one (its reasoning, its answer, each tool call's
arguments), but a model may write a key's start at the end of one and its rest at the start
of the next: ``sk-proj-AbCd…`` ending the reasoning, the key's last 30 characters starting
the answer. The rest alone is no form of the key (:func:`goosectx.redaction.encodings`), so
each would show a piece of it. Here each pair of neighbouring texts is read joined, only
around the join (:attr:`goosectx.secret_tail.SecretTail.window` characters each side, the
most a form takes written out): a span of a key found across the join has its share of each
text redacted as ``[REDACTED]``, and the rest of each is redacted as before. Texts with no
key across a join cost one quick check (:mod:`goosectx.redaction_check`) of their joins'
windows, or of them joined when that is shorter: O(min(the texts' length, the windows));
otherwise each join costs O(its window) more. See
docs/architecture.md §2 (redaction).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from goosectx.redaction import REDACTED, Redactor
from goosectx.secret_tail import SecretTail

Cuts = dict[int, tuple[int, int]]
"""By text index: (its first characters that are a key's rest, where a key's start begins);
``(0, len(text))`` cuts nothing."""


def crossing_cuts(texts: Sequence[str], redact: Callable[[str], str]) -> Cuts:
    """Where a key joins a text's end to the next one's start, by text index.

    Only when ``redact`` lists its ``secrets`` (else nothing is known to look for); the key's
    forms are those it redacts (:class:`~goosectx.redaction.Redactor`). One quick check
    first, of the joins (the texts joined, when they are short): no key there (the common
    case), nothing else is read.
    """
    finder = finder_of(redact)
    tail = SecretTail.of(redact)
    if len(texts) < 2 or finder is None or tail is None or not finder.secrets:
        return {}
    window = max(tail.window, 1)
    if 2 * window * (len(texts) - 1) < sum(map(len, texts)):  # (long texts: their joins)
        checked = [texts[i][-window:] + texts[i + 1][:window] for i in range(len(texts) - 1)]
    else:
        checked = ["".join(texts)]
    if finder.changes_none(checked):
        return {}
    cuts: Cuts = {}
    for i in range(len(texts) - 1):
        before, after = texts[i][-window:], texts[i + 1][:window]
        if not before or not after:
            continue
        join = len(before)
        for start, end in finder.spans(before + after):
            if start < join < end:
                head, cut = cuts.get(i, (0, len(texts[i])))
                cuts[i] = (head, min(cut, len(texts[i]) - (join - start)))
                head, cut = cuts.get(i + 1, (0, len(texts[i + 1])))
                cuts[i + 1] = (max(head, end - join), cut)
    return cuts


def with_cuts(text: str, cut: tuple[int, int] | None, each: Callable[[str], str]) -> str:
    """``text`` redacted by ``each``, its ``cut`` shares of a key that crosses ``[REDACTED]``."""
    if cut is None:
        return each(text)
    head, tail = cut
    if head >= tail:
        return _hidden(text)
    middle = each(text[head:tail])
    return (_hidden(text[:head]) if head else "") + middle + (
        _hidden(text[tail:]) if tail < len(text) else "")


def after(lead: str, text: str, redact: Callable[[str], str],
          shares: list[str] | None = None) -> str:
    """``text`` redacted as it reads after ``lead`` (the text before it, shown already).

    ``shares`` gets the raw pieces of a key found across the join: ``lead``'s, ``text``'s.
    """
    cuts = crossing_cuts((lead, text), redact)
    if shares is not None and 1 in cuts:
        shares += [lead[cuts[0][1]:], text[:cuts[1][0]]]
    return with_cuts(text, cuts.get(1), redact)


def turn_shares(deltas: Sequence[tuple[bool, str]], redact: Callable[[str], str]) -> list[str]:
    """Each part's share of a key whose pieces took turns between two parts of a stream.

    ``deltas``: (which part, its text) in the order they arrived (the reasoning's and the
    answer's). A key written a few characters in one, a few in the other, and so on is whole
    only in that order; each part as stored holds its pieces side by side, as no form of the
    key. Of each key found in the deltas joined, the pieces each part holds, joined (side by
    side in it). Nothing unless the parts took turns twice (one turn: the stored parts are
    neighbours, :func:`crossing_cuts` reads them); then one quick check of the text joined.
    """
    turns = sum(1 for a, b in zip(deltas, deltas[1:], strict=False) if a[0] != b[0])
    finder = finder_of(redact)
    if turns < 2 or finder is None or not finder.secrets:
        return []
    joined = "".join(text for _, text in deltas)
    spans = finder.spans(joined)
    if not spans:
        return []
    starts = []
    at = 0
    for _, text in deltas:
        starts.append(at)
        at += len(text)
    shares: list[str] = []
    for start, end in spans:
        pieces: dict[bool, list[str]] = {}
        k = bisect.bisect_right(starts, start) - 1
        while k < len(deltas) and starts[k] < end:
            part, text = deltas[k]
            pieces.setdefault(part, []).append(text[max(0, start - starts[k]):end - starts[k]])
            k += 1
        if len(pieces) > 1:
            shares += ["".join(p) for p in pieces.values()]
    return shares


def _hidden(text: str) -> str:
    """``[REDACTED]`` for ``text``, its lines kept (as :class:`Redactor` does)."""
    return REDACTED + "\n" * text.count("\n")


_last: tuple[tuple[str, ...], Redactor] | None = None


def finder_of(redact: Callable[[str], str]) -> Redactor | None:
    """``redact`` itself when it is a :class:`Redactor`; else one of its ``secrets``."""
    global _last
    if isinstance(redact, Redactor):
        return redact
    secrets = getattr(redact, "secrets", None)
    if secrets is None:
        return None
    key = tuple(secrets)
    if _last is None or _last[0] != key:
        _last = (key, Redactor(key))
    return _last[1]
