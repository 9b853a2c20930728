"""The REPL's approval question: drawn by goosectx after the model's text, answered with one key.

The call is drawn whole (folded when long, until ``v``) as goosectx's own marked question
(``cli/approval_view.py``); the decision itself is ``approval.decide`` (docs/architecture.md §4).
For a shell call the question also offers its command-prefix rule: ``p`` always allows
``shell(git status*)`` for the rest of the session, ``s`` does that and saves the rule to the
user's config file (never a project file). ``n`` then asks for an optional reason, which goes
to the model with the refusal ("denied by the user: use the test runner instead").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.output import Output

from goosectx.approval import INPUT_ENDED, ApprovalAnswer, ApprovalDecision
from goosectx.cli.approval_keys import DENY_AT_ONCE, approval_keys, ask_approval
from goosectx.cli.approval_view import ApprovalQuestion, approval_question
from goosectx.cli.diffview import diff_shown_whole
from goosectx.cli.exit_signals import received_name
from goosectx.cli.folding import INPUT_ENDED_LABEL
from goosectx.cli.prompt_safe import guard_escape_input, guard_input, show_safely
from goosectx.cli.sanitize import code_safe, terminal_safe
from goosectx.cli.terminal import INPUT_ENDED_KEY, drop_typeahead
from goosectx.config import user_config_path
from goosectx.conversation import ToolRequest
from goosectx.errors import GoosectxError
from goosectx.rule_offer import suggested_rule
from goosectx.sensitive import hidden_target

if TYPE_CHECKING:
    from goosectx.cli.repl import Repl


REASON_PROMPT = "reason for the model (Enter to skip): "
ALLOWING = ("allow_once", "always_allow", "allow_rule", "save_rule")
"""The keys that let the call run (the edit's file is checked again before they count)."""


def ask(repl: Repl, request: ToolRequest) -> ApprovalAnswer:
    """Ask whether a tool call may run; returns the answer (decision, rule, reason).

    The model's text is finished first; an edit's diff is drawn before the question (so the
    user approves what they saw); the call is drawn whole (folded when long, until ``v``) as
    goosectx's own marked question (``cli/approval_view.py``). An edit whose file changed
    while the question waited is not approved by a key pressed on the old diff: the change is
    said, the diff on the file as it is now drawn, and the question asked again.
    """
    rule = suggested_rule(request.name, request.arguments or {})
    while True:
        state = repl.agent.edit_state(request)
        key = _question(repl, request, rule)
        if key not in ALLOWING or repl.agent.edit_state(request) == state:
            break
        path = (request.arguments or {}).get("path")
        repl.renderer.notice(terminal_safe(f"{path} changed while this question waited: the "
                                           "edit is shown again on what the file holds now"),
                             style="yellow")
    answer: ApprovalAnswer | None = None
    if key not in ("cancel", INPUT_ENDED_KEY):
        try:
            answer = _answer(repl, key, rule)
        except KeyboardInterrupt:  # Ctrl-C at the reason prompt cancels, as at the question
            key = "cancel"
    stopped_by = received_name() if key == "cancel" else None  # SIGTERM / SIGHUP, not a key
    if key == INPUT_ENDED_KEY:  # no one cancelled: the turn ends, the model is told why
        stopped_by, key = INPUT_ENDED, "cancel"
    if answer is None:  # cancelled at the question or at the reason prompt
        answer = ApprovalAnswer("cancel", reason=stopped_by)
    read_only = repl.agent.always_reads_only(request)
    labels = {decision: text for _k, decision, text in approval_keys(None, read_only=read_only)}
    label = labels.get(answer.decision, answer.decision)
    if stopped_by == INPUT_ENDED:
        label = INPUT_ENDED_LABEL
    elif stopped_by:
        label = f"not run: goosectx was asked to stop ({stopped_by})"
    elif answer.rule:
        label = f"always allow {answer.rule} (until you exit)"
    elif answer.reason:
        label = f"deny · reason: {answer.reason}"
    repl.renderer.notice(code_safe(f"{request.name}: {label}"),
                         style="green" if answer.decision in ("allow_once", "always_allow")
                         else "yellow")
    return answer


def _question(repl: Repl, request: ToolRequest, rule: str | None) -> str:
    """Draw the edit's diff (if any) and the question; returns the key that answered it."""
    diff = repl.agent.preview_edit(request)
    if diff:
        repl.renderer.edit_preview(request, diff)
    target = hidden_target(request.name, request.arguments or {}, repl.session.working_dir)
    question = approval_question(request, repl.io.console.width,
                                 in_diff=bool(diff) and diff_shown_whole(diff or ""),
                                 target=None if target is None else str(target),
                                 why=repl.agent.verdict_of(request).asked_why)
    viewed = False
    repl.renderer.approval(question, whole=False)
    while True:
        key = _key(repl, question, rule, must_view=question.must_view and not viewed,
                   read_only=repl.agent.always_reads_only(request))
        if key != "view":
            return key
        viewed = True
        repl.renderer.approval(question, whole=True)


def _key(repl: Repl, question: ApprovalQuestion, rule: str | None, *, must_view: bool,
         read_only: bool) -> str:
    if repl._prompt is not None:
        real = repl.io.is_real_terminal  # (pipe input in tests: answers typed ahead count)
        dropped = real and drop_typeahead()
        try:
            return ask_approval(question.tool, must_view=must_view, rule=rule,
                                read_only=read_only,
                                input=repl.io.input, output=repl.io.output,
                                guard=real, dropped=dropped)
        except KeyboardInterrupt:
            return "cancel"
        except EOFError:
            return INPUT_ENDED_KEY
    repl.driver.asking = True
    try:
        return repl.io.ask_plain_approval(question.tool, must_view=must_view, rule=rule,
                                          read_only=read_only)
    except KeyboardInterrupt:
        return "cancel"
    finally:
        repl.driver.asking = False


def _answer(repl: Repl, key: str, rule: str | None) -> ApprovalAnswer:
    if key in ("allow_rule", "save_rule") and rule:
        if key == "save_rule":
            _save(repl, rule)
        return ApprovalAnswer("always_allow", rule=rule)
    if key in ("deny", DENY_AT_ONCE):
        return ApprovalAnswer("deny", reason=_reason(repl) if key == "deny" else None)
    decision: ApprovalDecision = key  # type: ignore[assignment]
    return ApprovalAnswer(decision)


def _save(repl: Repl, rule: str) -> None:
    from goosectx.cli.rule_save import save_allow_rule

    path = repl.settings.config_file
    try:
        save_allow_rule(path, rule, may_create=path == user_config_path())
    except GoosectxError as exc:
        repl.renderer.error(exc.message, exc.hint)
        return
    repl.renderer.notice(terminal_safe(f"saved: [permissions] allow += {rule} in {path}"),
                         style="green")


def reason_session(input: Input | None, output: Output | None) -> PromptSession[str]:
    """The reason prompt: what is typed or pasted drawn as the main prompt draws it.

    Its line through the sanitiser's stand-ins (``cli/prompt_safe.py``'s
    :class:`~goosectx.cli.prompt_safe.SafeDisplay`: a pasted U+202E shows ``<U+202E>``), and
    an escape sequence typed or pasted without bracketed paste dropped whole, not a traceback
    or stray text (:func:`~goosectx.cli.prompt_safe.guard_escape_input`).
    """
    keys = KeyBindings()
    guard_escape_input(keys)
    session: PromptSession[str] = PromptSession(input=input, output=output, key_bindings=keys)
    show_safely(session.app.layout.find_all_controls())
    guard_input(session.app.input)
    return session


def _reason(repl: Repl) -> str | None:
    """The user's optional reason for a denial (empty or Ctrl-D: none).

    Raises:
        KeyboardInterrupt: Ctrl-C there (a key to the prompt, a SIGINT to plain stdin, or
            SIGTERM / SIGHUP as one): the caller cancels the turn, as Ctrl-C does at the
            question; the half-typed reason is no answer.
    """
    try:
        if repl._prompt is not None:
            text = reason_session(repl.io.input, repl.io.output).prompt(REASON_PROMPT)
        else:
            repl.driver.asking = True  # the driver's SIGINT handler raises here, as at _key
            try:
                text = repl.io.read_reason(REASON_PROMPT)
            finally:
                repl.driver.asking = False
    except EOFError:
        return None
    return " ".join(text.split()) or None
