"""Which build made a kept scan state: a digest of the source of every module the scan runs.

Part of the compaction pipeline (docs/architecture.md §5). A state kept by the facts scan
(:mod:`.scan_state`) means what the scan's code made of the messages before its boundary;
another build's scan may record other facts, or the same ones another way, and a state it
resumed would silently lose or change facts. :data:`SCAN_MODULES` lists every goosectx module
the scan imports (tests/test_scan_state_guards.py imports the scan in a fresh interpreter,
runs it, and checks the list is exactly what it loaded); :func:`build_digest` hashes their
files, once per process, and a state is only resumed by a build with the same digest.
"""

from __future__ import annotations

import hashlib
import importlib.util
from functools import cache

SCAN_MODULES = (
    "goosectx",
    "goosectx.attachment",
    "goosectx.compaction",
    "goosectx.compaction.actions",
    "goosectx.compaction.carry",
    "goosectx.compaction.condensed",
    "goosectx.compaction.constraint_change",
    "goosectx.compaction.cuts",
    "goosectx.compaction.facts",
    "goosectx.compaction.facts_scan",
    "goosectx.compaction.file_record",
    "goosectx.compaction.fixed_errors",
    "goosectx.compaction.gather",
    "goosectx.compaction.gather_state",
    "goosectx.compaction.memo",
    "goosectx.compaction.prompts",
    "goosectx.compaction.scan_build",
    "goosectx.compaction.scan_state",
    "goosectx.compaction.shell_files",
    "goosectx.compaction.stated_step",
    "goosectx.compaction.todos",
    "goosectx.compaction.tool_errors",
    "goosectx.compaction.undo_note",
    "goosectx.context_breakdown",
    "goosectx.conversation",
    "goosectx.conversation_repair",
    "goosectx.encoder_pipe",
    "goosectx.encoder_worker",
    "goosectx.encoding",
    "goosectx.message",
    "goosectx.message_text",
    "goosectx.parts",
    "goosectx.private_mode",
    "goosectx.session",
    "goosectx.shell_ansi",
    "goosectx.shell_arith",
    "goosectx.shell_assign",
    "goosectx.shell_builtins",
    "goosectx.shell_command",
    "goosectx.shell_cond",
    "goosectx.shell_databases",
    "goosectx.shell_deferred",
    "goosectx.shell_escape",
    "goosectx.shell_git",
    "goosectx.shell_jobs",
    "goosectx.shell_languages",
    "goosectx.shell_launchers",
    "goosectx.shell_lexer",
    "goosectx.shell_multicall",
    "goosectx.shell_names",
    "goosectx.shell_options",
    "goosectx.shell_packages",
    "goosectx.shell_pagers",
    "goosectx.shell_reparse",
    "goosectx.shell_runners",
    "goosectx.shell_scripts",
    "goosectx.shell_sed",
    "goosectx.shell_terminals",
    "goosectx.shell_transfers",
    "goosectx.shell_unwrap",
    "goosectx.shell_variables",
    "goosectx.shell_words",
    "goosectx.shell_wrappers",
    "goosectx.stored_message",
    "goosectx.testhooks",
    "goosectx.text_counts",
    "goosectx.token_batch",
    "goosectx.token_first_need",
    "goosectx.token_pieces",
    "goosectx.tokens",
    "goosectx.usage",
)
"""Every goosectx module the facts scan imports, the scan's own included (sorted)."""


@cache
def build_digest() -> str:
    """A digest of the files of :data:`SCAN_MODULES` as this process loads them.

    Each file is found without importing its module (a loaded one's is the file it was
    loaded from): the shell modules are imported only when a command needs reading
    (:mod:`.shell_files`). ``""`` when one cannot be found or read: a state is then neither
    kept nor resumed.
    """
    digest = hashlib.sha256()
    try:
        for name in SCAN_MODULES:
            spec = importlib.util.find_spec(name)
            path = spec.origin if spec is not None and spec.has_location else None
            if not path:
                return ""
            with open(path, "rb") as f:
                data = f.read()
            digest.update(f"{name}\0{len(data)}\0".encode())
            digest.update(data)
    except (OSError, ImportError):
        return ""
    return digest.hexdigest()[:32]
