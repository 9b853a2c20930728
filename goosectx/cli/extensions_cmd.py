"""``goosectx extensions list [--json]``: start every configured server, report, stop.

For each extension: its status (with the reason and the tail of its stderr when it failed),
its tools (the name the model sees ← the server's name, with annotations; a name suffixed
because another tool holds its plain one says which), the tools skipped, its resources and
prompts, and what its instructions and schemas cost in tokens. Every text
a server sent passes the terminal sanitiser; ``--json`` goes through
:func:`~goosectx.cli.sanitize.json_safe` as ``run``'s JSON does (an escape or a bidi override
is a JSON escape of the same value). A disabled extension is listed as ``disabled`` (not
started, not a failure). Exit 1 when an enabled extension failed: one that was
not ready when its ``startup_timeout_s`` (and a second's grace) ran out is failed too, whatever
its server connection was still doing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from goosectx.config import Settings


def _status_dict(status: Any, costs: dict[str, tuple[int, int]]) -> dict[str, Any]:
    instruction_tokens, schema_tokens = costs.get(status.name, (0, 0))
    return {
        "name": status.name,
        "status": status.status,
        "error": status.error or None,
        "stderr_tail": status.stderr_tail or None,
        "server_name": status.server_name or None,
        "settings": status.public,
        "instruction_tokens": instruction_tokens,
        "schema_tokens": schema_tokens,
        "tools": [{"name": t.model_name, "server_name": t.name, "description": t.description,
                   "annotations": t.annotations} for t in status.tools],
        "skipped_tools": list(status.skipped),
        "skipped_resources": list(status.skipped_resources),
        "skipped_prompts": list(status.skipped_prompts),
        "listing_notes": list(status.listing_notes),
        "resources": [{"uri": r.uri, "name": r.name, "description": r.description,
                       "mime_type": r.mime_type} for r in status.resources],
        "prompts": [{"name": p.name, "description": p.description,
                     "arguments": [{"name": a.name, "required": a.required}
                                   for a in p.arguments]} for p in status.prompts],
    }


def _not_ready_is_failed(item: dict[str, Any], enabled: bool) -> dict[str, Any]:
    """A server still starting (or stopped) once the wait is over did not start: failed.

    A disabled one (``enabled = false``) was not meant to start: ``disabled``, not a failure.
    """
    if not enabled:
        return {**item, "status": "disabled", "error": None}
    if item["status"] in ("ready", "failed"):
        return item
    if item["status"] == "starting":
        timeout = item["settings"]["startup_timeout_s"]
        why = f"did not start within {timeout:g} s (startup_timeout_s)"
    else:
        why = "stopped before it was ready" + (f" ({item['error']})" if item["error"] else "")
    return {**item, "status": "failed", "error": why}


def _annotations(values: dict[str, Any]) -> str:
    flags = [key.removesuffix("_hint").replace("_", "-") for key, value in values.items()
             if key.endswith("_hint") and value is True]
    return f" [{', '.join(flags)}]" if flags else ""


def _write_text(out: TextIO, item: dict[str, Any]) -> None:
    from goosectx.cli.sanitize import one_line_safe as safe  # a line break cannot forge a line
    from goosectx.extensions.names import clash_note

    head = f"{safe(item['name'])}: {item['status']}"
    if item["server_name"]:
        head += f" (server {safe(item['server_name'])})"
    out.write(head + "\n")
    if item["error"]:
        out.write(f"  error: {safe(item['error'])}\n")
    for line in (item["stderr_tail"] or "").splitlines()[-5:]:
        out.write(f"  stderr: {safe(line)}\n")
    if item["status"] != "ready":
        return
    out.write(f"  instructions: {item['instruction_tokens']:,} tokens · tool schemas: "
              f"{item['schema_tokens']:,} tokens\n")
    out.write(f"  tools ({len(item['tools'])}):\n")
    holders = {tool["name"]: tool["server_name"] for tool in item["tools"]}
    for tool in item["tools"]:
        renamed = "" if tool["name"].endswith(f"__{tool['server_name']}") else \
            f" ← {safe(tool['server_name'])}"
        why = clash_note(item["name"], tool["server_name"], tool["name"], holders)
        renamed += f" ({safe(why)})" if why else ""
        out.write(f"    {safe(tool['name'])}{renamed}{_annotations(tool['annotations'])}\n")
    for skipped in item["skipped_tools"]:
        out.write(f"    skipped: {safe(skipped)}\n")
    for note in item["listing_notes"]:
        out.write(f"  note: {safe(note)}\n")
    if item["resources"] or item["skipped_resources"]:
        out.write(f"  resources ({len(item['resources'])}):\n")
        for res in item["resources"]:
            out.write(f"    {safe(res['uri'])} — {safe(res['name'])}\n")
        for skipped in item["skipped_resources"]:
            out.write(f"    skipped: {safe(skipped)}\n")
    if item["prompts"] or item["skipped_prompts"]:
        out.write(f"  prompts ({len(item['prompts'])}):\n")
        for prompt in item["prompts"]:
            args = " ".join(a["name"] + ("" if a["required"] else "?")
                            for a in prompt["arguments"])
            out.write(f"    {safe(prompt['name'])}{' ' + safe(args) if args else ''}"
                      f"{' — ' + safe(prompt['description']) if prompt['description'] else ''}"
                      "\n")
        for skipped in item["skipped_prompts"]:
            out.write(f"    skipped: {safe(skipped)}\n")


def list_extensions(settings: Settings, *, as_json: bool = False, specs: tuple[str, ...] = (),
                    remotes: tuple[str, ...] = (), stdout: TextIO | None = None,
                    stderr: TextIO | None = None) -> int:
    """Start every enabled extension, print its report, stop them all; the exit code.

    Raises:
        ConfigError: a bad ``[extensions.*]`` table or flag (exit 2).
        UsageError: extensions to start and the current directory was deleted (exit 2).
    """
    from goosectx.cli.common import current_dir
    from goosectx.extensions.manager import ExtensionManager
    from goosectx.extensions.source import ExtensionToolSource

    out, err = stdout or sys.stdout, stderr or sys.stderr
    configs = extension_configs(settings, specs, remotes)
    if not configs:
        err.write("goosectx: no extensions configured; add an [extensions.NAME] table to the "
                  "config file (see config.example.toml) or use --with-extension\n")
        return 0 if as_json is False else _empty_json(out)
    here = current_dir()  # the servers start here; deleted: the one line, exit 2
    manager = ExtensionManager(configs, here, ["shell", "text_editor", "tree"])
    from goosectx.env_secrets import tool_output_redactor

    manager.tool_redact = tool_output_redactor(settings)  # listed as a tool's output is
    try:
        manager.start()
        manager.wait_ready()
        source = ExtensionToolSource(manager)
        costs = {name: (instr, schema) for name, instr, schema, _ in source.costs()}
        enabled = set(enabled_names(configs))
        items = [_not_ready_is_failed(_status_dict(s, costs), s.name in enabled)
                 for s in manager.statuses()]
    finally:
        manager.stop_all()
    if as_json:
        from goosectx.cli.ascii_output import fit_json
        from goosectx.cli.sanitize import json_safe  # as run's and sessions' JSON

        text = json_safe(json.dumps({"extensions": items}, indent=2, ensure_ascii=False))
        out.write(fit_json(text, out) + "\n")
    else:
        for item in items:
            _write_text(out, item)
    failed = [i["name"] for i in items if i["status"] == "failed"]
    if failed:
        from goosectx.cli.sanitize import terminal_safe

        err.write(f"goosectx: {len(failed)} extension(s) failed to start: "
                  f"{terminal_safe(', '.join(failed))}\n")
    out.flush()
    return 1 if failed else 0


def _empty_json(out: TextIO) -> int:
    out.write(json.dumps({"extensions": []}) + "\n")
    return 0


def extension_configs(settings: Settings, specs: tuple[str, ...] = (),
                      remotes: tuple[str, ...] = ()) -> list[Any]:
    """The session's extensions: ``[extensions.*]`` tables plus the ``--with-*`` flags.

    Raises:
        ConfigError: a bad table or flag (before any session is opened).
    """
    from goosectx.extensions.config import resolve_configs
    from goosectx.extensions.own_keys import refuse_own_keys

    configs = resolve_configs(settings.extensions.tables, str(settings.config_path or ""),
                              specs, remotes)
    refuse_own_keys(configs, settings)
    return configs


def enabled_names(configs: Any) -> list[str]:
    """The names of the enabled extensions among ``configs``."""
    return [c.name for c in configs if c.enabled]


def start_extensions(configs: list[Any], session: Any, *, start: bool = True,
                     empty: bool = False, absent: dict[str, str] | None = None) -> Any:
    """The session's extension manager, or ``None`` when no extension is enabled.

    Started in the background unless ``start`` is False; ``empty`` makes one even with no
    extension (``/extension add`` adds to it), and so do ``absent`` ones (a resumed session's
    extensions not back, name → why: a call of their tools gets the reason). The exit guard
    makes sure no server process outlives goosectx.
    """
    if not empty and not absent and not any(c.enabled for c in configs):
        return None
    from goosectx.extensions.lifecycle import install_exit_guard
    from goosectx.extensions.manager import ExtensionManager

    install_exit_guard()
    manager = ExtensionManager(configs, session.working_dir, ["shell", "text_editor", "tree"])
    manager.absent = dict(absent or {})
    if start:
        manager.start()
    return manager


def session_extensions(opened: Any, configs: list[Any]
                       ) -> tuple[list[Any], list[str], dict[str, str]]:
    """The extensions of an opened session, recorded in its store (no secret values).

    A resumed session gets back what it had (see
    :func:`goosectx.extensions.config.resume_configs`); the list is then saved.

    Returns:
        (the extensions to run, one-line notices for the user, the ones not back: name → why).
    """
    from goosectx.extensions.config import resume_configs

    notices: list[str] = []
    absent: dict[str, str] = {}
    kept: set[str] = set()
    if opened.resumed:
        stored = opened.store.load_extensions(opened.session.id)
        added, notices, absent = resume_configs(stored, configs)
        configs = sorted([*configs, *added], key=lambda c: c.name)
        kept = {str(r.get("name")) for r in stored if r.get("origin") != "config"}
    # a configured one no longer in the config is said once, then forgotten
    record_extensions(opened.store, opened.session.id, configs, keep=set(absent) & kept)
    return configs, notices, absent


def record_extensions(store: Any, session_id: str, configs: Any,
                      keep: Iterable[str] = ()) -> None:
    """Save which extensions the session runs (their public settings, enabled ones only).

    The stored records of the extensions named in ``keep`` (flag-added ones not back on
    this resume) stay, so every later resume still names them and the flag they need, and a
    call of their tools is told why it did not run — never "no tool named". A configured one
    no longer in the config is not kept (the user deleted it), nor one ``/extension remove``
    forgot.
    """
    records = [c.public() for c in configs if c.enabled]
    running = {r["name"] for r in records}
    kept = set(keep) - running
    if kept:
        records += [r for r in store.load_extensions(session_id) if r.get("name") in kept]
    store.save_extensions(session_id, records)


def open_extensions(opened: Any, configs: list[Any]) -> Any:
    """The extension manager of an opened REPL session (not started yet), or ``None``.

    Records the session's extensions (a resumed one gets back what it had); the notices about
    that are queued for the first prompt.
    """
    configs, notices, absent = session_extensions(opened, configs)
    manager = start_extensions(configs, opened.session, start=False, absent=absent)
    if manager is not None:
        manager.notices_at_start(notices)
    return manager


class RunServers:
    """The extensions of one ``goosectx run``, parsed before the session opens.

    Configured ones plus the ``--with-*`` flags (``settings.extensions.flags``); all stopped
    at the end.

    Raises:
        ConfigError: a bad table or flag.
    """

    def __init__(self, settings: Settings) -> None:
        self.configs = extension_configs(settings, *settings.extensions.flags)
        self.permissions = settings.permissions
        self.manager: Any = None

    def start(self, opened: Any, stderr: TextIO) -> Any:
        """Record and start the session's servers; notices go to ``stderr``.

        So does a warning for each permission rule that matches no tool of the session.
        """
        from goosectx.cli.sanitize import terminal_safe
        from goosectx.permissions import rules_for_no_tool

        configs, notices, absent = session_extensions(opened, self.configs)
        for notice in notices:
            stderr.write(f"goosectx: {terminal_safe(notice)}\n")
        for warning in rules_for_no_tool(self.permissions, enabled_names(configs)):
            stderr.write(f"goosectx: warning: {terminal_safe(warning)}\n")
        self.manager = start_extensions(configs, opened.session, absent=absent)
        return self.manager

    def stop(self) -> None:
        """Stop every server (no child outlives ``run``)."""
        if self.manager is not None:
            self.manager.stop_all()
