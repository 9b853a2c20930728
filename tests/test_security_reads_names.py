"""Read scoping, found by a security tester (fresh16b, findings 02 and 03).

In ``smart_approve`` a ``text_editor view`` ran without asking on ``.ENV``, ``ID_RSA``,
``server.KEY``, ``Prod.PEM`` and ``.git/config`` (the sensitive-name check was
case-sensitive and knew no ``.git/config``), and on a hard link in the working dir to a file
outside it (only the resolved path was checked, and a hard link resolves to itself).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer

from goosectx.approval import NON_INTERACTIVE_DENIED_TEXT, ApprovalContext, decide

UPPER_CASE = [".ENV", ".Env.local", "ID_RSA", "Id_Ed25519", "server.KEY", "Prod.PEM",
              ".SSH/config", "Certs/Client.P12"]
CREDENTIAL_STORES = [".git/config", "sub/.GIT/config", ".netrc", ".npmrc", ".pypirc",
                     ".git-credentials", ".aws/credentials", ".kube/config",
                     ".config/gh/hosts.yml", ".config/gcloud/credentials.db",
                     ".cargo/credentials.toml", ".vault-token", ".s3cfg", ".bash_history",
                     ".zsh_history", ".python_history", ".terraformrc", ".config/hub",
                     # a submodule's or a worktree's git config holds remote URLs too
                     ".git/modules/sub/config", ".git/modules/a/modules/b/config",
                     ".git/worktrees/wt/config.worktree", ".git/config.worktree"]


def view_verdict(path: str, work: Path) -> str:
    return decide(ApprovalContext(mode="smart_approve", tool_name="text_editor", read_only=True,
                                  working_dir=work,
                                  arguments={"command": "view", "path": path})).action


def views(fake_model: FakeServer, names: list[str]) -> None:
    fake_model.add({"tool_calls": [{"name": "text_editor",
                                    "arguments": {"command": "view", "path": n}}
                                   for n in names]}, {"text": "done"})


def tool_texts(fake_model: FakeServer) -> list[str]:
    return [m["content"] for m in fake_model.requests[1]["messages"] if m["role"] == "tool"]


def test_run_reads_no_sensitive_file_whatever_its_case(
    fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    names = [*UPPER_CASE, *CREDENTIAL_STORES]
    for name in names:
        (workdir / name).parent.mkdir(parents=True, exist_ok=True)
        (workdir / name).write_text(f"SECRET {name}\n")
    (workdir / "notes.txt").write_text("plain notes\n")
    views(fake_model, [*names, "notes.txt"])
    cli(capsys, "run", "-t", "look around")
    sent = str(fake_model.requests[1]["messages"])
    assert "SECRET" not in sent, [n for n in names if f"SECRET {n}" in sent]
    assert "plain notes" in sent
    denied = [t for t in tool_texts(fake_model) if t.startswith(NON_INTERACTIVE_DENIED_TEXT)]
    assert len(denied) == len(names)  # each says why: "… is a sensitive file"


@pytest.mark.parametrize("name", ["src/.git/hooks/pre-commit.sample", ".config/goosectx.toml",
                                  ".git/modules/sub/HEAD", "config/.git",
                                  "git/config", "config", "docs/Environment.md",
                                  "keys.md", "identity.py"])
def test_ordinary_names_near_the_list_still_run(work: Path, name: str) -> None:
    assert view_verdict(name, work) == "run"


def test_a_hard_link_to_a_file_outside_asks(
    fake_model: FakeServer, workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    outside = tmp_path / "outside-secret.txt"
    outside.write_text("OUTSIDE SECRET\n")
    os.link(outside, workdir / "notes.txt")
    (workdir / "own.txt").write_text("own text\n")
    views(fake_model, ["notes.txt", "own.txt"])
    cli(capsys, "run", "-t", "look around")
    texts = tool_texts(fake_model)
    assert texts[0].startswith(NON_INTERACTIVE_DENIED_TEXT) and "own text" in texts[1], texts
    assert "has other hard links" in texts[0]  # the model is told why, as the user is
    assert "OUTSIDE SECRET" not in str(fake_model.requests[1]["messages"])


def test_a_hard_linked_file_asks_unless_always_allowed(work: Path) -> None:
    (work / "a.txt").write_text("x")
    os.link(work / "a.txt", work / "b.txt")
    assert view_verdict("b.txt", work) == "ask"
    always = decide(ApprovalContext(mode="smart_approve", tool_name="text_editor",
                                    read_only=True, working_dir=work,
                                    arguments={"command": "view", "path": "b.txt"},
                                    always_allowed=frozenset({"text_editor"})))
    assert always.action == "run"
    assert view_verdict(".", work) == "run"  # a directory's link count is no hard link


TOKEN = "Bearer tok-SECRET-0123456789abcdef"


def test_goosectxs_own_config_file_is_sensitive_and_its_extension_secrets_redacted(
    fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = workdir / "goose.toml"  # started in the directory holding it (e.g. $HOME)
    config.write_text('[extensions.docs]\ntype = "streamable_http"\n'
                      'uri = "https://mcp.example.com/mcp"\nenabled = false\n'
                      f'headers = {{ Authorization = "{TOKEN}" }}\n')
    monkeypatch.setenv("GOOSECTX_CONFIG", str(config))
    assert decide(ApprovalContext(mode="smart_approve", tool_name="text_editor", read_only=True,
                                  working_dir=workdir, config_file=config,
                                  arguments={"command": "view", "path": "goose.toml"})
                  ).action == "ask"
    views(fake_model, ["goose.toml"])
    cli(capsys, "run", "-t", "look around")
    assert "tok-SECRET" not in str(fake_model.requests[1]["messages"])
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": "cat goose.toml"}}]},
                   {"text": "done"})
    cli(capsys, "run", "--mode", "auto", "-t", "cat it")
    sent = str(fake_model.requests[-1]["messages"])
    assert "https://mcp.example.com/mcp" in sent and "tok-SECRET" not in sent
