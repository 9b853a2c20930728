"""The system prompt and tools alone over the auto-compaction threshold (but within the window).

test30 #3: with threshold 0.3 in a 2,000-token window, the pause notice (and /context after
it, and the /compact refusal) said only "813 tokens, 41% of the 2,000-token limit … use a
model with a larger context window, or send less" and suggested "/extension remove NAME" with
no extension configured. It now names the threshold and raising it, and an extension only
when the request carries one.
"""

from __future__ import annotations

import re

from compaction_support import make_session, manager

from goosectx.cli.reports import ContextFacts
from goosectx.compaction.figures import RequestContext
from goosectx.compaction.manager import ContextManager
from goosectx.providers.scripted import ScriptedProvider
from goosectx.tokens import TokenCounter

LIMIT = 2_000
BIG = RequestContext("rules " * 700)  # ~700 tokens of a 2,000-token window: over 30%
TOOLS = [{"name": f"big__tool{i}", "description": "does things " * 40,
          "parameters": {"type": "object", "properties": {}}} for i in range(2)]


def _manager(source: str = "") -> ContextManager:
    cm = manager(make_session(), ScriptedProvider([], context_limit_tokens=LIMIT),
                 threshold_ratio=0.3)
    if source:
        cm.settings.sources["threshold_ratio"] = source
    return cm


def _notice(request: RequestContext, source: str = "") -> str:
    notice = _manager(source).fixed_part_notice(request)
    assert notice is not None
    return notice


def test_the_pause_names_the_threshold_and_raising_it_and_no_extension() -> None:
    share = _manager().fixed_tokens(BIG) / LIMIT  # the fixed part as the manager counts it
    assert 0.3 <= share < 0.9  # over the threshold, with room for a conversation above it
    notice = _notice(BIG)
    assert "over the 30% auto-compaction threshold" in notice, notice
    named = re.search(r"Raise auto_compact_threshold in the config \(or "
                      r"GOOSE_AUTO_COMPACT_THRESHOLD\) above (0\.\d\d) ", notice)
    assert named, notice
    above = float(named.group(1))  # the least two-decimal threshold that leaves room
    assert above - 0.01 < share <= above, (share, notice)
    assert "(now 0.3, the default)" in notice
    assert "extension" not in notice  # none is configured: the tokens are ours


def test_a_threshold_set_in_the_environment_is_raised_there() -> None:
    notice = _notice(BIG, "env GOOSE_AUTO_COMPACT_THRESHOLD")
    assert "Raise GOOSE_AUTO_COMPACT_THRESHOLD above 0." in notice, notice
    assert "(now 0.3, env GOOSE_AUTO_COMPACT_THRESHOLD)" in notice


def test_an_extension_in_the_request_is_named_with_its_fix() -> None:
    notice = _notice(RequestContext("rules " * 700, tool_schemas=TOOLS))
    assert "/extension remove big" in notice and "over the 30%" in notice, notice


def test_context_suggests_removing_an_extension_only_when_there_is_one() -> None:
    breakdown = TokenCounter().breakdown(system_prompt="rules " * 1_500, project_instructions="",
                                         tool_schemas=[], messages=[])

    def line(extensions: tuple[str, ...]) -> str:
        return ContextFacts(breakdown=breakdown, current_tokens=breakdown.total,
                            current_is_estimate=True, limit_tokens=4_096, limit_source="config",
                            threshold_ratio=0.25, threshold_source="default", auto_enabled=True,
                            paused=False, manages_own_context=False,
                            extensions=extensions).auto_compaction_line()

    assert "extension" not in line(())
    assert "/extension remove big" in line(("big",))
