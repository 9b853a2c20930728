"""The shell tool as the model sees it: output, exit codes, limits, process groups, secrets."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import tracemalloc
from pathlib import Path

import pytest
from agent_harness import host_pid, process_gone

from goosectx.config import ModelConfig, Settings
from goosectx.tools.base import ToolContext
from goosectx.tools.builtin import make_tool_context
from goosectx.tools.shell import ShellTool

SECRET = "sk-test-0123456789abcdef"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", tool_output_max_chars=2_000)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def ctx(settings: Settings, workdir: Path) -> ToolContext:
    return make_tool_context(settings, workdir)


def run(ctx: ToolContext, command: str, **extra: object):
    return ShellTool().run({"command": command, **extra}, ctx)


def unique_sleep() -> list[str]:
    """A ``sleep`` command line no other process has, to find it with ``host_pid``."""
    return ["sleep", f"{300 + random.random():.9f}"]


def test_echo_runs_in_working_dir(ctx: ToolContext, workdir: Path) -> None:
    result = run(ctx, "echo hi; pwd")
    assert result.output == f"hi\n{workdir}\n[exit code: 0]"
    assert not result.is_error


def test_exit_code_and_stderr_are_reported(ctx: ToolContext) -> None:
    result = run(ctx, "echo out; echo oops >&2; exit 3")
    assert result.output == "out\n[stderr]\noops\n[exit code: 3]"
    assert result.is_error


def test_no_output_is_said(ctx: ToolContext) -> None:
    assert run(ctx, "true").output == "(no output)\n[exit code: 0]"


def test_stdin_is_closed(ctx: ToolContext) -> None:
    result = run(ctx, "cat; echo after-cat", timeout_s=10)
    assert result.output == "after-cat\n[exit code: 0]"


def test_large_stderr_and_stdout_together_do_not_deadlock(ctx: ToolContext) -> None:
    # Each stream alone fills a pipe buffer many times over; reading one then the other
    # would hang.
    result = run(ctx, "for i in $(seq 20); do head -c 100000 /dev/zero >&2; "
                      "head -c 100000 /dev/zero; done; echo end", timeout_s=30)
    assert "[exit code: 0]" in result.output
    assert "[stderr]" in result.output
    assert len(result.output) <= ctx.max_output_chars


def test_20_mb_output_is_capped_with_full_copy_on_disk(ctx: ToolContext) -> None:
    tracemalloc.start()
    try:
        result = run(ctx, "yes abcdefghi | head -c 20000000; echo last-line", timeout_s=60)
        _, peak_bytes = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.output) <= ctx.max_output_chars
    assert result.output.startswith("abcdefghi\nabcdefghi\n")
    assert "last-line\n[exit code: 0]" in result.output
    assert "characters of stdout cut" in result.output
    files = list(ctx.overflow_dir.iterdir())
    assert len(files) == 1
    assert str(files[0]) in result.output
    assert files[0].stat().st_size == 20_000_000 + len("last-line\n")
    assert files[0].stat().st_mode & 0o777 == 0o600
    assert peak_bytes < 5_000_000  # never held whole (20 MB of str would be ≥ 20 MB)


def test_output_just_over_the_cap_still_gets_an_overflow_file(ctx: ToolContext) -> None:
    result = run(ctx, "seq 1 600")  # ~2.3k chars, over the 2,000 cap
    assert len(result.output) <= ctx.max_output_chars
    path = Path(result.output.split(" in ", 1)[1].split(" ...]")[0])
    assert path.read_text() == "".join(f"{i}\n" for i in range(1, 601))


def test_invalid_utf8_is_replaced_not_fatal(ctx: ToolContext) -> None:
    result = run(ctx, r"printf 'ok \xff\xfe end\n'")
    assert result.output == "ok \ufffd\ufffd end\n[exit code: 0]"


def test_binary_output_is_text_the_store_can_hold(ctx: ToolContext) -> None:
    result = run(ctx, "head -c 200000 /dev/urandom; printf '\\0\\0'")
    assert result.output.endswith("[exit code: 0]")
    assert "\x00" not in result.output
    result.output.encode("utf-8")  # no lone surrogates


def test_timeout_kills_the_whole_process_group(ctx: ToolContext) -> None:
    sleep = unique_sleep()
    results = []
    started = time.monotonic()
    worker = threading.Thread(
        target=lambda: results.append(run(ctx, f"{' '.join(sleep)} & wait", timeout_s=1)))
    worker.start()
    grandchild = host_pid(sleep)
    worker.join(timeout=10)
    assert time.monotonic() - started < 5
    (result,) = results
    assert result.is_error
    assert "timed out after 1 s" in result.output
    assert process_gone(grandchild)


def cancel_once_started(ctx: ToolContext, command: str, sleep: list[str]) -> tuple[object, int]:
    """Run ``command`` (which starts ``sleep`` in the background) and cancel it."""
    results = []
    worker = threading.Thread(target=lambda: results.append(run(ctx, command, timeout_s=60)))
    worker.start()
    grandchild = host_pid(sleep)
    ctx.cancel.set()
    worker.join(timeout=10)
    assert not worker.is_alive()
    return results[0], grandchild


def test_cancel_kills_a_child_that_ignores_sigterm(ctx: ToolContext) -> None:
    sleep = unique_sleep()
    result, grandchild = cancel_once_started(
        ctx, f"(trap '' TERM; exec {' '.join(sleep)}) & wait", sleep)
    assert "cancelled" in result.output
    assert process_gone(grandchild)


def test_cancel_kills_the_whole_process_group(ctx: ToolContext) -> None:
    sleep = unique_sleep()
    result, grandchild = cancel_once_started(ctx, f"{' '.join(sleep)} & wait", sleep)
    assert result.is_error
    assert "cancelled" in result.output
    assert process_gone(grandchild)


def test_background_process_holding_the_output_does_not_hang_the_call(
    ctx: ToolContext,
) -> None:
    sleep = unique_sleep()
    tool = ShellTool()  # as root its namespace, and the job in it, ends with the tool
    result = tool.run({"command": f"{' '.join(sleep)} & echo started", "timeout_s": 30}, ctx)
    pid = host_pid(sleep)
    try:
        assert result.output.startswith("started\n")
        assert "kept the output open" in result.output
        assert result.output.endswith("[exit code: 0]")
    finally:
        os.kill(pid, signal.SIGKILL)
        tool.close()


def test_bad_arguments_are_error_results(ctx: ToolContext) -> None:
    assert ShellTool().run({}, ctx).is_error
    assert run(ctx, "echo x", timeout_s=-1).is_error
    assert run(ctx, "echo x", timeout_s="soon").is_error


def test_shell_is_never_read_only() -> None:
    assert not ShellTool().is_read_only({"command": "ls"})


def test_secret_env_is_dropped_and_its_value_redacted(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, workdir: Path
) -> None:
    monkeypatch.setenv("FOO_API_KEY", SECRET)
    monkeypatch.setenv("PLAIN_VALUE", "visible")
    ctx = make_tool_context(settings, workdir)
    result = run(ctx, f"env | grep -E '^(FOO_API_KEY|PLAIN_VALUE)='; echo literal={SECRET}")
    assert "FOO_API_KEY" not in result.output
    assert "PLAIN_VALUE=visible" in result.output
    assert SECRET not in result.output
    assert "literal=[REDACTED]" in result.output


def test_allowed_secret_env_is_passed_but_still_redacted(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, workdir: Path
) -> None:
    monkeypatch.setenv("FOO_API_KEY", SECRET)
    settings.allow_secret_env = ("FOO_API_KEY",)
    ctx = make_tool_context(settings, workdir)
    result = run(ctx, 'echo "len=${#FOO_API_KEY} value=$FOO_API_KEY"')
    assert result.output == f"len={len(SECRET)} value=[REDACTED]\n[exit code: 0]"


def test_configured_key_variable_is_dropped_and_redacted(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, workdir: Path
) -> None:
    monkeypatch.setenv("MY_LLM_CREDENTIAL", SECRET)  # not secret-looking by name
    settings.models = {"openai/x": ModelConfig(api_key_env="MY_LLM_CREDENTIAL")}
    ctx = make_tool_context(settings, workdir)
    result = run(ctx, f"echo ${{MY_LLM_CREDENTIAL:-unset}}; echo {SECRET}")
    assert result.output == "unset\n[REDACTED]\n[exit code: 0]"


def test_secret_in_a_huge_output_is_redacted_in_the_overflow_file(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, workdir: Path
) -> None:
    monkeypatch.setenv("FOO_TOKEN", SECRET)
    ctx = make_tool_context(settings, workdir)
    # The secret appears at many offsets, so some copies straddle read boundaries.
    result = run(ctx, f"for i in $(seq 3000); do printf '%s{SECRET}' $i; done", timeout_s=30)
    assert SECRET not in result.output
    (overflow,) = ctx.overflow_dir.iterdir()
    text = overflow.read_text()
    assert SECRET not in text
    assert text.count("[REDACTED]") == 3000


def test_the_overflow_file_of_binary_output_is_byte_exact(ctx: ToolContext,
                                                          workdir: Path) -> None:
    data = bytes(range(256)) * 40 + b"\xe2\x82" + os.urandom(20_000) + b"\x00tail\xff"
    (workdir / "blob.bin").write_bytes(data)
    result = run(ctx, "cat blob.bin")
    assert len(result.output) <= ctx.max_output_chars
    assert "\x00" not in result.output and "\ufffd" in result.output
    (overflow,) = ctx.overflow_dir.iterdir()
    assert str(overflow) in result.output
    assert overflow.read_bytes() == data


def test_a_command_too_long_for_one_argument_says_how_to_run_it(ctx: ToolContext) -> None:
    result = run(ctx, "echo " + "x" * 200_000)
    assert result.is_error
    assert "the command is too long to run (200,005 characters" in result.output
    assert "write the script to a file with text_editor" in result.output
    assert "nsenter" not in result.output
