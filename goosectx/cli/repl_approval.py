"""The REPL's approval question: drawn by goosectx after the model's text, answered with one key.

The call is drawn whole (folded when long, until ``v``) as goosectx's own marked question
(``cli/approval_view.py``); the decision itself is ``approval.decide`` (docs/architecture.md §4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from goosectx.approval import ApprovalDecision
from goosectx.cli.approval_view import ApprovalQuestion, approval_question
from goosectx.cli.prompt import APPROVAL_KEYS, ask_approval
from goosectx.cli.terminal import drop_typeahead
from goosectx.conversation import ToolRequest

if TYPE_CHECKING:
    from goosectx.cli.repl import Repl


def ask(repl: Repl, request: ToolRequest) -> ApprovalDecision:
    """Ask whether a tool call may run (one key on a terminal, a line in plain mode).

    The model's text is finished first; an edit's diff is drawn before the question (so the
    user approves what they saw); the call is drawn whole (folded when long, until ``v``) as
    goosectx's own marked question (``cli/approval_view.py``).
    """
    diff = repl.agent.preview_edit(request)
    if diff:
        repl.renderer.edit_preview(request, diff)
    question = approval_question(request, repl.io.console.width)
    viewed = False
    repl.renderer.approval(question, whole=False)
    while True:
        answer = _answer(repl, question, must_view=question.long and not viewed)
        if answer != "view":
            decision: ApprovalDecision = answer
            break
        viewed = True
        repl.renderer.approval(question, whole=True)
    label = {key: text for _k, key, text in APPROVAL_KEYS}[decision]
    repl.renderer.notice(f"{request.name}: {label}",
                         style="green" if decision in ("allow_once", "always_allow")
                         else "yellow")
    return decision


def _answer(repl: Repl, question: ApprovalQuestion, *, must_view: bool
        ) -> ApprovalDecision | Literal["view"]:
    if repl._prompt is not None:
        if repl.io.is_real_terminal:
            drop_typeahead()
        try:
            return ask_approval(question.tool, must_view=must_view, input=repl.io.input,
                                output=repl.io.output)
        except (KeyboardInterrupt, EOFError):
            return "cancel"
    repl.driver.asking = True
    try:
        return repl.io.ask_plain_approval(question.tool, must_view=must_view)
    except KeyboardInterrupt:
        return "cancel"
    finally:
        repl.driver.asking = False
