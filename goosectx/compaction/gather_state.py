"""The state of :func:`goosectx.compaction.gather.gather_facts` at one message, kept and resumed.

Part of the compaction pipeline (docs/architecture.md §5; :mod:`.scan_state` keeps it between
processes). :func:`capture` records, as JSON values, everything the scan carries from one
message to the next before ``view[at]``: the :class:`~goosectx.compaction.carry.Facts` so far,
the error entries still waiting for what the assistant did next, the errors by call label and
the failing test runs (both by their place in ``facts.errors``), the file open, the newest
calls' labels, the shortened requests and whether a summary's re-sent block is open.
:func:`restore` makes fresh objects of it for a scan of a view that starts with the same
messages. The tool calls made before ``at`` are not copied: the last few are named by where
they are in the view, and a result whose call is older finds it by searching the view back
(:class:`Resumed`) — exact while no file was open before ``at`` (a call's file actions may
depend on it); otherwise the scan starts again from the first message (:class:`CannotResume`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from goosectx.compaction.carry import Facts
from goosectx.compaction.condensed import with_pairs_positioned
from goosectx.compaction.file_record import FileRecord
from goosectx.compaction.fixed_errors import FailingTests
from goosectx.compaction.memo import CallFacts, ScanMemo
from goosectx.conversation import Message, TextContent, ToolRequest
from goosectx.plain_record import mutable_record

KEPT_CALLS = 16
"""The newest calls named by their place in the view (older ones are searched for)."""
_T = TypeVar("_T")
_SEARCH_BACK = 4_096
"""How far back from ``at`` a kept call's message is looked for when capturing."""


class CannotResume(Exception):
    """The state cannot give the scan's exact outcome: scan from the first message."""


@mutable_record  # compared, printed nowhere (a test)
class Resumed:
    """A scan's state as :func:`restore` makes it (the loop's variables of ``gather_facts``)."""

    facts: Facts
    calls: dict[str, CallFacts]
    open_file: str | None
    pending_errors: list[list[str]]
    by_head: dict[str, list[list[str]]]
    tests: FailingTests
    last_calls: list[ToolRequest | str]
    cut: list[str]
    in_block: bool
    recover: Callable[[str], CallFacts | None]
    """The call of a result whose call came before ``at`` and is not in ``calls`` (or None)."""


def capture(view: Sequence[Message], at: int, facts: Facts, calls: dict[str, CallFacts],
            open_file: str | None, pending_errors: list[list[str]],
            by_head: dict[str, list[list[str]]], tests: FailingTests,
            last_calls: Sequence[ToolRequest | str], cut: list[str], in_block: bool,
            label: Callable[[ToolRequest], str]) -> dict[str, Any] | None:
    """The JSON record of the scan's state before ``view[at]`` (None: it cannot be recorded)."""
    index = {id(entry): n for n, entry in enumerate(facts.errors)}

    def places(entries: Sequence[list[str]]) -> list[int]:
        found = [index.get(id(entry)) for entry in entries]
        if None in found:
            raise CannotResume
        return [n for n in found if n is not None]

    try:
        heads = []
        for head, entries in by_head.items():
            source = next((index[id(e)] for e in entries if id(e) in index
                           and e[0].startswith(head)), None)  # the label is the text's start
            heads.append([head if source is None else [source, len(head)], places(entries)])
        records: dict[int, int] = {}
        record_list: list[list[Any]] = []
        files = []
        for path, r in facts.files.items():
            n = records.get(id(r))
            if n is None:
                n = records[id(r)] = len(record_list)
                record_list.append([r.path, dict(r.verbs), r.failed, r.code, r.undone,
                                    dict(r.failed_runs)])
            files.append([path, n])
        return {  # copies: the scan goes on changing its own
            "facts": [_request_places(view, at, facts.requests), record_list, files,
                      [list(e) for e in facts.errors], dict(facts.pending), facts.answered,
                      facts.last_work, list(facts.earlier), facts.tool_calls,
                      list(facts.commands), list(facts.constraints), facts.intent,
                      facts.next_step, facts.carried_errors, facts.stated_step],
            "calls": _kept_calls(view, at, calls),
            "open_file": open_file,
            "pending": places(pending_errors),
            "by_head": heads,
            "tests": places(tests.entries()),
            "last_calls": [r if isinstance(r, str) else label(r) for r in last_calls],
            "cut": list(cut),
            "in_block": in_block,
        }
    except CannotResume:
        return None


def _request_places(view: Sequence[Message], at: int, requests: list[str]) -> list[Any]:
    """``requests`` as kept: each a user message's part before ``at`` as ``[position, part]``.

    So the state is not a copy of the user's words; a request read from a summary's text (or
    found nowhere) is kept as it is.
    """
    places: dict[str, list[int]] = {}
    wanted = set(requests)
    for n in range(at):
        m = view[n]
        if m.role == "user":
            for k, part in enumerate(m.content):
                if type(part) is TextContent:
                    text = part.text.strip()
                    if text in wanted and text not in places:
                        places[text] = [n, k]
    return [places.get(r, r) for r in requests]


def _requests(view: Sequence[Message], at: int, stored: list[Any]) -> list[str]:
    """The requests :func:`_request_places` recorded (the view's messages are the same)."""
    out = []
    for r in stored:
        if isinstance(r, str):
            out.append(r)
        else:
            n, k = _typed(r, list)
            if _int(n) >= at:
                raise CannotResume
            part = view[n].content[_int(k)]
            if type(part) is not TextContent:
                raise CannotResume
            out.append(part.text.strip())
    return out


def _kept_calls(view: Sequence[Message], at: int,
                calls: dict[str, CallFacts]) -> list[list[Any]]:
    """The newest :data:`KEPT_CALLS` calls as ``[call id, file open, view position]``."""
    wanted = {id(c[0]): call_id for call_id, c in list(calls.items())[-KEPT_CALLS:]}
    found: list[list[Any]] = []
    for n in range(at - 1, max(-1, at - 1 - _SEARCH_BACK), -1):
        if not wanted:
            break
        for _, m in with_pairs_positioned(view[n:n + 1]):
            for r in m.tool_requests:
                call_id = wanted.pop(id(r), None)
                if call_id is not None and calls[call_id][0] is r:
                    found.append([call_id, calls[call_id][1], n])
    return found[::-1]


def restore(state: dict[str, Any], view: Sequence[Message], at: int,
            memo: ScanMemo) -> Resumed:
    """Fresh objects of ``state`` for a scan of ``view``, whose first ``at`` messages it covers.

    Raises:
        CannotResume: the record does not read as one :func:`capture` wrote.
    """
    try:
        (requests, record_list, files, errors, pending, answered, last_work, earlier,
         tool_calls, commands, constraints, intent, next_step, carried_errors,
         stated_step) = state["facts"]
        records = [FileRecord(_str(p), _counts(v), _int(f), _str(c), _str(u), _counts(r))
                   for p, v, f, c, u, r in record_list]
        entries = [_strs(e) for e in errors]
        pending = _typed(pending, dict)
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in pending.items()):
            raise CannotResume
        facts = Facts(_requests(view, at, _typed(requests, list)),
                      {_str(p): records[_int(n)] for p, n in files}, entries,
                      pending, _typed(answered, bool), _str(last_work), [], _strs(earlier),
                      _int(tool_calls), len(view), _strs(commands), _strs(constraints),
                      _str(intent), _str(next_step), _int(carried_errors), _str(stated_step))
        by_head = {}
        for head, places in state["by_head"]:
            label = (_str(head) if isinstance(head, str)
                     else entries[_int(head[0])][0][:_int(head[1])])
            by_head[label] = [entries[_int(n)] for n in places]
        tests = FailingTests()
        tests.add([entries[_int(n)] for n in state["tests"]])
        open_file = state["open_file"]
        if open_file is not None:
            open_file = _str(open_file)
        calls: dict[str, CallFacts] = {}
        for call_id, call_open, n in state["calls"]:
            if _int(n) >= at:
                raise CannotResume
            req = _request(view[n:n + 1], _str(call_id))
            if req is None or (call_open is not None and not isinstance(call_open, str)):
                raise CannotResume
            calls[call_id] = memo.call(req, call_open)
        pending_errors = [entries[_int(n)] for n in state["pending"]]
        last_calls: list[ToolRequest | str] = list(_strs(state["last_calls"]))
        cut = _strs(state["cut"])
        in_block = _typed(state["in_block"], bool)
    except CannotResume:
        raise
    except Exception as exc:  # any other error: a record of another shape
        raise CannotResume from exc

    recovered: dict[str, CallFacts | None] = {}

    def recover(call_id: str) -> CallFacts | None:
        if call_id not in recovered:
            req = _request(view[:at], call_id)
            if req is not None and open_file is not None:  # a file was open at some earlier
                raise CannotResume  # call: its actions may depend on which one
            recovered[call_id] = None if req is None else memo.call(req, None)
        return recovered[call_id]

    return Resumed(facts, calls, open_file,
                   pending_errors, by_head, tests, last_calls, cut, in_block, recover)


def _typed(value: Any, kind: type[_T]) -> _T:
    """``value`` when it is a ``kind`` (exactly, for ``bool`` and ``int``), else CannotResume."""
    if type(value) is not kind and (kind in (bool, int) or not isinstance(value, kind)):
        raise CannotResume
    kept: _T = value
    return kept


def _int(value: Any) -> int:
    """A count or a place: an int not below 0 (else CannotResume)."""
    if _typed(value, int) < 0:
        raise CannotResume
    return cast(int, value)


def _str(value: Any) -> str:
    """A string (else CannotResume)."""
    return _typed(value, str)


def _strs(value: Any) -> list[str]:
    """A list of strings, copied (else CannotResume)."""
    return [_str(v) for v in _typed(value, list)]


def _counts(value: Any) -> dict[str, int]:
    """A dict of counts by name, copied (else CannotResume)."""
    return {_str(k): _int(v) for k, v in _typed(value, dict).items()}


def _request(messages: Sequence[Message], call_id: str) -> ToolRequest | None:
    """The last call ``call_id`` the scan meets in ``messages`` (a note's pairs put back)."""
    for n in range(len(messages) - 1, -1, -1):
        m = messages[n]
        if m.role != "assistant" or m.metadata.is_summary:
            continue
        for _, part in reversed(list(with_pairs_positioned((m,)))):
            for r in reversed(part.tool_requests):
                if r.id == call_id:
                    return r
    return None
