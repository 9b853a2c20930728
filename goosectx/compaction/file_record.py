"""What was done to one file, as the facts keep it and a summary's file line says it.

Part of step 3 of the compaction pipeline (docs/architecture.md §5): the scan
(:mod:`goosectx.compaction.gather`) fills a :class:`FileRecord` per file,
:meth:`FileRecord.describe` writes its line in the facts, and :func:`carry_file_line` reads
such a line back from an earlier summary (:mod:`goosectx.compaction.carry`).
"""

from __future__ import annotations

import re
from dataclasses import field

from goosectx.compaction.actions import WRITE_VERBS
from goosectx.lazy_pattern import LazyPattern
from goosectx.plain_record import mutable_record

NOT_CHANGED = "not changed"
"""What a file line says when every attempt to change the file failed or was rejected."""
_FAILED_ATTEMPTS = LazyPattern(r"\b(\d+) attempt\(s\) failed or were rejected")
_UNDONE = LazyPattern(r"\bthen (restored|removed) by /undo\b")
_VERB_WORDS = LazyPattern(r"\b(created|written|edited|deleted|read)\b(?: \((\d+)×\))?")
_VERB_ORDER = ("created", "written", "edited", "deleted", "read")
_FAILED_RUNS = LazyPattern(r"\b(?:maybe )?(created|written|edited|deleted) by "
                          r"(?:a command|(\d+) commands) that (?:then )?failed")
"""How :meth:`FileRecord.describe` says a command that failed may have made the change (the
command ran, but it may have failed before or at the write: ``false && echo x > f``)."""


@mutable_record  # compared, printed nowhere (a test)
class FileRecord:
    """What was done to one file: verbs with their counts, failed attempts, the code written.

    ``undone``: ``restored`` or ``removed`` when a ``/undo`` was the last change to it (a
    later write clears it). ``failed_runs``: by write verb, the commands that ran and then
    failed (a non-zero exit, a timeout): ``echo x > f; exit 1`` wrote ``f`` all the same, so
    such a write is neither done nor a failed attempt.
    """

    path: str
    verbs: dict[str, int] = field(default_factory=dict)
    failed: int = 0
    code: str = ""
    undone: str = ""
    failed_runs: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        """True when the file was created, written, edited or deleted (not only attempted)."""
        return any(n for v, n in self.verbs.items() if v in WRITE_VERBS)

    @property
    def listed(self) -> bool:
        """True when a change was made or attempted: a file the facts list.

        A failed or denied attempt keeps its verb with a count of 0 (:func:`carry_file_line`
        and the scan record it so), and is listed as ``not changed``.
        """
        return any(v in WRITE_VERBS for v in self.verbs) or bool(self.undone)

    def brief(self) -> str:
        """The write verbs without counts (``written, edited``), else :meth:`describe`.

        The shortest line a later compaction still reads as what was done.
        """
        verbs = ", ".join(v for v in _VERB_ORDER if self.verbs.get(v) and v in WRITE_VERBS)
        return verbs + self._undo() if verbs else self.describe()

    def _undo(self) -> str:
        """``, then restored by /undo`` (or ``removed``) when :attr:`undone`, else ``""``."""
        return f", then {self.undone} by /undo" if self.undone else ""

    def describe(self) -> str:
        """The verbs in order, with counts and failed attempts (``edited (2×), read``).

        A file whose every attempt failed or was rejected reads ``not changed; 1 attempt(s)
        failed or were rejected``, never a bare ``; …`` a later compaction cannot read; one a
        command that failed may have written, ``maybe written by a command that failed``.
        """
        parts = []
        for verb in _VERB_ORDER:
            n = self.verbs.get(verb, 0)
            if n:
                parts.append(verb if n == 1 else f"{verb} ({n}×)")
        for verb in _VERB_ORDER if self.failed_runs else ():
            n = self.failed_runs.get(verb, 0)
            if n:
                parts.append(f"maybe {verb} by "
                             + ("a command that" if n == 1 else f"{n} commands that") + " failed")
        if self.failed and not parts:
            parts.append(NOT_CHANGED)
        text = (", ".join(parts) + self._undo()).removeprefix(", then ")
        if self.failed:
            text += f"; {self.failed} attempt(s) failed or were rejected"
        return text


def carry_file_line(about: str, record: FileRecord) -> None:
    """What a summary's line about one file says was done to it, added to ``record``.

    Only the verbs it names count (``edited (2×)``, ``read``; a grouped ``3 files changed``
    as edits): a line naming none — a model's note on a file it only looked at — adds no
    verb, and one of only rejected attempts (``not changed; 1 attempt(s) failed or were
    rejected``) stays that: its failures, with a write verb counted 0; so does a write by a
    command that failed (:attr:`FileRecord.failed_runs`). A ``then restored by /undo`` (or
    ``removed``) is kept as :attr:`FileRecord.undone`.
    """
    grouped = re.match(r"(\d+) files? changed$", about)
    if grouped:
        record.verbs["edited"] = record.verbs.get("edited", 0) + int(grouped.group(1))
        return
    undone = _UNDONE.search(about)
    if undone:
        record.undone, record.code = undone.group(1), ""
    if " failed" in about:
        for verb, n in _FAILED_RUNS.findall(about):
            record.failed_runs[verb] = record.failed_runs.get(verb, 0) + (int(n) if n else 1)
            record.verbs.setdefault(verb, 0)
        about = _FAILED_RUNS.sub("", about)
    failed = _FAILED_ATTEMPTS.search(about)
    if failed:
        record.failed += int(failed.group(1))
        about = about[:failed.start()]
    if NOT_CHANGED not in about:
        for verb, n in _VERB_WORDS.findall(about):
            record.verbs[verb] = record.verbs.get(verb, 0) + (int(n) if n else 1)
    if failed and not record.verbs:
        record.verbs["edited"] = 0  # an attempt to change it: listed, as not changed
