"""rg's ``-g`` globs and ``-t`` types narrow the files its walk reads (docs/architecture.md §4).

Testers found ``rg --hidden -g '*.py' KEY`` and ``rg --hidden -tpy KEY`` asked about ``.
(holding .env)`` under ``shell(rg*)`` though rg never opens ``.env`` there: rg reads a file
only when the last glob matching it is positive (or, with no positive glob, when a ``-t``
type takes it). What cannot be read here (a glob with ``/``, ``[``, ``{``, a type not known,
``--type-add``, a config file) still asks.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules
from goosectx.searcher_options import searcher_kept

RG = PermissionRules(allow=("shell(rg*)",))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("RIPGREP_CONFIG_PATH", raising=False)
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / "src" / "app.py").write_text("KEY = 1\n")
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text('[remote "origin"]\nurl = https://ghp_x@github.com\n')
    (work / ".env").write_text("KEY=sk-x\n")
    (work / "creds").mkdir()
    (work / "creds" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nKEY\n")
    return work


def _action(work: Path, command: str) -> str:
    return shell_verdict(RG, command, "smart_approve", working_dir=work).action


@pytest.mark.parametrize("command", [
    "rg --hidden -g '*.py' KEY", "rg --hidden -tpy KEY", "rg --hidden -t py KEY",
    "rg --hidden --type=py KEY", "rg --hidden --type py KEY", "rg -uu -g '*.py' KEY",
    "rg --hidden --glob='*.py' KEY", "rg --hidden --iglob '*.PY' KEY", "rg -g '*.py' KEY .",
    "rg --hidden -g '**/*.py' KEY", "rg --hidden -g '*.py' -g '!.env' KEY",
    "rg --hidden -g '*' -g '!.env' -g '!.git' -g '!id_rsa' KEY", "rg --hidden -tpy -tmd KEY",
    "rg --hidden -g '*.py' -tjson KEY", "rg --hidden -Tpy -tmd KEY",
    "rg --hidden -tpy -g '!*.py' KEY",  # no positive glob, the type keeps no secret
])
def test_globs_and_types_that_leave_out_every_secret_run(project: Path, command: str) -> None:
    assert _action(project, command) == "run", command


@pytest.mark.parametrize("command", [
    "rg --hidden -g '*.py' -g '.env' KEY",  # a later positive glob takes .env back
    "rg --hidden -g '!*.py' KEY",  # a negative glob alone leaves the rest read
    "rg --hidden -g '*' -g '!.env' KEY",  # .git/config and id_rsa are read
    "rg --hidden -g '!.env' -g '*' KEY",  # the later glob wins: .env is read
    "rg --hidden -g '*.py' -g 'id_*' KEY", "rg --hidden -g '.e*' KEY",
    "rg --hidden -g 'src/*.py' KEY", "rg --hidden -g '[.]env' KEY",
    "rg --hidden -g '*.{py,env}' KEY", "rg --hidden -g '*.py\\' KEY",
    "rg --hidden -tsh KEY", "rg --hidden -tall KEY", "rg --hidden -tfrobnicate KEY",
    "rg --hidden --type-add 'x:*.env' -tx KEY", "rg --hidden --type-clear py -tpy KEY",
    "rg --hidden -g '*.py' --no-glob-case-insensitive KEY",
    "rg --hidden --iglob '*.ENV' KEY", "rg --hidden -g '*.py' --glob-case-insensitive -g '.ENV' KEY",
    "rg -L --hidden -g '*.py' KEY", "rg --hidden -g '*.py' --pre cat KEY",
    "rg --hidden -g '' KEY",
    "rg --hidden -g '*.md' --iglob '*' -g '!.*' KEY",  # rg adds -g globs before --iglob ones
])
def test_globs_and_types_that_may_reach_a_secret_ask(project: Path, command: str) -> None:
    assert _action(project, command) == "ask", command


def test_a_type_whose_globs_match_a_secret_still_asks(project: Path) -> None:
    (project / "config.json").write_text("{}\n")
    (project / "credentials.tfrc.json").write_text('{"key": "x"}\n')
    assert _action(project, "rg --hidden -tjson KEY") == "ask"
    assert _action(project, "rg --hidden -tpy KEY") == "run"


def test_a_ripgrep_config_file_makes_every_glob_unsure(project: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", str(project / "rgrc"))
    assert _action(project, "rg --hidden -g '*.py' KEY") == "ask"


def test_a_secret_named_like_the_glob_asks(project: Path) -> None:
    (project / ".env.py").write_text("KEY = 'x'\n")
    assert _action(project, "rg --hidden -g '*.py' KEY") == "ask"


@pytest.mark.skipif(shutil.which("rg") is None, reason="no rg binary here")
@pytest.mark.parametrize("globs", [
    ["-g", "*.py"], ["-tpy"], ["-g", "*.py", "-g", "!app.py"], ["-g", "*", "-g", "!.env"],
    ["-g", "!.env", "-g", "*"], ["-g", "!*.py"], ["--iglob", "*.PY"], ["-tpy", "-g", "!x"],
    ["-g", "*.py", "-tmd"], ["-g", "!.git", "-g", "!creds"], ["--iglob", "*.PY", "--iglob", "!*"],
])
def test_the_files_kept_are_those_rg_reads(project: Path, globs: list[str]) -> None:
    """Every file the real rg searches is one :func:`searcher_kept` keeps (never fewer)."""
    listed = subprocess.run(["rg", "--no-config", "--hidden", "--files", *globs], cwd=project,
                            capture_output=True, text=True, check=False).stdout.split()
    kept = searcher_kept("rg", ["--hidden", *globs])
    assert kept is not None
    for path in listed:
        parts = Path(path).parts
        assert all(kept(part, True) for part in parts[:-1]), path
        assert kept(parts[-1], False), path
