"""The path checks an allow rule's shell call goes through: per call, on 200-word lines.

What ``approval`` runs on a shell command a rule allows: ``sensitive_words`` and
``outside_words`` (docs/architecture.md §4), each reading the line with the one walk of
``shell_dirs.command_dirs``. Lines: one ``cat`` of 199 files, 40 ``cd sub && cat a ../b``
pairs, a ``bash -c`` of 150 words. Baselines, same run: ``lex`` of the same line (the reading
the rules do anyway), and the walk alone (``command_dirs``: lexing plus following each cd).
The whole decision (``approval.decide`` under ``shell(cd*)``, ``shell(cat*)``,
``shell(bash*)``) on the same lines, against the walk alone, with the number of walks of the
line it makes (the rules' ``cd`` dirs and both path checks share one: target 1).
The project is made under the temp dir; files are named but mostly missing, as in real use.

Usage: ``python bench/shell_checks.py [--quick]``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from figures import Figure, median_time_s, quick_arg

CHECKS_MAX_MS = 2.0


def _lines() -> dict[str, str]:
    files = [f"src/f{i}.py" for i in range(199)]
    return {
        "cat of 199 files": "cat " + " ".join(files),
        "40 × cd sub && cat a ../b": " && ".join(
            f"cd sub && cat a{i}.txt ../b{i}.txt" for i in range(40)),
        "bash -c of 150 words": "bash -c 'cat " + " ".join(files[:149]) + "'",
    }


def run(quick: bool = False) -> list[Figure]:
    """Time both checks against lex and the walk alone, per line."""
    from goosectx.sensitive import sensitive_words
    from goosectx.shell_lexer import lex
    from goosectx.shell_paths import outside_words

    repeat = 5 if quick else 21
    figures = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "proj"
        (work / "src").mkdir(parents=True)
        (work / "sub").mkdir()
        for i in range(0, 199, 3):
            (work / "src" / f"f{i}.py").write_text("x\n")
        for name, line in _lines().items():
            def checks(line: str = line) -> None:  # as approval._permission_rules: one walk
                walked = walk(line)
                list(sensitive_words(line, work, data_dir=work.parent / "data", walked=walked))
                list(outside_words(line, work, walked))

            def walk(line: str = line) -> list[Any]:
                from goosectx.shell_dirs import command_dirs

                return list(command_dirs(line, work))

            lexed = median_time_s(lambda line=line: lex(line), repeat=repeat) * 1e3
            walked = median_time_s(walk, repeat=repeat) * 1e3
            both = median_time_s(checks, repeat=repeat) * 1e3
            figures.append(Figure(
                f"both path checks, {name} (ms/call)", both, "ms", "lex of the same line",
                lexed, f"≤ {CHECKS_MAX_MS:g} ms", both <= CHECKS_MAX_MS,
                note=f"{name}: the walk alone (lex + cds + bash -c lines) {walked:.2f} ms"))
        figures += _decisions(work, repeat)
    return figures


def _decisions(work: Path, repeat: int) -> list[Figure]:
    """The decision on each line, timed against the walk alone; its walks of the line counted."""
    from goosectx import approval, protected_paths, sensitive_shell, shell_dirs, shell_paths
    from goosectx.approval import ApprovalContext, decide
    from goosectx.permissions import PermissionRules

    rules = PermissionRules(allow=("shell(cd*)", "shell(cat*)", "shell(bash*)"))
    users = [m for m in (approval, protected_paths, sensitive_shell, shell_paths)
             if hasattr(m, "command_dirs")]  # the modules that start a walk of the line
    walks: list[str] = []

    def counted(command: str, *args: Any, **kwargs: Any) -> Any:
        walks.append(command)
        return shell_dirs.command_dirs(command, *args, **kwargs)

    figures = []
    for name, line in _lines().items():
        ctx = ApprovalContext(mode="smart_approve", tool_name="shell", read_only=False,
                              working_dir=work, arguments={"command": line}, rules=rules)
        walks.clear()
        for module in users:
            module.command_dirs = counted  # type: ignore[attr-defined]
        try:
            decide(ctx)
        finally:
            for module in users:
                module.command_dirs = shell_dirs.command_dirs  # type: ignore[attr-defined]
        walked = median_time_s(lambda line=line: list(shell_dirs.command_dirs(line, work)),
                               repeat=repeat) * 1e3
        decided = median_time_s(lambda ctx=ctx: decide(ctx), repeat=repeat) * 1e3
        figures.append(Figure(
            f"walks of the line per decision, {name}", len(walks), "walks", "", None, "≤ 1",
            len(walks) <= 1))
        figures.append(Figure(
            f"the decision, {name} (ms/call)", decided, "ms", "the walk alone", walked, "info",
            None))
    return figures


if __name__ == "__main__":
    from run import print_table

    sys.exit(print_table(run(quick_arg())))
