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


def test_json_answers_carry_the_text_unchanged(tmp_path: Path, work: Path) -> None:
    """``·`` inside a ``--json`` answer is data: written ``\\u00b7``, never turned into ``-``."""
    import json

    home = tmp_path / "home"
    answer = "answer · café → done"
    with FakeServer([{"text": answer}] * 3) as server:
        env = model_env(home, server.base_url)
        subprocess.run([*GOOSECTX, "run", "-t", "x · y", "--name", "dots"], env=env, cwd=work,
                       check=True, capture_output=True, timeout=120)  # typed on a UTF-8 terminal
        single = goosectx(env, "run", "--resume", "dots", "-t", "more", "--output-format", "json",
                          cwd=work)
        stream = goosectx(env, "run", "--resume", "dots", "-t", "again", "--output-format",
                          "stream-json", cwd=work)
    exported = goosectx(clean_env(home), "sessions", "export", "dots", "--format", "json",
                        cwd=work)
    listed = goosectx(clean_env(home), "sessions", "list", "--json", cwd=work)
    for done in (single, stream, exported, listed):
        assert done.returncode == 0, done.stderr
        assert done.stdout.isascii(), done.stdout
    assert json.loads(single.stdout)["answer"] == answer
    lines = [json.loads(line) for line in stream.stdout.splitlines()]
    assert lines[-1]["type"] == "result" and answer in json.dumps(lines, ensure_ascii=False)
    texts = [m["content"][0]["text"] for m in json.loads(exported.stdout)["messages"]]
    assert texts == ["x · y", answer, "more", answer, "again", answer]
    assert json.loads(listed.stdout)[0]["title"] == "x · y"
