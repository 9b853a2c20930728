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
