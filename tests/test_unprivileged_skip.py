"""The tests that run goosectx as uid 65534 skip, saying why and how to run them, when that
user cannot read the checkout (a clone inside a 0700 ``mktemp -d``), and run otherwise.

They used to fail there (the extension test: "There is no tool named 'demo__peek_environ'"), or
pass while uid 65534 ran another goosectx (the editable install's), not the checkout's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from unprivileged_support import CHECKOUT

UNPRIVILEGED = ["tests/test_security_secrets.py", "tests/test_repl_shell_escape.py",
                "-k", "unprivileged"]

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                                reason="needs root to switch to an unprivileged user with setpriv")


def _copy_checkout(parent: Path) -> Path:
    copy = parent / "goosectx-checkout"
    skip = shutil.ignore_patterns("__pycache__", ".pytest_cache")
    for name in ("goosectx", "tests"):
        shutil.copytree(CHECKOUT / name, copy / name, ignore=skip)
    shutil.copy2(CHECKOUT / "pyproject.toml", copy / "pyproject.toml")
    # made under the process's umask, which another thread of the test run may have set to
    # 077 for a moment (the store's private files): readable as a clone's top dir is
    copy.chmod(0o755)
    return copy


@pytest.fixture
def closed_checkout() -> Iterator[Path]:
    parent = Path(tempfile.mkdtemp(prefix="goosectx-0700-"))  # mode 0700, as mktemp -d makes
    try:
        yield _copy_checkout(parent)
    finally:
        shutil.rmtree(parent, ignore_errors=True)


@pytest.fixture
def open_checkout() -> Iterator[Path]:
    parent = Path(tempfile.mkdtemp(prefix="goosectx-0755-"))
    parent.chmod(0o755)
    try:
        yield _copy_checkout(parent)
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def _env(checkout: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": "1"}


def test_in_a_checkout_uid_65534_cannot_read_they_skip_saying_why(closed_checkout: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-rs", *UNPRIVILEGED], cwd=closed_checkout, env=_env(closed_checkout),
                          capture_output=True, text=True, timeout=600)
    out = done.stdout
    assert done.returncode == 0, out
    assert "3 skipped" in out and "failed" not in out and "passed" not in out, out
    (line,) = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert line.startswith("SKIPPED [3] "), line  # one reason, given for the three
    assert f"uid 65534 cannot read this checkout {closed_checkout}" in line, line
    assert f"{closed_checkout.parent} is mode 0700" in line, line
    assert "clone the repository where that user can read it" in line, line


@pytest.mark.parametrize("closed", [False, True])
def test_the_reason_is_given_only_when_uid_65534_cannot_read_the_checkout(
        open_checkout: Path, closed: bool) -> None:
    if closed:
        open_checkout.parent.chmod(0o700)
    probe = ("import sys; sys.path.insert(0, 'tests'); "
             "from unprivileged_support import why_not_as_nobody; print(why_not_as_nobody())")
    done = subprocess.run([sys.executable, "-c", probe], cwd=open_checkout,
                          env=_env(open_checkout), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    if closed:
        assert done.stdout.startswith("uid 65534 cannot read this checkout"), done.stdout
    else:
        assert done.stdout == "None\n"
