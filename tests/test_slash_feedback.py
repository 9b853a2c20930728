"""What the REPL's slash commands say back: errors name what the user typed, caps warn.

A fresh-eyes tester's report: ``/extension add "unclosed`` blamed ``--with-extension``
(``/model``'s ``(--model)`` is in test_provider_litellm.py, where litellm is loaded anyway).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, World


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_unbalanced_quotes_in_extension_add_name_extension_add(world: World) -> None:
    out = world.run('/extension add "unclosed' + ENTER + CTRL_D)
    assert "/extension add '\"unclosed': No closing quotation" in out
    assert 'quote it whole: /extension add "ENV=v cmd args"' in out
    assert "--with-extension" not in out
