"""``goosectx run`` with data piped on standard input: the task, or what the task is about."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from fakeserver import FakeServer

pytestmark = pytest.mark.slow  # each test starts goosectx with a real pipe for stdin


def goosectx(*args: str, stdin: str | None, cwd: Path,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(["goosectx", "run", *args], input=stdin, cwd=cwd,
                          env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL if stdin is None else None)


def sent(fake_model: FakeServer) -> str:
    """The last user message of the last request the model got."""
    return str(fake_model.requests[-1]["messages"][-1]["content"])


def test_a_piped_task_without_t_or_i_is_the_task(fake_model: FakeServer, work: Path) -> None:
    fake_model.add({"text": "summarised"})
    done = goosectx(stdin="summarise README\n", cwd=work)
    assert done.returncode == 0, done.stderr
    assert "summarised" in done.stdout
    assert sent(fake_model) == "summarise README"  # the closing newline is no text


def test_data_piped_with_t_follows_the_task_in_a_fenced_block(fake_model: FakeServer,
                                                              work: Path) -> None:
    fake_model.add({"text": "ok"})
    done = goosectx("-t", "summarise this", stdin="line one\n```\nline three\n", cwd=work)
    assert done.returncode == 0, done.stderr
    assert sent(fake_model) == ("summarise this\n\nStandard input (piped to goosectx run):\n"
                                "````\nline one\n```\nline three\n````")


def test_an_empty_pipe_is_one_line_and_exit_2(fake_model: FakeServer, work: Path) -> None:
    done = goosectx(stdin="", cwd=work)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "goosectx: error: the task on standard input is empty — pipe some text in, or give "
        "the task with -t or -i"]
    assert not fake_model.requests


def test_dev_null_is_not_read_as_the_task_or_as_data(fake_model: FakeServer,
                                                     work: Path) -> None:
    nothing = goosectx(stdin=None, cwd=work)
    assert nothing.returncode == 2 and "-t TEXT, -i FILE or on standard input" in nothing.stderr
    fake_model.add({"text": "ok"})
    done = goosectx("-t", "just the task", stdin=None, cwd=work)
    assert done.returncode == 0, done.stderr
    assert sent(fake_model) == "just the task"


def test_piped_data_over_the_cap_is_cut_with_a_notice(fake_model: FakeServer, work: Path) -> None:
    fake_model.add({"text": "ok"})
    lines = "".join(f"log line {n}\n" for n in range(1, 5001))
    done = goosectx("-t", "what failed?", stdin=lines, cwd=work,
                    env={"GOOSE_CONTEXT_LIMIT": "4000"})  # cap: 0.1 x 4,000 tokens
    assert done.returncode == 0, done.stderr
    assert "goosectx: standard input is " in done.stderr
    assert "over mention_max_tokens (400): sent its first" in done.stderr
    task = sent(fake_model)
    assert task.startswith("what failed?\n\nStandard input (piped to goosectx run):\n```\n"
                           "log line 1\n")
    assert task.endswith("log line 5000\n```")
    assert "left out by goosectx: the standard input is over mention_max_tokens" in task
    assert "log line 2500\n" not in task


def test_binary_piped_data_is_refused_before_anything_is_saved(fake_model: FakeServer,
                                                               work: Path) -> None:
    done = goosectx("-t", "describe", stdin="a\0b", cwd=work)
    assert done.returncode == 2
    assert "piped on standard input is not text" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not fake_model.requests


def test_piped_data_larger_than_is_kept_sends_both_ends(fake_model: FakeServer,
                                                        work: Path) -> None:
    fake_model.add({"text": "ok"})
    lines = "".join(f"log line {n:07d}\n" for n in range(1, 500_001))  # 8.5 MB
    done = goosectx("-t", "what failed?", stdin=lines, cwd=work,
                    env={"GOOSE_CONTEXT_LIMIT": "4000"})
    assert done.returncode == 0, done.stderr
    # its size in bytes: it was not read whole
    assert "goosectx: standard input is 8,500,000 bytes, over mention_max_tokens" in done.stderr
    task = sent(fake_model)
    assert "```\nlog line 0000001\n" in task and task.endswith("log line 0500000\n```")
    assert "bytes in the middle left out by goosectx: the standard input" in task
