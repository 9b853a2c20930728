"""``sessions show`` / Markdown export of an extension tool that returned an image.

Its result message was shown under "## User" (as if the user had typed it), with a stray
"`[image: image/png, 32 bytes]`" line after the result; a text result of the same session
sat under "## Tool results".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from extension_support import demo_spec
from fakeserver import FakeServer
from test_extensions_run import call, run, stored_session_id


@pytest.mark.parametrize("command", [("sessions", "show"),
                                     ("sessions", "export", "--format", "md")])
def test_an_image_result_is_shown_as_a_tool_result(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], command: tuple[str, ...]) -> None:
    from cli_support import cli

    monkeypatch.chdir(work)
    fake_model.add(call("demo__echo", {"text": "plain"}, "c1"), call("demo__image", {}, "c2"),
                   {"text": "done"})
    assert run(demo_spec())[0] == 0
    capsys.readouterr()
    out, _err = cli(capsys, *command, stored_session_id())
    shown = out[out.index("**tool call** `demo__image`"):]
    assert shown.split("\n\n")[1:4] == [
        "## Tool results",
        "**tool result** #2\n```\n[image: image/png, 32 bytes, from demo__image]\n```",
        "## Assistant"], shown
    assert "`[image:" not in out
