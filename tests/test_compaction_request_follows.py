"""A request the model keeps after the summary is not quoted in the summary as well.

fresh19b #07: a pasted log larger than the window triggered a compaction (extractive, the
summary call failing); the request was kept after the summary, elided to fit, and the summary's
"## Next step" quoted ~1.7k characters of it again ("Continue with the newest user request:
Here is a log …"): ~430 tokens of an 8k window spent on a duplicate. The next step now refers
to the request that follows, and the "User messages" line of it stays short.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import FakeServer
from reliability_support import cli, model_env

from goosectx.compaction.extractive import FOLLOWS


def _view(path: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "text_editor",
                            "arguments": {"command": "view", "path": path}}]}


def _text(message: dict[str, object]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else json.dumps(content)


def test_a_request_kept_after_the_summary_is_referred_to_not_quoted(tmp_path: Path,
                                                                     work: Path) -> None:
    for i in range(5):
        (work / f"m{i}.py").write_text("\n".join(
            f"def f{i}{k}(x): return helper(x) + {k}  # padding padding padding"
            for k in range(120)) + "\n")
    log = ("Here is a log I pasted: " + " ".join(f"word{i}" for i in range(7000))
           + " END please fix")
    (tmp_path / "big.txt").write_text(log + "\n")
    script = [*(_view(f"m{i}.py") for i in range(5)), {"text": "Read them."},
              {"error": "server_error"}, {"text": "I read your log."}]
    with FakeServer(script) as server:
        env = model_env(tmp_path / "home", server.base_url, GOOSE_CONTEXT_LIMIT="8000")
        first = cli(env, "run", "--mode", "auto", "--name", "s", "-t",
                    "Read m0..m4. Never edit them.", cwd=work)
        assert first.returncode == 0, first.stderr
        again = cli(env, "run", "--mode", "auto", "--resume", "s", "-i",
                    str(tmp_path / "big.txt"), cwd=work)
        assert again.returncode == 0, again.stderr
        sent = server.requests[-1]["messages"]
    assert "context compacted" in again.stderr
    summary = next(_text(m) for m in sent if "# Conversation Summary" in _text(m))
    step = summary.split("## Next step", 1)[1]
    assert f"Continue with {FOLLOWS}." in step
    assert "Here is a log" not in step
    # The paste's head reaches the model once: in the (elided) request itself.
    assert sum(_text(m).count("word100 ") for m in sent) == 1
    assert "END please fix" in _text(sent[-1])
    listed = summary.split("## User messages", 1)[1].split("## ", 1)[0]
    assert "Here is a log I pasted" in listed and len(listed) < 200


def _is_summary_request(body: dict[str, object]) -> bool:
    first = body["messages"][0]  # type: ignore[index]
    return "tools" not in body and str(first.get("content", "")).startswith("You summarise")


@pytest.mark.parametrize("again", ["fix the tests", "now add docs"])
def test_a_new_request_after_an_answered_head_is_the_next_step(tmp_path: Path, work: Path,
                                                                again: str) -> None:
    """test28c M1: the head's answered "fix the tests" (its copy re-sent as the task) and
    the in-progress "fix the tests" read the same; the summary said "the last request was
    answered; wait for the user's next message" above the new, unanswered request."""
    steps = [{"text": "answer " + " ".join(str(i) for i in range(3000))},
             {"error": "context_length"}, {"text": "final"}]

    def reply(body: dict[str, object]) -> dict[str, object]:
        return {"text": "{}"} if _is_summary_request(body) else steps.pop(0)

    with FakeServer([reply] * 6) as server:
        env = model_env(tmp_path / "home", server.base_url)
        first = cli(env, "run", "--name", "rx1", "-t", "fix the tests", cwd=work)
        assert first.returncode == 0, first.stderr
        second = cli(env, "run", "--resume", "rx1", "-t", again, cwd=work)
        assert second.returncode == 0, second.stderr
        sent = server.requests[-1]["messages"]
    assert "context compacted (reactive)" in second.stderr
    summary = next(_text(m) for m in sent if "# Conversation Summary" in _text(m))
    step = summary.split("## Next step", 1)[1].split("\n## ", 1)[0]
    assert f"Continue with {FOLLOWS}." in step
    assert "wait for the user's next message" not in summary
    assert _text(sent[-1]) == again
