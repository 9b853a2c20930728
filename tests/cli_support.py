"""Running the goosectx CLI in-process from a test (``main()`` with the test's capsys)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from goosectx.cli.app import main
from goosectx.config import load_settings
from goosectx.conversation import Message
from goosectx.store import SessionStore


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``goosectx ARGS`` in-process; return (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def cli(capsys: pytest.CaptureFixture[str], *args: str, code: int = 0) -> tuple[str, str]:
    """Run ``goosectx ARGS`` in-process, assert its exit code, return (stdout, stderr)."""
    got, out, err = run_cli(capsys, *args)
    assert got == code, err
    return out, err


def run_auto_denying_rm(fake_model: Any, workdir: Path, capsys: pytest.CaptureFixture[str],
                        commands: list[str]) -> str:
    """``run --mode auto --deny 'shell(rm *)'`` with the model calling each of ``commands``.

    Each is meant to delete ``v1`` … ``vN`` (one each, made here): asserts the run ends well
    and every file is still there; returns the run's stderr.
    """
    names = [f"v{i}" for i in range(1, len(commands) + 1)]
    for name in names:
        (workdir / name).write_text("keep")
    fake_model.add(*({"tool_calls": [{"name": "shell", "arguments": {"command": c}}]}
                     for c in commands), {"text": "done"})
    code, _out, err = run_cli(capsys, "run", "-t", "clean", "--mode", "auto",
                              "--deny", "shell(rm *)")
    assert code == 0, err
    assert sorted(p.name for p in workdir.iterdir()) == sorted(names)
    return err


def stored_session(name: str, messages: list[Message]) -> str:
    """A session named ``name`` saved in the configured store with ``messages``; its id."""
    store = SessionStore(load_settings().data_dir)
    try:
        session = store.create_session(Path.cwd(), name=name)
        for m in messages:
            store.append_message(session.id, m)
        return session.id
    finally:
        store.close()


def load_stored(session_id: str):  # noqa: ANN201 - a Session
    """The session ``session_id`` as the configured store loads it now."""
    store = SessionStore(load_settings().data_dir)
    try:
        return store.load(session_id)
    finally:
        store.close()
