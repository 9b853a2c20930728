"""A server's valid tool name keeps its model name when another tool's rewritten name clashes.

The demo server's ``--clashing`` tools are ``get.data`` (a dot: rewritten to ``get_data``) and
``get_data`` (valid). ``demo__get_data`` must reach ``get_data`` — a call, a permission rule or
an "always allow" naming it — and ``get.data`` is the one offered under a suffixed name, which
the listing and a notice say.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_support import cli
from extension_support import demo_spec
from fakeserver import FakeServer
from test_extensions_run import call, run, stored_pairs


def test_the_model_calling_the_plain_name_runs_the_valid_tool(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add(call("demo__get_data", {}, "c1"), {"text": "done"})
    code, out, err = run(demo_spec("--clashing"))
    assert code == 0, err
    assert [(r.name, s.output) for r, s in stored_pairs()] == [("demo__get_data", "ran get_data")]
    offered = [t["function"]["name"] for t in fake_model.requests[0]["tools"]]
    (renamed,) = [n for n in offered if n.startswith("demo__get_data_")]
    assert re.fullmatch(r"demo__get_data_[0-9a-f]{8}", renamed) and "demo__get_data" in offered
    notice = [line for line in err.splitlines() if "get.data" in line]
    assert notice == [f"goosectx: extension demo: tool get.data is offered as {renamed} "
                      "(demo__get_data is its tool get_data)"]


def test_extensions_list_says_which_tool_was_renamed_and_why(
        work: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(work)
    listed, _err = cli(capsys, "extensions", "list", "--with-extension",
                       demo_spec("--clashing"))
    lines = [line.strip() for line in listed.splitlines() if "get" in line and "__" in line]
    assert "demo__get_data" in lines
    (renamed,) = [line for line in lines if "get.data" in line]
    assert re.fullmatch(r"demo__get_data_[0-9a-f]{8} ← get\.data "
                        r"\(demo__get_data is its tool get_data\)", renamed)
