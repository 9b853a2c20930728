"""The working-set table: what the model keeps after a compaction (issue 12).

Rows: every session of the public transcript corpus (``$GOOSECTX_CORPUS/raw``, default
``../shared/corpus`` beside the repository; skipped, saying so, when absent) and the scripted
session of issue 12 (in process: two turns write files through ``text_editor``, eight turns
each read a ~2,500-token data file, 16k window, a summariser reply that names no file).

A corpus session is imported, then replayed message by message into a fresh session with a
16,000-token limit (8,000 for a session under 16k's threshold; a smaller one is not compacted);
before each message that would start a model call the auto-compaction check runs, as the
agent loop does, with a scripted summariser whose reply names no file. At the first compaction
the table shows:

* ``after ÷ limit`` — the next request (system prompt + agent view) as a share of the limit
  (the layout aims at ½ × threshold = 40 %, never above 75 %);
* ``edited paths`` — files written/edited/created/deleted in the transcript so far that the
  model still sees (summary or verbatim tail), of those in the transcript;
* ``user msgs`` — user messages the model still sees verbatim, of those so far;
* ``in-flight result`` — the tool result just obtained in the turn in progress is kept
  verbatim (``yes``/``no``; ``elided`` when it alone is larger than the room left, so only its
  beginning and end are kept; ``—`` when the compaction ran before a user message);
* ``summary req ÷ window`` — the summary request + its ``max_tokens``, as a share of the
  summariser's window (≤ 95 %); ``—`` when the compaction made no model call (nothing before
  the turn in progress to summarise, only its middle elided).

Usage: ``python bench/working_set.py [--markdown]`` or ``python bench/run.py --working-set``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from figures import ROOT

LIMIT = 16_000
NO_FILES = ('```json\n{"user_intent": "continue the work", "current_work": "the task", '
            '"next_step": "keep going"}\n```')
SYSTEM = "You are goosectx, a terminal agent. " + "Follow the user's instructions. " * 40


@dataclass(slots=True)
class Row:
    """One compaction, measured."""

    session: str
    limit: int
    messages: int
    after_share: float | None = None
    paths: tuple[int, int] = (0, 0)
    users: tuple[int, int] = (0, 0)
    in_flight: str = "—"
    summary_share: float | None = None
    note: str = ""


def corpus_root() -> Path:
    env = os.environ.get("GOOSECTX_CORPUS")
    return Path(env) if env else ROOT.parent / "shared" / "corpus"


def _texts(view: Sequence[Any]) -> str:
    """Everything the model reads in ``view``: texts, tool arguments and tool results."""
    import json

    out = []
    for m in view:
        out.append(m.text)
        out += [json.dumps(r.arguments) for r in m.tool_requests]
        out += [p.output for p in m.tool_responses]
    return "\n".join(out)


def measure(name: str, limit: int, before: list[Any], view: list[Any], tokens_after: int,
            summary_request: Any, counter: Any) -> Row:
    """The row of one compaction: ``before`` = the agent messages it started from."""
    from goosectx.compaction.gather import gather_facts

    seen = _texts(view)
    users_seen = [m.text for m in view if m.role == "user"]
    paths = [r.path for r in gather_facts(before).files.values() if r.changed]
    requests = [m.text for m in before if m.is_user_request]
    last = before[-1] if before else None
    in_flight = "—"
    if last is not None and last.tool_responses:
        in_flight = "yes" if all(p.output in seen for p in last.tool_responses) else "no"
        if in_flight == "no" and any(m.metadata.extra.get("copy_of") == last.id
                                     and "elided_from_tokens" in m.metadata.extra
                                     for m in view):
            in_flight = "elided"  # larger than the room left: its beginning and end are kept
    summary_share = None
    if summary_request is not None:
        size = (counter.count_text(summary_request.system)
                + counter.count_messages(summary_request.messages)
                + (summary_request.max_tokens or 0))
        summary_share = size / limit
    return Row(name, limit, len(before), tokens_after / limit,
               (sum(p in seen for p in paths), len(paths)),
               (sum(any(r in u for u in users_seen) for r in requests), len(requests)),
               in_flight, summary_share)


def replay(name: str, messages: list[Any], limit: int = LIMIT) -> Row:
    """Replay ``messages`` with auto-compaction on; measure the first compaction."""
    from goosectx.compaction.figures import RequestContext
    from goosectx.compaction.manager import ContextManager
    from goosectx.config import Settings
    from goosectx.events import HistoryReplaced
    from goosectx.providers.scripted import ScriptedProvider
    from goosectx.session import Session, new_session_id

    first = messages[0].created
    session = Session(new_session_id(first), None, Path("/tmp"), "scripted/test-model",
                      first, first)
    provider = ScriptedProvider([NO_FILES], context_limit_tokens=limit)
    cm = ContextManager(session, Settings(tool_pair_summarization=False), provider)
    request = RequestContext(SYSTEM)
    for i, m in enumerate(messages):
        session.conversation.append(m)
        nxt = messages[i + 1] if i + 1 < len(messages) else None
        if m.role != "user" or (nxt is not None and nxt.role == "user"):
            continue  # the model is called after the last of consecutive user messages
        before = session.conversation.agent_messages()
        events = list(cm.before_call(request))
        done = [e for e in events if isinstance(e, HistoryReplaced)]
        if done:  # no summary request when nothing before the turn needed summarising
            return measure(name, limit, before, session.conversation.agent_view(),
                           done[0].tokens_after, next(iter(provider.requests), None),
                           cm.counter)
    return Row(name, limit, len(messages), note="never over the threshold")


def corpus_rows() -> tuple[list[Row], str | None]:
    """One row per corpus session, or ([], why) when the corpus is absent."""
    from goosectx.cli.app import main as cli
    from goosectx.config import load_settings
    from goosectx.store import SessionStore
    from goosectx.tokens import TokenCounter

    raw = corpus_root() / "raw"
    if not raw.is_dir():
        return [], f"corpus not found at {raw} (set GOOSECTX_CORPUS): corpus rows skipped"
    rows: list[Row] = []
    counter = TokenCounter()
    with tempfile.TemporaryDirectory() as home:
        saved = dict(os.environ)
        os.environ["GOOSECTX_HOME"] = home
        for key in [k for k in os.environ if k.startswith("GOOSE_")]:
            del os.environ[key]
        try:
            for path in sorted(p for p in raw.glob("*/*") if p.is_file()):
                out = io.StringIO()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                    try:
                        # --force: every file is a row, goose's exports of db sessions too
                        cli(["sessions", "import", str(path), "--force"])
                    except SystemExit:
                        pass
                ids = [line.split()[1].rstrip(":") for line in out.getvalue().splitlines()
                       if line.startswith("imported ")]
                store = SessionStore(load_settings(None).data_dir)
                try:
                    for sid in ids:
                        session = store.load(sid)
                        messages = session.conversation.agent_messages()
                        label = path.name if len(ids) == 1 else (
                            f"{path.name} [{session.metadata.get('source_session_id')}]")
                        total = counter.count_messages(messages) + counter.count_text(SYSTEM)
                        limit = next((n for n in (LIMIT, LIMIT // 2) if total > 0.85 * n),
                                     None)
                        rows.append(replay(label, messages, limit) if limit else Row(
                            label, LIMIT // 2, len(messages),
                            note=f"{total:,} tokens: under the threshold"))
                finally:
                    store.close()
        finally:
            os.environ.clear()
            os.environ.update(saved)
    return rows, None


def scripted_row() -> Row:
    """Issue 12's scripted session, through the agent loop with the real tools."""
    from goosectx.agent import Agent
    from goosectx.config import Settings
    from goosectx.conversation import Conversation, SystemNotification
    from goosectx.events import HistoryReplaced
    from goosectx.providers.scripted import RecordedRequest, ScriptedProvider, ScriptedReply
    from goosectx.store import SessionStore
    from goosectx.tools.builtin import default_registry, make_tool_context

    writes = {"set up the config module": "src/app/config.py",
              "now add the loader": "src/app/loader.py"}
    reads = [f"read data file {i}" for i in range(8)]

    def reply(request: RecordedRequest) -> ScriptedReply | str:
        if not request.tools:
            return NO_FILES
        last = request.messages[-1]
        if last.tool_responses:
            return "Done."
        if last.text in writes:
            return ScriptedReply(tool_calls=[("text_editor", {
                "command": "write", "path": writes[last.text], "file_text": "VALUE = 1\n"})])
        i = int(last.text.rsplit(" ", 1)[1])
        return ScriptedReply(tool_calls=[("text_editor", {
            "command": "view", "path": f"data/file_{i}.txt"})])

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        (tmp / "work" / "data").mkdir(parents=True)
        for i in range(8):
            (tmp / "work" / "data" / f"file_{i}.txt").write_text("".join(
                f"row {i}.{n}: alpha beta gamma delta epsilon {n * 7919 % 10007}\n"
                for n in range(150)))
        settings = Settings(data_dir=tmp / "data")
        store = SessionStore(settings.data_dir)
        session = store.create_session(tmp / "work", model="scripted/test-model")
        provider = ScriptedProvider([reply] * 100, context_limit_tokens=LIMIT)
        agent = Agent(session, settings, provider=provider, tools=default_registry(),
                      approve=lambda request: "allow_once", mode="auto",
                      tool_context=make_tool_context(settings, tmp / "work"))
        before: list[Any] = []
        try:
            for text in [*writes, *reads]:
                for event in agent.reply(text):
                    if isinstance(event, HistoryReplaced) and not before:
                        cid = next(m.metadata.compaction_id for m in event.conversation
                                   if m.metadata.is_summary)
                        before = [m for m in event.conversation
                                  if m.metadata.compaction_id != cid
                                  and not any(isinstance(p, SystemNotification)
                                              for p in m.content)]
                        calls = [r for r in provider.requests if not r.tools]
                        row = measure("scripted session (issue 12)", LIMIT, before,
                                      Conversation(list(event.conversation)).agent_view(),
                                      event.tokens_after, next(iter(calls), None),
                                      agent.context.counter)
        finally:
            store.close()
    if not before:
        return Row("scripted session (issue 12)", LIMIT, 0, note="no compaction")
    row.note = f"{len([r for r in provider.requests if not r.tools])} compaction(s)"
    return row


def print_rows(rows: list[Row], notes: list[str], markdown: bool = False) -> None:
    """Print the table (plain or Markdown)."""
    headers = ["session", "limit", "messages", "after ÷ limit", "edited paths", "user msgs",
               "in-flight result", "summary req ÷ window"]

    def cells(r: Row) -> list[str]:
        if r.after_share is None:
            return [r.session, "—", f"{r.messages:,}", r.note, "", "", "", ""]
        return [r.session, f"{r.limit:,}", f"{r.messages:,}", f"{r.after_share:.0%}",
                f"{r.paths[0]}/{r.paths[1]}", f"{r.users[0]}/{r.users[1]}", r.in_flight,
                "—" if r.summary_share is None else f"{r.summary_share:.0%}"]

    table = [cells(r) for r in rows]
    if markdown:
        print("| " + " | ".join(headers) + " |")
        print("|---|" + "|".join("--:" for _ in headers[1:]) + "|")
        for row in table:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(headers)]
        for row in [headers, *table]:
            print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                            for i, (c, w) in enumerate(zip(row, widths, strict=True))))
    for note in notes:
        print(f"\n{note}")


def run_table(markdown: bool = False) -> int:
    """Measure and print the working-set table; 1 when a row breaks the layout's promises."""
    rows, skipped = corpus_rows()
    rows.append(scripted_row())
    print_rows(rows, [skipped] if skipped else [], markdown)
    bad = [r.session for r in rows if r.after_share is not None
           and (r.after_share > 0.75 or (r.summary_share or 0) > 0.95
                or r.paths[0] < r.paths[1] or r.in_flight == "no")]
    print(f"\n{len(bad)} row(s) break a promise" + (": " + "; ".join(bad) if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    sys.exit(run_table(parser.parse_args().markdown))
