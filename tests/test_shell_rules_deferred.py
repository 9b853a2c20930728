"""Shell rules read $'…' words as bash decodes them.

fresh21 finding 21: under ``--mode auto --deny 'shell(rm *)'`` these deleted a file:
``find . -name f $'-exec' rm {} +`` and ``tmux new -d 'sleep 2' $'\\x3b' neww -d 'rm f'``
($'…' kept as written).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.approval import ApprovalContext, decide
from goosectx.permissions import PermissionRules

DENY_RM = PermissionRules(deny=("shell(rm *)",))


def verdict(command: str) -> str:
    return decide(ApprovalContext(mode="auto", tool_name="shell", read_only=False,
                                  working_dir=Path("/work/proj"),
                                  arguments={"command": command}, rules=DENY_RM)).action


@pytest.mark.parametrize("command", [
    "find . -name f $'-exec' rm {} +", "find . -name f -exec true $';' -exec rm {} +",
    "tmux $'new' -d 'rm f'", "tmux new -d 'sleep 2' $'\\x3b' neww -d 'rm f'",
    "find . $'-\\x65xec' rm {} +",
])
def test_ansi_c_quoted_words_are_read_as_bash_decodes_them(command: str) -> None:
    assert verdict(command) == "deny"


def test_an_ansi_c_escape_not_decoded_makes_the_command_unreadable() -> None:
    assert verdict("find . $'-\\cexec' rm {} +") == "ask"
    assert verdict("echo $'a\\tb'") == "run"
