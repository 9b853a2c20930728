"""A summary request the server refuses, stating a smaller window than the configured one.

fresh19b #02: the configured limit was 16,000, the server's window 8,192 ("maximum context
length is 8192 tokens" in every refusal). The auto-compaction's summary call was refused and
goosectx sent 4 summary requests in that one attempt, each a rung down the ladder still sized
for 16,000; the compacted view it then sent was sized for 16,000 too (~8.4k tokens), was
refused, and a reactive compaction sent yet another summary request. The stated window must
be used at once — for the summary request and for the compacted view — and kept with the
session; an attempt sends at most one request more than the first (README, compaction).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from compaction_support import SUMMARY_JSON
from conftest import FAKE_MODEL
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call, stored

WINDOW_TOKENS = 8192
FILES = [f"mod_{i}.py" for i in range(7)]


def module_text(i: int) -> str:
    return "\n".join([f'"""module {i}"""'] + [
        f'def func_{f}(x):\n    """Compute thing {f} with a long docstring line padding."""\n'
        f"    return old_helper(x) + {f}\n" for f in range(60)])


def tokens_of(body: dict[str, Any]) -> int:
    """About the tokens of a request, as the server counts them (4 characters a token)."""
    return len(json.dumps(body["messages"])) // 4


def view(path: str) -> dict[str, Any]:
    return {"name": "text_editor", "arguments": {"command": "view", "path": path}}


def read_the_modules(server: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch, *,
                     refused_summaries: int) -> tuple[int, str]:
    """A turn that reads 7 modules in a 16,000-token configuration on an 8,192 server.

    As in the tester's script, the turn's requests before the compaction are answered; the
    first ``refused_summaries`` summary requests are refused as too long (the later ones get a
    summary); after the first summary request, a main request over the window
    (4 characters a token) is refused, one under it gets the answer. Returns (exit code,
    stderr).
    """
    monkeypatch.chdir(work)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "16000")
    monkeypatch.setenv("GOOSE_TOOL_PAIR_SUMMARIZATION", "false")
    # the tester's cap (0.1 × 16,000 at 4 characters a token), set, so not also counted in
    # tokens: each module's view stays whole and the turn compacts as it did for the tester
    Path(os.environ["GOOSECTX_CONFIG"]).write_text("tool_output_max_chars = 6400\n")
    for i, name in enumerate(FILES):
        (work / name).write_text(module_text(i))
    calls = [[view(f) for f in FILES[:3]], [view(f) for f in FILES[3:5]],
             [view(f) for f in FILES[5:]]]

    summarised: list[bool] = []

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        if is_summary_call(body):
            summarised.append(True)
            if len(summarised) <= refused_summaries:
                return {"error": "context_length"}
            return {"text": SUMMARY_JSON}
        if summarised and tokens_of(body) > WINDOW_TOKENS:
            return {"error": "context_length"}
        if calls:
            return {"tool_calls": calls.pop(0)}
        return {"text": "All modules read."}

    server.add(*[reply] * 20)
    code, _, err = in_process_run("Task: read the modules. Only read, never write.",
                                  name="mods", mode="auto")
    return code, err


def stated_limit_kept(name: str) -> list[int] | None:
    session = stored(name)
    return session.state.stated_limits.get(FAKE_MODEL)


def test_a_refused_summary_is_resized_for_the_stated_window_and_so_is_the_view(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, err = read_the_modules(fake_model, tmp_path, monkeypatch, refused_summaries=1)
    assert code == 0, err
    summaries = [r for r in fake_model.requests if is_summary_call(r)]
    # the first sized for 16,000 and refused, then one sized for the 8,192 the server stated:
    # its output room is the budget's share of that window (¼ of ½ × 0.8 × 8,192), not 16,000's
    assert len(summaries) == 2, [tokens_of(r) for r in summaries]
    assert summaries[1]["max_tokens"] <= 0.1 * WINDOW_TOKENS < summaries[0]["max_tokens"]
    assert "summary call failed" not in err  # the model wrote it
    after = fake_model.requests[fake_model.requests.index(summaries[1]) + 1:]
    assert [is_summary_call(r) for r in after] == [False]  # the answer, nothing refused
    assert tokens_of(after[0]) <= 0.8 * WINDOW_TOKENS
    assert "reactive" not in err and "rejected the request as too long" not in err
    assert stated_limit_kept("mods") == [WINDOW_TOKENS, 16000, 1]


def test_a_summariser_that_refuses_every_request_sees_two_and_the_view_fits_the_window(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, err = read_the_modules(fake_model, tmp_path, monkeypatch, refused_summaries=99)
    assert code == 0, err
    summaries = [r for r in fake_model.requests if is_summary_call(r)]
    assert len(summaries) == 2, [tokens_of(r) for r in summaries]
    assert "using an extractive summary instead" in err
    last = fake_model.requests[-1]
    assert not is_summary_call(last) and tokens_of(last) <= 0.8 * WINDOW_TOKENS
    assert "reactive" not in err and "rejected the request as too long" not in err
    assert stated_limit_kept("mods") == [WINDOW_TOKENS, 16000, 1]
