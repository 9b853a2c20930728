"""Shared test fixtures."""

from __future__ import annotations

import gc
import inspect
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeserver import FakeServer
from hypothesis import HealthCheck, settings

# A property test's examples are timed by hypothesis (200 ms each by default): on a loaded CI
# machine a slow example failed a correct test. The properties are checked, not their speed.
settings.register_profile("goosectx", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("goosectx")

# Subprocess tests run the `goosectx` console script of the interpreter running pytest (a
# virtualenv's bin is not necessarily on PATH when pytest is started as .venv/bin/python).
_BIN = str(Path(sys.executable).parent)
if _BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")


# A shell without job control starts background commands with SIGINT ignored, and an ignored
# signal stays ignored in every child: the Ctrl-C tests would then test nothing a user meets.
# Started that way (a CI runner's `.ci/run &`), the suite restores Python's own handler, so
# the processes it starts get Ctrl-C as a terminal delivers it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# --- isolation and the fake model server (agent-loop issue) ---------------------------------
FAKE_MODEL = "openai/fake-model"
DUMMY_API_KEY = "sk-test-dummy-key-0123456789"

_CLEARED_ENV_PREFIXES = ("GOOSE_",)
_CLEARED_ENV_SUFFIXES = ("_API_KEY", "_API_BASE", "_BASE_URL")


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
                 ) -> dict[str, Path]:
    """Give every test its own data dir, config path and XDG dirs.

    GOOSE_* and API-key / API-base variables of the developer's shell are removed; provider
    retries back off in milliseconds. Returns the paths (``home``, ``config``, ``root``).
    """
    root = tmp_path_factory.mktemp("isolated")
    for name in list(os.environ):
        if name.startswith(_CLEARED_ENV_PREFIXES) or name.endswith(_CLEARED_ENV_SUFFIXES):
            monkeypatch.delenv(name)
    paths = {"home": root / "data", "config": root / "config.toml", "root": root}
    monkeypatch.setenv("GOOSECTX_HOME", str(paths["home"]))
    paths["config"].touch()  # an empty config: GOOSECTX_CONFIG naming no file is an error
    monkeypatch.setenv("GOOSECTX_CONFIG", str(paths["config"]))
    for xdg in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(xdg, str(root / xdg.lower()))
    monkeypatch.setenv("GOOSECTX_RETRY_BASE_DELAY_S", "0.01")
    return paths


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """An empty working directory for the session under test (``tmp_path / "work"``)."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def workdir(work: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """:func:`work`, made the current directory (a command run in-process starts there)."""
    monkeypatch.chdir(work)
    return work


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    """A started :class:`fakeserver.FakeServer` with an empty script (``.add(...)`` replies)."""
    with FakeServer() as server:
        yield server


@pytest.fixture
def fake_model(fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    """The fake server configured the way a user would: GOOSE_MODEL, OPENAI_API_BASE, a key."""
    monkeypatch.setenv("GOOSE_MODEL", FAKE_MODEL)
    monkeypatch.setenv("OPENAI_API_BASE", fake_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    return fake_server


@pytest.fixture
def counted_texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text a :class:`~goosectx.tokens.TokenCounter` tokenises from now on, in order."""
    from goosectx.tokens import TokenCounter

    counted: list[str] = []
    real = TokenCounter.count_text

    def spy(self: TokenCounter, text: str) -> int:
        counted.append(text)
        return real(self, text)

    monkeypatch.setattr(TokenCounter, "count_text", spy)
    return counted


@pytest.fixture(autouse=True)
def _collector_as_found() -> Iterator[None]:
    """Loading a long session to resume freezes it and turns full collections off for the
    process (cli/common.py): in-process tests get the collector back as it was."""
    thresholds = gc.get_threshold()
    yield
    if gc.get_threshold() != thresholds:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


@pytest.fixture(autouse=True)
def _signal_handlers_as_found() -> Iterator[None]:
    """An in-process ``run`` with extensions sets SIGTERM/SIGHUP to leave through SystemExit
    (extensions/lifecycle.py) for the rest of the process: each test gets them back as found,
    so a later test's own handlers are the ones a signal reaches."""
    names = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
    found = {n: signal.getsignal(n) for n in names}
    yield
    for n, handler in found.items():
        if signal.getsignal(n) is not handler and handler is not None:
            signal.signal(n, handler)


@pytest.fixture(autouse=True)
def _credentials_checks_finished() -> Iterator[None]:
    """``run --resume`` checks the model's key on a thread that imports litellm
    (cli/run_early.py); a run that fails before waiting for it (a damaged session) returns
    with the thread still importing. The process would end there; in-process, the thread
    lived on into later tests, where a warning turned error stopped its import halfway and
    left a ``litellm`` without ``get_llm_provider`` for the rest of the run ("litellm does not
    know which provider serves ..."). Each test waits for the checks it started, and fails
    if one does not end."""
    before = set(threading.enumerate())
    yield
    for thread in set(threading.enumerate()) - before:
        if thread.name == "goosectx-credentials":
            thread.join(timeout=60)
            assert not thread.is_alive(), "a credentials check started by this test never ended"


@pytest.fixture(autouse=True, scope="session")
def _close_litellm_clients() -> Iterator[None]:
    """Close the HTTP clients litellm caches, so the run ends without unclosed-socket noise."""
    yield
    litellm = sys.modules.get("litellm")
    cache = getattr(litellm, "in_memory_llm_clients_cache", None)
    for client in list(getattr(cache, "cache_dict", {}).values()):
        close = getattr(client, "close", None)
        if callable(close) and not inspect.iscoroutinefunction(close):
            close()
