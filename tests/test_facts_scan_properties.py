"""The facts of a head are the same however a compaction's scans reach them.

A compaction scans the whole agent view once (the facts' room) and then the head it
summarises: the head's facts, constraints and merged facts come from what the whole scan kept
(the facts before each place a head may end, each call's file actions, each request's
constraint lines) or are looked up part by part. Generated sessions mix edits, SWE-agent open
files, shell commands that change files, failures, todo lists and checklists, constraints,
harness text, observations, earlier summaries and tool-pair notes; whatever the head, its
facts must be those of a scan of the head alone.
"""

from __future__ import annotations

import random
import re
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from goosectx.compaction import actions, shell_files
from goosectx.compaction.extractive import extractive_summary
from goosectx.compaction.facts import merge_facts
from goosectx.compaction.gather import gather_facts
from goosectx.compaction.memo import ScanMemo
from goosectx.compaction.summary import render_markdown
from goosectx.conversation import (
    CONDENSED_PAIRS,
    Message,
    MessageMetadata,
    TextContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.tokens import TokenCounter

_PATHS = ["src/app.py", "/repo/src/app.py", "README.md", "docs/README.md", "tests/t.py", "a b.txt"]
_OUTPUTS = ["ok", "", "   ", "Traceback (most recent call last):\n  x\nValueError: bad value",
            "FAILED tests/t.py::test_x - AssertionError", "error: could not compile",
            "[exit code: 1]", "bash: foo: command not found", "all good\n(Open file: src/app.py)",
            "[File: /repo/README.md (12 lines total)]\n1:x", "Permission denied", "3 failed"]
_COMMANDS = ["ls -la", "grep -rn perm src/", "rm -f build/x.o", "sed -i 's/a/b/' src/app.py",
             "touch new.txt", "echo hi > out.log", "cat a | tee copy.txt", "pytest -q",
             "cat <<'EOF' > gen.py\nprint(1)\nEOF", "sudo rm old.txt && ls", "cd src; make"]
_REQUESTS = ["fix the parser", "you must keep the API stable\nand add tests",
             "Never touch setup.py", "- [ ] write docs\n- [x] fix bug", "only use stdlib",
             "<environment_context>cwd</environment_context>", "  ", "do not rename files",
             "thanks"]
_SAID = ["", "Done.", "Let me look.", "```\nedit 3:4\nnew\nend_of_edit\n```",
         "Plan:\n- [ ] step one\n- [x] step two", "⏺ Update(src/app.py)",
         "*** Update File: src/b.py", "I ran it. It failed! Next I will fix it."]


def _call(rng: random.Random, cid: str) -> ToolRequest:
    kind = rng.randrange(6)
    if kind == 0:
        return ToolRequest(cid, "shell", {"command": rng.choice(_COMMANDS)})
    if kind == 1:
        return ToolRequest(cid, "text_editor", {
            "command": rng.choice(["view", "create", "str_replace", "write"]),
            "path": rng.choice(_PATHS), "file_text": "x = 1\n", "new_str": "y"})
    if kind == 2:
        return ToolRequest(cid, rng.choice(["edit", "open", "create", "insert"]),
                           {"path": rng.choice(_PATHS)} if rng.random() < 0.5 else {"text": "z"})
    if kind == 3:
        return ToolRequest(cid, "TodoWrite", {"todos": [
            {"content": t, "status": rng.choice(["pending", "completed", "in_progress"])}
            for t in rng.sample(["a", "b", "c", "d"], rng.randrange(1, 4))],
            "merge": rng.random() < 0.3})
    if kind == 4:
        return ToolRequest(cid, "developer__shell", {"command": rng.choice(_COMMANDS)})
    return ToolRequest(cid, "read_file", {"path": rng.choice(_PATHS)})


def _summary(rng: random.Random, n: int) -> list[Message]:
    text = ("# Conversation Summary\n\n## User intent\n\nfix it\n\n## Files changed "
            "(from the transcript)\n\n- `src/old.py`: edited\n\n## Commands run "
            "(from the transcript)\n\n- shell `make`\n\n## User constraints\n\n- never push\n\n"
            "## Problem solving\n\n" + ("Extractive summary (no model) of 3 messages. "
                                         "Earlier: a · b" if rng.random() < 0.5 else "thought"))
    parts: tuple[Any, ...] = (TextContent(text),)
    if rng.random() < 0.5:
        parts += (TextContent("you must re-send this"),)
    meta = MessageMetadata.agent_only()
    return [Message("user", parts, meta).with_metadata(is_summary=True, compaction_id=f"c{n}"),
            Message.assistant("continue", meta).with_metadata(is_continuation=True)]


def generated_session(seed: int, size: int) -> list[Message]:
    """A session of about ``size`` messages from ``seed`` (the same messages every time)."""
    rng = random.Random(seed)
    out: list[Message] = []
    n = 0
    while len(out) < size:
        n += 1
        kind = rng.randrange(10)
        if kind == 0 and rng.random() < 0.3:
            out += _summary(rng, n)
        elif kind == 1:
            extra = {"source_kind": rng.choice(["observation", "harness", "command"])}
            out.append(Message("user", (TextContent(rng.choice(_OUTPUTS + _REQUESTS)),),
                               MessageMetadata(extra=extra)))
        elif kind == 2:
            pairs = [{"id": f"n{n}_{i}", "name": "shell",
                      "arguments": {"command": rng.choice(_COMMANDS)},
                      "output": rng.choice(_OUTPUTS), "is_error": rng.random() < 0.3}
                     for i in range(rng.randrange(1, 3))]
            out.append(Message("assistant", (TextContent("[2 tool calls condensed]"),),
                               MessageMetadata(extra={CONDENSED_PAIRS: pairs})))
        elif kind in (3, 4):
            texts = [TextContent(rng.choice(_REQUESTS))]
            if rng.random() < 0.2:
                texts.append(TextContent(rng.choice(["", " ", "also: always lint"])))
            out.append(Message("user", tuple(texts)))
        else:
            calls = [_call(rng, f"t{n}_{i}") for i in range(rng.randrange(0, 3))]
            said = rng.choice(_SAID)
            parts: tuple[Any, ...] = ((TextContent(said),) if said else ()) + tuple(calls)
            out.append(Message("assistant", parts or (TextContent("ok"),)))
            responses = tuple(ToolResponse(c.id, rng.choice(_OUTPUTS), rng.random() < 0.2)
                              for c in calls)
            if responses:
                out.append(Message("user", responses))
    return out


def _facts(messages: list[Message], memo: ScanMemo) -> tuple[object, ...]:
    f = gather_facts(messages, memo)
    return (f.requests, {k: (r.path, r.verbs, r.failed, r.code) for k, r in f.files.items()},
            f.errors, f.pending, f.answered, f.last_work, f.last_calls, f.earlier,
            f.tool_calls, f.message_count, f.commands, f.constraints)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), size=st.integers(1, 120), cut=st.floats(0, 1),
       ends=st.lists(st.integers(0, 130), max_size=6))
def test_a_heads_facts_are_those_of_a_scan_of_the_head_alone(
        seed: int, size: int, cut: float, ends: list[int]) -> None:
    view = generated_session(seed, size)
    head = view[:int(len(view) * cut)]
    memo = ScanMemo()
    memo.keep_facts_at = frozenset(e for e in ends if 0 < e < len(view))
    counter = TokenCounter()
    whole = merge_facts("", view, max_tokens=300, counter=counter, memo=memo)
    assert whole == merge_facts("", view, max_tokens=300, counter=counter)
    assert _facts(head, memo) == _facts(list(head), ScanMemo())
    merged = merge_facts("S", head, max_tokens=200, counter=counter, memo=memo)
    assert merged == merge_facts("S", list(head), max_tokens=200, counter=counter)
    summary = render_markdown(extractive_summary(head, max_tokens=400, counter=counter,
                                                 memo=memo))
    assert summary == render_markdown(extractive_summary(list(head), max_tokens=400,
                                                         counter=counter))


_SHELL_BITS = st.sampled_from([
    "rm", "touch", "tee", "sed", "-i", "x", "a.txt", "/bin/", "perm", "guarantee", "formed",
    " ", "  ", ";", "&&", "|", "||", ">", ">>", "<", "2>", "'", '"', "\\", "#", "(", ")", "=",
    "FOO=1 ", "sudo ", "-", "_", "$", "`", "\t", "'rm'", '"tee"', "r''m", "s/a/b/", "--in-place",
    "mv", "cp", "ln", "install", "unlink", "git ", "scp", "-t", "lib/", "'m'v", "c\\p",
])
_LOOSE_RULE = re.compile(r">|(?:rm|touch|tee|sed|mv|cp|install|ln|unlink)(?![\w-])")
"""The rule before the one in use: every line holding one of the words is tokenised."""


@settings(max_examples=400, deadline=None)
@given(bits=st.lists(_SHELL_BITS, max_size=14))
@example(bits=["r''m", "\t", "rm", "rm"])  # r''m is rm: found by a CI run, was skipped
def test_the_shell_words_rule_tokenises_every_line_that_holds_a_file_change(
        bits: list[str]) -> None:
    line = "".join(bits)
    found = actions.shell_actions(line)
    original = shell_files._MAY_CHANGE
    try:
        shell_files._MAY_CHANGE = _LOOSE_RULE  # tokenise every line holding one of the words
        assert actions.shell_actions(line) == found
    finally:
        shell_files._MAY_CHANGE = original
