"""What the model is told about a tool call that did not run, and why; the approval's texts.

docs/architecture.md §4. Kept apart from :mod:`goosectx.approval` (the decision), which
re-exports every name here.

Core module: no printing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goosectx.approval import ApprovalVerdict

DENIED_TEXT = (
    "The user denied this tool call. Do not retry it; continue without it or ask the user."
)
NON_INTERACTIVE_DENIED_TEXT = (
    "This tool call needs approval, and goosectx is running without a terminal to ask the "
    "user, so it was not run. Do not retry it; finish without it or explain what you need."
)
RULE_BOUND_WAY_OUT = ("no --allow rule or mode can run it: answer it in the REPL, or drop or "
                      "narrow the deny or ask rule behind it")
"""What a user can do about an ``ask`` a rule makes (:attr:`ApprovalVerdict.rule_bound`)."""


def non_interactive_denied_text(verdict: ApprovalVerdict | None) -> str:
    """What the model gets for a call ``run`` denied without a terminal.

    Why, for a rule's ask or a read that read scoping asks about (a sensitive file, a path
    outside the project).
    """
    if verdict is None or not verdict.rule_bound and verdict.read_why is None:
        return NON_INTERACTIVE_DENIED_TEXT
    why = verdict.reason if verdict.rule_bound else verdict.read_why
    return f"{NON_INTERACTIVE_DENIED_TEXT} It needs approval because {why}."


CHAT_MODE_TEXT = (
    "Tools are disabled: goosectx is in chat mode, so no tool was run. Answer without tools."
)
RULE_DENIED_TEXT = "This tool call is denied by the user's permission rule"
"""Starts what the model gets for a call a deny rule refused; ``(RULES).`` follows."""
CANCELLED_TEXT = "The user cancelled this tool call."
"""The answer to a call a Ctrl-C stopped or left unanswered: it may have run. Sessions stored
before a cancel at the question got its own text hold it for that too (read as "may have run")."""
ASKED_CANCELLED_TEXT = (f"{CANCELLED_TEXT} It was cancelled at its approval question: "
                        "it did not run.")
"""The answer to a call the user cancelled (``c``) at its approval question: it changed nothing."""
STOPPED_PREFIX = "goosectx was asked to stop"
"""Starts what the model gets for a call not run because goosectx was stopped (SIGTERM)."""
STOPPED_RUNNING = "while this tool call ran"
"""Follows the signal's name in what the model gets for a call stopped while it ran."""


INPUT_ENDED = "end of input"
"""``ApprovalAnswer.reason`` of a ``cancel`` no one chose: input ended at the question."""
INPUT_ENDED_TEXT = ("Input ended at the approval question, so this tool call was not run. "
                    "The user did not decide about it.")
"""What the model gets for a call whose approval question met the end of (piped) input."""


def cancelled_text(stopped_by: str | None, *, asked: bool = False) -> str:
    """The answer to a call a cancel left unanswered: the user's, a signal's, the input's.

    ``stopped_by``: ``None`` (the user), a signal's name (``SIGTERM``), or
    :data:`INPUT_ENDED` (piped input ended at the approval question). ``asked``: the cancel
    was the answer to the call's approval question, so the call did not run (``/undo`` leaves
    it out); otherwise the user's is a Ctrl-C, which may have met a call as it started.
    """
    if stopped_by == INPUT_ENDED:
        return INPUT_ENDED_TEXT
    if stopped_by:
        return (f"{STOPPED_PREFIX} ({stopped_by}) before this tool call could run; it did not "
                "run. The user did not decide about it.")
    return ASKED_CANCELLED_TEXT if asked else CANCELLED_TEXT


def stopped_running_text(stopped_by: str | None) -> str:
    """The answer to a call a cancel stopped while it ran: the user's, or a signal's (SIGTERM).

    The output the call wrote so far follows it on the next lines (the caller's).
    """
    if stopped_by:
        return (f"{STOPPED_PREFIX} ({stopped_by}) {STOPPED_RUNNING}; it was stopped before it "
                "finished. The user did not cancel it.")
    return CANCELLED_TEXT


def denied_text(reason: str | None) -> str:
    """What the model gets for a call the user denied, with the user's reason if given."""
    if reason and reason.strip():
        return (f"denied by the user: {' '.join(reason.split())}\n"
                "Do not retry this call; follow the user's reason.")
    return DENIED_TEXT


def uncovered_reason(part: str, covering: tuple[str, ...], starter: str | None = None) -> str:
    """Why a line is asked about under allow rules: the part none covers.

    ``sort is covered by no allow rule (shell(grep*) covers the rest of the line)``: the
    question's "asked because …" and ``run``'s notice without a terminal; with no part
    covered, ``printenv PATH is covered by no allow rule``. ``starter``: what runs ``part``,
    a program a wrapper starts (``find -exec runs rm, which no allow rule covers
    (shell(find*) covers the rest of the line)``).
    """
    verb = "covers" if len(covering) == 1 else "cover"
    rest = f" ({', '.join(covering)} {verb} the rest of the line)" if covering else ""
    if starter is not None:
        return f"{starter} runs {part}, which no allow rule covers{rest}"
    return f"{part} is covered by no allow rule{rest}"


def beyond_reason(why: str) -> str:
    """Why an awk or sed call is asked about under allow rules: what it does beyond reading.

    ``awk's program runs a command (system, a pipe), which no allow rule covers``
    (:attr:`goosectx.permissions.RuleMatch.beyond`).
    """
    return f"{why}, which no allow rule covers"
