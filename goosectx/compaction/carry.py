"""What an earlier summary carries into the next compaction: the facts a scan keeps.

Part of step 3 of the compaction pipeline (docs/architecture.md §5). :class:`Facts` is what
:func:`goosectx.compaction.gather.gather_facts` records in its one pass; an earlier summary in the
messages it scans is read back here (:func:`carry_forward`), so its files, user messages,
errors, commands, constraints, open to-do items, intent and next step survive any number of
compactions, whatever each summariser writes.
"""

from __future__ import annotations

import re
from dataclasses import field

from goosectx.compaction.blocks import fenced
from goosectx.compaction.constraint_change import request_lines
from goosectx.compaction.cuts import word_head
from goosectx.compaction.file_record import FileRecord, carry_file_line
from goosectx.lazy_pattern import LazyPattern
from goosectx.plain_record import mutable_record

ANSWERED_NEXT_STEP = "None: the last request was answered; wait for the user's next message."
"""``next_step`` when the summarised part ends with an answer (no pending tool call)."""
_SUMMARY_SECTION = LazyPattern(r"^## (.+?)\s*$", re.M)
FACTS_MARK = "(from the transcript)"
"""Ends the heading of each facts section merged into a summary (:mod:`.facts`)."""
EXTRACTIVE_MARK = "Extractive summary (no model)"
"""Starts the problem-solving note of an extractive summary."""
MODEL_PENDING = "\0model:"
"""Starts the :attr:`Facts.pending` key of a pending task a model's summary named: a guess,
kept by an extractive summary, never merged as a fact (:mod:`.facts`)."""
NOTE_SEPARATOR = " · "
"""Joins the ``earlier`` notes in an extractive summary's problem-solving note."""
_CONSTRAINT_WORD_BRANCH = (
    r"\b(?:must|never|don't|do not|always|only|avoid|stick to|without)\b")
CONSTRAINT = LazyPattern(
    _CONSTRAINT_WORD_BRANCH
    + r"|\bplease (?:target|use|keep|stay|stick|avoid|prefer|make sure)\b"
    r"|\btarget(?:ing)? [A-Za-z.+#-]+ ?v?\d"  # "target Python 3.8"
    r"|\bkeep (?:\w+ ){0,3}(?:at|under|below|within|to|in|as|short|small|simple|stable"
    r"|unchanged|intact|compatible|backwards?)\b"  # "keep lines at 79", not "keep going"
    r"|(?:^|[(,;:]|\band|\bor)\s*no (?!one\b|longer\b|problem|idea|need|worries|matter"
    r"|doubt|way\b|more\b|thanks)[a-z]"
    r"|請勿|请勿|不要|不許|不许|不准|禁止|避免|必須|必须|務必|务必|只能|只用|永遠不|永远不"
    r"|しないで|してはいけない|必ず",
    re.I)
"""A user constraint: a line of a request that states a requirement — must / never / don't /
always / only / avoid / stick to / without, "please target|use|keep …", "target Python 3.8",
"keep lines at 79 columns" (keep … at|under|stable …, not "keep going"), "no walrus" where a
clause starts with it (not "No, I meant", "there is no file"), and the CJK words of the same
(不要 don't, 必須 must, 禁止 forbidden, 避免 avoid, 只能 only, …)."""
_CONSTRAINT_HINTS = ("must", "never", "don't", "do not", "always", "only", "avoid", "stick to",
                     "without", "please ", "target", "keep ", "no ", "請勿", "请勿", "不要", "不許",
                     "不许", "不准", "禁止", "避免", "必須", "必须", "務必", "务必", "只能", "只用",
                     "永遠不", "永远不", "しないで", "してはいけない", "必ず")
"""Each match of :data:`CONSTRAINT`, lower-cased, holds one of these."""
_ASCII_HINTS = tuple(hint for hint in _CONSTRAINT_HINTS if hint.isascii())  # what ASCII holds


def may_name_constraint(text: str) -> bool:
    """False only when :data:`CONSTRAINT` cannot match ``text`` (a cheap test before it).

    A case-insensitive match is, lower-cased, one of :data:`_CONSTRAINT_HINTS`: every
    character that matches one of their letters ignoring case lower-cases to that letter,
    except the long s (ſ) and the dotted capital I (İ), which are replaced first. Scanning a
    long history's requests this way costs a fraction of the search.
    """
    low = text.lower()
    hints = _ASCII_HINTS  # an ASCII text holds no CJK hint, nor ſ or a combining dot
    if not low.isascii():  # İ lower-cases to i + a combining dot; the search matches it as i
        low, hints = low.replace("ſ", "s").replace("i\u0307", "i"), _CONSTRAINT_HINTS
    for hint in hints:  # a loop, not ``any`` over a generator: called for every line
        if hint in low:
            return True
    return False


_CONSTRAINT_WORDS = LazyPattern(_CONSTRAINT_WORD_BRANCH)
"""The first branch of :data:`CONSTRAINT`, for lower-cased ASCII text: where it matches, so
does :data:`CONSTRAINT` (most constraint lines say one of these words), and it compiles in a
fraction of the whole pattern's time, which is then never compiled."""
_CONSTRAINT_LOWER = LazyPattern(CONSTRAINT.pattern.lower())
""":data:`CONSTRAINT` for lower-cased ASCII text: it matches where :data:`CONSTRAINT` matches the
text before lower-casing (its pattern holds no escape a lower-casing changes, and ignoring case
matches an ASCII letter as its lower case); it compiles and searches faster than the
case-insensitive one."""


def is_constraint(line: str) -> bool:
    """True where :data:`CONSTRAINT` matches ``line`` (a line that states a requirement).

    Each pattern is compiled at its first use: a history of ASCII requests whose constraint
    lines say "must", "only", … compiles only :data:`_CONSTRAINT_WORDS` (~0.5 ms less in a
    dry run than compiling :data:`CONSTRAINT`).
    """
    if not may_name_constraint(line):
        return False
    if line.isascii():
        low = line.lower()
        return (_CONSTRAINT_WORDS.search(low) is not None
                or _CONSTRAINT_LOWER.search(low) is not None)
    return CONSTRAINT.search(line) is not None


_WORK = "current work: "
"""Starts the ``earlier`` note of a summary's current work: only the newest one is kept."""


@mutable_record  # compared, printed nowhere (a test)
class Facts:
    """Everything the summary is made from, gathered in one pass."""

    requests: list[str] = field(default_factory=list)
    files: dict[str, FileRecord] = field(default_factory=dict)
    errors: list[list[str]] = field(default_factory=list)
    pending: dict[str, str] = field(default_factory=dict)
    answered: bool = False
    last_work: str = ""
    last_calls: list[str] = field(default_factory=list)
    earlier: list[str] = field(default_factory=list)
    tool_calls: int = 0
    message_count: int = 0
    commands: list[str] = field(default_factory=list)
    """Commands an earlier summary listed (its ``Commands run`` facts), oldest first."""
    constraints: list[str] = field(default_factory=list)
    """User constraints an earlier summary listed (its ``User constraints`` facts)."""
    intent: str = ""
    """The earliest summary's ``User intent``: the task's own, kept over the requests after."""
    next_step: str = ""
    """The earlier summary's ``Next step`` while no user request came after it, else ``""``."""
    carried_errors: int = 0
    """How many of ``errors`` an earlier summary listed (the first ones)."""
    stated_step: str = ""
    """The newest next step the assistant stated (:mod:`.stated_step`), else ``""``."""


def resent_request(text: str, facts: Facts) -> None:
    """An earlier user message re-sent after a summary: a request, its constraint lines kept.

    A request the summary listed already is not listed again; one it listed shortened is
    listed whole in its place.
    """
    if text not in facts.requests:
        flat = " ".join(text.split())
        at = next((i for i in range(len(facts.requests) - 1, -1, -1)
                   if shows_text(facts.requests[i], flat)), None)
        if at is None:
            facts.requests.append(text)
        elif is_shortened(facts.requests[at]):
            facts.requests[at] = text
    for line in request_lines(text, is_constraint):  # prose only, a rule's change too
        if len(line) > 300:
            line = word_head(line, 299) + "…"
        if line not in facts.constraints:
            facts.constraints.append(line)


def drop_shortened(text: str, facts: Facts, cut: list[str]) -> None:
    """Drops the requests that are a shortened ``text`` (an earlier summary's): it comes whole.

    ``cut``: the shortened requests of ``facts`` (:func:`is_shortened`), the only ones looked
    at, so a long transcript's every request is not compared with every earlier one; those
    dropped leave it too.
    """
    flat = " ".join(text.split())
    gone = {r for r in cut if r != text and shows_text(r, flat)}
    if gone:
        facts.requests[:] = [r for r in facts.requests if r not in gone]
        cut[:] = [r for r in cut if r not in gone]


def is_shortened(item: str) -> bool:
    """True for an item a summary shortened (a `` […] `` in it, or a ``…`` at its end)."""
    return CUT in item or item.endswith("…")


def copy_facts(facts: Facts, message_count: int) -> Facts:
    """A copy of ``facts`` that the rest of a scan leaves as it is (records, error entries)."""
    records: dict[int, FileRecord] = {}
    files = {}
    for path, r in facts.files.items():  # one record may be filed under two names
        copy = records.get(id(r))
        if copy is None:
            copy = records[id(r)] = FileRecord(r.path, dict(r.verbs), r.failed, r.code,
                                               r.undone, dict(r.failed_runs))
        files[path] = copy
    return Facts(list(facts.requests), files, [list(e) for e in facts.errors],
                 dict(facts.pending), facts.answered, facts.last_work, list(facts.last_calls),
                 list(facts.earlier), facts.tool_calls, message_count, list(facts.commands),
                 list(facts.constraints), facts.intent, facts.next_step, facts.carried_errors,
                 facts.stated_step)


LATER_PASSED = " (later passed)"
"""Ends an error whose call, made again, succeeded: no longer a failing command's error."""
THEN = " → then: "
"""Joins an error and what the assistant did next in an ``Errors and fixes`` item."""
_OMITTED = LazyPattern(r"^\(\d+ (?:earlier errors|more user messages) omitted\)$")
"""The note a summary puts where it left items out: not an item to carry."""
CUT = " […] "
"""Where a shortened item lost its middle."""


def names_error(shown: str, error: str) -> bool:
    """True when ``shown`` (an error item, flat, perhaps shortened) stands for ``error``.

    Only the error itself is compared (what the assistant did next, after :data:`THEN`, is
    not): the same text, or the head and tail a shortened one kept.
    """
    return shows_text(shown.split(THEN, 1)[0], " ".join(error.split(THEN, 1)[0].split()))


def shows_text(shown: str, error: str) -> bool:
    """True when ``shown`` (an item, flat, perhaps shortened) stands for ``error`` (flat)."""
    shown = shown.strip()
    if shown == error:
        return True
    if shown.endswith(CUT.rstrip()):  # cut short at its end
        return error.startswith(shown[:-len(CUT.rstrip())])
    head, cut, tail = shown.partition(CUT)
    tail = tail.removesuffix("…")
    if cut:
        return len(error) >= len(head) + len(tail) and error.startswith(head) and \
            error.endswith(tail)
    return shown.endswith("…") and len(shown) > 1 and error.startswith(shown[:-1])


def _carry_error(line: str, facts: Facts) -> None:
    """An error item of an earlier summary, once: an error the list names already is skipped."""
    if _OMITTED.match(line) or any(names_error(line, e[0]) or names_error(e[0], line)
                                   for e in facts.errors):
        return
    facts.errors.append(line.split(THEN, 1))


def same_file(facts: Facts, path: str) -> FileRecord | None:
    """The record of ``path`` named differently: ``a/b.py`` and ``/repo/a/b.py`` are one file.

    Only an absolute and a relative name are matched (``README.md`` and ``docs/README.md``
    are two files).

    The record keeps the longer name, which contains the shorter one.
    """
    for key, record in facts.files.items():
        if key.startswith("/") == path.startswith("/"):
            continue  # two relative (or two absolute) names are two files
        if key.endswith("/" + path) or path.endswith("/" + key):
            facts.files[path] = record
            if len(path) > len(record.path):
                record.path = path
            return record
    return None


def _sections(text: str) -> dict[str, list[str]]:
    """A summary's non-blank lines by ``##`` heading (lower case, without the facts mark).

    A heading line inside a code fence is no heading (a quoted raw reply, code the model
    fenced): only goosectx's own rendering starts a section (:func:`model_heading`,
    :func:`~goosectx.compaction.blocks.without_headings`).
    """
    sections: dict[str, list[str]] = {}
    current = None
    lines = text.splitlines()
    inside = fenced(lines) if "`" in text or "~" in text else [False] * len(lines)
    for line, code in zip(lines, inside, strict=True):
        m = None if code else _SUMMARY_SECTION.match(line)
        if m:
            current = m.group(1).lower().removesuffix(FACTS_MARK.lower()).strip()
            sections.setdefault(current, [])
        elif current is not None and line.strip():
            sections[current].append(line)
    return sections


_CARRIED_SECTIONS = ("files changed", "user messages", "errors", "commands run",
                     "user constraints", "open to-do items")
"""The sections read back as facts: goosectx's own (a model's ``Files`` and ``Errors and
fixes`` are not: what they name is listed again in the facts, from the transcript; an
extractive summary's are, :func:`own_sections`)."""
_READ_SECTIONS = frozenset({*_CARRIED_SECTIONS, "files", "errors and fixes", "pending tasks",
                            "problem solving", "user intent", "next step", "current work",
                            "next step the assistant stated"})
"""Every section name a later compaction reads (the last: :data:`.stated_step.STEP_TITLE`)."""
_MARK_WORDS = LazyPattern(r"\(?\s*from\s+the\s+transcript\s*\)?", re.I)


def model_heading(title: str) -> str:
    """The heading of a section the model named itself (an unknown key of its summary).

    The facts mark is taken out, the title put on one line, and a title the reader takes for
    one of its sections (``User constraints``, ``Files changed``, …) is said to be the
    summariser's: nothing the model writes reads back as goosectx's facts from the transcript.
    """
    bare = " ".join(_MARK_WORDS.sub(" ", title).split()) or "Note"
    return f"{bare} (the summariser's own)" if bare.lower() in _READ_SECTIONS else bare


_FILE_LINE = LazyPattern(r"- (`+)(.+?)(?<!`)\1(?!`)(?:: (.*))?$")
"""A ``Files`` line: the path in a code span (its fence as long as :func:`inline_code` made it),
then what was done to it."""


def carried_lines(summary_text: str, names: tuple[str, ...]) -> list[str]:
    """The non-blank lines of the sections ``names`` (lower case) of ``summary_text``."""
    sections = _sections(summary_text)
    return [line for name in names for line in sections.get(name, [])]


def carried_text(summary_text: str) -> str:
    """The lines of ``summary_text`` a later compaction reads back as facts (:func:`carry_forward`).

    A fact named only elsewhere (the model's prose, its own pending tasks, an extractive
    summary's intent) is not carried, so the facts merged into the summary still list it;
    nor is one named only in the user messages (a model may have written them: their
    constraint lines are read back only from the facts), nor a to-do item named only in the
    pending tasks (the model's, or an extractive summary's copy of them).
    """
    sections = _sections(summary_text)
    return "\n".join(line for name in own_sections(sections) if name != "user messages"
                     for line in sections.get(name, []))


def own_sections(sections: dict[str, list[str]]) -> tuple[str, ...]:
    """The names of the sections :func:`carry_forward` reads back as facts from ``sections``.

    goosectx's own: the facts', and an extractive summary's ``Files`` and ``Errors and
    fixes`` (its problem-solving note starts with :data:`EXTRACTIVE_MARK`, which a model's
    summary cannot: :func:`~goosectx.compaction.parse.summary_from_dict`); never a model's.
    """
    problem = " ".join(" ".join(sections.get("problem solving", [])).split())
    extra = ("files", "errors and fixes") if problem.startswith(EXTRACTIVE_MARK) else ()
    return (*_CARRIED_SECTIONS, *extra)


def carried_errors_lines(summary_text: str) -> list[str]:
    """The lines of the errors sections of ``summary_text`` read back (:func:`own_sections`)."""
    sections = _sections(summary_text)
    names = own_sections(sections)
    return [line for name in ("errors and fixes", "errors") if name in names
            for line in sections.get(name, [])]


def carry_forward(text: str, facts: Facts) -> None:
    """Keep what an earlier summary (our Markdown rendering, facts included) recorded.

    Its facts' files changed and errors, and an extractive summary's ``Files`` and ``Errors
    and fixes`` (built from the transcript; a model's stay its own: a file or error it made up
    never comes back as a fact from the transcript, :func:`own_sections`),
    user messages, commands, user constraints (its facts: a user message listed, perhaps by
    the model, is a request, not a source of constraints) and the facts' open to-do items,
    with the pending
    tasks (the model's, or an extractive summary's copy: keyed :data:`MODEL_PENDING`, an
    extractive summary lists them, facts never do); its intent
    (unless an earlier summary's was kept) and next step; its prose (current work, problem
    solving) as ``earlier`` notes. The notes a summary puts where it left items out are no
    items, and an error it names twice (its own list and the facts) is kept once.
    """
    sections = _sections(text)
    if not sections:
        facts.earlier.append(" ".join(text.split()))
        return
    problem = " ".join(" ".join(sections.get("problem solving", [])).split())
    extractive = problem.startswith(EXTRACTIVE_MARK)
    for line in [*sections.get("files", []) * extractive, *sections.get("files changed", [])]:
        fm = _FILE_LINE.match(line)
        if fm:
            path = fm.group(2)  # a code span of any fence (``a`b.py``: a path with a backtick)
            if path.startswith(" ") and path.endswith(" ") and not path.isspace():
                path = path[1:-1]  # the padding inline_code adds (CommonMark strips it)
            record = facts.files.get(path) or same_file(facts, path)
            if record is None:
                record = facts.files[path] = FileRecord(path)
            carry_file_line(fm.group(3) or "", record)
    for line in sections.get("user messages", []):  # a model may have written them: no
        if line.startswith("- ") and not _OMITTED.match(line[2:]):  # constraint is read here
            facts.requests.append(line[2:])
    for line in [*sections.get("errors and fixes", []) * extractive, *sections.get("errors", [])]:
        if line.startswith("- "):
            _carry_error(line[2:], facts)
    facts.carried_errors = len(facts.errors)
    for name, into in (("commands run", facts.commands), ("user constraints", facts.constraints)):
        for line in sections.get(name, []):
            item = line[2:].strip() if line.startswith("- ") else ""
            if name == "commands run" and item.startswith("`") and item.endswith("`"):
                item = item[1:-1]  # an older rendering put the whole label in one code span
            if item and item not in into:
                into.append(item)
    carried = {line[2:]: line[2:] for line in sections.get("open to-do items", [])
               if line.startswith("- ")}  # the facts' own, from the transcript
    for line in sections.get("pending tasks", []):  # the model's (an extractive summary
        if line.startswith("- ") and line[2:] not in carried.values():  # lists them too):
            carried[MODEL_PENDING + line[2:]] = line[2:]  # kept as guesses, never facts
    if carried:
        facts.pending = carried
    intent = "\n".join(sections.get("user intent", [])).strip()
    if intent and not facts.intent:  # the task's intent: the earliest summary's
        facts.intent = intent.removeprefix("user intent: ")  # an older rendering's note
    facts.next_step = "\n".join(sections.get("next step", [])).strip()
    # Its own note only counts (what it carried before is kept instead, flat); its intent is
    # kept as the intent.
    work = (_WORK + " ".join(" ".join(sections["current work"]).split())
            if sections.get("current work") else "")
    notes = [work] if work else []
    if extractive:
        notes.insert(0, problem.partition(" Earlier: ")[2])
    elif problem:
        notes.append(f"problem solving: {problem}")
    if work:  # the newest summary's current work replaces any carried before it
        facts.earlier = [n for n in facts.earlier if not n.startswith(_WORK)]
    for note in notes:  # flat: one list of notes, never a summary inside a summary
        for part in note.split(NOTE_SEPARATOR):
            if part and part not in facts.earlier and (not work or part == work
                                                       or not part.startswith(_WORK)):
                facts.earlier.append(part)
