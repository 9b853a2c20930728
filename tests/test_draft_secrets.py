"""A key of this environment the model writes back never reaches the draft of its answer.

The answer is saved as it streams (:mod:`goosectx.answer_draft`), and a kill -9 keeps that
draft; so the draft is redacted as the finished answer is (README, "Security"), and a key
still arriving at the end of the text is not saved even in part.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from reliability_support import load, model_env, start, wait_for
from store_support import store_bytes

from goosectx.answer_draft import AnswerDraft

KEY = "deploy-Q7vX2mK9pL4sR6yH1zzT"


def test_a_streamed_key_is_in_no_save_of_the_draft_nor_after_a_kill_9(
        tmp_path: Path, work: Path) -> None:
    home = tmp_path / "home"
    text = "".join(f"part {i} {KEY} and more. " for i in range(40))
    script = [{"reasoning": f"the key is {KEY} ok", "text": text, "chunk_chars": 3,
               "chunk_delay_s": 0.01}]
    with FakeServer(script) as server:
        env = model_env(home, server.base_url, DEPLOY_TOKEN=KEY)
        proc = start(env, "run", "--mode", "auto", "--name", "k", "-t", "say it", cwd=work)
        seen: list[bytes] = []

        def far_enough() -> bool:
            seen.append(store_bytes(home))
            try:
                saved = "".join(m.text for m in load(home, "k").conversation
                                if m.role == "assistant")
            except Exception:  # not created yet
                return False
            return "part 30 " in saved

        wait_for("the answer saved as it streams", far_enough, proc, timeout_s=60)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        seen.append(store_bytes(home))
    saved = "".join(m.text for m in load(home, "k").conversation if m.role == "assistant")
    assert "part 1 [REDACTED] and more." in saved
    for stored in seen:
        assert KEY[:10].encode() not in stored  # neither whole nor its first part


def test_a_key_split_across_deltas_and_saves_is_saved_neither_whole_nor_in_part() -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 1.0  # every delta is due to be saved
        return now[0]

    def redact(text: str) -> str:
        return text.replace(KEY, "[REDACTED]")

    draft = AnswerDraft(clock)
    saves = []
    for piece in ("your key: ", KEY[:9], KEY[9:], " ok", " done"):
        draft.add(piece)
        saves.append(draft.message(redact).text)
    assert saves == ["your key: ", "your key: ", "your key: ", "your key: [REDACTED] ",
                     "your key: [REDACTED] ok "]


def test_a_streamed_key_is_shown_redacted_as_it_streams(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    reply = {"reasoning": f"the key is {KEY}", "text": f"your key:\n{KEY}\nkeep it. {KEY}",
             "chunk_chars": 3}
    fake_model.add(dict(reply))
    out, err = cli(capsys, "run", "--mode", "auto", "-t", "hi")
    assert out == "your key:\n[REDACTED]\nkeep it. [REDACTED]\n"
    fake_model.add(dict(reply))
    out, err = cli(capsys, "run", "--mode", "auto", "-t", "hi", "--output-format", "stream-json")
    deltas = [json.loads(line) for line in out.splitlines()]
    shown = "".join(d.get("text", "") for d in deltas if d.get("type") == "message_delta")
    assert shown == "your key:\n[REDACTED]\nkeep it. [REDACTED]"
    assert KEY[:10] not in out + err
