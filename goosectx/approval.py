"""Approval: the one decision function for tool calls, and the approval callable.

docs/architecture.md §4. :func:`decide` maps an :class:`ApprovalContext` (approval mode,
permission rules, tool, arguments, working dir, the session's "always allow" answers) to an
:class:`ApprovalVerdict`: ``run``, ``ask`` or ``deny``, with a reason. It walks
:data:`CLAUSES` in order; the first clause with an opinion decides, and a call no clause
claims is asked about. Each later approval feature adds one clause there, nowhere else.

On ``ask`` the agent calls the caller's :data:`ApprovalFn`: the REPL asks the user; ``run``
without a terminal answers ``deny`` (the model is told that nobody could be asked).

Modes: ``auto`` (run every tool), ``approve`` (ask before each), ``smart_approve`` (read-only
calls run, others ask; the default), ``chat`` (no tool runs).

Core module: no printing, no ``cli`` / ``rich`` imports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeAlias

from goosectx.approval_texts import (
    ASKED_CANCELLED_TEXT,
    CANCELLED_TEXT,
    CHAT_MODE_TEXT,
    DENIED_TEXT,
    INPUT_ENDED,
    INPUT_ENDED_TEXT,
    NON_INTERACTIVE_DENIED_TEXT,
    RULE_BOUND_WAY_OUT,
    RULE_DENIED_TEXT,
    STOPPED_PREFIX,
    STOPPED_RUNNING,
    beyond_reason,
    cancelled_text,
    denied_text,
    non_interactive_denied_text,
    stopped_running_text,
    uncovered_reason,
)
from goosectx.approval_types import (
    ApprovalAction,
    ApprovalAnswer,
    ApprovalContext,
    ApprovalDecision,
    ApprovalFn,
    ApprovalVerdict,
)
from goosectx.conversation import ToolRequest
from goosectx.own_files import deciding
from goosectx.permissions import (
    CANNOT_CHECK,
    PermissionRules,
    RuleMatch,
    match_rules,
    names_path,
    shell_checks,
)
from goosectx.protected_hooks import read_once
from goosectx.protected_paths import moves
from goosectx.read_target import judge
from goosectx.sensitive import (
    expand_user,
    hard_linked,
    hard_links_why,
    hidden_target,
    outside,
    read_paths,
    sensitive_why,
    sensitive_words,
)
from goosectx.shell_budget import over_budget
from goosectx.shell_dirs import Walked, command_dirs
from goosectx.shell_paths import outside_words

__all__ = [  # re-exported: the rules live in permissions.py, the texts in approval_texts.py,
    # the decision's shapes in approval_types.py
    "ApprovalAction", "ApprovalAnswer", "ApprovalContext", "ApprovalDecision", "ApprovalFn",
    "ApprovalVerdict", "ASKED_CANCELLED_TEXT", "CANCELLED_TEXT", "CHAT_MODE_TEXT", "DENIED_TEXT",
    "INPUT_ENDED", "INPUT_ENDED_TEXT",
    "NON_INTERACTIVE_DENIED_TEXT", "RULE_BOUND_WAY_OUT", "RULE_DENIED_TEXT", "STOPPED_PREFIX",
    "STOPPED_RUNNING", "PermissionRules", "cancelled_text", "denied_text",
    "non_interactive_denied_text", "stopped_running_text"]

Clause: TypeAlias = Callable[[ApprovalContext], "ApprovalVerdict | None"]
"""One rule of the decision: a verdict, or ``None`` to leave the call to the next clause."""


def _chat_mode(ctx: ApprovalContext) -> ApprovalVerdict | None:
    if ctx.mode == "chat":
        return ApprovalVerdict("deny", "chat mode: no tool runs", CHAT_MODE_TEXT)
    return None


def _too_long(ctx: ApprovalContext) -> ApprovalVerdict | None:
    """A shell line past what the checks read (:func:`~goosectx.shell_budget.over_budget`).

    Asked about, the reason saying so (under shell deny or ask rules, as a line those rules
    cannot check: no mode or allow rule runs it); in ``auto`` with no such rule it runs, as
    every call there does. A decision never takes seconds.
    """
    command = ctx.arguments.get("command")
    if ctx.tool_name != "shell" or not isinstance(command, str):
        return None
    why = over_budget(command)
    if why is None:
        return None
    if shell_checks(ctx.rules):
        return ApprovalVerdict("ask", f"{why}, {CANNOT_CHECK}", rule_bound=True)
    if ctx.mode == "auto":
        return _auto_mode(ctx)
    return ApprovalVerdict("ask", f"{ctx.mode}: {why}, so it is asked about")


def _read_scope(ctx: ApprovalContext) -> ApprovalVerdict | None:
    if ctx.mode != "smart_approve":
        return None
    for path in read_paths(ctx.tool_name, ctx.arguments, ctx.working_dir) or []:
        why = _read_why(ctx, path)
        if why is not None:
            return ApprovalVerdict("ask", f"smart_approve: {why}", read_why=why)
    return None


def _read_why(ctx: ApprovalContext, path: Path) -> str | None:
    """Why read scoping asks about reading ``path`` (``"PATH is …"``); ``None``: it does not."""
    judged = ctx.read_target if ctx.read_target and ctx.read_target.path == path else None
    kind = _sensitive_read(ctx, path)
    if kind is not None:  # asked even after "always allow"
        return f"{path} {kind}"
    if ctx.tool_name in ctx.always_allowed | ctx.reads_allowed:
        return None
    if outside(path if judged is None else judged.real, ctx.working_dir):
        return f"{path} is outside the project"
    if hard_linked(path) if judged is None else judged.links > 1:
        return hard_links_why(str(path))
    return None


def _sensitive_read(ctx: ApprovalContext, path: Path) -> str | None:
    """Why ``path``, or the file the decision judged it leads to, is sensitive (``None``: not)."""
    judged = ctx.read_target
    for one in (path, *([judged.real] if judged and judged.path == path else [])):
        kind = sensitive_why(one, data_dir=ctx.data_dir, config_file=ctx.config_file)
        if kind is not None:
            return kind
    return None


def _named_paths(ctx: ApprovalContext) -> list[Path]:
    """The paths a built-in call reads (``view``, ``tree``) or writes (other editor commands)."""
    paths = read_paths(ctx.tool_name, ctx.arguments, ctx.working_dir)
    if paths is not None:
        return paths
    raw = ctx.arguments.get("path")
    if ctx.tool_name == "text_editor" and isinstance(raw, str) and raw.strip():
        return [ctx.working_dir / expand_user(raw)]
    return []


def _sensitive_named(ctx: ApprovalContext, allow_rules: tuple[str, ...] = (),
                     walked: Walked | None = None) -> str | None:
    """Why the call reads or writes a sensitive file none of ``allow_rules`` names, or ``None``.

    A shell command's every word (:func:`~goosectx.sensitive.sensitive_words`: ``.en? (matching
    .env) is a sensitive file``), a built-in call's path (``/w/.env is a sensitive file``).
    ``walked``: the shell line's walk, shared with :func:`_outside_named`.
    """
    command = ctx.arguments.get("command")
    if ctx.tool_name == "shell" and isinstance(command, str):
        shown = next((shown for word, shown in sensitive_words(
            command, ctx.working_dir, data_dir=ctx.data_dir, config_file=ctx.config_file,
            walked=walked) if not names_path(allow_rules, word)), None)
        wide = shown is not None and shown.endswith("any may be)")  # too many matches
        return None if shown is None else f"{shown} {'may name' if wide else 'is'} a sensitive file"
    raw = ctx.arguments.get("path")
    return next((f"{p} {kind}" for p in _named_paths(ctx)
                 if (kind := _sensitive_read(ctx, p)) is not None
                 and not names_path(allow_rules, raw if isinstance(raw, str) else str(p))), None)


def _permission_rules(ctx: ApprovalContext) -> ApprovalVerdict | None:
    if not ctx.rules:
        return None
    command = ctx.arguments.get("command")
    line = command if ctx.tool_name == "shell" and isinstance(command, str) else None
    walked = list(command_dirs(line, ctx.working_dir)) if line is not None and moves(
        line) else None  # one walk of a line with a cd: the rules' dirs and both checks
    found = _matched(ctx, walked)
    named = ", ".join(found.rules)
    if found.kind == "deny":
        return ApprovalVerdict("deny", f"denied by a permission rule: {named}",
                               f"{RULE_DENIED_TEXT} ({named}). Do not retry it; continue "
                               "without it.")
    if found.kind == "ask" and found.unreadable:
        return ApprovalVerdict("ask", f"{found.unreadable}, {CANNOT_CHECK}", rule_bound=True)
    if found.kind == "ask":
        rules = f"ask rule{'s' if len(found.rules) > 1 else ''} {named}"
        return ApprovalVerdict("ask", f"`{found.clause}` matches {rules}" if found.clause
                               else f"a permission rule asks: {named}", rule_bound=True)
    if found.kind != "allow" or ctx.write_target is not None:
        return None
    if line is not None and walked is None:
        walked = list(command_dirs(line, ctx.working_dir))  # no cd: match_rules walked none
    grant = (f"the allow rule {named} does" if len(found.rules) == 1
             else f"the allow rules {named} do")  # cd src && cat .env: shell(cd*), shell(cat*)
    if (secret := _sensitive_named(ctx, found.rules, walked)) is not None:  # cat .env, shell(cat*)
        return _sensitive_ask(ctx, secret, grant)
    if (far := _outside_named(ctx, found.rules, walked)) is not None:  # cat /etc/hosts, likewise
        return _sensitive_ask(ctx, far, grant)
    return ApprovalVerdict("run", f"allowed by a permission rule: {named}")


def _matched(ctx: ApprovalContext, walked: Walked | None = None) -> RuleMatch:
    """The rules' one reading of the call (:func:`match_rules`), kept in ``ctx.matched``."""
    if not ctx.matched:
        ctx.matched.append(match_rules(ctx.rules, ctx.tool_name, ctx.arguments, ctx.working_dir,
                                       walked))
    return ctx.matched[0]


def _outside_named(ctx: ApprovalContext, allow_rules: tuple[str, ...],
                   walked: Walked | None = None) -> str | None:
    """Why a shell command reads outside the project where none of ``allow_rules`` names it.

    :func:`~goosectx.shell_paths.outside_words` (``/etc/hosts is outside the project``): a
    prefix rule is no path rule, as ``text_editor``'s are. ``None``: another tool, or none.
    """
    command = ctx.arguments.get("command")
    if ctx.tool_name != "shell" or not isinstance(command, str):
        return None
    return next((why for word, why in outside_words(command, ctx.working_dir, walked)
                 if not names_path(allow_rules, word)), None)


def _sensitive_ask(ctx: ApprovalContext, secret: str, grant: str) -> ApprovalVerdict | None:
    """The ask on a sensitive file or one outside (``secret``: why) ``grant`` does not cover.

    ``grant`` ends with its verb (``the allow rule … does``, ``"always allow" does``).
    ``None`` in ``auto``: it runs, as without the grant.
    """
    if ctx.mode == "auto":
        return None
    why = f"{secret}, which {grant} not cover"
    return ApprovalVerdict("ask", f"{ctx.mode}: {why}", read_why=why)


def _write_through_symlink(ctx: ApprovalContext) -> ApprovalVerdict | None:
    target = ctx.write_target
    if target is None:
        return None
    return ApprovalVerdict("ask", f"{ctx.arguments.get('path')} → {target}, outside the "
                                  "project: a write through a symlink is always asked about")


def _session_always_allowed(ctx: ApprovalContext) -> ApprovalVerdict | None:
    whole = ctx.tool_name in ctx.always_allowed
    if not whole and not (ctx.read_only and ctx.tool_name in ctx.reads_allowed):
        return None
    if (secret := _sensitive_named(ctx)) is not None:  # `a` at `ls` does not cover `cat .env`
        return _sensitive_ask(ctx, secret, '"always allow" does')
    return ApprovalVerdict("run", f"{'' if whole else 'read-only calls '}always allowed this "
                                  f"session ({ctx.tool_name})")


def _auto_mode(ctx: ApprovalContext) -> ApprovalVerdict | None:
    if ctx.mode == "auto":
        return ApprovalVerdict("run", "auto mode: every tool call runs")
    return None


def _approve_mode(ctx: ApprovalContext) -> ApprovalVerdict | None:
    if ctx.mode == "approve":
        return ApprovalVerdict("ask", "approve mode: every tool call is asked about")
    return None


def _smart_read_only(ctx: ApprovalContext) -> ApprovalVerdict | None:
    if ctx.mode == "smart_approve" and ctx.read_only:
        return ApprovalVerdict("run", "smart_approve: a read-only call runs")
    return None


def _untrusted_extension(ctx: ApprovalContext) -> ApprovalVerdict | None:
    if ctx.mode == "smart_approve" and ctx.extension_trusted is False:
        return ApprovalVerdict("ask", "smart_approve: an untrusted extension's read-only "
                                      "annotation is only its own claim")
    return None


CLAUSES: tuple[Clause, ...] = (
    # Chat mode: nothing runs, whatever a rule or an earlier answer says.
    _chat_mode,
    # A shell line longer than the checks read (shell_budget: 100,000 characters, 500 simple
    # commands, 2,000 words) asks, saying so, before any check reads it: a decision never
    # takes seconds.
    _too_long,
    # Permission rules ([permissions] allow / ask / deny, read from the user's config and the
    # command line, never from the project dir): deny > ask > allow, ahead of the session
    # answers and the mode. An allow rule never overrides the sensitive-file list unless it
    # names the path, nor lets a shell command read outside the working dir (`cat /etc/hosts`
    # under shell(cat*), read scoping's wording) unless it names that path.
    _permission_rules,
    # A text_editor edit whose path leads outside the working dir through a symlink (a repo's
    # notes.txt linked to ~/.bashrc) asks in every mode but chat, even after "always allow" or
    # an allow rule (a deny rule still denies): the question names the real target.
    _write_through_symlink,
    # Read scoping (goosectx/sensitive.py): in smart_approve, a text_editor ``view`` or ``tree``
    # of a sensitive file (.ssh, .aws, .gnupg, .env*, *.pem, id_*, the goosectx data dir, ...)
    # always asks, even after an "always allow" answer; one outside the working dir (resolved,
    # symlinks followed) or a file with other hard links (they may be outside) asks unless the
    # user answered "always allow" for the tool.
    _read_scope,
    # The user's "always allow" answers for this session: one given to a read-only call (a
    # text_editor view) covers the tool's read-only calls only, its edits still ask (Claude
    # Code and Codex keep read and edit grants apart); one given to any other call, the tool.
    # Neither covers a call that reads or writes a sensitive file (a shell command's word
    # naming one: `cat .env`): it asks, the question saying why, as under an allow rule.
    _session_always_allowed,
    # The plain modes.
    _auto_mode,
    _approve_mode,
    # Extension annotations: an extension tool's read-only annotation counts only for a server
    # marked ``trusted = true``; for any other server the call asks.
    _untrusted_extension,
    # smart_approve runs what the tool says is read-only.
    _smart_read_only,
)
"""The decision's clauses, in order; the first that returns a verdict decides."""

_OTHERWISE = ApprovalVerdict("ask", "the call may change something: approval needed")


def decide(ctx: ApprovalContext) -> ApprovalVerdict:
    """Decide whether one tool call runs, is asked about, or is denied.

    The first clause of :data:`CLAUSES` that has an opinion decides; otherwise ``ask``. The
    verdict carries the ``write_target`` and ``read_target`` it was decided on.
    """
    paths = read_paths(ctx.tool_name, ctx.arguments, ctx.working_dir)
    judged = judge(paths[0]) if ctx.tool_name in ("text_editor", "tree") and paths else None
    ctx = replace(ctx, write_target=hidden_target(ctx.tool_name, ctx.arguments,
                                                  ctx.working_dir), read_target=judged,
                  matched=[])  # a fresh reading: a caller may reuse ctx with other rules
    with deciding(ctx.config_file, ctx.data_dir), read_once():  # its config, core.hooksPath
        for clause in CLAUSES:
            verdict = clause(ctx)
            if verdict is not None:
                return replace(verdict, write_target=ctx.write_target, read_target=judged)
        found = _matched(ctx) if (  # read once: _permission_rules may have read it
            ctx.rules.allow or ctx.tool_name == "shell") else None  # grep x | sort: name `sort`
    why = None
    if found is not None and found.uncovered is not None:  # command cat .env: names .env
        if ctx.rules.allow:  # no allow rule: every part is uncovered, none to name
            why = (found.starter is None and _sensitive_named(ctx, found.rules)) or (
                uncovered_reason(found.uncovered, found.rules, found.starter))  # find -exec
    elif found is not None:  # no rule: tar --index-file=F writes F, as under shell(tar*)
        why = found.beyond and beyond_reason(found.beyond) or (
            found.unreadable if found.kind is None else None)  # tee .git/HEAD: what it writes
    otherwise = _OTHERWISE if why is None else ApprovalVerdict("ask", f"{ctx.mode}: {why}",
                                                               read_why=why)
    return replace(otherwise, write_target=ctx.write_target, read_target=judged)


def deny_all(_request: ToolRequest) -> ApprovalDecision:
    """The non-interactive approval: deny whatever needs approval."""
    return "deny"
