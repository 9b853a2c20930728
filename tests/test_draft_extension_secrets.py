"""An extension's secret the model writes back never reaches the draft of its answer.

The answer is saved as it streams (:mod:`goosectx.answer_draft`); the draft is redacted and
held back as the stored answer is — by the agent's reply redactor, which knows the values
handed to the extensions (``--with-extension "ACME_AUTH=… cmd"``), not only the
environment's. A long token (a JWT: hundreds of characters, no whitespace) is the case the
hold-back exists for: a word that long is otherwise saved as it arrives.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from extension_support import demo_spec
from fakeserver import FakeServer
from reliability_support import load, model_env, start, wait_for
from store_support import store_bytes

_RNG = random.Random(24)
TOKEN = "".join(_RNG.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                for _ in range(400))


def _windows(secret: str, size: int = 16) -> list[bytes]:
    return [secret[i:i + size].encode() for i in range(0, len(secret) - size + 1, 8)]


def test_an_extension_secret_streamed_in_a_reply_is_in_no_save_of_the_draft(
        tmp_path: Path, work: Path) -> None:
    home = tmp_path / "home"
    text = "".join(f"part {i} {TOKEN} and more. " for i in range(10))
    script = [{"text": text, "chunk_chars": 8, "chunk_delay_s": 0.01}]
    spec = f"ACME_AUTH={TOKEN} " + demo_spec()
    with FakeServer(script) as server:
        env = model_env(home, server.base_url)
        proc = start(env, "run", "--mode", "auto", "--name", "k", "--with-extension", spec,
                     "-t", "say it", cwd=work)
        seen: list[bytes] = []

        def done() -> bool:
            seen.append(store_bytes(home))
            return proc.poll() is not None

        wait_for("the answer streamed and stored", done, timeout_s=120)
        out, err = proc.communicate(timeout=60)
        seen.append(store_bytes(home))
    assert proc.returncode == 0, err.decode(errors="replace")
    saved = "".join(m.text for m in load(home, "k").conversation if m.role == "assistant")
    assert "part 9 [REDACTED] and more." in saved
    assert len(seen) > 20  # the store was read all along the stream
    for stored in seen:
        for piece in _windows(TOKEN):
            assert piece not in stored
    for piece in _windows(TOKEN):
        assert piece not in out


def test_runs_draft_is_held_back_for_the_extensions_secrets_too(
        tmp_path: Path, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the draft's own hold-back (deltas joined, a long word saved as it arrives but for a
    # tail that could still become a key): with the agent's reply redactor, which lists the
    # values the extensions are given; the answer's deltas here come unheld
    import threading
    from types import SimpleNamespace

    from goosectx import answer_draft
    from goosectx.approval import deny_all
    from goosectx.cli.run_events import drive
    from goosectx.config import Settings
    from goosectx.events import MessageDelta
    from goosectx.extensions.config import ExtensionConfig
    from goosectx.extensions.manager import ExtensionManager
    from goosectx.runtime import build_agent
    from goosectx.store import SessionStore

    monkeypatch.setattr(answer_draft, "DRAFT_INTERVAL_S", 0.0)  # every delta saved
    store = SessionStore(tmp_path / "data")
    saved: list[str] = []
    real_save = store.save_draft

    def save_draft(session_id: str, message: Any, *, replacing: str | None) -> None:
        saved.append(message.text)
        real_save(session_id, message, replacing=replacing)

    monkeypatch.setattr(store, "save_draft", save_draft)
    try:
        session = store.create_session(work)
        manager = ExtensionManager([ExtensionConfig(
            name="acme", cmd="acme-server", envs={"ACME_AUTH": TOKEN})], work)
        agent = build_agent(Settings(data_dir=tmp_path / "data"), session, approve=deny_all,
                            extensions=manager)
        text = f"the token: {TOKEN} done. "
        events = iter([MessageDelta(text[i:i + 16]) for i in range(0, len(text), 16)])
        output = SimpleNamespace(on_event=lambda event: None)
        drive(events, threading.Event(), SimpleNamespace(store=store, session=session),
              output, agent)  # type: ignore[arg-type]
    finally:
        store.close()
    assert saved and saved[-1] == "the token: [REDACTED] done. "
    for text in saved:
        for piece in _windows(TOKEN):
            assert piece.decode() not in text, text
