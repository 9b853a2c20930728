"""Errors a later run fixed: a failing test's error once a later test run passes over it.

Part of step 3 of the compaction pipeline (docs/architecture.md §5). The facts list the last
error of each command still failing (DESIGN §4.5(4)); the same command succeeding later marks
it passed (:mod:`goosectx.compaction.gather`). A test's failure is also fixed by another
command: ``pytest -q test_calc.py`` fails, the fix follows, then ``pytest -q`` passes — the
whole suite, so the test too. :class:`FailingTests` keeps the errors of test runs (a test
runner's command in their label, or a ``file.py::test`` id in their text) and tells which a
passing run covers: the same runner over the whole suite or over a path that holds the
failing run's targets, or a run whose output names each failing test ``PASSED``. A run that
selects tests (``-k``, ``-m``, ``--deselect``) or whose label was cut covers none by its
scope. Errors the verbatim tail fixed (:func:`fixed_in`) are left out of the merged facts.
All functions are pure but :class:`FailingTests`, which holds the entries it is given.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.lazy_pattern import LazyPattern
from goosectx.plain_record import compared_record, mutable_record

_LABEL = LazyPattern(r"^[\w.-]+(?: \w+)? (`+) ?(.*?) ?\1(?=: |$)")
"""A call's label at the start of an error entry (``shell `pytest -q`: …``): group 2 is the
command (:func:`goosectx.compaction.actions.describe_call`)."""
_TEST_ID = LazyPattern(r"(?<![\w/.-])([\w./-]+\.py::[^\s,;]+)")
_PASSED_ID = LazyPattern(r"^([\w./-]+\.py::\S+) PASSED\b", re.M)
_RUNNERS = {"pytest": "pytest", "py.test": "pytest", "unittest": "unittest", "nose2": "nose2",
            "tox": "tox", "jest": "jest", "vitest": "vitest", "mocha": "mocha", "ctest": "ctest"}
_SUBCOMMAND_RUNNERS = {"cargo", "go", "npm", "yarn", "pnpm", "make", "mvn", "gradle", "dotnet"}
_TEST_SUBCOMMANDS = {"test", "check"}
_SELECTING = {"-k", "-m", "--deselect", "--ignore", "--ignore-glob", "--run", "-run"}
_VALUED = {*_SELECTING, "-p", "-c", "-o", "-W", "-n", "-r", "--rootdir", "--tb", "--maxfail",
           "--junitxml", "--durations", "--basetemp", "--confcutdir", "--cov", "--cov-report",
           "--log-level", "--timeout"}
_WHOLE = {".", "./", "./..."}
_MAY_TEST = LazyPattern(r"test|check|tox|jest|mocha")
"""Every command :func:`test_run` finds a runner in holds one of these."""


@compared_record  # read-only to mypy; printed nowhere (a test)
class TestRun:
    """One test runner's run, read from its command line.

    Attributes:
        runner: ``pytest``, ``cargo test`` … (runners with a subcommand keep it).
        targets: The paths or test ids it ran, ``()`` for the whole suite.
        narrowed: It selected tests (``-k``, ``-m`` …), or its label was cut: its scope is
            not known to cover anything.
    """

    __test__ = False  # not a pytest test class

    runner: str
    targets: tuple[str, ...]
    narrowed: bool


@lru_cache(maxsize=1024)
def test_run(command: str) -> TestRun | None:
    """The test run ``command`` makes (its first test runner), or ``None`` when it runs none.

    ``command`` as a label shows it (a cut one ends with ``…``). Cached: a session runs the
    same few test commands again and again.
    """
    cut = command.endswith("…")
    for segment in re.split(r"\|\|?|&&|;", command.removesuffix("…")):
        if "'" in segment or '"' in segment or "\\" in segment:
            try:
                words = shlex.split(segment)
            except ValueError:
                words = segment.split()
        else:  # no quoting: the same words, without the lexer's cost
            words = segment.split()
        for at, word in enumerate(words):
            name = word.rsplit("/", 1)[-1]
            runner = _RUNNERS.get(name)
            if runner is None and name in _SUBCOMMAND_RUNNERS and at + 1 < len(words) and (
                    words[at + 1] in _TEST_SUBCOMMANDS or words[at + 1] == "run"
                    and at + 2 < len(words) and words[at + 2] in _TEST_SUBCOMMANDS):
                at += 1 + (words[at + 1] == "run")
                runner = f"{name} {words[at]}"
            if runner is not None:
                targets, narrowed = _targets(words[at + 1:])
                return TestRun(runner, targets, narrowed or cut)
    return None


def _targets(args: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """(targets, narrowed) of a runner's arguments: its positional ones, whole-suite ones out."""
    targets: list[str] = []
    narrowed = skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if ">" in arg or "<" in arg or arg in ("&",):
            continue  # a redirection (``2>&1``, ``> out.txt``): its target is no test path
        if arg.startswith("-"):
            option = arg.split("=", 1)[0]
            narrowed = narrowed or option in _SELECTING
            skip = option in _VALUED and "=" not in arg
            continue
        if arg not in _WHOLE:
            targets.append(arg.removeprefix("./"))
    return tuple(targets), narrowed


def _covers(target: str, failing: str) -> bool:
    """True when running ``target`` (a path or test id) runs ``failing`` (one too)."""
    target = target.rstrip("/")
    return (failing == target or failing.startswith((target + "/", target + "::"))
            or failing.endswith("/" + target) or ("/" + target + "::") in failing)


@mutable_record  # compared, printed nowhere (a test)
class _Failure:
    """A failing test run's error entry, its run and the test ids it names.

    (Documented: a record without a docstring gets one made from its signature when it is
    defined — ~1.5 ms of ``inspect`` at every import of this module.)
    """

    entry: list[str]
    run: TestRun | None
    ids: tuple[str, ...]


class FailingTests:
    """The error entries of failing test runs, until a passing run covers them."""

    __test__ = False  # not a pytest test class

    def __init__(self) -> None:
        self._failures: list[_Failure] = []

    def __bool__(self) -> bool:
        return bool(self._failures)

    def add(self, entries: Iterable[list[str]]) -> None:
        """Keeps each entry (``[error text, …]``) that is a test run's failure."""
        for entry in entries:
            text = entry[0]
            label = _LABEL.match(text)
            run = test_run(label.group(2)) if label is not None else None
            ids = tuple(m.group(1) for m in _TEST_ID.finditer(
                text[label.end():] if label is not None else text))
            if run is not None or ids:
                self._failures.append(_Failure(entry, run, ids))

    def entries(self) -> list[list[str]]:
        """The entries kept, in the order given (:meth:`add` of them makes the same state)."""
        return [f.entry for f in self._failures]

    def passed(self, label: str, output: str) -> list[list[str]]:
        """The entries a passing call labelled ``label`` with ``output`` fixed.

        They are forgotten here (a later failure is a new entry). Only a call whose label
        may name a test runner is looked at.
        """
        span = _LABEL.match(label) if _MAY_TEST.search(label) else None
        if span is None:
            return []
        run = test_run(span.group(2))
        passed_ids = set(_PASSED_ID.findall(output)) if "PASSED" in output else set()
        if run is None and not passed_ids:
            return []
        fixed: list[_Failure] = []
        kept: list[_Failure] = []
        for failure in self._failures:
            (fixed if _fixes(run, passed_ids, failure) else kept).append(failure)
        self._failures = kept
        return [f.entry for f in fixed]


def _fixes(run: TestRun | None, passed_ids: set[str], failure: _Failure) -> bool:
    """True when the passing ``run`` (naming ``passed_ids`` passed) runs what ``failure`` failed."""
    if failure.ids and all(i in passed_ids for i in failure.ids):
        return True
    if run is None or run.narrowed or failure.run is None or failure.run.runner != run.runner:
        return False
    if not run.targets:
        return True  # the whole suite passed
    failing = failure.run.targets or failure.ids
    if not failing or failure.run.narrowed and not failure.ids:
        return False  # it ran the whole suite (or an unknown part): only a whole run covers it
    return all(any(_covers(t, f) for t in run.targets) for f in failing)


def fixed_in(tail: Sequence[Message], errors: Sequence[list[str]],
             label: Callable[[ToolRequest], str],
             error: Callable[[ToolResponse], str | None]) -> set[str]:
    """The error lines (flat) of ``errors`` that a passing call in ``tail`` fixed.

    ``label`` and ``error``: the compaction's :class:`~goosectx.compaction.memo.ScanMemo`
    methods of the same names (a call's label; a result's error excerpt, ``None`` when it
    did not fail). A call succeeding fixes the errors of its label; a passing test run those
    of the tests it covers (:class:`FailingTests`).
    """
    calls: dict[str, ToolRequest] = {}
    succeeded: dict[str, str] = {}  # label → one passing result's output
    for m in tail:
        for part in m.content:
            if isinstance(part, ToolRequest):
                calls[part.id] = part
            elif isinstance(part, ToolResponse) and part.id in calls and not part.is_error:
                if error(part) is None:
                    succeeded.setdefault(label(calls[part.id]), part.output)
    if not succeeded or not errors:
        return set()
    tests = FailingTests()
    tests.add(errors)
    fixed: list[list[str]] = []
    for name, output in succeeded.items():
        if tests:
            fixed += tests.passed(name, output)
    for entry in errors:
        text = entry[0]
        at = text.find(": ")
        while at != -1:
            if text[:at] in succeeded:
                fixed.append(entry)
                break
            at = text.find(": ", at + 1)
    return {" ".join(e[0].split()) for e in fixed}
