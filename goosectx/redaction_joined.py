"""A key split between two texts of one reply, redacted in both.

A reply's texts are redacted one by one (its reasoning, its answer, each tool call's
arguments), but a model may write a key's start at the end of one and its rest at the start
of the next: ``sk-proj-AbCd…`` ending the reasoning, the key's last 30 characters starting
the answer. The rest alone is no form of the key (:func:`goosectx.redaction.encodings`), so
each would show a piece of it. Here each pair of texts that may join is read joined, only
around the join (:attr:`goosectx.secret_tail.SecretTail.window` characters each side, the
most a form takes written out): a span of a key found across the join has its share of each
text redacted as ``[REDACTED]``, and the rest of each is redacted as before. A pair costs
O(that window) whatever the texts' length; a pair without a key near the join, one quick
check (:mod:`goosectx.redaction_check`). See docs/architecture.md §2 (redaction).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from goosectx.redaction import REDACTED, Redactor
from goosectx.secret_tail import SecretTail

Cuts = dict[int, tuple[int, int]]
"""By text index: (its first characters that are a key's rest, where a key's start begins);
``(0, len(text))`` cuts nothing."""


def crossing_cuts(texts: Sequence[str], pairs: Sequence[tuple[int, int]],
                  redact: Callable[[str], str]) -> Cuts:
    """Where a key joins ``texts[i]``'s end to ``texts[j]``'s start, for each ``(i, j)``.

    Only when ``redact`` lists its ``secrets`` (else nothing is known to look for); the key's
    forms are those it redacts (:class:`~goosectx.redaction.Redactor`).
    """
    finder = _finder(redact)
    tail = SecretTail.of(redact)
    if finder is None or tail is None or not finder.secrets:
        return {}
    window = max(tail.window, 1)
    cuts: Cuts = {}
    for i, j in pairs:
        before, after = texts[i][-window:], texts[j][:window]
        if not before or not after:
            continue
        join = len(before)
        for start, end in finder.spans(before + after):
            if start < join < end:
                head, cut = cuts.get(i, (0, len(texts[i])))
                cuts[i] = (head, min(cut, len(texts[i]) - (join - start)))
                head, cut = cuts.get(j, (0, len(texts[j])))
                cuts[j] = (max(head, end - join), cut)
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


def after(lead: str, text: str, redact: Callable[[str], str]) -> str:
    """``text`` redacted as it reads after ``lead`` (the text before it, shown already)."""
    return with_cuts(text, crossing_cuts((lead, text), ((0, 1),), redact).get(1), redact)


def _hidden(text: str) -> str:
    """``[REDACTED]`` for ``text``, its lines kept (as :class:`Redactor` does)."""
    return REDACTED + "\n" * text.count("\n")


_last: tuple[tuple[str, ...], Redactor] | None = None


def _finder(redact: Callable[[str], str]) -> Redactor | None:
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
