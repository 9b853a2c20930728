"""Running one tool call in a worker thread, so that Ctrl-C can cancel it promptly.

The agent loop (docs/architecture.md §1) calls :func:`run_tool` for every approved call. A
tool that raises becomes an error result (its traceback goes to the log); a KeyboardInterrupt
on the calling thread sets the turn's cancel event and gives the tool
:data:`TOOL_CANCEL_GRACE_S` to stop (it kills its process group): what it returns then (its
output so far) is the call's result, as when the REPL's worker thread sets the event.
"""

from __future__ import annotations

import logging
import threading
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


OUTPUT_SLACK_CHARS = 2_000
"""Room over ``tool_output_max_chars`` for a tool's own notes before the loop cuts output."""


def cap_output(output: str, max_chars: int) -> str:
    """The loop's last cut of a tool's output (the tool caps first, with its overflow file)."""
    limit = max_chars + OUTPUT_SLACK_CHARS
    if len(output) <= limit:
        return output
    return (output[:limit] + f"\n[output cut by goosectx: {len(output):,} characters, "
            f"only the first {limit:,} kept]")
