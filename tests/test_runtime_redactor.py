"""The agent ``runtime.build_agent`` wires with extensions redacts their secret values.

The redactor (a regex of every encoding of every value) is made once, not for every tool
output, and made again only when the values change: an extension added (``/extension add``)
or a passed-through variable (``env_keys``) set to another value.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from goosectx import redaction
from goosectx.agent import Agent
from goosectx.approval import deny_all
from goosectx.config import Settings
from goosectx.extensions.config import ExtensionConfig
from goosectx.extensions.manager import ExtensionManager
from goosectx.runtime import build_agent
from goosectx.store import SessionStore

HEADER = "hdr-Q7vX2mK9pL4sR6yH1zz"
PASSED = "env-Z8wB3nJ5qT1uV0xK2aa"
ADDED = "add-M4cD6eF8gH0iJ2kL4mm"


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The secrets of each :class:`~goosectx.redaction.Redactor` made from now on."""
    made: list[tuple[str, ...]] = []

    class Counting(redaction.Redactor):
        def __init__(self, secrets: object) -> None:
            super().__init__(secrets)  # type: ignore[arg-type]
            made.append(tuple(self.secrets))

    monkeypatch.setattr(redaction, "Redactor", Counting)
    return made


@pytest.fixture
def agent(tmp_path: Path, work: Path, monkeypatch: pytest.MonkeyPatch
          ) -> Iterator[tuple[Agent, ExtensionManager]]:
    monkeypatch.setenv("DEMO_PASSED", PASSED)  # a name that does not look secret
    store = SessionStore(tmp_path / "data")
    session = store.create_session(work)
    manager = ExtensionManager([ExtensionConfig(
        name="demo", cmd="demo-server", headers={"X-Auth": HEADER},
        env_keys=("DEMO_PASSED",))], work)
    yield build_agent(Settings(data_dir=tmp_path / "data"), session,
                      approve=deny_all, extensions=manager), manager
    store.close()


def test_the_redactor_is_made_once_for_many_tool_outputs(
        agent: tuple[Agent, ExtensionManager], made: list[tuple[str, ...]]) -> None:
    for n in range(5):
        assert agent[0].redact(f"out {n}: {HEADER} {PASSED}") == (
            f"out {n}: [REDACTED] [REDACTED]")
    assert len(made) <= 1


def test_an_extension_added_later_is_redacted_too(
        agent: tuple[Agent, ExtensionManager], made: list[tuple[str, ...]]) -> None:
    redact, manager = agent[0].redact, agent[1]
    assert redact(f"{HEADER} {ADDED}") == f"[REDACTED] {ADDED}"
    manager.configs["more"] = ExtensionConfig(name="more", cmd="m", envs={"K": ADDED})
    assert redact(f"{HEADER} {ADDED}") == "[REDACTED] [REDACTED]"
    assert redact(f"{ADDED}!") == "[REDACTED]!"
    assert len(made) <= 2


def test_a_passed_through_variable_set_again_is_redacted_with_its_new_value(
        agent: tuple[Agent, ExtensionManager], monkeypatch: pytest.MonkeyPatch) -> None:
    assert agent[0].redact(PASSED) == "[REDACTED]"
    monkeypatch.setenv("DEMO_PASSED", ADDED)
    assert agent[0].redact(f"{PASSED} {ADDED}") == f"{PASSED} [REDACTED]"
