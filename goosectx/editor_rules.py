"""How a ``text_editor`` call meets the permission rules: its command, its paths, a protected write.

docs/architecture.md §4, clause 2 of the one approval decision. A rule is matched on the
command the tool runs (``create`` runs ``write``: :data:`~goosectx.tools.definitions.
TEXT_EDITOR_SAME`), so ``text_editor(write:src/**)`` holds for ``create`` too. An edit of a
file a later command runs (a hook or git config, a virtualenv, ``node_modules``, goosectx's own
config: :func:`goosectx.protected_paths.protected_write`, the shell's one definition) is judged
as the shell's write of it is: under a shell or ``text_editor`` deny or ask rule it asks, and
no allow rule covers it.

Core module: no printing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from goosectx.permission_rules import PermissionRules, rules_may_catch
from goosectx.protected_paths import Where, protected_write
from goosectx.sensitive import rule_paths
from goosectx.shell_forms import CommandForms
from goosectx.tools.definitions import TEXT_EDITOR_SAME


def editor_command(command: object) -> str:
    """The command ``text_editor`` runs for ``command`` (``create`` → ``write``)."""
    word = command if isinstance(command, str) else ""
    return TEXT_EDITOR_SAME.get(word, word)


def editor_spec(spec: str) -> str:
    """A rule's ``COMMAND:PATH`` matched: ``*:PATH`` for a PATH alone, ``create`` as ``write``."""
    command, colon, path = spec.partition(":")
    return f"{editor_command(command)}:{path}" if colon else "*:" + spec


def editor_subjects(arguments: Mapping[str, Any], working_dir: Path) -> list[CommandForms]:
    """``COMMAND:PATH`` for each file the call reaches (:func:`~goosectx.sensitive.rule_paths`).

    The path as written and, when a symlink leads elsewhere, the file it reaches: a deny or
    ask rule matching either decides, an allow rule must match both.
    """
    path = arguments.get("path")
    command = editor_command(arguments.get("command", ""))
    files = rule_paths(path, working_dir) if isinstance(path, str) else [("",)]
    return [CommandForms(tuple(f"{command}:{name}" for name in names), f"{command}:{names[0]}")
            for names in files]


def editor_protected(arguments: Mapping[str, Any], working_dir: Path) -> str | None:
    """Why the call's edit may change what a later command runs (``.git/config``), or ``None``.

    Every command but ``view`` writes its path (``undo_edit`` writes the earlier text back).
    """
    path = arguments.get("path")
    if editor_command(arguments.get("command")) == "view" or not isinstance(path, str):
        return None
    return protected_write("text_editor", path.strip(), Where(working_dir, (working_dir,)))


def editor_checks(rules: PermissionRules) -> bool:
    """True when a deny or ask rule may catch a shell or ``text_editor`` call."""
    return rules_may_catch(rules, "shell", "text_editor")
