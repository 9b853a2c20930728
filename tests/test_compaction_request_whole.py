"""A turn whose tool results are far over the window keeps its request whole.

The working-set bench's corpus rows vct-gemini-cli-session and sweagent django-15127: a request
of several hundred tokens, one assistant message with tool calls, one user message of huge
results, then an automatic compaction before the next model call. The turn's floor (request +
newest pairs) was fitted under the ceiling by cutting the request to 64 tokens before the
newest result — so the model read "[… 511 tokens elided …]" in the middle of the user's task
while the results still filled the window. The results give way (their beginning and end kept);
the request is cut only when it alone cannot fit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_compaction_e2e import is_summary_call, shell_call_turn

LINES = [f"Step {i}: check that module part_{i} reads its settings from the environment, "
         f"keeps the old default for key_{i} and logs one line when it falls back to it."
         for i in range(20)]
TASK = "Audit the configuration loading of the project.\n" + "\n".join(LINES)
DENSE = "seq 1000 1300 | sed 's/.*/& & & & & & &/'"  # numbers: about 2 characters a token


# The second result is dense at its beginning and end (numbers) and sparse in the middle, as
# django-15127's listing of paths: its cut, sized at 4 characters a token, came out far over
# its room (and the request, cut next, paid for it while the view stayed over the room).
@pytest.mark.parametrize(("command", "first", "last"), [
    ("seq 100000 107000 | sed 's/$/ configuration line checked/'",
     "100000 configuration line checked", "107000 configuration line checked"),
    (f"{DENSE}; seq 1 4000 | sed 's/$/ configuration line checked/'; {DENSE}",
     "1000 1000 1000", "1300 1300 1300")])
def test_the_request_reaches_the_model_whole_after_its_results_are_cut(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        isolated_env: dict[str, Path], command: str, first: str, last: str) -> None:
    isolated_env["config"].write_text("tool_output_max_chars = 120000\n")  # a result far over
    # the window, as an imported session holds: the floor's fitting is under test
    err = shell_call_turn(fake_model, tmp_path, monkeypatch, [command], limit=8000, task=TASK,
                          name="whole", answer="DONE")
    assert "context compacted" in err
    main = [r for r in fake_model.requests if not is_summary_call(r)]
    after = main[1:]  # the first request is sent before the tool ran
    assert after
    for request in after:
        sent = json.dumps(request["messages"], ensure_ascii=False)
        assert json.dumps(TASK)[1:-1] in sent, [m for m in request["messages"]
                                                 if m["role"] == "user"]
        tools = [m["content"] for m in request["messages"] if m["role"] == "tool"]
        assert tools and "elided to fit the context window" in tools[-1]
        assert tools[-1].startswith(first)
        assert last in tools[-1]  # and its end
