"""A known writer's target given through a variable the same line sets is judged by its value.

approval round 11 HIGH 1: ``H=.git/hooks/pre-commit; echo x > $H``, ``cp x $H``, ``tee "$H"``,
``curl -o "$H" URL``, ``export H=…; cp x $H``, ``for h in .git/hooks/pre-commit; do cp x "$h";
done`` and ``D=.venv/lib/python3.12/site-packages; echo x > $D/evil.pth`` ran in auto mode under
a deny rule (end to end a hook was written). A variable the line does not set is judged as
before.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict

HOOK = ".git/hooks/pre-commit"
PTH = ".venv/lib/python3.12/site-packages"


def venv_project(tmp_path: Path) -> Path:
    """A repository with a virtualenv, in ``tmp_path``."""
    work = tmp_path / "proj"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / PTH).mkdir(parents=True)
    (work / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return work


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository with a virtualenv."""
    return venv_project(tmp_path)


@pytest.mark.parametrize(("command", "said"), [
    (f"H={HOOK}; echo x > $H", f"a redirection writes {HOOK}: a hook"),
    (f"H={HOOK}; echo x >> ${{H}}", f"a redirection writes {HOOK}: a hook"),
    (f"H={HOOK}; cp x $H", f"cp writes {HOOK}: a hook"),
    (f'H={HOOK}; echo x | tee "$H"', f"tee writes {HOOK}: a hook"),
    (f'H={HOOK}; curl -o "$H" https://example.com/x', f"curl writes {HOOK}: a hook"),
    (f"export H={HOOK}; cp x $H", f"cp writes {HOOK}: a hook"),
    (f'for h in {HOOK}; do cp x "$h"; done', f"cp writes {HOOK}: a hook"),
    (f"H={HOOK}; dd if=x of=$H", f"dd writes {HOOK}: a hook"),
    (f"H={HOOK}; chmod +x $H", f"chmod changes the mode of {HOOK}: a hook"),
    (f'H={HOOK}; install -m 755 x "$H"', f"install writes {HOOK}: a hook"),
    ("H=.git/hooks; cp x $H/pre-push", "cp writes .git/hooks/pre-push: a hook"),
    (f"D={PTH}; echo x > $D/evil.pth", f"a redirection writes {PTH}/evil.pth into the "
                                         "virtualenv"),
])
def test_a_write_through_a_variable_the_line_sets_asks(project: Path, command: str,
                                                       said: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "ask", verdict.reason
    assert verdict.reason.startswith(said), verdict.reason


@pytest.mark.parametrize("command", [
    "H=src/b.py; echo x > $H", "H=src/b.py; cp x $H", 'for f in a b; do tee "$f.log"; done',
    "echo x > $H", "cp x $OUT", "D=build; mkdir -p $D && cp x $D/y",
])
def test_a_write_through_a_variable_naming_nothing_protected_still_runs(
        project: Path, command: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "run"
