"""On a terminal that encodes ASCII only, goosectx's punctuation reads as ASCII.

``LC_ALL=C`` with Python's UTF-8 mode off (``PYTHONUTF8=0``): stdout and stderr encode ASCII.
stderr showed ``·`` as ``\\xb7`` (``saved \\xb7 resume with``) and stdout ended ``run`` with a
traceback at the first ``·`` of an answer. Now ``·`` reads ``-``, ``→`` reads ``->``, and
text that has no ASCII form (``é``) is ``\\u00e9``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from fakeserver import FakeServer
from reliability_support import GOOSECTX, clean_env, fill, model_env


def ascii_env(env: dict[str, str]) -> dict[str, str]:
    for name in ("LANG", "LC_CTYPE", "LANGUAGE", "PYTHONIOENCODING"):
        env.pop(name, None)
    return {**env, "LC_ALL": "C", "PYTHONUTF8": "0"}


def goosectx(env: dict[str, str], *args: str, cwd: Path,
             stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*GOOSECTX, *args], env=ascii_env(env), cwd=cwd, input=stdin,
                          capture_output=True, timeout=120)


def test_run_writes_its_answer_and_notices_in_ascii(tmp_path: Path, work: Path) -> None:
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": "echo hi"}}]},
              {"text": "answer · café → done"}]
    with FakeServer(script) as server:
        done = goosectx(model_env(tmp_path / "home", server.base_url), "run", "--mode", "auto",
                        "-t", "hi", cwd=work)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"answer - caf\\u00e9 -> done\n"
    assert b" saved - resume with: goosectx run --resume " in done.stderr
    assert done.stderr.isascii() and b"\\x" not in done.stderr


def test_compact_and_the_repl_write_their_own_lines_in_ascii(tmp_path: Path, work: Path) -> None:
    home = tmp_path / "home"
    fill(home, work, name="k", pairs=12)
    done = goosectx(clean_env(home), "compact", "k", "--strategy", "extractive", cwd=work)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"Compacted k (extractive): ")
    assert b" tokens - no model call\n" in done.stdout and b" -> " in done.stdout
    repl = goosectx(clean_env(home), "--resume", "k", cwd=work, stdin=b"/exit\n")
    assert repl.returncode == 0, repl.stderr
    assert b"Traceback" not in repl.stderr
    for output in (done.stdout, done.stderr, repl.stdout, repl.stderr):
        assert output.isascii() and b"\\x" not in output and b"\\u" not in output, output
