"""The approval decision's inputs and outputs: the call's context, the verdict, the answer.

docs/architecture.md §4. :mod:`goosectx.approval` decides (:func:`goosectx.approval.decide`
maps an :class:`ApprovalContext` to an :class:`ApprovalVerdict`); these are the shapes it and
its callers (the agent, the REPL's question, ``run``) share, re-exported there.

Core module: no printing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

from goosectx.approval_texts import DENIED_TEXT
from goosectx.config import ApprovalMode
from goosectx.conversation import ToolRequest
from goosectx.permissions import PermissionRules, RuleMatch
from goosectx.read_target import JudgedFile

ApprovalDecision = Literal["allow_once", "always_allow", "deny", "cancel"]
"""The user's answer to an ``ask`` verdict."""


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    """An answer with more than the decision.

    Attributes:
        decision: The decision.
        reason: With ``deny``: the user's reason, told to the model with the refusal. With
            ``cancel``: the signal that stopped goosectx (``SIGTERM``), or
            :data:`INPUT_ENDED`, when no one chose it.
        rule: With ``always_allow``: a permission rule (``shell(git status*)``) allowed for the
            rest of the session instead of the whole tool.
    """

    decision: ApprovalDecision
    reason: str | None = None
    rule: str | None = None


ApprovalFn: TypeAlias = Callable[[ToolRequest], "ApprovalDecision | ApprovalAnswer"]
"""Answers an ``ask`` verdict (the REPL asks the user; ``run`` without a terminal denies)."""
ApprovalAction = Literal["run", "ask", "deny"]

@dataclass(frozen=True, slots=True)
class ApprovalContext:
    """Everything the decision looks at for one tool call.

    Attributes:
        mode: The approval mode in force.
        tool_name: The tool's name as the model called it.
        read_only: The tool's own claim that this call changes nothing
            (``Tool.is_read_only(arguments)``); False when the tool is unknown or the
            arguments could not be parsed.
        working_dir: The session's working dir (read scoping will resolve paths against it).
        arguments: The call's parsed arguments (empty when they could not be parsed).
        rules: The permission rules (user config and command line, never the project dir).
        always_allowed: Tools the user answered "always allow" for in this session (an
            answer given to a call that could change something: all the tool's calls run).
        reads_allowed: Tools whose read-only calls the user always allowed (the answer was
            given to a read-only call, a ``text_editor view``): their edits still ask.
        data_dir: goosectx's data dir; a read of anything in it counts as sensitive.
        config_file: goosectx's config file, sensitive too (extension headers hold tokens).
        extension_trusted: For an extension's tool, whether its server is marked
            ``trusted = true``; ``None`` for a built-in tool.
        write_target: Set by :func:`decide` (whatever was given): where a ``text_editor``
            edit really writes when a symlink leads it outside the project
            (:func:`~goosectx.sensitive.hidden_target`), looked up once per decision.
        read_target: Set by :func:`decide` (whatever was given): the file a ``text_editor
            view`` reads (the directory a ``tree`` lists), its path resolved once; read
            scoping judges that file.
        matched: Set by :func:`decide` (fresh for each decision): the permission rules' one
            reading of the call (:func:`~goosectx.permissions.match_rules`), filled by the
            first clause that needs it and read again by the decision's fallback.
    """

    mode: ApprovalMode
    tool_name: str
    read_only: bool
    working_dir: Path
    arguments: Mapping[str, Any] = field(default_factory=dict)
    rules: PermissionRules = field(default_factory=PermissionRules)
    always_allowed: frozenset[str] = frozenset()
    reads_allowed: frozenset[str] = frozenset()
    data_dir: Path | None = None
    config_file: Path | None = None
    extension_trusted: bool | None = None
    write_target: Path | None = None
    read_target: JudgedFile | None = None
    matched: list[RuleMatch] = field(default_factory=list, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ApprovalVerdict:
    """What happens to one tool call, and why.

    Attributes:
        action: ``run`` (run without asking), ``ask`` (the :data:`ApprovalFn` answers) or
            ``deny`` (do not run).
        reason: A short human-readable reason ("smart_approve: read-only call").
        tool_text: For ``deny``: the tool response the model gets.
        write_target: The file outside the project a ``text_editor`` edit writes through a
            symlink, as the decision saw it (a ``run`` verdict never has one; an ``ask``
            names it); ``None``: the path led nowhere outside. The editor writes through a
            symlink outside only to this file (``ToolContext.write_target``), so a path
            swapped for a link after the decision is refused, not written through.
        read_target: The file a ``text_editor view`` was judged on (``None``: no such call);
            the editor reads only that file (``ToolContext.read_target``), so a path swapped
            for a link to elsewhere after the decision is refused, not read.
        rule_bound: An ``ask`` a permission rule makes (an ask rule, or a shell command the
            deny and ask rules cannot check): no allow rule or mode runs it, only a person's
            answer or a narrower rule (the reason says why, naming the part).
        read_why: For an ``ask`` read scoping makes: why, after the path (``/x/notes.txt is
            outside the project``); the question and ``run``'s warning say it. ``None``
            otherwise.
    """

    action: ApprovalAction
    reason: str
    tool_text: str = DENIED_TEXT
    write_target: Path | None = None
    read_target: JudgedFile | None = None
    rule_bound: bool = False
    read_why: str | None = None

    @property
    def asked_why(self) -> str | None:
        """Why the question asks, for it to say: :attr:`read_why`, or a rule-bound ``reason``.

        ``rm -rf build matches ask rule shell(rm *)``; ``None``: the mode's own ask.
        """
        return self.read_why or (self.reason if self.rule_bound else None)
