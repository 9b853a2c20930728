"""Running one tool call in a worker thread, so that Ctrl-C can cancel it promptly.

The agent loop (docs/architecture.md §1) calls :func:`run_tool` for every approved call. A
tool that raises becomes an error result (its traceback goes to the log); a KeyboardInterrupt
on the calling thread sets the turn's cancel event and gives the tool
:data:`TOOL_CANCEL_GRACE_S` to stop (it kills its process group): what it returns then (its
output so far) is the call's result, as when the REPL's worker thread sets the event.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import Any

from goosectx.tools.base import Tool, ToolContext, ToolResult

log = logging.getLogger("goosectx.agent")

TOOL_CANCEL_GRACE_S = 10.0
"""How long a cancelled tool gets to stop (kill its process group) before the turn ends."""
_POLL_S = 0.05


def run_tool(tool: Tool, arguments: dict[str, Any], ctx: ToolContext,
             cancel: threading.Event) -> ToolResult:
    """Run ``tool`` with a copy of ``arguments`` in a daemon thread and wait for its result.

    Raises:
        KeyboardInterrupt: re-raised after ``cancel`` is set when the tool did not stop within
            its grace time (or a second Ctrl-C came meanwhile).
    """
    box: dict[str, ToolResult] = {}
    # Waited on instead of Thread.join: on Python 3.11 a join interrupted by Ctrl-C marks
    # the thread stopped while it still runs, so a later join returns at once and the
    # process could exit before the tool has killed its process group.
    finished = threading.Event()

    def target() -> None:
        try:
            box["result"] = tool.run(dict(arguments), ctx)
        except Exception as exc:  # noqa: BLE001 - a tool bug becomes an error result
            log.exception("tool %s raised", tool.name)
            box["result"] = ToolResult(f"{tool.name} failed: {type(exc).__name__}: {exc}",
                                       is_error=True)
        finally:
            finished.set()

    worker = threading.Thread(target=target, name=f"goosectx-tool-{tool.name}", daemon=True)
    try:
        worker.start()
        while not finished.wait(_POLL_S):
            pass
    except KeyboardInterrupt:
        cancel.set()
        if worker.ident is not None and finished.wait(TOOL_CANCEL_GRACE_S) and "result" in box:
            return box["result"]  # its output so far; the caller sees ``cancel`` set
        raise
    return box.get("result") or ToolResult(f"{tool.name} returned nothing", is_error=True)


DEFAULT_OUTPUT_MAX_CHARS = 40_000
"""The most a tool's output may keep when ``tool_output_max_chars`` is not set, characters."""
OUTPUT_LIMIT_RATIO = 0.1
"""Share of the context limit one tool output may take when it is not set (``@path``'s too)."""
CHARS_PER_TOKEN = 4
"""Characters per token the default cap assumes (English prose; code and logs take fewer)."""


def output_cap_chars(max_chars: int | None, limit_tokens: int) -> int:
    """The cap on one tool output, characters: ``tool_output_max_chars`` when it is set.

    Otherwise 0.1 × the context limit at 4 characters a token, at most 40,000 (≈ 10k tokens,
    reached from a 100,000-token window up): in an 8k window a result is cut to 3,200
    characters instead of one larger than the whole window, compacted away at every step.
    """
    if max_chars:
        return max_chars
    scaled = int(limit_tokens * OUTPUT_LIMIT_RATIO * CHARS_PER_TOKEN)
    return max(1, min(DEFAULT_OUTPUT_MAX_CHARS, scaled))


def output_cap_tokens(max_chars: int | None, limit_tokens: int) -> int | None:
    """The default cap on one tool output in tokens, or ``None`` when ``max_chars`` is set.

    The same share as :func:`output_cap_chars` (0.1 × the context limit, at most 10,000
    tokens): the cap in characters assumes 4 a token, and output of digits, hashes or symbols
    takes about 2 — a ``seq`` result "capped" at 0.1 × a 4,096-token window was 909 tokens,
    and a tool loop compacted at every step.
    """
    if max_chars:
        return None
    return max(1, output_cap_chars(None, limit_tokens) // CHARS_PER_TOKEN)


_TOOL_NOTE = re.compile(r"^\[(?:\.\.\.|…) [^\n]*\]$", re.M)
"""A line a tool wrote about its own output (``[... N characters of stdout cut; full stdout
… in PATH ...]``): kept when the text around it is cut."""


def fit_output_tokens(output: str, max_tokens: int, count: Callable[[str], int]) -> str:
    """``output`` cut to about ``max_tokens`` (``count``: tokens in a text), or as it is.

    One count of the output (already capped in characters, so the cost is bounded); one over
    the cap keeps its beginning (two thirds) and end (one third) in proportion, a tenth under
    it, cut at line breaks where one is near, with a line saying what was cut between them;
    a tool's own note in the cut part (where the full output is) is kept above that line.
    """
    tokens = count(output)
    if tokens <= max_tokens:
        return output

    def cut_to(keep: int) -> tuple[int, int, list[str]]:
        head = keep * 2 // 3
        tail_at = len(output) - (keep - head)
        if (nl := output.rfind("\n", 0, head)) > head // 2:
            head = nl + 1
        if 0 <= (nl := output.find("\n", tail_at)) < tail_at + (len(output) - tail_at) // 2:
            tail_at = nl + 1
        return head, tail_at, [m.group() for m in _TOOL_NOTE.finditer(output, head, tail_at)]

    def note(cut: int) -> str:
        return (f"[… {cut:,} characters cut by goosectx: the output was {tokens:,} tokens, over "
                f"the {max_tokens:,} one tool output may take in this context window …]")

    notes = cut_to(int(len(output) * max_tokens / tokens * 0.9))[2]  # their room comes first
    room = max(0, max_tokens - count("\n".join([*notes, note(len(output))])))
    head, tail_at, notes = cut_to(int(len(output) * room / tokens * 0.9))
    return "\n".join([output[:head].rstrip("\n"), *notes,
                      note(tail_at - head - sum(map(len, notes))), output[tail_at:]])


OUTPUT_SLACK_CHARS = 2_000
"""Room over ``tool_output_max_chars`` for a tool's own notes before the loop cuts output."""


def cap_output(output: str, max_chars: int) -> str:
    """The loop's last cut of a tool's output (the tool caps first, with its overflow file)."""
    limit = max_chars + OUTPUT_SLACK_CHARS
    if len(output) <= limit:
        return output
    return (output[:limit] + f"\n[output cut by goosectx: {len(output):,} characters, "
            f"only the first {limit:,} kept]")
