"""Which mentioned files are not attached, and the one-line notice saying why.

Part of ``@path`` mentions (:mod:`goosectx.mentions`, docs/architecture.md "@path
mentions"): a mention attaches only what ``text_editor view`` could read without a question,
and nothing the editor's deny rules refuse. A file is refused when it resolves outside the
working dir (the notice names where a symlink leads), is sensitive (:mod:`goosectx.sensitive`),
is denied to ``text_editor view`` by a permission rule (judged on the path as written and on
the file it reaches, as the editor's rules are), is a directory, or has other hard links (one
of its names may be outside the project: ``ln ~/secret notes.txt``; ``view`` asks about it, and
instruction and command files with other hard links are skipped).

Core module: no printing, no ``cli`` imports.
"""

from __future__ import annotations

from pathlib import Path

from goosectx.permissions import PermissionRules, match_rules
from goosectx.read_target import JudgedFile
from goosectx.sensitive import hard_links_why, is_sensitive, resolve, symlinked_outside


def refusal(judged: JudgedFile, shown: str, working_dir: Path, *,
            data_dir: Path | None = None, config_path: Path | None = None,
            rules: PermissionRules | None = None) -> str | None:
    """The notice for a mentioned file that is not attached; ``None``: attach it.

    Args:
        judged: The mentioned path, resolved once (the file checked is the file read).
        shown: The word as the user wrote it after ``@``.
        working_dir: The session's working dir.
        data_dir: goosectx's data dir (its files are sensitive).
        config_path: goosectx's config file (sensitive too).
        rules: The permission rules; a ``text_editor`` deny rule matching a ``view`` of the
            path refuses it.
    """
    path, real, top = judged.path, judged.real, resolve(working_dir)
    if real != top and top not in real.parents:
        return _outside(path, shown, working_dir)
    if any(is_sensitive(p, data_dir=data_dir, config_file=config_path) for p in (path, real)):
        return (f"@{shown} is a sensitive file (keys, credentials) — not attached; paste what "
                "the model needs instead")
    if rules:
        found = match_rules(rules, "text_editor", {"command": "view", "path": str(path)},
                            working_dir)
        if found.kind == "deny":
            return (f"@{shown} is denied to text_editor by a permission rule "
                    f"({', '.join(found.rules)}) — not attached")
    if real.is_dir():
        return (f"@{shown} is a directory — not attached; mention the files in it (Tab "
                "completes)")
    if judged.links > 1:
        return (f"{hard_links_why('@' + shown)} — not attached; paste what the model needs "
                "instead")
    return None


def _outside(path: Path, shown: str, working_dir: Path) -> str:
    """The notice for a file outside the working dir, naming where a symlink leads.

    ``@pw`` is visibly in the working dir when it is a link to ``/etc/hostname``: the notice
    names the real file, as the edit approval question does.
    """
    real = symlinked_outside(path, working_dir)
    if real is None:
        return f"@{shown} is outside the working dir ({working_dir}) — not attached"
    how = "is a symlink to" if path.is_symlink() else "leads through a symlink to"
    return f"@{shown} {how} {real}, outside the working dir ({working_dir}) — not attached"
