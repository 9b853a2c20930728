"""UTF-8 text typed or piped under a C locale (``LC_ALL=C``, Python's UTF-8 mode off).

Python then decodes argv and stdin as ASCII (``surrogateescape``): ``run -t 'café ✓'``
reached the model as ``caf\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd``, and so did UTF-8 piped into
``run -i -`` or the REPL. Now the user's UTF-8 arrives as the text they typed; a file path
stays the bytes the OS gave (a non-ASCII task file still opens); bytes that are not UTF-8 on
``-i -`` are still refused with the iconv hint; the terminal output keeps its ASCII fallbacks.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from fakeserver import FakeServer
from reliability_support import GOOSECTX, model_env

TYPED = "café ✓"


def c_locale(env: dict[str, str]) -> dict[str, str]:
    for name in ("LANG", "LC_CTYPE", "LANGUAGE", "PYTHONIOENCODING"):
        env.pop(name, None)
    return {**env, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}


def goosectx(env: dict[str, str], *args: str | bytes, cwd: Path,
             stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    argv = [a.encode() if isinstance(a, str) else a for a in [*GOOSECTX, *args]]
    return subprocess.run(argv, env=c_locale(env), cwd=cwd, input=stdin,
                          capture_output=True, timeout=120)


def sent(server: FakeServer) -> str:
    return str(server.requests[-1]["messages"][-1]["content"])


def test_run_t_and_name_arrive_as_typed(tmp_path: Path, work: Path) -> None:
    home = tmp_path / "home"
    with FakeServer([{"text": "answer café"}]) as server:
        env = model_env(home, server.base_url)
        done = goosectx(env, "run", "-t", TYPED, "--name", "café", cwd=work)
        assert done.returncode == 0, done.stderr
        assert sent(server) == TYPED
    assert done.stdout == b"answer caf\\u00e9\n"
    assert done.stderr.isascii() and b"Traceback" not in done.stderr
    listed = goosectx(env, "sessions", "list", "--json", cwd=work)
    assert [s["name"] for s in json.loads(listed.stdout)] == ["café"]
    shown = goosectx(env, "sessions", "search", "café", cwd=work)
    assert shown.returncode == 0 and b"Traceback" not in shown.stderr, shown.stderr


def test_run_i_stdin_and_a_non_ascii_task_file_arrive_as_typed(tmp_path: Path,
                                                               work: Path) -> None:
    home = tmp_path / "home"
    (work / "tâche.txt").write_bytes(f"{TYPED} file\n".encode())
    with FakeServer([{"text": "one"}, {"text": "two"}]) as server:
        env = model_env(home, server.base_url)
        piped = goosectx(env, "run", "-i", "-", cwd=work, stdin=f"{TYPED} piped\n".encode())
        assert piped.returncode == 0, piped.stderr
        assert sent(server) == f"{TYPED} piped"  # (the closing newline is no text)
        from_file = goosectx(env, "run", "-i", "tâche.txt", cwd=work)
        assert from_file.returncode == 0, from_file.stderr
        assert sent(server) == f"{TYPED} file\n"


def test_latin1_on_stdin_is_still_refused(tmp_path: Path, work: Path) -> None:
    with FakeServer() as server:
        done = goosectx(model_env(tmp_path / "home", server.base_url), "run", "-i", "-",
                        cwd=work, stdin=b"caf\xe9\n")
        assert done.returncode == 2, done.stderr
        assert b"not UTF-8 text" in done.stderr and b"iconv" in done.stderr
        assert server.requests == []


def test_utf8_piped_into_the_repl_arrives_as_typed(tmp_path: Path, work: Path) -> None:
    with FakeServer([{"text": "ok"}]) as server:
        env = model_env(tmp_path / "home", server.base_url)
        done = goosectx(env, cwd=work, stdin=f"{TYPED}\n/exit\n".encode())
        assert done.returncode == 0, done.stderr
        assert sent(server) == TYPED
    assert b"Traceback" not in done.stderr
