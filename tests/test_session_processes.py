"""What a session leaves running, and what a resumed one says about its extensions.

Through the real CLI (``goosectx run`` and the REPL on piped input): when goosectx exits, no
process it started survives — not a server, not a background job of the shell tool, not
(as root) the shell tool's namespace holder (issue 15 point 4; the tool registry is closed when
the session ends). On resume, an extension added with ``--with-extension`` and secret values
is named with the flag to give again; one without them starts again (issue 16 point 3).
"""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

import pytest
from conftest import FAKE_MODEL
from extension_support import demo_spec
from fakeserver import FakeServer

from goosectx.conversation import Message
from goosectx.isolation import NAMESPACE_TAG, namespaces_available
from goosectx.providers.scripted import ScriptedReply


def goosectx_env(server: FakeServer, home: Path) -> dict[str, str]:
    (home / "config.toml").touch()
    return {"PATH": os.environ["PATH"], "HOME": str(home), "GOOSECTX_HOME": str(home / "data"),
            "GOOSECTX_CONFIG": str(home / "config.toml"), "GOOSE_MODEL": FAKE_MODEL,
            "OPENAI_API_BASE": server.base_url, "OPENAI_API_KEY": "sk-test-dummy-0123456789",
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""), "TERM": "dumb"}


def run_goosectx(args: list[str], env: dict[str, str], cwd: Path, stdin: str = ""
                 ) -> tuple[int, str, int]:
    """(exit code, stdout + stderr, pid) of one goosectx process, once it has exited."""
    proc = subprocess.Popen(["goosectx", *args], env=env, cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out, _ = proc.communicate(stdin, timeout=180)
    return proc.returncode, out, proc.pid


def survivors(*markers: str) -> list[str]:
    """Command lines of live processes (zombies excluded) that contain any of ``markers``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X") and any(m in cmdline for m in markers):
            found.append(cmdline)
    return found


@pytest.fixture
def job() -> str:
    """A background command with a command line no other process has."""
    return f"sleep {400 + secrets.randbelow(10**6) / 10**6:.6f}"


@pytest.mark.parametrize("front_end", ["run", "repl"])
def test_nothing_goosectx_started_survives_its_exit(fake_server: FakeServer, tmp_path: Path,
                                                    job: str, front_end: str) -> None:
    marker = f"marker{secrets.token_hex(6)}"
    fake_server.add({"tool_calls": [{"name": "shell", "arguments": {
                        "command": f"{job} >/dev/null 2>&1 & echo started"}}]},
                    {"text": "the job runs"})
    flags = ["--mode", "auto", "--with-extension", demo_spec("--name", marker)]
    args = (["run", *flags, "-t", "start a job"] if front_end == "run"
            else ["session", "--name", "procs", *flags])
    code, out, pid = run_goosectx(args, goosectx_env(fake_server, tmp_path), tmp_path,
                                  "" if front_end == "run" else "start a job\n")
    assert code == 0, out
    assert "the job runs" in out
    outputs = [m["content"] for m in fake_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert outputs and outputs[0].startswith("started"), outputs
    # Checked at once: goosectx ended its namespace, its servers and their process groups
    # before it exited. (Without a namespace — not root — a background job the shell tool
    # started in its own redirected group is the user's, as in any shell.)
    jobs = [job] if namespaces_available() else []
    assert survivors(*jobs, marker, f"{NAMESPACE_TAG}-{pid} ") == []


def test_resume_names_a_flag_added_extension_that_needs_its_flag_again(
        fake_server: FakeServer, tmp_path: Path) -> None:
    env = goosectx_env(fake_server, tmp_path)
    fake_server.add({"text": "first answer"})
    secret_spec = "DEMO_TOKEN=not-stored-0123456789 " + demo_spec("--name", "keyed")
    code, out, _ = run_goosectx(["session", "--name", "flags", "--with-extension", demo_spec(),
                                 "--with-extension", secret_spec], env, tmp_path, "hello\n")
    assert code == 0 and "first answer" in out, out
    code, out, _ = run_goosectx(["session", "--resume", "flags"], env, tmp_path, "/exit\n")
    assert code == 0, out
    assert "extension demo (added with a flag last time) started again" in out
    needed = next(line for line in out.splitlines() if "demo_2" in line)
    assert "extension demo_2 was added with a flag and needs its settings again" in needed
    assert "--with-extension" in needed and "not-stored-0123456789" not in out


@pytest.mark.skipif(not namespaces_available(), reason="needs root and unshare (the namespace)")
def test_slash_resume_ends_the_old_sessions_shell_namespace(tmp_path: Path, job: str) -> None:
    from test_repl import CTRL_D, ENTER, World
    from test_repl_sessions import run_with_lock

    world = World(tmp_path)
    world.mode = "auto"
    other = world.store.create_session(world.workdir, name="docs")
    world.store.append_message(other.id, Message.user("the docs"))
    world.provider.add(ScriptedReply(tool_calls=[("shell", {
        "command": f"{job} >/dev/null 2>&1 & echo started"})]), ScriptedReply("the job runs"))
    tag = f"{NAMESPACE_TAG}-{os.getpid()} "
    earlier = len(survivors(tag))  # namespaces of earlier tests in this process (not closed)
    try:
        out, _repl, opened = run_with_lock(
            world, "start a job" + ENTER + "/resume docs" + ENTER + CTRL_D)
        opened.lock.release()
        assert "the job runs" in out and "resumed docs" in out
        # The REPL's process is still here; the first session's namespace and job are not.
        assert survivors(job) == [] and len(survivors(tag)) <= earlier
    finally:
        world.tools.close()
        world.store.close()
