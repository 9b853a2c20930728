"""The user's constraints as they stand: prose lines only, a changed rule marked superseded.

Part of step 3 of the compaction pipeline (docs/architecture.md §5). The facts list the lines
of the user's requests that state a requirement (:data:`~goosectx.compaction.carry.CONSTRAINT`).
Three things make that list wrong without this module:

* a rule shares its line with sentences that are none: "Task: port the parser to rust. Never
  use unsafe." — the rule sentences are taken, and an order beside them, not a statement of
  the task or a description; an issue's "fails when arguments do not appear" (a negation with
  its subject) is no rule (:func:`_rule_sentences`);

* quoted code and error output say "only" and "without" too: a line inside fenced code
  (```` ``` ```` or ``~~~``) or one that reads as an error or a traceback (``TypeError: …``,
  ``File "x.py", line 3``, pytest's ``E   …``, a ``>>>`` prompt) is no constraint
  (:func:`request_lines`);
* a rule changes: "forget the 79 character limit, keep lines at 100" or "you may now edit
  tests/" — a line that lifts or changes an earlier rule (:data:`CHANGE`) is listed right
  after it, even when it states no requirement itself, and the earlier sentence it names (a
  number, a path, a quoted word, or two words of it) is marked :data:`SUPERSEDED` — the other
  sentences of that line stay rules (:func:`settled`); a change line that names no listed rule
  is not listed (unless it states one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from goosectx.lazy_pattern import LazyPattern

SUPERSEDED = " (superseded by a later line)"
"""Ends a constraint a later line of the user's lifted or changed."""
CHANGE = LazyPattern(
    r"\b(?:forget|disregard|ignore|drop|lift|remove|relax|scrap) (?:about )?(?:the|my|that|this"
    r"|those|these|any|our|your) (?:[\w-]+ ){0,4}(?:limit|rule|constraint|restriction"
    r"|requirement|instruction)s?\b"
    r"|\b(?:forget|disregard|ignore) (?:what I said|my earlier|the earlier|my previous"
    r"|the previous|the above|that)\b"
    r"|\bno longer\b|\bany ?more\b|\bscratch that\b|\bnever ?mind\b|\bchange of plans?\b"
    r"|\bfrom now on\b|\binstead of\b|\bfeel free to\b"
    r"|\b(?:you|we) (?:may|can|are allowed to|are free to) now\b"
    r"|\bis (?:now )?(?:lifted|allowed|fine|ok|okay)\b",
    re.I)
"""A line of a request that lifts or changes an earlier rule ("forget the 79 character limit",
"you may now edit tests/", "X is no longer needed", "change of plan", "from now on")."""
_CHANGE_HINTS = ("forget", "disregard", "ignore", "drop", "lift", "remove", "relax", "scrap",
                 "no longer", "any", "scratch", "mind", "change of plan", "from now on",
                 "instead of", "feel free", "now", "allowed", "fine", "ok")
"""Each match of :data:`CHANGE`, lower-cased, holds one of these."""
_CHANGE_LOWER = LazyPattern(CHANGE.pattern.lower())
""":data:`CHANGE` for lower-cased ASCII text: it matches where :data:`CHANGE` matches the text
before lower-casing (its pattern holds no escape a lower-casing changes, and ignoring case
matches an ASCII letter as its lower case), in under half the time (a case-insensitive search
folds every character it tries). Each pattern here is compiled at its first use: an ASCII
text needs only this one of the two."""
_FENCE = LazyPattern(r"^ {0,3}(`{3,}|~{3,})")
_NOT_PROSE = LazyPattern(
    r"^\s*(?:(?:[\w.]*(?:Error|Exception)|[\w.]+Warning)\b(?: \[\w+\])?:"
    r"|Traceback \(most recent call|File \"[^\"]+\", line \d|E {3}|>>> |\.\.\. |\$ "
    r"|at [\w.$<>]+ \()")
"""A line of error output, a traceback or a console session, not the user's prose."""
_STRONG = LazyPattern(r"`[^`]+`|\"[^\"]+\"|'[^']+'|\b\d{2,}\b|[\w.-]*[/\\][\w./\\-]*"
                     r"|\b\w+\.[A-Za-z]\w*\b|\b\w+_\w+\b")
"""What names a rule's subject by itself: a quoted word, a number of two digits or more, a path,
a file or dotted name, a snake_case name."""
_WORD = LazyPattern(r"[A-Za-z]{4,}")
_STOP = frozenset({
    "keep", "keeps", "from", "that", "this", "these", "those", "with", "without", "only", "must",
    "never", "always", "please", "avoid", "should", "would", "could", "will", "then", "than",
    "there", "here", "what", "when", "where", "which", "your", "their", "them", "they", "have",
    "make", "sure", "also", "just", "more", "most", "some", "like", "about", "into", "over",
    "forget", "ignore", "disregard", "longer", "instead", "change", "plan", "plans", "allowed",
    "free", "feel", "okay", "fine", "lift", "drop", "remove", "relax", "scrap", "rule", "rules",
    "limit", "limits", "constraint", "constraints", "restriction", "requirement", "earlier",
    "previous", "before", "above", "anymore", "needed", "need", "mind", "scratch", "task",
    "now", "again", "stick", "target", "want", "wants", "using", "used", "use", "don't",
})


def may_change(text: str) -> bool:
    """False only when :data:`CHANGE` cannot match ``text`` (a cheap test before it).

    As :func:`goosectx.compaction.carry.may_name_constraint`: the long s (ſ) and the dotted
    capital I (İ), which a case-insensitive search matches as ``s`` and ``i``, are replaced first.
    """
    low = text.lower()
    if not low.isascii():  # 'İgnore that' lower-cases to i + a combining dot
        low = low.replace("ſ", "s").replace("i\u0307", "i")
    for hint in _CHANGE_HINTS:  # a loop, not ``any`` over a generator: called for every request
        if hint in low:
            return True
    return False


def request_lines(text: str, is_constraint: Callable[[str], object]) -> tuple[str, ...]:
    """The stripped prose lines of a request that ``is_constraint`` or that change a rule.

    In order, repeats included; lines inside fenced code and lines of error output are
    skipped.
    """
    fenced = "```" in text or "~~~" in text
    # An ASCII text is searched lower-cased (the same lines as it is: lower-casing changes no
    # ASCII line break); no line can match when the whole text does not.
    low = text.lower() if text.isascii() else None
    changes = (CHANGE.search(text) if low is None else _CHANGE_LOWER.search(low)) is not None
    lowered = low.splitlines() if changes and low is not None else None
    fence = ""  # the open fence's characters, "" outside fenced code
    out = []
    for at, raw in enumerate(text.splitlines()):
        if fenced:
            marker = _FENCE.match(raw)
            if marker is not None:
                run = marker.group(1)
                if not fence:
                    fence = run
                elif run[0] == fence[0] and len(run) >= len(fence) and not raw.strip(
                        run[0] + " \t"):
                    fence = ""
                continue
            if fence:
                continue
        line = raw.strip()
        if line and (is_constraint(line) or changes and (
                CHANGE.search(line) if lowered is None else _CHANGE_LOWER.search(lowered[at]))
                ) and not _NOT_PROSE.match(line):
            rule = _rule_sentences(line, is_constraint, changes)
            if rule:
                out.append(rule)
    return tuple(out)


_RULE_END = LazyPattern(r"(?<=[.!?])\s+(?=[^\sa-z])")
"""Where a line's sentences part for :func:`_rule_sentences`: after ``.``, ``!`` or ``?``, white
space and no lower-case letter ("e.g. use" and a clause after ``;`` stay in their sentence)."""
_DESCRIBED = LazyPattern(
    r"\b(?!(?:you|we|i|please|and|but|or|so|then|just|also|simply|to|should|must|shall|will"
    r"|would|can|could|may|might)\b)[a-z]\w*\s+(?:do not|don't)\b", re.I)
"""A "do not" with its subject before it: "arguments do not appear" — a description (an
issue's title or text), not the user's rule; "never use", "you do not need to", "please
don't", "must never" stay rules, and so does "tests never touch the network" (a rule a user
writes so: losing one costs more than listing "it never returns")."""
_STATEMENT = LazyPattern(
    r"^(?:[^\s:]+(?: [^\s:]+){0,2}:\s|(?:i|we|the|this|that|these|those|it|its|there|here|my"
    r"|our|a|an|they|their|he|she|when|if|as|since|because)\b)", re.I)
"""A sentence that states the task or describes (``Task: port the parser.``, ``We are
building a CLI.``), not an order like ``Use tabs for indentation.``"""


def _rule_sentences(line: str, is_constraint: Callable[[str], object], changes: bool) -> str:
    """The sentences of ``line`` that are rules or change one, joined (``""``: none).

    A sentence with a rule word is one unless its only one is a described negation
    (:data:`_DESCRIBED`: an issue's "fails when arguments do not appear"); beside such a
    sentence an order without one ("Use tabs for indentation.") is a rule too, a statement of
    the task or of what is ("Task: port the parser to rust.", :data:`_STATEMENT`) is not.
    """
    parts = _RULE_END.split(line)
    rules = [bool(changes and _is_change(part) or is_constraint(part) and (
        "n" not in part or is_constraint(_DESCRIBED.sub("", part)))) for part in parts]
    if not any(rules):
        return ""
    kept = [part for part, rule in zip(parts, rules, strict=True)
            if rule or not (is_constraint(part) or _STATEMENT.match(part))]
    return line if len(kept) == len(parts) else " ".join(kept)


def _is_change(line: str) -> bool:
    """Whether :data:`CHANGE` matches ``line``.

    An ASCII line is searched lower-cased, as in :func:`request_lines`: where every line is
    ASCII only :data:`_CHANGE_LOWER` is compiled (~0.6 ms less in a dry run).
    """
    if line.isascii():
        return _CHANGE_LOWER.search(line.lower()) is not None
    return CHANGE.search(line) is not None


def _subject(line: str) -> tuple[set[str], set[str]]:
    """(strong tokens, content words) of a line, lower-cased, for :func:`_names`."""
    low = line.lower()
    strong = {t.strip("`\"'/\\.") for t in _STRONG.findall(low)} - {""}
    words = {w for w in _WORD.findall(low) if w not in _STOP}
    return strong, words


def _names(change: tuple[set[str], set[str]], rule: tuple[set[str], set[str]]) -> bool:
    """True when a change line's subject is the rule's: a strong token, or two words, shared."""
    return bool(change[0] & rule[0]) or len(change[1] & rule[1]) >= 2


_SENTENCE_END = LazyPattern(r"(?<=[.!?;])\s+(?=\S)")
"""Where a line's sentences part: after ``.``, ``!``, ``?`` or ``;`` and white space (a file
name's dot is followed by a letter: ``secrets.cfg`` stays whole)."""


def settled(constraints: Sequence[str], is_constraint: Callable[[str], object]) -> list[str]:
    """``constraints`` (oldest first) as they stand now.

    Each line once (a mark an earlier summary added is not part of it). In a line that a later
    :data:`CHANGE` line names, the sentences it names end with :data:`SUPERSEDED` (the whole
    line when no one sentence is named) and the rest stay rules, each on its own line; the
    change line comes right after the last sentence it names. A change line that names no
    earlier line and is no constraint (``is_constraint``) itself is left out.
    """
    lines: list[str] = []
    seen: set[str] = set()
    for c in constraints:
        base = c.removesuffix(SUPERSEDED)
        if base not in seen:
            seen.add(base)
            lines.append(base)
    changes = [at for at, line in enumerate(lines) if may_change(line) and _is_change(line)]
    if not changes:
        return lines
    subjects = [_subject(line) for line in lines]
    pieces: dict[int, list[list[str]]] = {}  # a named line's sentences: [text, mark]
    after: dict[tuple[int, int], list[int]] = {}  # (line, sentence) → change lines after it
    for at in changes:
        named = [j for j in range(at) if _names(subjects[at], subjects[j])]
        for j in named:
            parts = pieces.setdefault(j, [[p, ""] for p in _SENTENCE_END.split(lines[j])])
            hit = [k for k, part in enumerate(parts) if _names(subjects[at], _subject(part[0]))]
            for k in hit or range(len(parts)):
                parts[k][1] = SUPERSEDED
            if j == named[-1]:
                after.setdefault((j, (hit or [len(parts) - 1])[-1]), []).append(at)
    moved = {c for cs in after.values() for c in cs}
    out: list[str] = []

    def put(at: int) -> None:
        parts = pieces.get(at) or [[lines[at], ""]]
        whole = len(parts) == 1 or all(mark for _, mark in parts)  # one line, as written
        if whole:
            out.append(lines[at] + parts[0][1])
        for k, (text, mark) in enumerate(parts):
            if not whole:
                out.append(text + mark)
            for c in after.get((at, k), ()):
                put(c)

    change_set = set(changes)
    for at, line in enumerate(lines):
        if at not in moved and (at not in change_set or is_constraint(line)):
            put(at)
    return out
