"""Settings, limits, prompts, sessions and ledgers are compared and printed nowhere (plain).

``config.Settings`` and ``ModelConfig``, ``ExtensionSettings``, ``session.Session``,
``conversation.Conversation``, ``usage.UsageLedger``,
``providers.base.ContextLimit`` and ``TokenPrices``, ``context_breakdown.ContextBreakdown``,
``prompts.SystemPrompt`` and ``InstructionScan``, ``store.scan_state.StoredScanState``,
``cli.common.OpenSession``, ``compaction.figures.RequestContext`` and
``cli.compact_cancel.Progress`` are dataclasses without a generated ``__eq__``, ``__hash__``
or ``__repr__`` (``PermissionRules``, ``session.TokenCount`` and ``usage.LedgerEntry``,
compared, without ``__repr__`` nor a frozen ``__setattr__``: ``plain_record.compared_record``;
``session.SessionState`` keeps both: an import's round trip compares it): each generated
method costs every ``compact --dry-run`` its compile at import (~3.5 ms of CPU for these). This proves the commands
that use them — a ``run`` that calls a tool, ``info``, a dry run and a real compaction — never
compare, hash or print one.
"""

from __future__ import annotations

import json

import pytest
from cli_support import cli, run_cli
from fakeserver import FakeServer

from goosectx.cli.common import OpenSession
from goosectx.cli.compact_cancel import Progress
from goosectx.compaction.figures import RequestContext
from goosectx.config import ModelConfig, Settings
from goosectx.context_breakdown import ContextBreakdown
from goosectx.conversation import Conversation
from goosectx.extension_settings import ExtensionSettings
from goosectx.permission_rules import PermissionRules
from goosectx.prompts import InstructionScan, SystemPrompt
from goosectx.providers.base import ContextLimit, TokenPrices
from goosectx.session import Session, TokenCount
from goosectx.store.scan_state import StoredScanState
from goosectx.usage import LedgerEntry, UsageLedger

RECORDS = (Settings, ModelConfig, ExtensionSettings, Session, Conversation, UsageLedger,
           ContextLimit, TokenPrices, ContextBreakdown, SystemPrompt, InstructionScan,
           StoredScanState, OpenSession, RequestContext, Progress)

READ_ONLY = (ModelConfig, ContextLimit, TokenPrices, ContextBreakdown, SystemPrompt,
             InstructionScan, StoredScanState)
"""``plain_record`` dataclasses (goosectx/plain_record.py): read-only to mypy, plain at run time."""

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:pydantic")  # litellm's, not ours


def _refused(*_args: object) -> object:
    raise AssertionError("a plain record was compared, hashed or printed")


def _set_once(record: object, name: str, value: object) -> None:
    """A field set by ``__init__``; set again, a record was changed (mypy reads them frozen)."""
    if hasattr(record, name):
        raise AssertionError(f"{type(record).__name__}.{name} was changed")
    object.__setattr__(record, name, value)


def test_commands_never_compare_hash_or_print_the_plain_records(
        fake_model: FakeServer, workdir: object, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    for record in RECORDS:
        assert record.__eq__ is object.__eq__ and record.__repr__ is object.__repr__
    for record in READ_ONLY:  # frozen to mypy only: nothing assigns to one at run time either
        assert record.__setattr__ is object.__setattr__
        monkeypatch.setattr(record, "__setattr__", _set_once)
    for record in RECORDS:
        for method in ("__eq__", "__hash__", "__repr__"):
            monkeypatch.setattr(record, method, _refused)
    for compared in (PermissionRules, TokenCount, LedgerEntry):  # compared_record
        assert compared.__repr__ is object.__repr__ and compared.__setattr__ is object.__setattr__
        monkeypatch.setattr(compared, "__repr__", _refused)
        monkeypatch.setattr(compared, "__setattr__", _set_once)
    fake_model.add(*({"tool_calls": [{"name": "shell", "arguments": {"command": "seq 3000"}}]}
                     for _ in range(3)), {"text": "The command printed 3000 numbers."})
    code, _, err = run_cli(capsys, "run", "-n", "plain", "--mode", "auto", "-t", "count")
    assert code == 0, err
    assert "2999" in json.dumps(fake_model.requests[-1])  # the tool ran; its output was sent
    out, _ = cli(capsys, "info")
    assert "max turns" in out and "spending cap" in out  # the settings, each with its source
    out, _ = cli(capsys, "compact", "plain", "--dry-run", "--strategy", "extractive", "--json")
    assert json.loads(out)["dry_run"] is True
    out, _ = cli(capsys, "compact", "plain", "--strategy", "extractive", "--json")
    assert json.loads(out)["tokens_after"] < json.loads(out)["tokens_before"]  # it compacted
