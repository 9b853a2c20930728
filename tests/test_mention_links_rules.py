"""What an ``@`` mention attaches: not a file with other hard links, nothing a deny rule refuses.

fresh20c finding #10: ``run -t 'see @notes.txt @p2/a.txt' --deny 'text_editor(protected/**)'``
sent both files to the model — ``notes.txt`` a hard link to a file outside the project (which
``view`` asks about, and instruction and command files skip), ``p2/a.txt`` the denied
``protected/a.txt`` through the symlink ``p2``. Neither is attached now, each with a notice.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from test_repl import CTRL_D, ENTER, World

from goosectx.attachment import Attachment
from goosectx.permissions import PermissionRules


def test_a_hard_link_and_a_denied_file_are_not_sent(
        fake_model: FakeServer, workdir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "outside_secret.txt").write_text("TOPSECRET\n")
    os.link(tmp_path / "outside_secret.txt", workdir / "notes.txt")
    (workdir / "protected").mkdir()
    (workdir / "protected" / "a.txt").write_text("guarded words\n")
    (workdir / "p2").symlink_to("protected")
    (workdir / "plain.txt").write_text("plain words\n")
    fake_model.add({"text": "ok"})
    _out, err = cli(capsys, "run", "-t", "see @notes.txt @p2/a.txt @protected/a.txt @plain.txt",
                    "--deny", "text_editor(protected/**)")
    sent = json.dumps(fake_model.requests[0]["messages"])
    assert "TOPSECRET" not in sent and "guarded words" not in sent
    assert "plain words" in sent
    assert ("goosectx: @notes.txt has other hard links, which may be outside the project (`ln "
            "~/secret notes.txt`) — not attached; paste what the model needs instead") in err
    for word in ("p2/a.txt", "protected/a.txt"):
        assert (f"goosectx: @{word} is denied to text_editor by a permission rule "
                "(text_editor(protected/**)) — not attached") in err


def test_a_rule_for_edits_only_does_not_stop_a_mention(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "protected").mkdir()
    (workdir / "protected" / "a.txt").write_text("guarded words\n")
    fake_model.add({"text": "ok"})
    _out, err = cli(capsys, "run", "-t", "see @protected/a.txt",
                    "--deny", "text_editor(write:protected/**)")
    assert "guarded words" in json.dumps(fake_model.requests[0]["messages"])
    assert "not attached" not in err


def test_the_repl_honours_the_deny_rules_too(tmp_path: Path) -> None:
    world = World(tmp_path)
    try:
        world.settings.permissions = PermissionRules(deny=("text_editor(protected/**)",))
        (world.workdir / "protected").mkdir()
        (world.workdir / "protected" / "a.txt").write_text("guarded words\n")
        (world.workdir / "p2").symlink_to("protected")
        (world.workdir / "real.txt").write_text("linked words\n")
        os.link(world.workdir / "real.txt", world.workdir / "hard.txt")
        world.provider.add("ok")
        out = world.run("see @p2/a.txt @hard.txt" + ENTER + CTRL_D)
        flat = " ".join(out.split())
        assert ("@p2/a.txt is denied to text_editor by a permission rule "
                "(text_editor(protected/**)) — not attached") in flat
        assert "@hard.txt has other hard links" in flat
        sent = world.provider.requests[0].messages[-1]
        assert not [p for p in sent.content if isinstance(p, Attachment)]
    finally:
        world.store.close()
