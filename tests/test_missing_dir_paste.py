"""The gone working dir's hint gives a command that recreates the real path (fresh27 B3).

The warning showed ``mkdir -p '/…/odd␛[1mdir'``: the stand-ins the sanitiser draws for the
escape went into the command, so pasting it made another dir. A path with such characters is
now given in bash ``$'…'`` quoting (each such character as its UTF-8 bytes, ``\\xHH``), which
is plain ASCII: the terminal never gets a raw escape and bash makes the very path.
"""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from goosectx.cli.common import missing_working_dir
from goosectx.cli.paste_command import pasteable
from goosectx.session import Session

ODD = ["odd\x1b[1mdir", "rtl\u202eevil", "tab\there", "new\nline", "it's", "b\\s",
       "plain dir", "caf\u00e9", "\x07bell\u200b"]


@pytest.mark.parametrize("name", ODD)
def test_the_hint_recreates_the_very_dir_and_holds_no_raw_control(tmp_path: Path,
                                                                   name: str) -> None:
    path = tmp_path / name
    now = datetime.now(UTC)
    session = Session("20260101_000000_abcd", None, path, None, now, now)
    hint = missing_working_dir(session)
    assert hint is not None
    assert "\x1b" not in hint and "\n" not in hint and "\u202e" not in hint
    command = re.search(r"\(mkdir -p (.+)\) or start", hint)
    assert command is not None, hint
    subprocess.run(["bash", "-c", "mkdir -p " + command.group(1)], cwd="/tmp", check=True)
    assert path.is_dir(), sorted(p.name for p in tmp_path.iterdir())


def test_a_plain_path_reads_as_shlex_quotes_it() -> None:
    assert pasteable("/home/me/proj") == "/home/me/proj"
    assert pasteable("/home/me/my proj") == "'/home/me/my proj'"
    assert pasteable("/tmp/odd\x1b[1mdir") == "$'/tmp/odd\\x1b[1mdir'"


@pytest.mark.parametrize("name", ODD)
def test_the_model_gets_a_command_that_recreates_the_very_dir_as_the_user_does(
        tmp_path: Path, name: str) -> None:
    """The shell tool's answer for a gone working dir quoted it with shlex.quote: the escape,
    bidi control or line break stayed raw in the command the model was to copy (and the user
    saw stand-ins there). Now it is the ``$'…'`` word the user's hint gives."""
    from goosectx.config import Settings
    from goosectx.tools.builtin import make_tool_context
    from goosectx.tools.shell import ShellTool

    path = tmp_path / name
    path.mkdir()
    ctx = make_tool_context(Settings(data_dir=tmp_path / "data"), path)
    path.rmdir()
    tool = ShellTool()
    try:
        result = tool.run({"command": "ls"}, ctx)
    finally:
        tool.close()
    assert result.is_error and "no longer exists" in result.output
    found = re.search(r"\(mkdir -p (.+)\)$", result.output, re.DOTALL)
    assert found is not None, result.output
    word = found.group(1)
    assert "\x1b" not in word and "\n" not in word and "\u202e" not in word
    if not name.isprintable():  # the user's hint and the model's command are one word
        assert word == pasteable(str(path))
    subprocess.run(["bash", "-c", "mkdir -p " + word], cwd="/tmp", check=True)
    assert path.is_dir(), sorted(p.name for p in tmp_path.iterdir())
